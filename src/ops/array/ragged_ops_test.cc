#include <gtest/gtest.h>

#include "ops/run_single_op.h"

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

}  // namespace
}  // namespace tfhost::ops
