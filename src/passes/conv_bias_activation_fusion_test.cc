#include <gtest/gtest.h>

#include <cmath>

#include "ir/attrs.h"
#include "passes/test_graph_util.h"

namespace tfhost::passes {
namespace {

using testing::CountOp;
using testing::Evaluate;
using testing::GraphBuilder;

Tensor Ramp(Shape shape, float scale, float shift) {
  Tensor t(DType::kFloat, shape);
  for (int64_t i = 0; i < t.NumElements(); ++i) t.data<float>()[i] = std::sin(0.9f * i + shift) * scale;
  return t;
}

ir::AttrMap ConvAttrs() {
  return {{"strides", ops::MakeAttr(std::vector<int64_t>{1, 1, 1, 1})}, {"padding", ops::MakeAttr("SAME")}};
}

std::vector<std::string> FusedOps(const ir::Node& node) {
  auto ops = ir::GetAttrOr<std::vector<std::string>>(node, "fused_ops", {});
  return ops.ok() ? *ops : std::vector<std::string>{};
}

void ExpectNear(const std::vector<Tensor>& a, const std::vector<Tensor>& b, double tol) {
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) {
    ASSERT_EQ(a[i].shape().dims(), b[i].shape().dims());
    auto va = a[i].ToDoubleVector(), vb = b[i].ToDoubleVector();
    for (size_t k = 0; k < va.size(); ++k) EXPECT_NEAR(va[k], vb[k], tol * std::max(1.0, std::abs(va[k]))) << k;
  }
}

// Runs the pass with `roots` and checks every root gives the same values.
ir::Graph FuseAndCompare(const ir::Graph& before, const std::vector<std::string>& roots,
                         const std::map<std::string, Tensor>& feeds, double tol = 0) {
  ir::Graph after = before;
  PassContext ctx = PassContext::FromRoots(after, roots);
  Status st = MakeConvBiasActivationFusion()->Run(&after, ctx);
  EXPECT_TRUE(st.ok()) << st.ToString();
  st = PruneDeadNodes(&after, ctx);
  EXPECT_TRUE(st.ok()) << st.ToString();
  if (tol == 0) {
    testing::ExpectSameTensors(Evaluate(before, feeds, roots), Evaluate(after, feeds, roots));
  } else {
    ExpectNear(Evaluate(before, feeds, roots), Evaluate(after, feeds, roots), tol);
  }
  return after;
}

TEST(ConvBiasActivationFusionTest, Conv2DBiasAddRelu6BecomesOneFusedConv2D) {
  GraphBuilder b;
  b.Placeholder("x", DType::kFloat, {1, 4, 4, 3})
      .Const("w", Ramp(Shape({2, 2, 3, 4}), 2.f, 0.f))
      .Add("conv", "Conv2D", {"x", "w"}, ConvAttrs())
      .Const("bias", Tensor::FromVector<float>({0.5f, -1.f, 3.f, 0.f}))
      .Add("biased", "BiasAdd", {"conv", "bias"})
      .Add("act", "Relu6", {"biased"});
  std::map<std::string, Tensor> feeds{{"x", Ramp(Shape({1, 4, 4, 3}), 3.f, 0.2f)}};
  ir::Graph g = FuseAndCompare(b.Build(), {"act"}, feeds);
  EXPECT_EQ(g.num_nodes(), 4);  // x, w, bias, act
  const ir::Node& act = g.node(g.FindNode("act"));
  EXPECT_EQ(act.op, "_FusedConv2D");
  EXPECT_EQ(FusedOps(act), (std::vector<std::string>{"BiasAdd", "Relu6"}));
  EXPECT_EQ(ir::GetAttr<int64_t>(act, "num_args").value(), 1);
  ASSERT_EQ(act.inputs.size(), 3u);
  EXPECT_EQ(g.node(act.inputs[2].node).name, "bias");
}

TEST(ConvBiasActivationFusionTest, DepthwiseWithAddOfPerChannelConstAndLeakyRelu) {
  GraphBuilder b;
  b.Placeholder("x", DType::kFloat, {1, 4, 4, 2})
      .Const("w", Ramp(Shape({3, 3, 2, 2}), 1.f, 0.f))
      .Add("dw", "DepthwiseConv2dNative", {"x", "w"}, ConvAttrs())
      .Const("c", Tensor::FromVector<float>({0.1f, -0.2f, 0.3f, -4.f}, Shape({1, 1, 1, 4})))
      .Add("add", "AddV2", {"c", "dw"})
      .Add("act", "LeakyRelu", {"add"}, {{"alpha", ops::MakeAttr(0.3f)}});
  std::map<std::string, Tensor> feeds{{"x", Ramp(Shape({1, 4, 4, 2}), 2.f, 0.7f)}};
  ir::Graph g = FuseAndCompare(b.Build(), {"act"}, feeds);
  const ir::Node& act = g.node(g.FindNode("act"));
  EXPECT_EQ(act.op, "FusedDepthwiseConv2dNative");
  EXPECT_EQ(FusedOps(act), (std::vector<std::string>{"BiasAdd", "LeakyRelu"}));
  EXPECT_FLOAT_EQ(ir::GetAttr<float>(act, "leakyrelu_alpha").value(), 0.3f);
  EXPECT_EQ(CountOp(g, "AddV2"), 0);
}

TEST(ConvBiasActivationFusionTest, MatMulBiasSwishAndTwoDimensionalBatchMatMul) {
  GraphBuilder b;
  b.Placeholder("x", DType::kFloat, {3, 4})
      .Const("w", Ramp(Shape({4, 5}), 1.f, 0.f))
      .Add("mm", "MatMul", {"x", "w"})
      .Const("bias", Ramp(Shape({5}), 1.f, 2.f))
      .Add("biased", "BiasAdd", {"mm", "bias"})
      .Add("sig", "Sigmoid", {"biased"})
      .Add("swish", "Mul", {"biased", "sig"})
      .Const("w2", Ramp(Shape({2, 5}), 1.f, 1.f))
      .Add("bmm", "BatchMatMulV2", {"swish", "w2"}, {{"adj_y", ops::MakeAttr(true)}})
      .Const("bias2", Tensor::FromVector<float>({1.f, -1.f}))
      .Add("out", "BiasAdd", {"bmm", "bias2"});
  std::map<std::string, Tensor> feeds{{"x", Ramp(Shape({3, 4}), 2.f, 0.1f)}};
  ir::Graph g = FuseAndCompare(b.Build(), {"out", "swish"}, feeds, 1e-6);
  const ir::Node& swish = g.node(g.FindNode("swish"));
  EXPECT_EQ(swish.op, "_FusedMatMul");
  EXPECT_EQ(FusedOps(swish), (std::vector<std::string>{"BiasAdd", "_MklSwish"}));
  EXPECT_EQ(CountOp(g, "Sigmoid"), 0);
  const ir::Node& out = g.node(g.FindNode("out"));
  EXPECT_EQ(out.op, "_FusedMatMul");
  EXPECT_TRUE(ir::GetAttr<bool>(out, "transpose_b").value());
  EXPECT_EQ(FusedOps(out), (std::vector<std::string>{"BiasAdd"}));
}

TEST(ConvBiasActivationFusionTest, BatchMatMulOfRankThreeAndFourBecomesTfhostFusedBatchMatMul) {
  // A dense layer on [B, T, D] (rank 3 x rank 2) with BiasAdd + Relu, and an
  // attention-shaped [B, H, T, D] x [B, H, T, D]^T product with an Add of a
  // per-channel Const and Tanh.
  GraphBuilder b;
  b.Placeholder("x", DType::kFloat, {2, 3, 4})
      .Const("w", Ramp(Shape({4, 5}), 1.f, 0.f))
      .Add("dense", "BatchMatMulV2", {"x", "w"})
      .Const("bias", Ramp(Shape({5}), 1.f, 2.f))
      .Add("biased", "BiasAdd", {"dense", "bias"})
      .Add("relu", "Relu", {"biased"})
      .Placeholder("q", DType::kFloat, {1, 2, 3, 4})
      .Placeholder("k", DType::kFloat, {1, 2, 3, 4})
      .Add("scores", "BatchMatMulV2", {"q", "k"}, {{"adj_y", ops::MakeAttr(true)}})
      .Const("c", Tensor::FromVector<float>({0.5f, -0.25f, 1.f}, Shape({1, 1, 1, 3})))
      .Add("shifted", "AddV2", {"scores", "c"})
      .Add("act", "Tanh", {"shifted"});
  std::map<std::string, Tensor> feeds{{"x", Ramp(Shape({2, 3, 4}), 2.f, 0.1f)},
                                      {"q", Ramp(Shape({1, 2, 3, 4}), 1.f, 0.3f)},
                                      {"k", Ramp(Shape({1, 2, 3, 4}), 1.f, 0.9f)}};
  ir::Graph g = FuseAndCompare(b.Build(), {"relu", "act"}, feeds, 1e-6);
  const ir::Node& relu = g.node(g.FindNode("relu"));
  EXPECT_EQ(relu.op, "_TfhostFusedBatchMatMul");
  EXPECT_EQ(FusedOps(relu), (std::vector<std::string>{"BiasAdd", "Relu"}));
  const ir::Node& act = g.node(g.FindNode("act"));
  EXPECT_EQ(act.op, "_TfhostFusedBatchMatMul");
  EXPECT_TRUE(ir::GetAttr<bool>(act, "adj_y").value());
  EXPECT_EQ(FusedOps(act), (std::vector<std::string>{"BiasAdd", "Tanh"}));
  EXPECT_EQ(CountOp(g, "BatchMatMulV2"), 0);
  EXPECT_EQ(CountOp(g, "AddV2"), 0);
}

TEST(ConvBiasActivationFusionTest, AttentionScoresAndBroadcastMaskBecomeOneFusedBatchMatMulWithAdd) {
  // scores = q k^T + mask[B, 1, 1, T]; a mask that would enlarge the product
  // ([2, 2, 3, 3] against [1, 2, 3, 3]) and x + x stay unfused.
  GraphBuilder b;
  b.Placeholder("q", DType::kFloat, {2, 2, 3, 4})
      .Placeholder("k", DType::kFloat, {2, 2, 3, 4})
      .Placeholder("mask", DType::kFloat, {2, 1, 1, 3})
      .Add("scores", "BatchMatMulV2", {"q", "k"}, {{"adj_y", ops::MakeAttr(true)}})
      .Add("masked", "AddV2", {"scores", "mask"})
      .Add("act", "Relu", {"masked"})
      .Placeholder("q1", DType::kFloat, {1, 2, 3, 4})
      .Placeholder("big", DType::kFloat, {2, 2, 3, 3})
      .Add("s1", "BatchMatMulV2", {"q1", "q1"}, {{"adj_y", ops::MakeAttr(true)}})
      .Add("enlarged", "AddV2", {"s1", "big"})
      .Add("s2", "BatchMatMulV2", {"q1", "q1"}, {{"adj_y", ops::MakeAttr(true)}})
      .Add("doubled", "AddV2", {"s2", "s2"});
  std::map<std::string, Tensor> feeds{{"q", Ramp(Shape({2, 2, 3, 4}), 1.f, 0.3f)},
                                      {"k", Ramp(Shape({2, 2, 3, 4}), 1.f, 0.9f)},
                                      {"mask", Ramp(Shape({2, 1, 1, 3}), 3.f, 0.5f)},
                                      {"q1", Ramp(Shape({1, 2, 3, 4}), 1.f, 0.1f)},
                                      {"big", Ramp(Shape({2, 2, 3, 3}), 1.f, 0.2f)}};
  ir::Graph g = FuseAndCompare(b.Build(), {"act", "enlarged", "doubled"}, feeds, 1e-6);
  const ir::Node& act = g.node(g.FindNode("act"));
  EXPECT_EQ(act.op, "_TfhostFusedBatchMatMul");
  EXPECT_EQ(FusedOps(act), (std::vector<std::string>{"Add", "Relu"}));
  ASSERT_EQ(act.inputs.size(), 3u);
  EXPECT_EQ(g.node(act.inputs[2].node).name, "mask");
  EXPECT_EQ(g.node(g.FindNode("enlarged")).op, "AddV2");
  EXPECT_EQ(g.node(g.FindNode("doubled")).op, "AddV2");
}

TEST(ConvBiasActivationFusionTest, BatchMatMulV1WithUnknownBatchDimsIsNotFused) {
  // V1 fails on unequal batch dims; the fused op would broadcast them, so
  // only statically equal batch dims fuse.
  GraphBuilder b;
  b.Placeholder("x", DType::kFloat, {-1, 3, 4})
      .Placeholder("y", DType::kFloat, {2, 4, 5})
      .Add("bmm", "BatchMatMul", {"x", "y"})
      .Add("act", "Relu", {"bmm"});
  std::map<std::string, Tensor> feeds{{"x", Ramp(Shape({2, 3, 4}), 2.f, 0.1f)}, {"y", Ramp(Shape({2, 4, 5}), 1.f, 0.f)}};
  ir::Graph g = FuseAndCompare(b.Build(), {"act"}, feeds);
  EXPECT_EQ(CountOp(g, "BatchMatMul"), 1);
  EXPECT_EQ(CountOp(g, "_TfhostFusedBatchMatMul"), 0);
}

TEST(ConvBiasActivationFusionTest, ExistingFusedConvTakesActivationAndBareConvGetsZeroBias) {
  GraphBuilder b;
  b.Placeholder("x", DType::kFloat, {1, 3, 3, 2})
      .Const("w", Ramp(Shape({1, 1, 2, 2}), 1.f, 0.f))
      .Const("bias", Tensor::FromVector<float>({0.25f, -0.5f}))
      .Add("fused", "_FusedConv2D", {"x", "w", "bias"},
           [] {
             ir::AttrMap a = ConvAttrs();
             a["num_args"] = ops::MakeAttr(1);
             a["fused_ops"] = ops::MakeAttr(std::vector<std::string>{"BiasAdd"});
             return a;
           }())
      .Add("relu", "Relu", {"fused"})
      .Add("conv", "Conv2D", {"relu", "w"}, ConvAttrs())
      .Add("elu", "Elu", {"conv"});
  std::map<std::string, Tensor> feeds{{"x", Ramp(Shape({1, 3, 3, 2}), 2.f, 0.4f)}};
  ir::Graph g = FuseAndCompare(b.Build(), {"elu"}, feeds);
  const ir::Node& relu = g.node(g.FindNode("relu"));
  EXPECT_EQ(relu.op, "_FusedConv2D");
  EXPECT_EQ(FusedOps(relu), (std::vector<std::string>{"BiasAdd", "Relu"}));
  const ir::Node& elu = g.node(g.FindNode("elu"));
  EXPECT_EQ(elu.op, "_FusedConv2D");
  EXPECT_EQ(FusedOps(elu), (std::vector<std::string>{"BiasAdd", "Elu"}));
  EXPECT_EQ(g.node(elu.inputs[2].node).op, "Const");
  EXPECT_EQ(g.num_nodes(), 6);  // x, w, bias, relu, zero bias, elu
}

TEST(ConvBiasActivationFusionTest, StopsAtKeptNamesAndSharedOutputs) {
  auto build = [] {
    GraphBuilder b;
    b.Placeholder("x", DType::kFloat, {1, 3, 3, 2})
        .Const("w", Ramp(Shape({1, 1, 2, 2}), 1.f, 0.f))
        .Add("conv", "Conv2D", {"x", "w"}, ConvAttrs())
        .Const("bias", Tensor::FromVector<float>({0.25f, -0.5f}))
        .Add("biased", "BiasAdd", {"conv", "bias"})
        .Add("act", "Sigmoid", {"biased"});
    return b;
  };
  std::map<std::string, Tensor> feeds{{"x", Ramp(Shape({1, 3, 3, 2}), 2.f, 0.4f)}};
  // The bias output is fetched: conv + bias fuse under its name, Sigmoid stays.
  ir::Graph g = FuseAndCompare(build().Build(), {"act", "biased"}, feeds);
  EXPECT_EQ(g.node(g.FindNode("biased")).op, "_FusedConv2D");
  EXPECT_EQ(FusedOps(g.node(g.FindNode("biased"))), (std::vector<std::string>{"BiasAdd"}));
  EXPECT_EQ(CountOp(g, "Sigmoid"), 1);
  // The conv output itself is fetched: nothing fuses.
  ir::Graph kept = FuseAndCompare(build().Build(), {"act", "conv"}, feeds);
  EXPECT_EQ(CountOp(kept, "Conv2D"), 1);
  EXPECT_EQ(CountOp(kept, "BiasAdd"), 1);
  // The conv output has a second reader.
  GraphBuilder shared = build();
  shared.Add("other", "Neg", {"conv"});
  ir::Graph s = FuseAndCompare(shared.Build(), {"act", "other"}, feeds);
  EXPECT_EQ(CountOp(s, "Conv2D"), 1);
  EXPECT_EQ(CountOp(s, "_FusedConv2D"), 0);
}

}  // namespace
}  // namespace tfhost::passes
