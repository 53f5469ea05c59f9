#include <gtest/gtest.h>

#include "ops/run_single_op.h"
#include "base/test_status.h"

namespace tfhost::ops {
namespace {

Tensor Strings(const std::vector<std::string>& v, Shape shape) {
  Tensor t(DType::kString, shape);
  for (size_t i = 0; i < v.size(); ++i) t.strings()[i] = v[i];
  return t;
}
Tensor Strings(const std::vector<std::string>& v) { return Strings(v, Shape({static_cast<int64_t>(v.size())})); }

TEST(Base64Test, WebSafeAlphabetWithOptionalPadding) {
  // RFC 4648 test vectors, web-safe: "f" -> "Zg", "foob" -> "Zm9vYg", and
  // bytes fb ff -> "-_8" (standard "+/8").
  Tensor in = Strings({"", "f", "foob", "foobar", std::string("\xfb\xff", 2)});
  auto plain = RunSingleOp("EncodeBase64", {in});
  ASSERT_TRUE(plain.ok()) << plain.status().ToString();
  EXPECT_TRUE(TensorsEqual((*plain)[0], Strings({"", "Zg", "Zm9vYg", "Zm9vYmFy", "-_8"})));
  auto padded = RunSingleOp("EncodeBase64", {in}, {{"pad", MakeAttr(true)}});
  ASSERT_TRUE(padded.ok());
  EXPECT_TRUE(TensorsEqual((*padded)[0], Strings({"", "Zg==", "Zm9vYg==", "Zm9vYmFy", "-_8="})));
  for (const auto& enc : {(*plain)[0], (*padded)[0]}) {
    auto back = RunSingleOp("DecodeBase64", {enc});
    ASSERT_TRUE(back.ok()) << back.status().ToString();
    EXPECT_TRUE(TensorsEqual((*back)[0], in));
  }
  TFHOST_EXPECT_ERROR(RunSingleOp("DecodeBase64", {Strings({"Zm9v+g"})}), StatusCode::kInvalidArgument,
                      "Invalid character found in base64 (element 0): invalid base64: unexpected '+' at offset 4");  // '+' is not web-safe
  TFHOST_EXPECT_ERROR(RunSingleOp("DecodeBase64", {Strings({"Z"})}), StatusCode::kInvalidArgument,
                      "Invalid character found in base64 (element 0): invalid base64: truncated (length 1)");
}

TEST(StringStripTest, RemovesSurroundingWhitespaceOnly) {
  auto out = RunSingleOp("StringStrip", {Strings({" \ta b\n", "", "  "})});
  ASSERT_TRUE(out.ok());
  EXPECT_TRUE(TensorsEqual((*out)[0], Strings({"a b", "", ""})));
}

TEST(StringSplitTest, SplitsAtAnyDelimiterCharacterAndSkipsEmpty) {
  // tf.string_split docs: ["hello world", "a b c"] with " " -> indices
  // [0,0],[0,1],[1,0],[1,1],[1,2], shape [2, 3].
  auto out = RunSingleOp("StringSplit", {Strings({"hello world", "a b c"}), Tensor::StringScalar(" ")});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_TRUE(TensorsEqual((*out)[0], Tensor::FromVector<int64_t>({0, 0, 0, 1, 1, 0, 1, 1, 1, 2}, Shape({5, 2}))));
  EXPECT_TRUE(TensorsEqual((*out)[1], Strings({"hello", "world", "a", "b", "c"})));
  EXPECT_TRUE(TensorsEqual((*out)[2], Tensor::FromVector<int64_t>({2, 3})));
  // Each character of the delimiter splits; skip_empty false keeps "" tokens.
  auto keep = RunSingleOp("StringSplit", {Strings({"a,,b;c"}), Tensor::StringScalar(",;")}, {{"skip_empty", MakeAttr(false)}});
  ASSERT_TRUE(keep.ok());
  EXPECT_TRUE(TensorsEqual((*keep)[1], Strings({"a", "", "b", "c"})));
  auto chars = RunSingleOp("StringSplit", {Strings({"xy"}), Tensor::StringScalar("")});
  ASSERT_TRUE(chars.ok());
  EXPECT_TRUE(TensorsEqual((*chars)[1], Strings({"x", "y"})));
}

TEST(ReduceJoinTest, JoinsAlongAxesInTheGivenOrder) {
  // tf.strings.reduce_join docs: [["a", "b"], ["c", "d"]]:
  // axis 0 -> ["ac", "bd"]; axis 1 -> ["ab", "cd"]; [0, 1] -> "acbd"; [1, 0] -> "abcd".
  Tensor x = Strings({"a", "b", "c", "d"}, Shape({2, 2}));
  auto axis0 = RunSingleOp("ReduceJoin", {x, Tensor::Scalar<int32_t>(0)});
  ASSERT_TRUE(axis0.ok()) << axis0.status().ToString();
  EXPECT_TRUE(TensorsEqual((*axis0)[0], Strings({"ac", "bd"})));
  auto axis1 = RunSingleOp("ReduceJoin", {x, Tensor::Scalar<int32_t>(-1)}, {{"keep_dims", MakeAttr(true)}, {"separator", MakeAttr("-")}});
  ASSERT_TRUE(axis1.ok());
  EXPECT_TRUE(TensorsEqual((*axis1)[0], Strings({"a-b", "c-d"}, Shape({2, 1}))));
  auto both = RunSingleOp("ReduceJoin", {x, Tensor::FromVector<int32_t>({0, 1})});
  ASSERT_TRUE(both.ok());
  EXPECT_EQ((*both)[0].strings()[0], "acbd");
  auto other = RunSingleOp("ReduceJoin", {x, Tensor::FromVector<int32_t>({1, 0})});
  ASSERT_TRUE(other.ok());
  EXPECT_EQ((*other)[0].strings()[0], "abcd");
  TFHOST_EXPECT_ERROR(RunSingleOp("ReduceJoin", {x, Tensor::FromVector<int32_t>({0, 0})}), StatusCode::kInvalidArgument,
                      "Duplicate reduction dimension 0");
}

}  // namespace
}  // namespace tfhost::ops
