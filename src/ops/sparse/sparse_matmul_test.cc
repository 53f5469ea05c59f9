#include <gtest/gtest.h>

#include "ops/run_single_op.h"
#include "base/test_status.h"

namespace tfhost::ops {
namespace {

// A = [[0, 2, 0], [1, 0, 3]] as a SparseTensor (with entry (1,2) split in two
// duplicates 1 + 2, which must add up).
std::vector<Tensor> Inputs(Tensor b) {
  return {Tensor::FromVector<int64_t>({0, 1, 1, 0, 1, 2, 1, 2}, Shape({4, 2})),
          Tensor::FromVector<float>({2, 1, 1, 2}), Tensor::FromVector<int64_t>({2, 3}), std::move(b)};
}

TEST(SparseTensorDenseMatMulTest, MultipliesAndSumsDuplicates) {
  Tensor b = Tensor::FromVector<float>({1, 2, 3, 4, 5, 6}, Shape({3, 2}));
  auto out = RunSingleOp("SparseTensorDenseMatMul", Inputs(b), {{"T", MakeAttr(DType::kFloat)}});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  // Row 0: 2 * [3, 4]; row 1: [1, 2] + 3 * [5, 6].
  EXPECT_TRUE(TensorsEqual((*out)[0], Tensor::FromVector<float>({6, 8, 16, 20}, Shape({2, 2}))));
}

TEST(SparseTensorDenseMatMulTest, AdjointsTransposeOperands) {
  // A^T [3,2] x B^T where B is [2, 2].
  Tensor b = Tensor::FromVector<float>({1, 2, 3, 4}, Shape({2, 2}));
  auto out = RunSingleOp("SparseTensorDenseMatMul", Inputs(b),
                         {{"T", MakeAttr(DType::kFloat)}, {"adjoint_a", MakeAttr(true)}, {"adjoint_b", MakeAttr(true)}});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  // A^T = [[0,1],[2,0],[0,3]]; B^T = [[1,3],[2,4]] -> [[2,4],[2,6],[6,12]].
  EXPECT_TRUE(TensorsEqual((*out)[0], Tensor::FromVector<float>({2, 4, 2, 6, 6, 12}, Shape({3, 2}))));
}

TEST(SparseTensorDenseMatMulTest, InnerMismatchAndOutOfBoundsIndexAreErrors) {
  EXPECT_FALSE(RunSingleOp("SparseTensorDenseMatMul", Inputs(Tensor(DType::kFloat, Shape({2, 2}))),
                           {{"T", MakeAttr(DType::kFloat)}}).ok());
  auto in = Inputs(Tensor(DType::kFloat, Shape({3, 2})));
  in[0].data<int64_t>()[1] = 9;
  TFHOST_EXPECT_ERROR(RunSingleOp("SparseTensorDenseMatMul", in, {{"T", MakeAttr(DType::kFloat)}}), StatusCode::kInvalidArgument,
                      "a_indices[0] = [0, 9] is out of bounds of [2, 3]");
}

}  // namespace
}  // namespace tfhost::ops
