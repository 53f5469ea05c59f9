#include "loaders/savedmodel/restore_subset.h"

#include <google/protobuf/text_format.h>
#include <google/protobuf/util/message_differencer.h>
#include <gtest/gtest.h>

#include "base/test_temp_dir.h"
#include "checkpoint/tensor_bundle_writer.h"
#include "ir/attrs.h"
#include "loaders/graph_to_session.h"
#include "loaders/savedmodel/object_graph_captures.h"

namespace tfhost::loaders {
namespace {

// Three variables and their reads; the restore step comes from
// AddBoundVariableRestore, shaped as TensorFlow's savers shape theirs.
ir::Graph ThreeVariables() {
  tensorflow::GraphDef gd;
  std::string text;
  for (const char* v : {"a", "b", "c"}) {
    text += std::string("node { name: \"") + v +
            "\" op: \"VarHandleOp\" attr { key: \"dtype\" value { type: DT_FLOAT } } attr { key: \"shared_name\" "
            "value { s: \"" + v + "\" } } }\n";
    text += std::string("node { name: \"read_") + v + "\" op: \"ReadVariableOp\" input: \"" + v +
            "\" attr { key: \"dtype\" value { type: DT_FLOAT } } }\n";
  }
  EXPECT_TRUE(google::protobuf::TextFormat::ParseFromString(text, &gd));
  auto g = ir::Graph::FromGraphDef(gd);
  EXPECT_TRUE(g.ok()) << g.status().ToString();
  return std::move(*g);
}

// Whether `g` is still the graph `before` was taken from.
bool Unchanged(const ir::Graph& g, const tensorflow::GraphDef& before) {
  return google::protobuf::util::MessageDifferencer::Equals(g.ToGraphDef(), before);
}

std::string AddRestore(ir::Graph& g, const std::string& prefix) {
  auto restore = AddBoundVariableRestore(g, {{"a", "key_a"}, {"b", "key_b"}, {"c", "key_c"}}, prefix);
  EXPECT_TRUE(restore.ok()) << restore.status().ToString();
  return restore.ok() ? *restore : "";
}

TEST(RestoreSubsetTest, TheNarrowedStepReadsOnlyTheWantedTensorsAndRestoresThem) {
  testing::TempDir dir("tfhost_restore_subset");
  {
    // No key_b: the whole step would fail reading it.
    checkpoint::TensorBundleWriter writer(dir.Sub("variables"));
    ASSERT_TRUE(writer.Add("key_a", Tensor::FromVector<float>({1, 2})).ok());
    ASSERT_TRUE(writer.Add("key_c", Tensor::Scalar<float>(7)).ok());
    ASSERT_TRUE(writer.Finish().ok());
  }
  ir::Graph g = ThreeVariables();
  const std::string restore = AddRestore(g, dir.Sub("variables"));
  std::vector<std::string> targets = NarrowRestore(g, restore, {"c", "a"});
  ASSERT_EQ(targets.size(), 2u);
  const ir::Node* restore_v2 = nullptr;
  for (const ir::Node& n : g.nodes()) {
    if (n.op == "RestoreV2") restore_v2 = &n;
  }
  ASSERT_NE(restore_v2, nullptr);
  auto names = ir::GetAttr<Tensor>(g.node(restore_v2->inputs[1].node), "value");
  ASSERT_TRUE(names.ok());
  ASSERT_EQ(names->NumElements(), 2);
  EXPECT_EQ(names->strings()[0], "key_a");
  EXPECT_EQ(names->strings()[1], "key_c");

  LoadOptions options;
  options.optimize_graph = false;
  options.freeze_variables = false;
  std::vector<std::string> roots = targets;
  roots.push_back("read_a");
  roots.push_back("read_c");
  auto session = GraphToSession(std::move(g), nullptr, options, "subset", roots);
  ASSERT_TRUE(session.ok()) << session.status().ToString();
  ASSERT_TRUE((*session)->Run({}, {}, targets).ok());
  auto values = (*session)->Run({}, {"read_a:0", "read_c:0"});
  ASSERT_TRUE(values.ok()) << values.status().ToString();
  EXPECT_EQ((*values)[0].data<float>()[1], 2.0f);
  EXPECT_EQ((*values)[1].data<float>()[0], 7.0f);
}

TEST(RestoreSubsetTest, AVariableAssignedTwiceLeavesTheGraphAsItWas) {
  ir::Graph g = ThreeVariables();
  const std::string restore = AddRestore(g, "/nonexistent/variables");
  // A second assignment of a, also run by the step.
  ir::Node again = g.node(g.FindNode(restore + "/Assign"));
  again.name = "assign_a_again";
  ASSERT_TRUE(g.AddNode(std::move(again)).ok());
  g.mutable_node(g.FindNode(restore)).control_inputs.push_back(g.FindNode("assign_a_again"));
  const tensorflow::GraphDef before = g.ToGraphDef();
  EXPECT_TRUE(NarrowRestore(g, restore, {"a"}).empty());
  EXPECT_TRUE(Unchanged(g, before));
}

TEST(RestoreSubsetTest, AnAssignmentOrderedAfterAnotherLeavesTheGraphAsItWas) {
  ir::Graph g = ThreeVariables();
  const std::string restore = AddRestore(g, "/nonexistent/variables");
  // a's assignment waits for b's: narrowing to a alone would run b's too.
  int assign_a = -1, assign_b = -1;
  for (int i = 0; i < g.num_nodes(); ++i) {
    if (g.node(i).op != "AssignVariableOp") continue;
    if (g.node(g.node(i).inputs[0].node).name == "a") assign_a = i;
    if (g.node(g.node(i).inputs[0].node).name == "b") assign_b = i;
  }
  ASSERT_GE(assign_a, 0);
  ASSERT_GE(assign_b, 0);
  g.mutable_node(assign_a).control_inputs.push_back(assign_b);
  const tensorflow::GraphDef before = g.ToGraphDef();
  EXPECT_TRUE(NarrowRestore(g, restore, {"a"}).empty());
  EXPECT_TRUE(Unchanged(g, before));
}

TEST(RestoreSubsetTest, AVariableTheStepDoesNotAssignLeavesTheGraphAsItWas) {
  ir::Graph g = ThreeVariables();
  const std::string restore = AddRestore(g, "/nonexistent/variables");
  const tensorflow::GraphDef before = g.ToGraphDef();
  EXPECT_TRUE(NarrowRestore(g, restore, {"a", "read_b"}).empty());
  EXPECT_TRUE(NarrowRestore(g, "no_such_op", {"a"}).empty());
  EXPECT_TRUE(Unchanged(g, before));
}

}  // namespace
}  // namespace tfhost::loaders
