#include <gtest/gtest.h>

#include "passes/test_graph_util.h"

namespace tfhost::passes {
namespace {

using testing::CountOp;
using testing::Evaluate;
using testing::GraphBuilder;

ir::Graph ChainGraph() {
  GraphBuilder b;
  b.Placeholder("x", DType::kFloat, {2})
      .Add("id1", "Identity", {"x"})
      .Add("sg", "StopGradient", {"id1"})
      .Add("snap", "Snapshot", {"sg"})
      .Add("neg", "Neg", {"snap"})
      .Add("idn", "IdentityN", {"neg", "x"}, {{"T", ops::MakeAttr(std::vector<DType>{DType::kFloat, DType::kFloat})}})
      .Add("out", "AddV2", {"idn:0", "idn:1"})
      .Add("out_id", "Identity", {"out"});
  return b.Build();
}

TEST(IdentityEliminationTest, RemovesForwardingChainsAndKeepsOutputs) {
  ir::Graph before = ChainGraph();
  ir::Graph after = before;
  PassContext ctx = PassContext::FromRoots(after, {"out_id"});
  ASSERT_TRUE(MakeIdentityElimination()->Run(&after, ctx).ok());
  EXPECT_EQ(CountOp(after, "StopGradient") + CountOp(after, "Snapshot") + CountOp(after, "IdentityN"), 0);
  // The fetched Identity keeps its name; the others are gone.
  EXPECT_EQ(CountOp(after, "Identity"), 1);
  EXPECT_GE(after.FindNode("out_id"), 0);
  const ir::Node& neg = after.node(after.FindNode("neg"));
  EXPECT_EQ(after.node(neg.inputs[0].node).name, "x");
  const ir::Node& out = after.node(after.FindNode("out"));
  EXPECT_EQ(after.node(out.inputs[0].node).name, "neg");
  EXPECT_EQ(after.node(out.inputs[1].node).name, "x");
  std::map<std::string, Tensor> feeds{{"x", Tensor::FromVector<float>({1.5f, -2.f})}};
  testing::ExpectSameTensors(Evaluate(before, feeds, {"out_id"}), Evaluate(after, feeds, {"out_id"}));
}

TEST(IdentityEliminationTest, MovesControlInputsToConsumers) {
  GraphBuilder b;
  b.Placeholder("x", DType::kFloat, {1})
      .Placeholder("y", DType::kFloat, {1})
      .Add("dep", "Neg", {"y"})
      .Add("id", "Identity", {"x", "^dep"})
      .Add("out", "Neg", {"id"});
  ir::Graph g = b.Build();
  ASSERT_TRUE(MakeIdentityElimination()->Run(&g, PassContext::FromRoots(g, {"out"})).ok());
  EXPECT_EQ(CountOp(g, "Identity"), 0);
  const ir::Node& out = g.node(g.FindNode("out"));
  ASSERT_EQ(out.control_inputs.size(), 1u);
  EXPECT_EQ(g.node(out.control_inputs[0]).name, "dep");
}

TEST(IdentityEliminationTest, ForwardsNoOpControlEdges) {
  GraphBuilder b;
  b.Placeholder("x", DType::kFloat, {1})
      .Add("a", "Neg", {"x"})
      .Add("gate", "NoOp", {"^a"})
      .Add("out", "Neg", {"x", "^gate"});
  ir::Graph g = b.Build();
  ASSERT_TRUE(MakeIdentityElimination()->Run(&g, PassContext::FromRoots(g, {"out"})).ok());
  EXPECT_EQ(CountOp(g, "NoOp"), 0);
  const ir::Node& out = g.node(g.FindNode("out"));
  ASSERT_EQ(out.control_inputs.size(), 1u);
  EXPECT_EQ(g.node(out.control_inputs[0]).name, "a");
}

TEST(IdentityEliminationTest, LeavesIdentityAfterSwitchAndEverythingWhenAllNamesAreRoots) {
  GraphBuilder b;
  b.Placeholder("x", DType::kFloat, {1})
      .Placeholder("p", DType::kBool, {})
      .Add("sw", "Switch", {"x", "p"})
      .Add("pivot", "Identity", {"sw:1"})
      .Add("out", "Neg", {"pivot"});
  ir::Graph g = b.Build();
  ASSERT_TRUE(MakeIdentityElimination()->Run(&g, PassContext::FromRoots(g, {"out"})).ok());
  EXPECT_EQ(CountOp(g, "Identity"), 1);

  ir::Graph chain = ChainGraph();
  const int n = chain.num_nodes();
  ASSERT_TRUE(MakeIdentityElimination()->Run(&chain, PassContext::FromRoots(chain, {})).ok());
  EXPECT_EQ(chain.num_nodes(), n);
}

}  // namespace
}  // namespace tfhost::passes
