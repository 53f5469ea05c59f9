#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "ops/run_single_op.h"
#include "ops/shape_fn_test_util.h"
#include "ops/text/text_test_util.h"
#include "base/test_status.h"

namespace tfhost::ops {
namespace {

constexpr char kOp[] = "TFText>WhitespaceTokenizeWithOffsetsV2";

// The config tensorflow-text builds: bit (c & 7) of byte (c >> 3) set for each
// whitespace code point c, up to the largest.
Tensor Config(const std::vector<int>& whitespace) {
  int largest = 0;
  for (int c : whitespace) largest = std::max(largest, c);
  std::string bits(largest / 8 + 1, '\0');
  for (int c : whitespace) bits[c >> 3] = static_cast<char>(bits[c >> 3] | (1 << (c & 7)));
  return Tensor::StringScalar(bits);
}

// Tab, LF, space, NO-BREAK SPACE, IDEOGRAPHIC SPACE.
Tensor UnicodeWhitespace() { return Config({0x09, 0x0A, 0x20, 0xA0, 0x3000}); }

TEST(WhitespaceTokenizeV2Test, SplitsOnConfiguredWhitespace) {
  auto out = RunSingleOp(kOp, {Strings({"a bb  ccc", "", "   ", "\tcaf\xC3\xA9\n"}), UnicodeWhitespace()});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ(Values((*out)[0]), (std::vector<std::string>{"a", "bb", "ccc", "caf\xC3\xA9"}));
  EXPECT_EQ(Vec<int64_t>((*out)[1]), (std::vector<int64_t>{0, 3, 3, 3, 4}));
  EXPECT_EQ(Vec<int32_t>((*out)[2]), (std::vector<int32_t>{0, 2, 6, 1}));
  EXPECT_EQ(Vec<int32_t>((*out)[3]), (std::vector<int32_t>{1, 4, 9, 6}));
}

// A token ended by multi-byte whitespace keeps all but its last byte:
// tensorflow-text's end offset is (position after the whitespace) - 1.
TEST(WhitespaceTokenizeV2Test, MultiByteWhitespaceQuirk) {
  auto out = RunSingleOp(kOp, {Strings({"a\xE3\x80\x80" "b", "x\xC2\xA0y"}), UnicodeWhitespace()});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ(Values((*out)[0]), (std::vector<std::string>{"a\xE3\x80", "b", "x\xC2", "y"}));
  EXPECT_EQ(Vec<int32_t>((*out)[2]), (std::vector<int32_t>{0, 4, 0, 3}));
  EXPECT_EQ(Vec<int32_t>((*out)[3]), (std::vector<int32_t>{3, 5, 2, 4}));
}

// Only what the config lists is whitespace: here not the space, and nothing
// past the bitmap's end. Ill-formed bytes are never whitespace.
TEST(WhitespaceTokenizeV2Test, ConfigDecidesAndIllFormedBytesAreTokenText) {
  auto out = RunSingleOp(kOp, {Strings({"a b\tc\xFF\td\xE3\x80\x80"}), Config({0x09})});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ(Values((*out)[0]), (std::vector<std::string>{"a b", "c\xFF", "d\xE3\x80\x80"}));
  auto empty_config = RunSingleOp(kOp, {Strings({"a b"}), Tensor::StringScalar("")});
  ASSERT_TRUE(empty_config.ok());
  EXPECT_EQ(Values((*empty_config)[0]), (std::vector<std::string>{"a b"}));
}

TEST(WhitespaceTokenizeV2Test, EmptyBatch) {
  auto out = RunSingleOp(kOp, {Strings({}), UnicodeWhitespace()});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ((*out)[0].shape(), Shape({0}));
  EXPECT_EQ(Vec<int64_t>((*out)[1]), (std::vector<int64_t>{0}));
}

TEST(WhitespaceTokenizeV2Test, RankAndConfigAreChecked) {
  Tensor matrix(DType::kString, Shape({1, 1}));
  auto rank = RunSingleOp(kOp, {matrix, UnicodeWhitespace()});
  TFHOST_ASSERT_ERROR(rank, StatusCode::kInvalidArgument,
                      "node 'test_TFText>WhitespaceTokenizeWithOffsetsV2' (TFText>WhitespaceTokenizeWithOffsetsV2): "
                      "input_values must be a vector (rank 1), got");
  EXPECT_EQ(rank.status().message(), std::string("node 'test_") + kOp + "' (" + kOp +
                                         "): input_values must be a vector (rank 1), got shape [1,1]");
  auto config = RunSingleOp(kOp, {Strings({"a"}), Strings({"x", "y"})});
  TFHOST_ASSERT_ERROR(config, StatusCode::kInvalidArgument, "input_config must be a string scalar, got string[2]");
}

TEST(WhitespaceTokenizeV2Test, Shape) {
  using ir::PartialShape;
  auto shapes = testing::InferShape(kOp, {PartialShape::Known({3}), PartialShape::Scalar()}, {}, 4);
  EXPECT_EQ(shapes[0], PartialShape::Known({-1}));
  EXPECT_EQ(shapes[1], PartialShape::Known({4}));
  EXPECT_EQ(shapes[3], PartialShape::Known({-1}));
  EXPECT_EQ(testing::InferShape(kOp, {PartialShape::Known({-1}), PartialShape::Scalar()}, {}, 4)[1],
            PartialShape::Known({-1}));
}

}  // namespace
}  // namespace tfhost::ops
