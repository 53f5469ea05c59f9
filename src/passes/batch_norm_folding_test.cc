#include <gtest/gtest.h>

#include <cmath>

#include "passes/test_graph_util.h"

namespace tfhost::passes {
namespace {

using testing::CountOp;
using testing::Evaluate;
using testing::GraphBuilder;

Tensor Ramp(Shape shape, float scale, float shift) {
  Tensor t(DType::kFloat, shape);
  for (int64_t i = 0; i < t.NumElements(); ++i) t.data<float>()[i] = std::sin(0.7f * i + shift) * scale;
  return t;
}

Tensor Positive(int64_t n, float base) {
  Tensor t(DType::kFloat, Shape({n}));
  for (int64_t i = 0; i < n; ++i) t.data<float>()[i] = base + 0.25f * i;
  return t;
}

ir::AttrMap ConvAttrs() {
  return {{"strides", ops::MakeAttr(std::vector<int64_t>{1, 1, 1, 1})}, {"padding", ops::MakeAttr("SAME")}};
}

void ExpectNear(const std::vector<Tensor>& a, const std::vector<Tensor>& b, double tol) {
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) {
    ASSERT_EQ(a[i].shape().dims(), b[i].shape().dims());
    auto va = a[i].ToDoubleVector(), vb = b[i].ToDoubleVector();
    for (size_t k = 0; k < va.size(); ++k) EXPECT_NEAR(va[k], vb[k], tol * std::max(1.0, std::abs(va[k]))) << k;
  }
}

// conv (filter [3, 3, 3, C]) -> FusedBatchNormV3, fetched by `fetch`.
GraphBuilder ConvBatchNorm(const std::string& conv_op, int64_t filter_out) {
  const int64_t channels = conv_op == "Conv2D" ? filter_out : 3 * filter_out;
  GraphBuilder b;
  b.Placeholder("x", DType::kFloat, {1, 5, 5, 3})
      .Const("w", Ramp(Shape({3, 3, 3, filter_out}), 1.f, 0.f))
      .Add("conv", conv_op, {"x", "w"}, ConvAttrs())
      .Const("scale", Positive(channels, 0.5f))
      .Const("offset", Ramp(Shape({channels}), 2.f, 1.f))
      .Const("mean", Ramp(Shape({channels}), 0.5f, 2.f))
      .Const("var", Positive(channels, 0.1f))
      .Add("bn", "FusedBatchNormV3", {"conv", "scale", "offset", "mean", "var"},
           {{"U", ops::MakeAttr(DType::kFloat)}, {"is_training", ops::MakeAttr(false)},
            {"epsilon", ops::MakeAttr(0.001f)}})
      .Add("out", "Relu", {"bn"});
  return b;
}

TEST(BatchNormFoldingTest, FoldsInferenceBatchNormIntoConvFilterAndBias) {
  for (const char* op : {"Conv2D", "DepthwiseConv2dNative"}) {
    SCOPED_TRACE(op);
    ir::Graph before = ConvBatchNorm(op, 2).Build();
    ir::Graph after = before;
    PassContext ctx = PassContext::FromRoots(after, {"out"});
    ASSERT_TRUE(MakeBatchNormFolding()->Run(&after, ctx).ok());
    ASSERT_TRUE(PruneDeadNodes(&after, ctx).ok());
    EXPECT_EQ(CountOp(after, "FusedBatchNormV3"), 0);
    const ir::Node& bn = after.node(after.FindNode("bn"));
    EXPECT_EQ(bn.op, "BiasAdd");  // keeps its name
    const ir::Node& conv = after.node(bn.inputs[0].node);
    EXPECT_EQ(conv.name, "conv");
    EXPECT_EQ(after.node(conv.inputs[1].node).name, "conv/folded_filter");
    EXPECT_EQ(after.FindNode("w"), -1);  // pruned: nothing reads the unfolded filter
    EXPECT_EQ(after.FindNode("scale"), -1);
    std::map<std::string, Tensor> feeds{{"x", Ramp(Shape({1, 5, 5, 3}), 1.f, 0.3f)}};
    ExpectNear(Evaluate(before, feeds, {"out", "bn"}), Evaluate(after, feeds, {"out", "bn"}), 1e-5);
  }
}

TEST(BatchNormFoldingTest, FoldsKerasMulAddFormAfterMatMulWithTransposedWeights) {
  GraphBuilder b;
  b.Placeholder("x", DType::kFloat, {2, 4})
      .Const("w", Ramp(Shape({3, 4}), 1.f, 0.f))  // [n, k] with transpose_b
      .Add("mm", "MatMul", {"x", "w"}, {{"transpose_b", ops::MakeAttr(true)}})
      .Const("s", Tensor::FromVector<float>({0.5f, -2.f, 3.f}, Shape({1, 3})))
      .Add("scaled", "Mul", {"s", "mm"})
      .Const("t", Tensor::FromVector<float>({1.f, 2.f, -1.f}))
      .Add("shifted", "Sub", {"scaled", "t"})
      .Add("out", "Tanh", {"shifted"});
  ir::Graph before = b.Build();
  ir::Graph after = before;
  PassContext ctx = PassContext::FromRoots(after, {"out"});
  ASSERT_TRUE(MakeBatchNormFolding()->Run(&after, ctx).ok());
  EXPECT_EQ(CountOp(after, "Mul") + CountOp(after, "Sub"), 0);
  EXPECT_EQ(after.node(after.FindNode("shifted")).op, "BiasAdd");
  std::map<std::string, Tensor> feeds{{"x", Ramp(Shape({2, 4}), 1.f, 0.5f)}};
  ExpectNear(Evaluate(before, feeds, {"out"}), Evaluate(after, feeds, {"out"}), 1e-5);
}

TEST(BatchNormFoldingTest, FoldsTheLayersOwnBiasBeforeTheBatchNormIntoTheNewBias) {
  // Keras Conv2D(use_bias=True) then BatchNormalization, as ResNet-50 has it.
  for (const char* bias_op : {"BiasAdd", "AddV2"}) {
    SCOPED_TRACE(bias_op);
    GraphBuilder b;
    b.Placeholder("x", DType::kFloat, {1, 4, 4, 2})
        .Const("w", Ramp(Shape({3, 3, 2, 3}), 0.1f, -0.4f))
        .Add("conv", "Conv2D", {"x", "w"},
             {{"strides", ops::MakeAttr(std::vector<int64_t>{1, 1, 1, 1})}, {"padding", ops::MakeAttr("SAME")}})
        .Const("b", Tensor::FromVector<float>({0.25f, -1.f, 2.f}))
        .Add("biased", bias_op, {"conv", "b"})
        .Const("s", Tensor::FromVector<float>({0.5f, -2.f, 3.f}))
        .Add("scaled", "Mul", {"biased", "s"})
        .Const("t", Tensor::FromVector<float>({1.f, 2.f, -1.f}))
        .Add("shifted", "AddV2", {"scaled", "t"})
        .Add("out", "Relu", {"shifted"});
    ir::Graph before = b.Build();
    ir::Graph after = before;
    PassContext ctx = PassContext::FromRoots(after, {"out"});
    ASSERT_TRUE(MakeBatchNormFolding()->Run(&after, ctx).ok());
    ASSERT_TRUE(PruneDeadNodes(&after, ctx).ok());
    EXPECT_EQ(after.FindNode("biased"), -1);
    EXPECT_EQ(after.FindNode("scaled"), -1);
    const ir::Node& shifted = after.node(after.FindNode("shifted"));
    EXPECT_EQ(shifted.op, "BiasAdd");
    EXPECT_EQ(after.node(shifted.inputs[0].node).name, "conv");
    std::map<std::string, Tensor> feeds{{"x", Ramp(Shape({1, 4, 4, 2}), 1.f, 0.3f)}};
    ExpectNear(Evaluate(before, feeds, {"out"}), Evaluate(after, feeds, {"out"}), 1e-5);
  }
}

TEST(BatchNormFoldingTest, BiasWithoutABatchNormAfterItIsLeftForTheFusion) {
  GraphBuilder b;
  b.Placeholder("x", DType::kFloat, {2, 4})
      .Const("w", Ramp(Shape({4, 3}), 1.f, 0.f))
      .Add("mm", "MatMul", {"x", "w"})
      .Const("b", Tensor::FromVector<float>({1.f, 2.f, 3.f}))
      .Add("biased", "BiasAdd", {"mm", "b"})
      .Add("out", "Relu", {"biased"});
  ir::Graph g = b.Build();
  ASSERT_TRUE(MakeBatchNormFolding()->Run(&g, PassContext::FromRoots(g, {"out"})).ok());
  EXPECT_EQ(g.node(g.FindNode("biased")).op, "BiasAdd");
  EXPECT_EQ(g.node(g.FindNode("mm")).inputs[1].node, g.FindNode("w"));
  EXPECT_EQ(g.FindNode("mm/folded_filter"), -1);
}

TEST(BatchNormFoldingTest, LeavesTrainingKeptSharedOrNonConstCases) {
  // Kept batch-norm name: "bn:1" could be fetched.
  {
    ir::Graph g = ConvBatchNorm("Conv2D", 2).Build();
    ASSERT_TRUE(MakeBatchNormFolding()->Run(&g, PassContext::FromRoots(g, {"out", "bn"})).ok());
    EXPECT_EQ(CountOp(g, "FusedBatchNormV3"), 1);
  }
  // is_training = true normalizes with batch statistics.
  {
    ir::Graph g = ConvBatchNorm("Conv2D", 2).Build();
    g.mutable_node(g.FindNode("bn")).attrs["is_training"] = ops::MakeAttr(true);
    ASSERT_TRUE(MakeBatchNormFolding()->Run(&g, PassContext::FromRoots(g, {"out"})).ok());
    EXPECT_EQ(CountOp(g, "FusedBatchNormV3"), 1);
  }
  // The conv output is read elsewhere too.
  {
    GraphBuilder b = ConvBatchNorm("Conv2D", 2);
    b.Add("other", "Neg", {"conv"});
    ir::Graph g = b.Build();
    ASSERT_TRUE(MakeBatchNormFolding()->Run(&g, PassContext::FromRoots(g, {"out", "other"})).ok());
    EXPECT_EQ(CountOp(g, "FusedBatchNormV3"), 1);
  }
  // The filter is not a constant.
  {
    GraphBuilder b;
    b.Placeholder("x", DType::kFloat, {1, 4, 4, 2})
        .Placeholder("w", DType::kFloat, {1, 1, 2, 2})
        .Add("conv", "Conv2D", {"x", "w"}, ConvAttrs())
        .Const("c", Positive(2, 1.f))
        .Add("bn", "FusedBatchNorm", {"conv", "c", "c", "c", "c"}, {{"is_training", ops::MakeAttr(false)}})
        .Add("out", "Relu", {"bn"});
    ir::Graph g = b.Build();
    ASSERT_TRUE(MakeBatchNormFolding()->Run(&g, PassContext::FromRoots(g, {"out"})).ok());
    EXPECT_EQ(CountOp(g, "FusedBatchNorm"), 1);
  }
}

}  // namespace
}  // namespace tfhost::passes
