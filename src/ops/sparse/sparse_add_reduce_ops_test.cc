#include <gtest/gtest.h>

#include "ops/run_single_op.h"
#include "ops/shape_inference.h"
#include "base/test_status.h"

namespace tfhost::ops {
namespace {

Tensor I64(std::vector<int64_t> v, Shape s) { return Tensor::FromVector<int64_t>(v, s); }
Tensor I64(std::vector<int64_t> v) { return Tensor::FromVector<int64_t>(v); }
Tensor I32(std::vector<int32_t> v) { return Tensor::FromVector<int32_t>(v); }
Tensor F(std::vector<float> v) { return Tensor::FromVector<float>(v); }

ir::AttrMap AddAttrs(DType t) { return {{"T", MakeAttr(t)}, {"Treal", MakeAttr(t)}}; }

TEST(SparseAddTest, MergesInRowMajorOrderAndThresholdsOnlySums) {
  // a = {[0,1]: 1, [1,0]: 2, [1,2]: 0.05}, b = {[0,0]: 3, [1,0]: -1.95, [2,1]: 0.01}.
  // [1,0] sums to 0.05 < thresh 0.1 and is dropped; the lone small entries
  // [1,2] and [2,1] are kept, as tf.sparse.add documents (thresh applies to sums).
  auto out = RunSingleOp("SparseAdd",
                         {I64({0, 1, 1, 0, 1, 2}, Shape({3, 2})), F({1, 2, 0.05f}), I64({3, 3}),
                          I64({0, 0, 1, 0, 2, 1}, Shape({3, 2})), F({3, -1.95f, 0.01f}), I64({3, 3}),
                          Tensor::Scalar(0.1f)},
                         AddAttrs(DType::kFloat));
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_TRUE(TensorsEqual((*out)[0], I64({0, 0, 0, 1, 1, 2, 2, 1}, Shape({4, 2}))));
  EXPECT_TRUE(TensorsEqual((*out)[1], F({3, 1, 0.05f, 0.01f})));
  EXPECT_TRUE(TensorsEqual((*out)[2], I64({3, 3})));
}

TEST(SparseAddTest, IntegerSumsWrapAndZeroThresholdKeepsZeroSums) {
  ir::AttrMap attrs = {{"T", MakeAttr(DType::kInt32)}, {"Treal", MakeAttr(DType::kInt32)}};
  auto out = RunSingleOp("SparseAdd",
                         {I64({0, 1}), I32({2147483647, 5}), I64({2}), I64({0, 1}), I32({1, -5}), I64({2}),
                          Tensor::Scalar<int32_t>(0)},
                         attrs);
  // Rank-1 indices given as [2] vectors are rejected: indices must be 2-D.
  TFHOST_EXPECT_ERROR(out, StatusCode::kInvalidArgument, "a indices must be a 2-D int64 tensor, got int64 [2]");
  out = RunSingleOp("SparseAdd",
                    {I64({0, 1}, Shape({2, 1})), I32({2147483647, 5}), I64({2}), I64({0, 1}, Shape({2, 1})),
                     I32({1, -5}), I64({2}), Tensor::Scalar<int32_t>(0)},
                    attrs);
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_TRUE(TensorsEqual((*out)[1], I32({-2147483647 - 1, 0})));
}

TEST(SparseAddTest, UnsortedInputOrDifferentShapesAreErrors) {
  auto attrs = AddAttrs(DType::kFloat);
  auto unsorted = RunSingleOp("SparseAdd",
                              {I64({1, 0}, Shape({2, 1})), F({1, 2}), I64({3}), I64({0}, Shape({1, 1})), F({1}),
                               I64({3}), Tensor::Scalar(0.f)},
                              attrs);
  TFHOST_ASSERT_ERROR(unsorted, StatusCode::kInvalidArgument,
                      "a indices must be in row-major order (use tf.sparse.reorder): entry 1 comes before entry 0");
  EXPECT_NE(unsorted.status().ToString().find("row-major order"), std::string::npos);
  EXPECT_FALSE(RunSingleOp("SparseAdd",
                           {I64({0}, Shape({1, 1})), F({1}), I64({3}), I64({0}, Shape({1, 1})), F({1}), I64({4}),
                            Tensor::Scalar(0.f)},
                           attrs)
                   .ok());
}

TEST(SparseTensorDenseAddTest, AddsRepeatedEntriesOntoDense) {
  ir::AttrMap attrs = {{"T", MakeAttr(DType::kFloat)}, {"Tindices", MakeAttr(DType::kInt32)}};
  auto out = RunSingleOp("SparseTensorDenseAdd",
                         {Tensor::FromVector<int32_t>({0, 1, 1, 0, 0, 1}, Shape({3, 2})), F({1, 2, 3}), I32({2, 2}),
                          Tensor::FromVector<float>({10, 20, 30, 40}, Shape({2, 2}))},
                         attrs);
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_TRUE(TensorsEqual((*out)[0], Tensor::FromVector<float>({10, 24, 32, 40}, Shape({2, 2}))));
  EXPECT_FALSE(RunSingleOp("SparseTensorDenseAdd",
                           {Tensor::FromVector<int32_t>({2, 0}, Shape({1, 2})), F({1}), I32({2, 2}),
                            Tensor::FromVector<float>({1, 2, 3, 4}, Shape({2, 2}))},
                           attrs)
                   .ok());
}

// tf.sparse.reduce_max's docstring: x = [[1, ?, 2], [?, 3, ?]].
std::vector<Tensor> DocInput(std::vector<int32_t> axes) {
  return {I64({0, 0, 0, 2, 1, 1}, Shape({3, 2})), F({1, 2, 3}), I64({2, 3}), I32(axes)};
}
ir::AttrMap ReduceAttrs(bool keep = false) { return {{"T", MakeAttr(DType::kFloat)}, {"keep_dims", MakeAttr(keep)}}; }

TEST(SparseReduceTest, MaxMatchesTensorFlowDocstring) {
  auto all = RunSingleOp("SparseReduceMax", DocInput({0, 1}), ReduceAttrs());
  ASSERT_TRUE(all.ok()) << all.status().ToString();
  EXPECT_TRUE(TensorsEqual((*all)[0], Tensor::Scalar(3.f)));
  auto cols = RunSingleOp("SparseReduceMax", DocInput({0}), ReduceAttrs());
  ASSERT_TRUE(cols.ok());
  EXPECT_TRUE(TensorsEqual((*cols)[0], F({1, 3, 2})));
  auto rows = RunSingleOp("SparseReduceMax", DocInput({-1}), ReduceAttrs(true));
  ASSERT_TRUE(rows.ok());
  EXPECT_TRUE(TensorsEqual((*rows)[0], Tensor::FromVector<float>({2, 3}, Shape({2, 1}))));
}

TEST(SparseReduceTest, MaxIgnoresImplicitZerosAndEmptyGroupsAreZero) {
  // tf.sparse.reduce_max's docstring: [[-7, ?], [4, 3], [?, ?]] over axis 1 -> [-7, 4, 0].
  auto out = RunSingleOp("SparseReduceMax", {I64({0, 0, 1, 0, 1, 1}, Shape({3, 2})), F({-7, 4, 3}), I64({3, 2}), I32({1})},
                         ReduceAttrs());
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_TRUE(TensorsEqual((*out)[0], F({-7, 4, 0})));
}

TEST(SparseReduceTest, SumMatchesTensorFlowDocstringAndRepeatedAxesCountOnce) {
  // tf.sparse.reduce_sum's docstring: x = [[1, ?, 1], [?, 1, ?]] -> 3, [1, 1, 1], [2, 1].
  std::vector<Tensor> x = {I64({0, 0, 0, 2, 1, 1}, Shape({3, 2})), F({1, 1, 1}), I64({2, 3}), I32({1, -1})};
  auto out = RunSingleOp("SparseReduceSum", x, ReduceAttrs());
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_TRUE(TensorsEqual((*out)[0], F({2, 1})));
  x[3] = I32({5});
  TFHOST_EXPECT_ERROR(RunSingleOp("SparseReduceSum", x, ReduceAttrs()), StatusCode::kInvalidArgument,
                      "reduction_axes 5 is out of range; expected a value in [-2, 2) for rank 2");
}

TEST(SparseReduceTest, SparseFormsEmitOneEntryPerNonEmptyGroup) {
  auto out = RunSingleOp("SparseReduceSumSparse",
                         {I64({2, 1, 0, 0, 2, 0}, Shape({3, 2})), F({1, 2, 3}), I64({4, 3}), I32({1})}, ReduceAttrs(true));
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_TRUE(TensorsEqual((*out)[0], I64({0, 0, 2, 0}, Shape({2, 2}))));
  EXPECT_TRUE(TensorsEqual((*out)[1], F({2, 4})));
  EXPECT_TRUE(TensorsEqual((*out)[2], I64({4, 1})));
  auto max = RunSingleOp("SparseReduceMaxSparse",
                         {I64({2, 1, 0, 0, 2, 0}, Shape({3, 2})), F({1, 2, 3}), I64({4, 3}), I32({1})}, ReduceAttrs());
  ASSERT_TRUE(max.ok()) << max.status().ToString();
  EXPECT_TRUE(TensorsEqual((*max)[0], I64({0, 2}, Shape({2, 1}))));
  EXPECT_TRUE(TensorsEqual((*max)[1], F({2, 3})));
}

TEST(SparseReduceTest, ShapeFunctionUsesConstantShapeAndAxes) {
  ir::Node node;
  node.name = "r";
  node.op = "SparseReduceSum";
  node.attrs = ReduceAttrs(true);
  Tensor shape = I64({4, 5, 6});
  Tensor axes = I32({-2});
  ShapeContext ctx(node, {ir::PartialShape::Known({-1, 3}), ir::PartialShape::Known({-1}), ir::PartialShape::Known({3}),
                          ir::PartialShape::Known({1})},
                   {nullptr, nullptr, &shape, &axes}, 1);
  const ShapeFn* fn = ShapeFnRegistry::Global().Find("SparseReduceSum");
  ASSERT_NE(fn, nullptr);
  ASSERT_TRUE((*fn)(ctx).ok());
  EXPECT_EQ(ctx.output(0).dims, (std::vector<int64_t>{4, 1, 6}));
}

TEST(SparseDenseCwiseTest, DenseBroadcastsToTheSparseShapeAtStoredEntriesOnly) {
  // sp = {[0,1]: 2, [1,0]: 3, [1,2]: 4} of shape [2, 3]; dense row [10, 20, 30]
  // broadcasts over rows: mul -> [40, 30, 120], add -> [22, 13, 34].
  std::vector<Tensor> in = {I64({0, 1, 1, 0, 1, 2}, Shape({3, 2})), F({2, 3, 4}), I64({2, 3}),
                            Tensor::FromVector<float>({10, 20, 30}, Shape({1, 3}))};
  ir::AttrMap attrs = {{"T", MakeAttr(DType::kFloat)}};
  auto mul = RunSingleOp("SparseDenseCwiseMul", in, attrs);
  ASSERT_TRUE(mul.ok()) << mul.status().ToString();
  EXPECT_TRUE(TensorsEqual((*mul)[0], F({40, 30, 120})));
  auto add = RunSingleOp("SparseDenseCwiseAdd", in, attrs);
  ASSERT_TRUE(add.ok()) << add.status().ToString();
  EXPECT_TRUE(TensorsEqual((*add)[0], F({22, 13, 34})));
  // A column [2] x [1] dense: div -> [2/2, 3/4, 4/4] by rows [2, 4].
  in[3] = Tensor::FromVector<float>({2, 4}, Shape({2, 1}));
  auto div = RunSingleOp("SparseDenseCwiseDiv", in, attrs);
  ASSERT_TRUE(div.ok()) << div.status().ToString();
  EXPECT_TRUE(TensorsEqual((*div)[0], F({1, 0.75f, 1})));
  // Dense that would broadcast the sparse side is an error.
  in[3] = Tensor::FromVector<float>({1, 2, 3, 4, 5, 6, 7, 8, 9}, Shape({3, 3}));
  TFHOST_EXPECT_ERROR(RunSingleOp("SparseDenseCwiseMul", in, attrs), StatusCode::kInvalidArgument,
                      "dense of shape [3,3] cannot broadcast to sp_shape [2, 3] (only the dense side broadcasts)");
}

TEST(SparseDenseCwiseTest, IntegerDivisionByZeroIsAnError) {
  auto out = RunSingleOp("SparseDenseCwiseDiv",
                         {I64({0, 1}, Shape({2, 1})), I32({6, -7}), I64({2}), Tensor::FromVector<int32_t>({2, 0})},
                         {{"T", MakeAttr(DType::kInt32)}});
  TFHOST_ASSERT_ERROR(out, StatusCode::kInvalidArgument, "integer division by zero at sparse entry 1");
  EXPECT_NE(out.status().ToString().find("division by zero"), std::string::npos);
  out = RunSingleOp("SparseDenseCwiseDiv",
                    {I64({0, 1}, Shape({2, 1})), I32({6, -7}), I64({2}), Tensor::FromVector<int32_t>({2, 2})},
                    {{"T", MakeAttr(DType::kInt32)}});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_TRUE(TensorsEqual((*out)[0], I32({3, -3})));
}

}  // namespace
}  // namespace tfhost::ops
