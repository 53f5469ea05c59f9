#include "passes/residual_add_fusion.h"

#include <gtest/gtest.h>

#include <cmath>

#include "ir/attrs.h"
#include "passes/test_graph_util.h"

namespace tfhost::passes {
namespace {

using testing::CountOp;
using testing::Evaluate;
using testing::GraphBuilder;

Tensor Wave(Shape shape, float scale, float shift) {
  Tensor t(DType::kFloat, shape);
  for (int64_t i = 0; i < t.NumElements(); ++i) t.data<float>()[i] = std::sin(0.7f * i + shift) * scale;
  return t;
}

ir::AttrMap ConvAttrs(std::vector<std::string> fused_ops, int num_args) {
  return {{"strides", ops::MakeAttr(std::vector<int64_t>{1, 1, 1, 1})},
          {"padding", ops::MakeAttr("SAME")},
          {"fused_ops", ops::MakeAttr(fused_ops)},
          {"num_args", ops::MakeAttr(num_args)}};
}

// x [N, 6, 6, 4] -> 1x1 _FusedConv2D [BiasAdd] "conv" (4 -> 4 channels);
// residual "r" a placeholder of `residual_shape`. The caller adds the rest.
GraphBuilder Block(std::vector<int64_t> x_shape, std::vector<int64_t> residual_shape) {
  GraphBuilder b;
  b.Placeholder("x", DType::kFloat, x_shape)
      .Placeholder("r", DType::kFloat, residual_shape)
      .Const("w", Wave(Shape({1, 1, 4, 4}), 1.f, 0.3f))
      .Const("bias", Wave(Shape({4}), 0.5f, 1.f))
      .Add("conv", "_FusedConv2D", {"x", "w", "bias"}, ConvAttrs({"BiasAdd"}, 1));
  return b;
}

std::map<std::string, Tensor> Feeds(int64_t n = 1, Shape residual = Shape({1, 6, 6, 4})) {
  return {{"x", Wave(Shape({n, 6, 6, 4}), 2.f, 0.f)}, {"r", Wave(residual, 3.f, 2.f)}};
}

// Runs the pass (and pruning), checks the fetched outputs are bit-identical
// to the graph before it, and returns the rewritten graph.
ir::Graph FuseAndCompare(const ir::Graph& before, const std::vector<std::string>& roots,
                         const std::map<std::string, Tensor>& feeds) {
  ir::Graph after = before;
  PassContext ctx = PassContext::FromRoots(after, roots);
  Status st = MakeResidualAddFusion()->Run(&after, ctx);
  EXPECT_TRUE(st.ok()) << st.ToString();
  st = PruneDeadNodes(&after, ctx);
  EXPECT_TRUE(st.ok()) << st.ToString();
  testing::ExpectSameTensors(Evaluate(before, feeds, roots), Evaluate(after, feeds, roots));
  return after;
}

std::vector<std::string> FusedOps(const ir::Node& n) {
  return ir::GetAttrOr<std::vector<std::string>>(n, "fused_ops", {}).value();
}

TEST(ResidualAddFusionTest, ConvAddReluBecomesOneFusedConvUnderTheReluName) {
  GraphBuilder b = Block({1, 6, 6, 4}, {1, 6, 6, 4});
  b.Add("sum", "AddV2", {"conv", "r"}).Add("out", "Relu", {"sum"});
  ir::Graph g = FuseAndCompare(b.Build(), {"out"}, Feeds());
  EXPECT_EQ(g.num_nodes(), 5);  // x, r, w, bias, out
  const ir::Node& out = g.node(g.FindNode("out"));
  EXPECT_EQ(out.op, "_FusedConv2D");
  EXPECT_EQ(FusedOps(out), (std::vector<std::string>{"BiasAdd", "Add", "Relu"}));
  EXPECT_EQ(ir::GetAttr<int64_t>(out, "num_args").value(), 2);
  ASSERT_EQ(out.inputs.size(), 4u);
  EXPECT_EQ(g.node(out.inputs[3].node).name, "r");
  EXPECT_EQ(CountOp(g, "AddV2") + CountOp(g, "Relu"), 0);
}

TEST(ResidualAddFusionTest, ResidualOnTheLeftDepthwiseAndLeakyReluAlphaAreCarried) {
  GraphBuilder b;
  b.Placeholder("x", DType::kFloat, {1, 6, 6, 4})
      .Placeholder("r", DType::kFloat, {1, 6, 6, 4})
      .Const("w", Wave(Shape({3, 3, 4, 1}), 1.f, 0.3f))
      .Const("bias", Wave(Shape({4}), 0.5f, 1.f))
      .Add("dw", "FusedDepthwiseConv2dNative", {"x", "w", "bias"}, ConvAttrs({"BiasAdd"}, 1))
      .Add("sum", "Add", {"r", "dw"})
      .Add("out", "LeakyRelu", {"sum"}, {{"alpha", ops::MakeAttr(0.25f)}});
  ir::Graph g = FuseAndCompare(b.Build(), {"out"}, Feeds());
  const ir::Node& out = g.node(g.FindNode("out"));
  EXPECT_EQ(out.op, "FusedDepthwiseConv2dNative");
  EXPECT_EQ(FusedOps(out), (std::vector<std::string>{"BiasAdd", "Add", "LeakyRelu"}));
  EXPECT_FLOAT_EQ(ir::GetAttr<float>(out, "leakyrelu_alpha").value(), 0.25f);
  EXPECT_EQ(g.FindNode("sum"), -1);
}

TEST(ResidualAddFusionTest, WithoutActivationTheAddKeepsItsName) {
  GraphBuilder b = Block({1, 6, 6, 4}, {1, 6, 6, 4});
  b.Add("sum", "AddV2", {"conv", "r"}).Add("tail", "Neg", {"sum"});  // Neg is no activation: stays
  ir::Graph g = FuseAndCompare(b.Build(), {"tail"}, Feeds());
  const ir::Node& sum = g.node(g.FindNode("sum"));
  EXPECT_EQ(sum.op, "_FusedConv2D");
  EXPECT_EQ(FusedOps(sum), (std::vector<std::string>{"BiasAdd", "Add"}));
  EXPECT_EQ(ir::GetAttr<int64_t>(sum, "num_args").value(), 2);
  EXPECT_EQ(g.node(g.FindNode("tail")).op, "Neg");
  EXPECT_EQ(g.FindNode("conv"), -1);
}

TEST(ResidualAddFusionTest, BatchNormFusedConvIsLeftAlone) {
  // oneDNN has no jit kernel for [FusedBatchNorm, Add] on AVX2 (see the pass).
  GraphBuilder b;
  b.Placeholder("x", DType::kFloat, {1, 6, 6, 4})
      .Placeholder("r", DType::kFloat, {1, 6, 6, 4})
      .Const("w", Wave(Shape({1, 1, 4, 4}), 1.f, 0.3f))
      .Const("scale", Wave(Shape({4}), 0.5f, 1.f))
      .Const("offset", Wave(Shape({4}), 0.5f, 2.f))
      .Const("mean", Wave(Shape({4}), 0.5f, 3.f))
      .Const("var", Tensor::FromVector<float>({1.f, 2.f, 0.5f, 0.25f}, Shape({4})))
      .Add("conv", "_FusedConv2D", {"x", "w", "scale", "offset", "mean", "var"}, ConvAttrs({"FusedBatchNorm"}, 4))
      .Add("sum", "AddV2", {"conv", "r"})
      .Add("out", "Relu", {"sum"});
  ir::Graph g = FuseAndCompare(b.Build(), {"out"}, Feeds());
  EXPECT_EQ(FusedOps(g.node(g.FindNode("conv"))), (std::vector<std::string>{"FusedBatchNorm"}));
  EXPECT_EQ(CountOp(g, "AddV2"), 1);
}

TEST(ResidualAddFusionTest, UnknownBatchOnBothSidesIsTaken) {
  GraphBuilder b = Block({-1, 6, 6, 4}, {-1, 6, 6, 4});
  b.Add("sum", "AddV2", {"conv", "r"}).Add("out", "Relu6", {"sum"});
  ir::Graph g = FuseAndCompare(b.Build(), {"out"}, Feeds(2, Shape({2, 6, 6, 4})));
  EXPECT_EQ(FusedOps(g.node(g.FindNode("out"))), (std::vector<std::string>{"BiasAdd", "Add", "Relu6"}));
}

TEST(ResidualAddFusionTest, KeptAddIsFusedButTheActivationAfterItStays) {
  GraphBuilder b = Block({1, 6, 6, 4}, {1, 6, 6, 4});
  b.Add("sum", "AddV2", {"conv", "r"}).Add("out", "Relu", {"sum"});
  ir::Graph g = FuseAndCompare(b.Build(), {"out", "sum"}, Feeds());
  EXPECT_EQ(FusedOps(g.node(g.FindNode("sum"))), (std::vector<std::string>{"BiasAdd", "Add"}));
  EXPECT_EQ(g.node(g.FindNode("out")).op, "Relu");
}

// Each case leaves the graph as it was.
TEST(ResidualAddFusionTest, LeavesBroadcastsSharedKeptOrAlreadyActivatedConvolutionsAlone) {
  struct Case {
    std::string what;
    std::vector<int64_t> residual_shape;
    std::vector<std::string> conv_ops = {"BiasAdd"};
    bool second_reader = false;
    bool keep_conv = false;
    bool self_add = false;
    std::vector<int64_t> x_shape = {1, 6, 6, 4};
  };
  const std::vector<Case> cases = {
      {"per-channel residual broadcasts", {1, 1, 1, 4}},
      {"residual of unknown spatial size", {1, -1, 6, 4}},
      {"conv read twice", {1, 6, 6, 4}, {"BiasAdd"}, true},
      {"conv fetched by name", {1, 6, 6, 4}, {"BiasAdd"}, false, true},
      {"activation before the add", {1, 6, 6, 4}, {"BiasAdd", "Relu"}},
      {"conv added to itself", {1, 6, 6, 4}, {"BiasAdd"}, false, false, true},
      {"batch unknown on one side only", {1, 6, 6, 4}, {"BiasAdd"}, false, false, false, {-1, 6, 6, 4}},
  };
  for (const Case& c : cases) {
    GraphBuilder b;
    b.Placeholder("x", DType::kFloat, c.x_shape)
        .Placeholder("r", DType::kFloat, c.residual_shape)
        .Const("w", Wave(Shape({1, 1, 4, 4}), 1.f, 0.3f))
        .Const("bias", Wave(Shape({4}), 0.5f, 1.f))
        .Add("conv", "_FusedConv2D", {"x", "w", "bias"}, ConvAttrs(c.conv_ops, 1))
        .Add("sum", "AddV2", {"conv", c.self_add ? "conv" : "r"})
        .Add("out", "Relu", {"sum"});
    std::vector<std::string> roots = {"out"};
    if (c.second_reader) {
      b.Add("other", "Neg", {"conv"});
      roots.push_back("other");
    }
    if (c.keep_conv) roots.push_back("conv");
    const ir::Graph before = b.Build();
    std::vector<int64_t> r_dims = c.residual_shape;
    for (int64_t& d : r_dims) d = d < 0 ? 6 : d;
    ir::Graph g = FuseAndCompare(before, roots, Feeds(1, Shape(r_dims)));
    EXPECT_EQ(g.num_nodes(), before.num_nodes()) << c.what;
    EXPECT_EQ(CountOp(g, "AddV2"), 1) << c.what;
    EXPECT_EQ(FusedOps(g.node(g.FindNode("conv"))), c.conv_ops) << c.what;
  }
}

TEST(ResidualAddFusionTest, DefaultPipelineTurnsAnUnfusedResidualBlockIntoOneNode) {
  // Conv2D + BiasAdd (conv_bias_activation_fusion) + AddV2 + Relu (this pass),
  // with a second block reading the first's output as its residual.
  GraphBuilder b;
  b.Placeholder("x", DType::kFloat, {1, 6, 6, 4})
      .Const("w1", Wave(Shape({3, 3, 4, 4}), 0.5f, 0.3f))
      .Const("b1", Wave(Shape({4}), 0.5f, 1.f))
      .Const("w2", Wave(Shape({1, 1, 4, 4}), 1.f, 0.7f))
      .Const("b2", Wave(Shape({4}), 0.5f, 1.5f))
      .Add("c1", "Conv2D", {"x", "w1"}, {{"strides", ops::MakeAttr(std::vector<int64_t>{1, 1, 1, 1})},
                                        {"padding", ops::MakeAttr("SAME")}})
      .Add("ba1", "BiasAdd", {"c1", "b1"})
      .Add("add1", "AddV2", {"ba1", "x"})
      .Add("relu1", "Relu", {"add1"})
      .Add("c2", "Conv2D", {"relu1", "w2"}, {{"strides", ops::MakeAttr(std::vector<int64_t>{1, 1, 1, 1})},
                                            {"padding", ops::MakeAttr("SAME")}})
      .Add("ba2", "BiasAdd", {"c2", "b2"})
      .Add("add2", "AddV2", {"relu1", "ba2"})
      .Add("out", "Relu", {"add2"});
  const ir::Graph before = b.Build();
  ir::Graph after = before;
  PassContext ctx = PassContext::FromRoots(after, {"out"});
  std::vector<PassStats> stats;
  Status st = PassManager::Default().Run(&after, ctx, &stats);
  ASSERT_TRUE(st.ok()) << st.ToString();
  const std::map<std::string, Tensor> feeds = {{"x", Wave(Shape({1, 6, 6, 4}), 2.f, 0.f)}};
  testing::ExpectSameTensors(Evaluate(before, feeds, {"out"}), Evaluate(after, feeds, {"out"}));
  EXPECT_EQ(CountOp(after, "_FusedConv2D"), 2);
  EXPECT_EQ(CountOp(after, "AddV2") + CountOp(after, "Relu") + CountOp(after, kFusedElementwiseOp), 0);
  EXPECT_EQ(FusedOps(after.node(after.FindNode("relu1"))), (std::vector<std::string>{"BiasAdd", "Add", "Relu"}));
  bool ran = false;
  for (const auto& s : stats) ran |= s.pass == "residual_add_fusion" && s.nodes_after < s.nodes_before;
  EXPECT_TRUE(ran) << "residual_add_fusion did not run in the default pipeline or removed nothing";
}

}  // namespace
}  // namespace tfhost::passes
