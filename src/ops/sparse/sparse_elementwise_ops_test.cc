#include <gtest/gtest.h>

#include <cmath>

#include "ops/run_single_op.h"
#include "base/test_status.h"

namespace tfhost::ops {
namespace {

Tensor I64(std::vector<int64_t> v, Shape s) { return Tensor::FromVector<int64_t>(v, s); }
Tensor I64(std::vector<int64_t> v) { return Tensor::FromVector<int64_t>(v); }
Tensor F(std::vector<float> v) { return Tensor::FromVector<float>(v); }
ir::AttrMap TAttr() { return {{"T", MakeAttr(DType::kFloat)}}; }

TEST(SparseSparseMinMaxTest, UnionOfIndicesComparesLoneEntriesWithZero) {
  // a = {[0,0]: 1, [1,1]: -2}, b = {[0,0]: 3, [0,2]: -5, [1,2]: 4}.
  std::vector<Tensor> in = {I64({0, 0, 1, 1}, Shape({2, 2})), F({1, -2}), I64({2, 3}),
                            I64({0, 0, 0, 2, 1, 2}, Shape({3, 2})), F({3, -5, 4}), I64({2, 3})};
  auto mx = RunSingleOp("SparseSparseMaximum", in, TAttr());
  ASSERT_TRUE(mx.ok()) << mx.status().ToString();
  EXPECT_TRUE(TensorsEqual((*mx)[0], I64({0, 0, 0, 2, 1, 1, 1, 2}, Shape({4, 2}))));
  EXPECT_TRUE(TensorsEqual((*mx)[1], F({3, 0, 0, 4})));
  auto mn = RunSingleOp("SparseSparseMinimum", in, TAttr());
  ASSERT_TRUE(mn.ok()) << mn.status().ToString();
  EXPECT_TRUE(TensorsEqual((*mn)[1], F({1, -5, -2, 0})));
}

TEST(SparseSparseMinMaxTest, UnsortedRepeatedOrMismatchedInputsAreErrors) {
  auto run = [](Tensor ai, Tensor as, Tensor bs) {
    return RunSingleOp("SparseSparseMaximum", {ai, F({1, 2}), as, I64({0}, Shape({1, 1})), F({1}), bs}, TAttr());
  };
  TFHOST_EXPECT_ERROR(run(I64({2, 1}, Shape({2, 1})), I64({3}), I64({3})), StatusCode::kInvalidArgument,
                      "a indices must be in row-major order without repeats (use tf.sparse.reorder): entry 1 does not come");
  TFHOST_EXPECT_ERROR(run(I64({1, 1}, Shape({2, 1})), I64({3}), I64({3})), StatusCode::kInvalidArgument,
                      "a indices must be in row-major order without repeats (use tf.sparse.reorder): entry 1 does not come");
  TFHOST_EXPECT_ERROR(run(I64({0, 1}, Shape({2, 1})), I64({3}), I64({4})), StatusCode::kInvalidArgument,
                      "operands do not have the same shape: a_shape [3], b_shape [4]");
  EXPECT_TRUE(run(I64({0, 1}, Shape({2, 1})), I64({3}), I64({3})).ok());
}

TEST(SparseSoftmaxTest, SoftmaxPerRowOverStoredEntriesOnly) {
  // tf.sparse.softmax: row 0 holds {0: 1, 2: 1} -> 0.5 each (the missing
  // column takes no share); row 1 holds {1: 0, 2: ln 3} -> 1/4, 3/4; the
  // entries come in the input's order.
  auto out = RunSingleOp("SparseSoftmax",
                         {I64({1, 2, 0, 0, 1, 1, 0, 2}, Shape({4, 2})), F({std::log(3.0f), 1, 0, 1}), I64({2, 3})},
                         TAttr());
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  const float* v = (*out)[0].data<float>();
  EXPECT_NEAR(v[0], 0.75f, 1e-6);
  EXPECT_NEAR(v[1], 0.5f, 1e-6);
  EXPECT_NEAR(v[2], 0.25f, 1e-6);
  EXPECT_NEAR(v[3], 0.5f, 1e-6);
  TFHOST_EXPECT_ERROR(RunSingleOp("SparseSoftmax", {I64({0, 1}, Shape({2, 1})), F({1, 2}), I64({3})}, TAttr()), StatusCode::kInvalidArgument,
                      "sp_indices must have rank >= 2 (a softmax over the last dim), got rank 1");
}

}  // namespace
}  // namespace tfhost::ops
