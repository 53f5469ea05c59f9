#include "ops/string/string_ops.h"

#include <gtest/gtest.h>

#include "ops/run_single_op.h"
#include "base/test_status.h"

namespace tfhost::ops {
namespace {

Tensor Strings(std::vector<std::string> v, Shape shape) { return Tensor::FromVector(v, shape); }
Tensor Strings(std::vector<std::string> v) { return Tensor::FromVector(v); }

TEST(StringJoinTest, BroadcastsScalarsAgainstTensors) {
  auto out = RunSingleOp("StringJoin",
                         {Tensor::StringScalar("pre"), Strings({"a", "b", "c", "d"}, Shape({2, 2})),
                          Tensor::StringScalar("post")},
                         {{"N", MakeAttr(3)}, {"separator", MakeAttr("-")}});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_TRUE(TensorsEqual((*out)[0], Strings({"pre-a-post", "pre-b-post", "pre-c-post", "pre-d-post"},
                                              Shape({2, 2}))));
}

TEST(StringJoinTest, EqualShapesJoinElementwiseWithDefaultSeparator) {
  auto out = RunSingleOp("StringJoin", {Strings({"a", "b"}), Strings({"1", "2"})}, {{"N", MakeAttr(2)}});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_TRUE(TensorsEqual((*out)[0], Strings({"a1", "b2"})));
}

TEST(StringJoinTest, MismatchedShapesAreAnError) {
  auto out = RunSingleOp("StringJoin", {Strings({"a", "b"}), Strings({"1", "2", "3"})},
                         {{"N", MakeAttr(2)}});
  TFHOST_EXPECT_ERROR(out, StatusCode::kInvalidArgument,
                      "inputs must have equal shapes or be scalars: incompatible shapes for broadcasting: [2] and [3]");
}

TEST(StringLengthTest, CountsBytesOrUtf8Characters) {
  Tensor in = Strings({"", "abc", "h\xc3\xa9llo"});  // "héllo": 6 bytes, 5 chars
  auto bytes = RunSingleOp("StringLength", {in});
  ASSERT_TRUE(bytes.ok()) << bytes.status().ToString();
  EXPECT_TRUE(TensorsEqual((*bytes)[0], Tensor::FromVector<int32_t>({0, 3, 6})));
  auto chars = RunSingleOp("StringLength", {in}, {{"unit", MakeAttr("UTF8_CHAR")}});
  ASSERT_TRUE(chars.ok()) << chars.status().ToString();
  EXPECT_TRUE(TensorsEqual((*chars)[0], Tensor::FromVector<int32_t>({0, 3, 5})));
}

TEST(StringCaseTest, LowerAndUpperMapAsciiOnly) {
  Tensor in = Strings({"MiXeD 123", "\xc3\x89t\xc3\xa9"});
  auto lower = RunSingleOp("StringLower", {in});
  auto upper = RunSingleOp("StringUpper", {in});
  ASSERT_TRUE(lower.ok() && upper.ok());
  EXPECT_TRUE(TensorsEqual((*lower)[0], Strings({"mixed 123", "\xc3\x89t\xc3\xa9"})));
  EXPECT_TRUE(TensorsEqual((*upper)[0], Strings({"MIXED 123", "\xc3\x89T\xc3\xa9"})));
}

TEST(SubstrTest, ScalarPosAndLenWithNegativePosAndOverlongLen) {
  Tensor in = Strings({"hello", "ab"});
  auto out = RunSingleOp("Substr", {in, Tensor::Scalar<int32_t>(1), Tensor::Scalar<int32_t>(3)});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_TRUE(TensorsEqual((*out)[0], Strings({"ell", "b"})));
  auto neg = RunSingleOp("Substr", {in, Tensor::FromVector<int64_t>({-3, -2}),
                                    Tensor::FromVector<int64_t>({2, 10})});
  ASSERT_TRUE(neg.ok()) << neg.status().ToString();
  EXPECT_TRUE(TensorsEqual((*neg)[0], Strings({"ll", "ab"})));
}

TEST(SubstrTest, PosPastTheEndIsAnError) {
  auto out = RunSingleOp("Substr", {Strings({"abc"}), Tensor::Scalar<int32_t>(4), Tensor::Scalar<int32_t>(1)});
  TFHOST_ASSERT_ERROR(out, StatusCode::kInvalidArgument, "pos 4 out of range for string of length 3 at index 0");
}

TEST(StringSplitV2Test, SeparatorKeepsEmptyTokensLikePython) {
  auto out = RunSingleOp("StringSplitV2", {Strings({"1,,2", "x"}), Tensor::StringScalar(",")});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_TRUE(TensorsEqual((*out)[0], Tensor::FromVector<int64_t>({0, 0, 0, 1, 0, 2, 1, 0}, Shape({4, 2}))));
  EXPECT_TRUE(TensorsEqual((*out)[1], Strings({"1", "", "2", "x"})));
  EXPECT_TRUE(TensorsEqual((*out)[2], Tensor::FromVector<int64_t>({2, 3})));
}

TEST(StringSplitV2Test, EmptySeparatorSplitsOnWhitespaceRunsWithMaxsplit) {
  auto out = RunSingleOp("StringSplitV2", {Strings({"  a  b c  ", "   "}), Tensor::StringScalar("")},
                         {{"maxsplit", MakeAttr(1)}});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  // The remainder keeps its trailing whitespace, as in TensorFlow (and Python).
  EXPECT_TRUE(TensorsEqual((*out)[1], Strings({"a", "b c  "})));
  EXPECT_TRUE(TensorsEqual((*out)[2], Tensor::FromVector<int64_t>({2, 2})));
}

}  // namespace
}  // namespace tfhost::ops
