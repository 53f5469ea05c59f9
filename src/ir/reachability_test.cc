// Pruning a graph to what its roots reach: data and control edges both
// count, root names may be tensor or control names, and Placeholders stay.
#include "ir/reachability.h"

#include <google/protobuf/text_format.h>
#include <gtest/gtest.h>

#include <algorithm>

namespace tfhost::ir {
namespace {

// x -> y -> out; init runs assign only through a control edge; train and
// its grad are a training step nothing serves; unused is a lone feed.
constexpr char kGraph[] = R"pb(
  node { name: "x" op: "Placeholder" }
  node { name: "unused" op: "Placeholder" }
  node { name: "y" op: "Neg" input: "x" }
  node { name: "out" op: "Identity" input: "y" }
  node { name: "value" op: "Const" }
  node { name: "assign" op: "Assign" input: "value" }
  node { name: "init" op: "NoOp" input: "^assign" }
  node { name: "grad" op: "MatMul" input: "y" input: "value" }
  node { name: "train" op: "NoOp" input: "^grad" }
)pb";

Graph TestGraph() {
  tensorflow::GraphDef gd;
  EXPECT_TRUE(google::protobuf::TextFormat::ParseFromString(kGraph, &gd));
  auto g = Graph::FromGraphDef(gd);
  EXPECT_TRUE(g.ok()) << g.status().ToString();
  return std::move(*g);
}

std::vector<std::string> Names(const Graph& g) {
  std::vector<std::string> names;
  for (const Node& n : g.nodes()) names.push_back(n.name);
  std::sort(names.begin(), names.end());
  return names;
}

TEST(ReachabilityTest, PruneKeepsWhatRootsReachThroughDataAndControlEdges) {
  Graph g = TestGraph();
  auto removed = PruneToRoots(g, {"out:0", "^init"});
  ASSERT_TRUE(removed.ok()) << removed.status().ToString();
  EXPECT_EQ(*removed, 2);
  EXPECT_EQ(Names(g), (std::vector<std::string>{"assign", "init", "out", "unused", "value", "x", "y"}));
  // Edges were renumbered onto the kept nodes.
  const Node& init = g.node(g.FindNode("init"));
  ASSERT_EQ(init.control_inputs.size(), 1u);
  EXPECT_EQ(g.node(init.control_inputs[0]).name, "assign");
  EXPECT_EQ(g.node(g.node(g.FindNode("out")).inputs[0].node).name, "y");
}

TEST(ReachabilityTest, NamesTheGraphLacksOrThatDoNotParseAreSkipped) {
  Graph g = TestGraph();
  auto removed = PruneToRoots(g, {"out", "no_such_node:0", "bad:name:x"});
  ASSERT_TRUE(removed.ok()) << removed.status().ToString();
  EXPECT_EQ(Names(g), (std::vector<std::string>{"out", "unused", "x", "y"}));
}

TEST(ReachabilityTest, EmptyRootsKeepEveryNode) {
  Graph g = TestGraph();
  auto removed = PruneToRoots(g, {});
  ASSERT_TRUE(removed.ok()) << removed.status().ToString();
  EXPECT_EQ(*removed, 0);
  EXPECT_EQ(g.num_nodes(), 9);
}

TEST(ReachabilityTest, ReachableFromFollowsControlInputs) {
  Graph g = TestGraph();
  std::vector<bool> seen = ReachableFrom(g, {g.FindNode("train")});
  EXPECT_TRUE(seen[g.FindNode("grad")]);
  EXPECT_TRUE(seen[g.FindNode("x")]);
  EXPECT_FALSE(seen[g.FindNode("out")]);
  EXPECT_FALSE(seen[g.FindNode("assign")]);
}

}  // namespace
}  // namespace tfhost::ir
