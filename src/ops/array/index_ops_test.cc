#include <limits>

#include "ops/array/array_test_util.h"

namespace tfhost::ops::array {
namespace {

using test_util::F32;
using test_util::Floats;
using test_util::I32;
using test_util::I64;
using test_util::Ints;
using test_util::RunOp;
using test_util::RunError;

TEST(WhereTest, BoolInputGivesRowMajorCoordinates) {
  Tensor b = Tensor::FromVector<bool>({true, false, false, true, true, false}, Shape({2, 3}));
  auto out = RunOp("Where", {b}, {});
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].dtype(), DType::kInt64);
  EXPECT_EQ(out[0].shape(), Shape({3, 2}));
  EXPECT_EQ(Ints(out[0]), (std::vector<int64_t>{0, 0, 1, 0, 1, 1}));
}

TEST(WhereTest, NumericInputTreatsNegativeZeroAsFalse) {
  auto out = RunOp("Where", {F32({0.0f, -0.0f, 2.5f, -1.0f}, {4})}, {{"T", MakeAttr(DType::kFloat)}});
  EXPECT_EQ(out[0].shape(), Shape({2, 1}));
  EXPECT_EQ(Ints(out[0]), (std::vector<int64_t>{2, 3}));
}

TEST(OneHotTest, OutOfRangeIndexGivesAllOff) {
  auto out = RunOp("OneHot", {I64({0, 2, -1, 5}), Tensor::Scalar<int32_t>(3),
                            Tensor::Scalar<float>(1), Tensor::Scalar<float>(0)},
                 {{"T", MakeAttr(DType::kFloat)}});
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].shape(), Shape({4, 3}));
  EXPECT_EQ(Floats(out[0]), (std::vector<float>{1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0}));
}

TEST(OneHotTest, AxisZeroPutsDepthFirst) {
  auto out = RunOp("OneHot", {I32({1, 0}), Tensor::Scalar<int32_t>(2), Tensor::Scalar<float>(5),
                            Tensor::Scalar<float>(-1)},
                 {{"T", MakeAttr(DType::kFloat)}, {"TI", MakeAttr(DType::kInt32)}, {"axis", MakeAttr(0)}});
  EXPECT_EQ(out[0].shape(), Shape({2, 2}));
  EXPECT_EQ(Floats(out[0]), (std::vector<float>{-1, 5, 5, -1}));
  EXPECT_FALSE(RunError("OneHot", {I32({1}), Tensor::Scalar<int32_t>(-2), Tensor::Scalar<float>(1),
                                   Tensor::Scalar<float>(0)},
                        {{"T", MakeAttr(DType::kFloat)}, {"TI", MakeAttr(DType::kInt32)}})
                   .ok());
}

TEST(UniqueTest, KeepsFirstOccurrenceOrder) {
  auto out = RunOp("Unique", {I32({1, 1, 2, 4, 4, 4, 7, 8, 8})}, {{"T", MakeAttr(DType::kInt32)}});
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(Ints(out[0]), (std::vector<int64_t>{1, 2, 4, 7, 8}));
  EXPECT_EQ(Ints(out[1]), (std::vector<int64_t>{0, 0, 1, 2, 2, 2, 3, 4, 4}));
  auto s = RunOp("Unique", {test_util::Str({"b", "a", "b"}, {3})}, {{"T", MakeAttr(DType::kString)}});
  EXPECT_EQ(test_util::Strings(s[0]), (std::vector<std::string>{"b", "a"}));
}

TEST(UniqueWithCountsTest, CountsOccurrencesOfEachUniqueValue) {
  auto out = RunOp("UniqueWithCounts", {I32({1, 1, 2, 4, 4, 4, 7, 8, 8})},
                   {{"T", MakeAttr(DType::kInt32)}, {"out_idx", MakeAttr(DType::kInt64)}});
  ASSERT_EQ(out.size(), 3u);
  EXPECT_EQ(Ints(out[0]), (std::vector<int64_t>{1, 2, 4, 7, 8}));
  EXPECT_EQ(Ints(out[1]), (std::vector<int64_t>{0, 0, 1, 2, 2, 2, 3, 4, 4}));
  EXPECT_EQ(out[2].dtype(), DType::kInt64);
  EXPECT_EQ(Ints(out[2]), (std::vector<int64_t>{2, 1, 3, 1, 2}));
}

TEST(TopKV2Test, SortedWithTiesByLowerIndex) {
  auto out = RunOp("TopKV2", {F32({1, 3, 3, 2, 5, 0}, {2, 3}), Tensor::Scalar<int32_t>(2)},
                 {{"T", MakeAttr(DType::kFloat)}});
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0].shape(), Shape({2, 2}));
  EXPECT_EQ(Floats(out[0]), (std::vector<float>{3, 3, 5, 2}));
  EXPECT_EQ(Ints(out[1]), (std::vector<int64_t>{1, 2, 1, 0}));
  EXPECT_FALSE(RunError("TopKV2", {F32({1, 2}, {2}), Tensor::Scalar<int32_t>(3)},
                        {{"T", MakeAttr(DType::kFloat)}})
                   .ok());
}

