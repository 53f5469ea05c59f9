#include <gtest/gtest.h>

#include "ops/nn/expand_depthwise.h"
#include "passes/test_graph_util.h"

namespace tfhost::passes {
namespace {

using testing::CountOp;
using testing::Evaluate;
using testing::GraphBuilder;
using testing::Ramp;

ir::AttrMap Fused(std::vector<std::string> ops, int stride, const std::string& padding) {
  return {{"fused_ops", ops::MakeAttr(ops)},
          {"num_args", ops::MakeAttr(int64_t{1})},
          {"strides", ops::MakeAttr(std::vector<int64_t>{1, stride, stride, 1})},
          {"padding", ops::MakeAttr(padding)}};
}

// x -> 1x1 expansion (BiasAdd, Relu6) -> 3x3 depthwise (BiasAdd, Relu6) -> out.
GraphBuilder Block(int stride, int64_t dw_size = 3, bool expansion_read_twice = false) {
  GraphBuilder b;
  b.Placeholder("x", DType::kFloat, {1, 7, 8, 4})
      .Const("we", Ramp(Shape({1, 1, 4, 24}), 0.05f, -0.6f))
      .Const("be", Ramp(Shape({24}), 0.1f, -1.f))
      .Const("wd", Ramp(Shape({dw_size, dw_size, 24, 1}), 0.07f, -0.5f))
      .Const("bd", Ramp(Shape({24}), 0.1f, -1.f))
      .Add("expand", "_FusedConv2D", {"x", "we", "be"}, Fused({"BiasAdd", "Relu6"}, 1, "VALID"))
      .Add("dw", "FusedDepthwiseConv2dNative", {"expand", "wd", "bd"}, Fused({"BiasAdd", "Relu6"}, stride, "SAME"))
      .Add("out", "Relu", {"dw"});
  if (expansion_read_twice) b.Add("also", "Relu", {"expand"});
  return b;
}

ir::Graph Fuse(ir::Graph g, std::vector<std::string> roots) {
  return testing::RunPassAndPrune(std::move(g), *MakeExpandDepthwiseFusion(), roots);
}

TEST(ExpandDepthwiseFusionTest, AnExpansionReadOnlyByADepthwiseLayerBecomesOneNodeWithTheirResults) {
  for (int stride : {1, 2}) {
    SCOPED_TRACE("stride " + std::to_string(stride));
    const ir::Graph before = Block(stride).Build();
    const ir::Graph after = Fuse(before, {"out"});
    EXPECT_EQ(CountOp(after, "_FusedConv2D"), 0);
    EXPECT_EQ(CountOp(after, "FusedDepthwiseConv2dNative"), 0);
    const ir::Node& n = after.node(after.FindNode("dw"));
    EXPECT_EQ(n.op, ops::nn::kExpandDepthwiseOp);
    ASSERT_EQ(n.inputs.size(), 5u);
    EXPECT_EQ(after.node(n.inputs[0].node).name, "x");
    EXPECT_EQ(after.node(n.inputs[3].node).name, "wd");
    EXPECT_EQ(*ir::GetAttr<std::vector<int64_t>>(n, "strides"), (std::vector<int64_t>{1, stride, stride, 1}));
    std::map<std::string, Tensor> feeds{{"x", Ramp(Shape({1, 7, 8, 4}), 0.3f, -2.f)}};
    // The fused node's reference kernel is the two layers': the same values.
    testing::ExpectSameTensors(Evaluate(before, feeds, {"out"}), Evaluate(after, feeds, {"out"}));
  }
}

TEST(ExpandDepthwiseFusionTest, AStridedLayerWithKerasPaddingFoldedIntoItFusesToo) {
  ir::AttrMap dw_attrs = Fused({"BiasAdd", "Relu6"}, 2, "EXPLICIT");
  dw_attrs["explicit_paddings"] = ops::MakeAttr(std::vector<int64_t>{0, 0, 0, 1, 0, 1, 0, 0});
  GraphBuilder b;
  b.Placeholder("x", DType::kFloat, {1, 8, 8, 4})
      .Const("we", Ramp(Shape({1, 1, 4, 24}), 0.05f, -0.6f))
      .Const("be", Ramp(Shape({24}), 0.1f, -1.f))
      .Const("wd", Ramp(Shape({3, 3, 24, 1}), 0.07f, -0.5f))
      .Const("bd", Ramp(Shape({24}), 0.1f, -1.f))
      .Add("expand", "_FusedConv2D", {"x", "we", "be"}, Fused({"BiasAdd", "Relu6"}, 1, "VALID"))
      .Add("dw", "FusedDepthwiseConv2dNative", {"expand", "wd", "bd"}, dw_attrs)
      .Add("out", "Relu", {"dw"});
  const ir::Graph before = b.Build();
  const ir::Graph after = Fuse(before, {"out"});
  EXPECT_EQ(after.node(after.FindNode("dw")).op, ops::nn::kExpandDepthwiseOp);
  std::map<std::string, Tensor> feeds{{"x", Ramp(Shape({1, 8, 8, 4}), 0.3f, -2.f)}};
  testing::ExpectSameTensors(Evaluate(before, feeds, {"out"}), Evaluate(after, feeds, {"out"}));
}

TEST(ExpandDepthwiseFusionTest, SharedOrKeptExpansionsOtherFiltersAndDeclinedNodesAreLeftAlone) {
  struct Case {
    const char* why;
    ir::Graph graph;
    std::vector<std::string> roots;
    std::function<bool(const ir::Node&)> check;
  };
  auto no_backend = [](const ir::Node&) { return false; };
  std::vector<Case> cases;
  cases.push_back({"an expansion read twice", Block(1, 3, true).Build(), {"out", "also"}, nullptr});
  cases.push_back({"a kept expansion", Block(1).Build(), {"out", "expand"}, nullptr});
  cases.push_back({"a 5x5 depthwise filter", Block(1, 5).Build(), {"out"}, nullptr});
  cases.push_back({"no backend takes it", Block(1).Build(), {"out"}, no_backend});
  for (Case& c : cases) {
    SCOPED_TRACE(c.why);
    PassContext ctx = PassContext::FromRoots(c.graph, c.roots);
    ctx.has_fast_kernel = c.check;
    ASSERT_TRUE(MakeExpandDepthwiseFusion()->Run(&c.graph, ctx).ok());
    EXPECT_EQ(CountOp(c.graph, ops::nn::kExpandDepthwiseOp), 0);
    EXPECT_EQ(CountOp(c.graph, "_FusedConv2D"), 1);
  }
}

}  // namespace
}  // namespace tfhost::passes
