#include <gtest/gtest.h>

#include <limits>

#include "ops/run_single_op.h"
#include "base/test_status.h"

namespace tfhost::ops {
namespace {

ir::AttrMap Attrs(std::vector<std::string> types, DType t = DType::kFloat) {
  return {{"T", MakeAttr(t)},
          {"Tindex", MakeAttr(DType::kInt64)},
          {"Tshape", MakeAttr(DType::kInt64)},
          {"num_row_partition_tensors", MakeAttr(static_cast<int64_t>(types.size()))},
          {"row_partition_types", MakeAttr(types)}};
}

TEST(RaggedTensorToTensorTest, RowSplitsPadWithDefault) {
  // [[1, 2, 3], [], [4]] -> [[1, 2, 3], [9, 9, 9], [4, 9, 9]].
  auto out = RunSingleOp("RaggedTensorToTensor",
                         {Tensor::Scalar<int64_t>(-1), Tensor::FromVector<float>({1, 2, 3, 4}), Tensor::Scalar(9.f),
                          Tensor::FromVector<int64_t>({0, 3, 3, 4})},
                         Attrs({"ROW_SPLITS"}));
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_TRUE(TensorsEqual((*out)[0], Tensor::FromVector<float>({1, 2, 3, 9, 9, 9, 4, 9, 9}, Shape({3, 3}))));
}

TEST(RaggedTensorToTensorTest, ValueRowIdsAndShapeTruncates) {
  // Rows from value_rowids [0, 0, 2] over 4 rows; shape [-1, 1] keeps one column.
  auto out = RunSingleOp("RaggedTensorToTensor",
                         {Tensor::FromVector<int64_t>({-1, 1}), Tensor::FromVector<std::string>({"a", "b", "c"}),
                          Tensor::StringScalar(""), Tensor::Scalar<int64_t>(4), Tensor::FromVector<int64_t>({0, 0, 2})},
                         Attrs({"FIRST_DIM_SIZE", "VALUE_ROWIDS"}, DType::kString));
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_TRUE(TensorsEqual((*out)[0], Tensor::FromVector<std::string>({"a", "", "c", ""}, Shape({4, 1}))));
}

TEST(RaggedTensorToTensorTest, TwoRaggedLevelsAndInnerDims) {
  // [[[v0], [v1, v2]], [[v3]]] with each v a pair -> [2, 2, 2, 2].
  auto out = RunSingleOp("RaggedTensorToTensor",
                         {Tensor::Scalar<int64_t>(-1), Tensor::FromVector<float>({0, 1, 2, 3, 4, 5, 6, 7}, Shape({4, 2})),
                          Tensor::Scalar(-1.f), Tensor::FromVector<int64_t>({0, 2, 3}), Tensor::FromVector<int64_t>({0, 1, 3, 4})},
                         Attrs({"ROW_SPLITS", "ROW_SPLITS"}));
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_TRUE(TensorsEqual((*out)[0], Tensor::FromVector<float>({0, 1, -1, -1, 2, 3, 4, 5, 6, 7, -1, -1, -1, -1, -1, -1},
                                                                  Shape({2, 2, 2, 2}))));
}

TEST(RaggedTensorToTensorTest, InconsistentPartitionsAreErrors) {
  EXPECT_FALSE(RunSingleOp("RaggedTensorToTensor",
                           {Tensor::Scalar<int64_t>(-1), Tensor::FromVector<float>({1, 2}), Tensor::Scalar(0.f),
                            Tensor::FromVector<int64_t>({0, 3})},
                           Attrs({"ROW_SPLITS"})).ok());
  EXPECT_FALSE(RunSingleOp("RaggedTensorToTensor",
                           {Tensor::Scalar<int64_t>(-1), Tensor::FromVector<float>({1, 2}), Tensor::Scalar(0.f),
                            Tensor::FromVector<int64_t>({0, 2, 1})},
                           Attrs({"ROW_SPLITS"})).ok());
}

TEST(RaggedRangeTest, BroadcastsScalarsAndEmptiesRangesPointingAway) {
  // starts [0, 5, 2] limits 4 (scalar) deltas [1, -2, 3]:
  // [0, 1, 2, 3], [5] (5 -> 4 step -2: one value), [2] (ceil(2 / 3) = 1).
  auto out = RunSingleOp("RaggedRange", {Tensor::FromVector<int32_t>({0, 5, 2}), Tensor::Scalar<int32_t>(4),
                                         Tensor::FromVector<int32_t>({1, -2, 3})});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_TRUE(TensorsEqual((*out)[0], Tensor::FromVector<int64_t>({0, 4, 5, 6})));
  EXPECT_TRUE(TensorsEqual((*out)[1], Tensor::FromVector<int32_t>({0, 1, 2, 3, 5, 2})));
  // delta pointing away from the limit: an empty row; float accumulates.
  auto f = RunSingleOp("RaggedRange", {Tensor::FromVector<float>({3, 0}), Tensor::FromVector<float>({0, 1}),
                                       Tensor::FromVector<float>({1, 0.25f})},
                       {{"T", MakeAttr(DType::kFloat)}, {"Tsplits", MakeAttr(DType::kInt32)}});
  ASSERT_TRUE(f.ok()) << f.status().ToString();
  EXPECT_TRUE(TensorsEqual((*f)[0], Tensor::FromVector<int32_t>({0, 0, 4})));
  EXPECT_TRUE(TensorsEqual((*f)[1], Tensor::FromVector<float>({0, 0.25f, 0.5f, 0.75f})));
  TFHOST_EXPECT_ERROR(RunSingleOp("RaggedRange", {Tensor::Scalar<int32_t>(0), Tensor::Scalar<int32_t>(4),
                                                  Tensor::Scalar<int32_t>(0)}),
                      StatusCode::kInvalidArgument, "Requires delta != 0 (range 0)");
  TFHOST_EXPECT_ERROR(RunSingleOp("RaggedRange", {Tensor::FromVector<int32_t>({0, 1}),
                                                  Tensor::FromVector<int32_t>({1, 2, 3}), Tensor::Scalar<int32_t>(1)}),
                      StatusCode::kInvalidArgument,
                      "starts, limits and deltas must have the same length; limits has 3, expected 2");
}

TEST(RaggedRangeTest, RangesAtTheEdgesOfInt64CountExactlyAndDoNotOverflowPastTheirLastValue) {
  // Found by fuzzing: the step after a range's last value left int64 (signed
  // overflow), and sizes computed in double gave the empty range
  // [-2^63, -2^63) one value.
  const int64_t lo = std::numeric_limits<int64_t>::min(), hi = std::numeric_limits<int64_t>::max();
  auto out = RunSingleOp("RaggedRange", {Tensor::FromVector<int64_t>({-1, 1, lo, lo}),
                                         Tensor::FromVector<int64_t>({-2, 2, lo, hi}),
                                         Tensor::FromVector<int64_t>({lo, hi, lo, hi})},
                         {{"T", MakeAttr(DType::kInt64)}});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_TRUE(TensorsEqual((*out)[0], Tensor::FromVector<int64_t>({0, 1, 2, 2, 5})));
  EXPECT_TRUE(TensorsEqual((*out)[1], Tensor::FromVector<int64_t>({-1, 1, lo, -1, hi - 1})));
}

ir::AttrMap GatherAttrs(int params_rank, int output_rank) {
  return {{"Tvalues", MakeAttr(DType::kFloat)}, {"Tindices", MakeAttr(DType::kInt32)},
          {"Tsplits", MakeAttr(DType::kInt64)}, {"PARAMS_RAGGED_RANK", MakeAttr(params_rank)},
          {"OUTPUT_RAGGED_RANK", MakeAttr(output_rank)}};
}

TEST(RaggedGatherTest, GathersRowsOfOneAndTwoLevelRaggedTensors) {
  // params [[1, 2], [], [3, 4, 5]]; indices [2, 0, 2] -> [[3, 4, 5], [1, 2], [3, 4, 5]].
  Tensor splits = Tensor::FromVector<int64_t>({0, 2, 2, 5});
  Tensor values = Tensor::FromVector<float>({1, 2, 3, 4, 5});
  auto out = RunSingleOp("RaggedGather", {splits, values, Tensor::FromVector<int32_t>({2, 0, 2})}, GatherAttrs(1, 1));
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_TRUE(TensorsEqual((*out)[0], Tensor::FromVector<int64_t>({0, 3, 5, 8})));
  EXPECT_TRUE(TensorsEqual((*out)[1], Tensor::FromVector<float>({3, 4, 5, 1, 2, 3, 4, 5})));
  // Indices [[1, 0]] add a uniform outer level: splits [0, 2], then [0, 0, 2].
  auto nested = RunSingleOp("RaggedGather", {splits, values, Tensor::FromVector<int32_t>({1, 0}, Shape({1, 2}))},
                            GatherAttrs(1, 2));
  ASSERT_TRUE(nested.ok()) << nested.status().ToString();
  EXPECT_TRUE(TensorsEqual((*nested)[0], Tensor::FromVector<int64_t>({0, 2})));
  EXPECT_TRUE(TensorsEqual((*nested)[1], Tensor::FromVector<int64_t>({0, 0, 2})));
  EXPECT_TRUE(TensorsEqual((*nested)[2], Tensor::FromVector<float>({1, 2})));
  // Two ragged levels [[[a], [b, c]], [[d]]] with a scalar index 0 -> [[a], [b, c]].
  Tensor inner = Tensor::FromVector<float>({10, 11, 12, 13});
  auto two = RunSingleOp("RaggedGather", {Tensor::FromVector<int64_t>({0, 2, 3}), Tensor::FromVector<int64_t>({0, 1, 3, 4}),
                                          inner, Tensor::Scalar<int32_t>(0)},
                         GatherAttrs(2, 1));
  ASSERT_TRUE(two.ok()) << two.status().ToString();
  EXPECT_TRUE(TensorsEqual((*two)[0], Tensor::FromVector<int64_t>({0, 1, 3})));
  EXPECT_TRUE(TensorsEqual((*two)[1], Tensor::FromVector<float>({10, 11, 12})));
}

TEST(RaggedGatherTest, BadIndicesAndSplitsAreErrors) {
  Tensor splits = Tensor::FromVector<int64_t>({0, 2, 2, 5});
  Tensor values = Tensor::FromVector<float>({1, 2, 3, 4, 5});
  TFHOST_EXPECT_ERROR(RunSingleOp("RaggedGather", {splits, values, Tensor::FromVector<int32_t>({3})}, GatherAttrs(1, 1)), StatusCode::kInvalidArgument,
                      "indices[0] = 3 is not in [0, 3)");
  TFHOST_EXPECT_ERROR(RunSingleOp("RaggedGather", {splits, values, Tensor::FromVector<int32_t>({-1})}, GatherAttrs(1, 1)), StatusCode::kInvalidArgument,
                      "indices[0] = -1 is not in [0, 3)");
  EXPECT_FALSE(RunSingleOp("RaggedGather", {Tensor::FromVector<int64_t>({0, 3, 2, 5}), values,
                                            Tensor::FromVector<int32_t>({0})}, GatherAttrs(1, 1)).ok());
  EXPECT_FALSE(RunSingleOp("RaggedGather", {Tensor::FromVector<int64_t>({0, 2, 9}), values,
                                            Tensor::FromVector<int32_t>({1})}, GatherAttrs(1, 1)).ok());
  TFHOST_EXPECT_ERROR(RunSingleOp("RaggedGather", {splits, values, Tensor::FromVector<int32_t>({0})}, GatherAttrs(1, 2)), StatusCode::kInvalidArgument,
                      "OUTPUT_RAGGED_RANK is 2 but indices of rank 1 into params of ragged rank 1 give 1");
}

}  // namespace
}  // namespace tfhost::ops