TEST(TopKV2Test, NanSortsFirstWithoutBreakingOrder) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  auto out = RunOp("TopKV2", {F32({1, nan, 4, 2}, {4}), Tensor::Scalar<int32_t>(4)},
                 {{"T", MakeAttr(DType::kFloat)}, {"index_type", MakeAttr(DType::kInt64)}});
  EXPECT_EQ(Ints(out[1]), (std::vector<int64_t>{1, 2, 3, 0}));
}

TEST(MatrixBandPartTest, KeepsBand) {
  // 3x3 of ones, one sub-diagonal, no super-diagonal.
  Tensor x = F32(std::vector<float>(9, 1), {3, 3});
  auto out = RunOp("MatrixBandPart", {x, Tensor::Scalar<int64_t>(1), Tensor::Scalar<int64_t>(0)},
                 {{"T", MakeAttr(DType::kFloat)}});
  EXPECT_EQ(Floats(out[0]), (std::vector<float>{1, 0, 0, 1, 1, 0, 0, 1, 1}));
  auto upper = RunOp("MatrixBandPart", {x, Tensor::Scalar<int64_t>(0), Tensor::Scalar<int64_t>(-1)},
                   {{"T", MakeAttr(DType::kFloat)}});
  EXPECT_EQ(Floats(upper[0]), (std::vector<float>{1, 1, 1, 0, 1, 1, 0, 0, 1}));
  EXPECT_FALSE(RunError("MatrixBandPart", {x, Tensor::Scalar<int64_t>(4), Tensor::Scalar<int64_t>(0)},
                        {{"T", MakeAttr(DType::kFloat)}})
                   .ok());
}

TEST(ListDiffTest, KeepsEntriesOfXNotInYWithTheirPositions) {
  // tf.setdiff1d docs: x = [1, 2, 3, 4, 5, 6], y = [1, 3, 5] -> out [2, 4, 6], idx [1, 3, 5].
  auto out = RunSingleOp("ListDiff", {Tensor::FromVector<int32_t>({1, 2, 3, 4, 5, 6}), Tensor::FromVector<int32_t>({1, 3, 5})},
                         {{"T", MakeAttr(DType::kInt32)}});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_TRUE(TensorsEqual((*out)[0], Tensor::FromVector<int32_t>({2, 4, 6})));
  EXPECT_TRUE(TensorsEqual((*out)[1], Tensor::FromVector<int32_t>({1, 3, 5})));
  Tensor words(DType::kString, Shape({3}));
  words.strings()[0] = "a";
  words.strings()[1] = "b";
  words.strings()[2] = "a";
  Tensor drop(DType::kString, Shape({1}));
  drop.strings()[0] = "a";
  auto s = RunSingleOp("ListDiff", {words, drop}, {{"T", MakeAttr(DType::kString)}, {"out_idx", MakeAttr(DType::kInt64)}});
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_EQ((*s)[0].strings()[0], "b");
  EXPECT_TRUE(TensorsEqual((*s)[1], Tensor::FromVector<int64_t>({1})));
}

TEST(InTopKTest, TiesAtTheBoundaryCountAndNonFiniteIsFalse) {
  // Row 0: target 1 (0.8) is the top -> true for k 1. Row 1: target 2 (0.3)
  // ties class 0 for second place: fewer than 1 strictly above? no (0.6) ->
  // false for k 1. Row 2: target out of range -> false.
  Tensor pred = Tensor::FromVector<float>({0.1f, 0.8f, 0.1f, 0.3f, 0.6f, 0.3f, 0.5f, 0.5f, 0.0f}, Shape({3, 3}));
  auto k1 = RunSingleOp("InTopKV2", {pred, Tensor::FromVector<int32_t>({1, 2, 7}), Tensor::Scalar<int32_t>(1)});
  ASSERT_TRUE(k1.ok()) << k1.status().ToString();
  EXPECT_TRUE(TensorsEqual((*k1)[0], Tensor::FromVector<bool>({true, false, false})));
  // k 2: row 1's target ties with class 0 below 0.6 -> true (ties count).
  auto k2 = RunSingleOp("InTopK", {pred, Tensor::FromVector<int32_t>({0, 2, 1})}, {{"k", MakeAttr(2)}});
  ASSERT_TRUE(k2.ok()) << k2.status().ToString();
  EXPECT_TRUE(TensorsEqual((*k2)[0], Tensor::FromVector<bool>({true, true, true})));
}

}  // namespace
}  // namespace tfhost::ops::array
