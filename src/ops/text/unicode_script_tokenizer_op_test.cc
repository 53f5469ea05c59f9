#include <gtest/gtest.h>

#include <vector>

#include "ops/run_single_op.h"
#include "ops/shape_fn_test_util.h"
#include "ops/text/text_test_util.h"
#include "base/test_status.h"

namespace tfhost::ops {
namespace {

constexpr char kOp[] = "UnicodeScriptTokenizeWithOffsets";

StatusOr<std::vector<Tensor>> Tokenize(const std::vector<int32_t>& cps, const std::vector<int64_t>& splits,
                                       bool keep_whitespace = false) {
  return RunSingleOp(kOp, {Tensor::FromVector(cps), Tensor::FromVector(splits)},
                     {{"keep_whitespace", MakeAttr(keep_whitespace)}});
}

// Row 0 "東京 tower, 2024!": Han, space, Latin, then Common (",", " ",
// digits, "!" share it). The Common token keeps its inner space out of the
// values but inside its span [8, 15). Row 1 is empty; row 2 "ab" is Latin.
TEST(UnicodeScriptTokenizeTest, SplitsWhereTheScriptChanges) {
  const std::vector<int32_t> row0 = {0x6771, 0x4EAC, ' ', 't', 'o', 'w', 'e', 'r', ',', ' ', '2', '0', '2', '4', '!'};
  std::vector<int32_t> cps = row0;
  cps.push_back('a');
  cps.push_back('b');
  auto out = Tokenize(cps, {0, 15, 15, 17});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ(Vec<int32_t>((*out)[0]), (std::vector<int32_t>{0x6771, 0x4EAC, 't', 'o', 'w', 'e', 'r', ',', '2', '0',
                                                           '2', '4', '!', 'a', 'b'}));
  EXPECT_EQ(Vec<int64_t>((*out)[1]), (std::vector<int64_t>{0, 2, 7, 13, 15}));
  EXPECT_EQ(Vec<int64_t>((*out)[2]), (std::vector<int64_t>{0, 3, 8, 0}));
  EXPECT_EQ(Vec<int64_t>((*out)[3]), (std::vector<int64_t>{2, 8, 15, 2}));
  EXPECT_EQ(Vec<int64_t>((*out)[4]), (std::vector<int64_t>{0, 3, 3, 4}));
}

// keep_whitespace: whitespace runs become tokens of their own. Without it
// they are dropped and a limit stops before the run that ends its token.
TEST(UnicodeScriptTokenizeTest, KeepWhitespaceAndTrailingSpaces) {
  auto kept = Tokenize({'a', ' ', ' ', 'b', ' '}, {0, 5}, true);
  ASSERT_TRUE(kept.ok()) << kept.status().ToString();
  EXPECT_EQ(Vec<int64_t>((*kept)[1]), (std::vector<int64_t>{0, 1, 3, 4, 5}));
  EXPECT_EQ(Vec<int64_t>((*kept)[2]), (std::vector<int64_t>{0, 1, 3, 4}));
  EXPECT_EQ(Vec<int64_t>((*kept)[3]), (std::vector<int64_t>{1, 3, 4, 5}));
  auto dropped = Tokenize({'a', ' ', ' ', 'b', ' '}, {0, 5});
  ASSERT_TRUE(dropped.ok());
  EXPECT_EQ(Vec<int32_t>((*dropped)[0]), (std::vector<int32_t>{'a', 'b'}));
  EXPECT_EQ(Vec<int64_t>((*dropped)[2]), (std::vector<int64_t>{0, 3}));
  EXPECT_EQ(Vec<int64_t>((*dropped)[3]), (std::vector<int64_t>{1, 4}));
}

// Code points ICU rejects share USCRIPT_INVALID_CODE: one token of their own.
TEST(UnicodeScriptTokenizeTest, InvalidCodePointsAndInt32Splits) {
  auto out = RunSingleOp(kOp, {Tensor::FromVector<int32_t>({'a', -5, 0x110000, 'b'}),
                               Tensor::FromVector<int32_t>({0, 4})},
                         {{"Tsplits", MakeAttr(DType::kInt32)}});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ((*out)[1].dtype(), DType::kInt32);
  EXPECT_EQ(Vec<int32_t>((*out)[1]), (std::vector<int32_t>{0, 1, 3, 4}));
  EXPECT_EQ(Vec<int32_t>((*out)[4]), (std::vector<int32_t>{0, 3}));
}

TEST(UnicodeScriptTokenizeTest, EmptyBatch) {
  auto out = Tokenize({}, {0});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ((*out)[0].shape(), Shape({0}));
  EXPECT_EQ(Vec<int64_t>((*out)[1]), (std::vector<int64_t>{0}));
  EXPECT_EQ(Vec<int64_t>((*out)[4]), (std::vector<int64_t>{0}));
}

TEST(UnicodeScriptTokenizeTest, BadSplitsAreErrors) {
  auto empty = Tokenize({'a'}, {});
  TFHOST_ASSERT_ERROR(empty, StatusCode::kInvalidArgument,
                      "node 'test_UnicodeScriptTokenizeWithOffsets' (UnicodeScriptTokenizeWithOffsets): input_splits "
                      "must hold at least one split (0)");
  EXPECT_EQ(empty.status().message(), std::string("node 'test_") + kOp + "' (" + kOp +
                                          "): input_splits must hold at least one split (0)");
  auto decreasing = Tokenize({'a', 'b'}, {0, 2, 1});
  TFHOST_ASSERT_ERROR(decreasing, StatusCode::kInvalidArgument,
                      "input_splits must be non-decreasing, got 2 then 1 at 2");
  auto short_splits = Tokenize({'a', 'b'}, {0, 1});
  TFHOST_ASSERT_ERROR(short_splits, StatusCode::kInvalidArgument,
                      "input_splits must end at the number of input_values (2), got 1");
  EXPECT_NE(short_splits.status().message().find("must end at the number of input_values (2), got 1"),
            std::string::npos);
}

TEST(UnicodeScriptTokenizeTest, ShapeKeepsTheOuterSplits) {
  using ir::PartialShape;
  auto shapes = testing::InferShape(kOp, {PartialShape::Known({-1}), PartialShape::Known({5})}, {}, 5);
  EXPECT_EQ(shapes[0], PartialShape::Known({-1}));
  EXPECT_EQ(shapes[4], PartialShape::Known({5}));
}

}  // namespace
}  // namespace tfhost::ops
