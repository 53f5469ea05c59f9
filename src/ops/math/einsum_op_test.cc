#include <gtest/gtest.h>

#include "ops/run_single_op.h"
#include "base/test_status.h"

namespace tfhost::ops {
namespace {

ir::AttrMap Attrs(const char* eq, int n, DType t = DType::kFloat) {
  return {{"equation", MakeAttr(eq)}, {"N", MakeAttr(n)}, {"T", MakeAttr(t)}};
}
Tensor Iota(Shape s, float start = 1) {
  Tensor t(DType::kFloat, s);
  for (int64_t i = 0; i < t.NumElements(); ++i) t.data<float>()[i] = start + static_cast<float>(i);
  return t;
}

TEST(EinsumTest, MatMulAndTransposedOutput) {
  Tensor a = Iota(Shape({2, 3})), b = Iota(Shape({3, 2}));
  auto mm = RunSingleOp("Einsum", {a, b}, Attrs("ij,jk->ik", 2));
  ASSERT_TRUE(mm.ok()) << mm.status().ToString();
  // [[1,2,3],[4,5,6]] x [[1,2],[3,4],[5,6]] = [[22,28],[49,64]].
  EXPECT_TRUE(TensorsEqual((*mm)[0], Tensor::FromVector<float>({22, 28, 49, 64}, Shape({2, 2}))));
  auto t = RunSingleOp("Einsum", {a, b}, Attrs("ij,jk->ki", 2));
  ASSERT_TRUE(t.ok());
  EXPECT_TRUE(TensorsEqual((*t)[0], Tensor::FromVector<float>({22, 49, 28, 64}, Shape({2, 2}))));
}

TEST(EinsumTest, EllipsisBroadcastsBatchDims) {
  // [2,1,2,2] x [3,2,2] -> [2,3,2,2]; the lhs batch dim of size 1 stretches to 3.
  Tensor a = Iota(Shape({2, 1, 2, 2})), b = Iota(Shape({3, 2, 2}), 0);
  auto out = RunSingleOp("Einsum", {a, b}, Attrs("...ij,...jk->...ik", 2));
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  ASSERT_EQ((*out)[0].shape(), Shape({2, 3, 2, 2}));
  // Batch (1, 2): a[1,0] = [[5,6],[7,8]], b[2] = [[8,9],[10,11]] -> [[100,111],[136,151]].
  const float* o = (*out)[0].data<float>() + (1 * 3 + 2) * 4;
  EXPECT_FLOAT_EQ(o[0], 100);
  EXPECT_FLOAT_EQ(o[1], 111);
  EXPECT_FLOAT_EQ(o[2], 136);
  EXPECT_FLOAT_EQ(o[3], 151);
}

TEST(EinsumTest, TraceDiagonalSumAndImplicitOutput) {
  Tensor m = Iota(Shape({3, 3}));
  auto trace = RunSingleOp("Einsum", {m}, Attrs("ii->", 1));
  ASSERT_TRUE(trace.ok()) << trace.status().ToString();
  EXPECT_TRUE(TensorsEqual((*trace)[0], Tensor::Scalar(15.f)));
  auto diag = RunSingleOp("Einsum", {m}, Attrs("ii->i", 1));
  ASSERT_TRUE(diag.ok());
  EXPECT_TRUE(TensorsEqual((*diag)[0], Tensor::FromVector<float>({1, 5, 9})));
  // Implicit "ba" -> output labels sorted: "ab" = transpose.
  auto implicit = RunSingleOp("Einsum", {Iota(Shape({2, 3}))}, Attrs("ba", 1));
  ASSERT_TRUE(implicit.ok());
  EXPECT_TRUE(TensorsEqual((*implicit)[0], Tensor::FromVector<float>({1, 4, 2, 5, 3, 6}, Shape({3, 2}))));
}

TEST(EinsumTest, AttentionScoresInInt32) {
  Tensor q = Tensor::FromVector<int32_t>({1, 2, 3, 4}, Shape({1, 2, 1, 2}));  // b q h d
  Tensor k = Tensor::FromVector<int32_t>({1, 0, 0, 1}, Shape({1, 2, 1, 2}));  // b k h d
  auto out = RunSingleOp("Einsum", {q, k}, Attrs("bqhd,bkhd->bhqk", 2, DType::kInt32));
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_TRUE(TensorsEqual((*out)[0], Tensor::FromVector<int32_t>({1, 2, 3, 4}, Shape({1, 1, 2, 2}))));
}

TEST(EinsumTest, MismatchedLabelSizesAndBadEquationsAreErrors) {
  TFHOST_EXPECT_ERROR(RunSingleOp("Einsum", {Iota(Shape({2, 3})), Iota(Shape({2, 2}))}, Attrs("ij,jk->ik", 2)), StatusCode::kInvalidArgument,
                      "dimension mismatch for label 'j': 3 vs 2");
  TFHOST_EXPECT_ERROR(RunSingleOp("Einsum", {Iota(Shape({2, 3}))}, Attrs("ijk->i", 1)), StatusCode::kInvalidArgument,
                      "input 0 has rank 2 but subscripts 'ijk'");
  TFHOST_EXPECT_ERROR(RunSingleOp("Einsum", {Iota(Shape({2, 3}))}, Attrs("ij->iz", 1)), StatusCode::kInvalidArgument,
                      "output label 'z' appears in no input");
  TFHOST_EXPECT_ERROR(RunSingleOp("Einsum", {Iota(Shape({2, 3}))}, Attrs("i1->i", 1)), StatusCode::kInvalidArgument,
                      "invalid character '1' in einsum equation 'i1->i'");
}

}  // namespace
}  // namespace tfhost::ops
