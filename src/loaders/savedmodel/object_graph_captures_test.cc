#include "loaders/savedmodel/object_graph_captures.h"

#include <google/protobuf/text_format.h>
#include <gtest/gtest.h>

#include "base/test_status.h"
#include "base/test_temp_dir.h"
#include "checkpoint/tensor_bundle_writer.h"
#include "loaders/graph_to_session.h"

namespace tfhost::loaders {
namespace {

template <typename Proto>
Proto Parse(const std::string& text) {
  Proto proto;
  EXPECT_TRUE(google::protobuf::TextFormat::ParseFromString(text, &proto)) << text;
  return proto;
}

ir::Graph MakeGraph(const std::string& text) {
  auto g = ir::Graph::FromGraphDef(Parse<tensorflow::GraphDef>(text));
  EXPECT_TRUE(g.ok()) << g.status().ToString();
  return g.ok() ? std::move(*g) : ir::Graph();
}

// A signature call capturing two variables and a constant; the handles it
// passes are not the ones any restore function would fill.
constexpr char kCallGraph[] = R"(
node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
node { name: "dense/kernel" op: "VarHandleOp" attr { key: "dtype" value { type: DT_FLOAT } }
       attr { key: "shared_name" value { s: "dense/kernel" } } }
node { name: "dense/bias" op: "VarHandleOp" attr { key: "dtype" value { type: DT_FLOAT } }
       attr { key: "shared_name" value { s: "dense/bias" } } }
node { name: "table" op: "Placeholder" attr { key: "dtype" value { type: DT_RESOURCE } } }
node { name: "call" op: "StatefulPartitionedCall" input: "x" input: "dense/kernel" input: "table"
       input: "dense/bias" attr { key: "f" value { func { name: "serving_fn" } } } }
)";

// Object 1 is the layer, 2 and 3 its variables, 4 a non-variable capture.
constexpr char kObjects[] = R"(
nodes { children { node_id: 1 local_name: "layer" } user_object {} }
nodes { children { node_id: 2 local_name: "kernel" } children { node_id: 3 local_name: "bias" } user_object {} }
nodes { variable { name: "dense/kernel" } }
nodes { variable { name: "dense/bias" } }
nodes { resource {} }
concrete_functions { key: "serving_fn" value { bound_inputs: [2, 4, 3] } }
)";

// The checkpoint numbers the same objects differently: matching is by path.
constexpr char kCheckpointObjects[] = R"(
nodes { children { node_id: 3 local_name: "layer" } }
nodes { attributes { name: "VARIABLE_VALUE" checkpoint_key: "layer/bias/.ATTRIBUTES/VARIABLE_VALUE" } }
nodes { attributes { name: "VARIABLE_VALUE" checkpoint_key: "layer/kernel/.ATTRIBUTES/VARIABLE_VALUE" } }
nodes { children { node_id: 2 local_name: "kernel" } children { node_id: 1 local_name: "bias" } }
)";

TEST(ObjectGraphCapturesTest, EachCapturedVariableGetsTheKeyOfTheCheckpointObjectAtItsPath) {
  ir::Graph g = MakeGraph(kCallGraph);
  auto bound = CapturedVariables(g, Parse<tensorflow::SavedObjectGraph>(kObjects),
                                 Parse<tensorflow::TrackableObjectGraph>(kCheckpointObjects));
  ASSERT_TRUE(bound.ok()) << bound.status().ToString();
  ASSERT_EQ(bound->size(), 2u);
  EXPECT_EQ((*bound)[0].handle, "dense/kernel");
  EXPECT_EQ((*bound)[0].checkpoint_key, "layer/kernel/.ATTRIBUTES/VARIABLE_VALUE");
  EXPECT_EQ((*bound)[1].handle, "dense/bias");
  EXPECT_EQ((*bound)[1].checkpoint_key, "layer/bias/.ATTRIBUTES/VARIABLE_VALUE");
}

TEST(ObjectGraphCapturesTest, VariableMissingFromTheCheckpointIsLeftUnbound) {
  ir::Graph g = MakeGraph(kCallGraph);
  auto checkpoint = Parse<tensorflow::TrackableObjectGraph>(kCheckpointObjects);
  checkpoint.mutable_nodes(3)->mutable_children()->RemoveLast();  // no "bias" under the layer
  auto bound = CapturedVariables(g, Parse<tensorflow::SavedObjectGraph>(kObjects), checkpoint);
  ASSERT_TRUE(bound.ok()) << bound.status().ToString();
  ASSERT_EQ(bound->size(), 1u);
  EXPECT_EQ((*bound)[0].handle, "dense/kernel");
}

TEST(ObjectGraphCapturesTest, MoreBoundInputsThanTheCallPassesIsAnErrorNamingBoth) {
  ir::Graph g = MakeGraph(kCallGraph);
  auto objects = Parse<tensorflow::SavedObjectGraph>(kObjects);
  auto& bound_inputs = *(*objects.mutable_concrete_functions())["serving_fn"].mutable_bound_inputs();
  for (int k = 0; k < 3; ++k) bound_inputs.Add(2);
  auto bound = CapturedVariables(g, objects, Parse<tensorflow::TrackableObjectGraph>(kCheckpointObjects));
  TFHOST_ASSERT_ERROR(
      bound, StatusCode::kInvalidArgument,
      "object graph: function 'serving_fn' has 6 bound inputs, but call node 'call' passes it only 4 inputs");
  EXPECT_EQ(bound.status().message(),
            "object graph: function 'serving_fn' has 6 bound inputs, but call node 'call' passes it only 4 inputs");
}

TEST(ObjectGraphCapturesTest, BoundInputOutsideTheObjectGraphIsAnErrorNamingTheId) {
  ir::Graph g = MakeGraph(kCallGraph);
  auto objects = Parse<tensorflow::SavedObjectGraph>(kObjects);
  (*objects.mutable_concrete_functions())["serving_fn"].set_bound_inputs(1, 99);
  auto bound = CapturedVariables(g, objects, Parse<tensorflow::TrackableObjectGraph>(kCheckpointObjects));
  TFHOST_ASSERT_ERROR(bound, StatusCode::kInvalidArgument,
                      "object graph: function 'serving_fn' bound input 1 is object 99, but the graph has 5 objects");
  EXPECT_EQ(bound.status().message(),
            "object graph: function 'serving_fn' bound input 1 is object 99, but the graph has 5 objects");
}

TEST(ObjectGraphCapturesTest, ReadsTheObjectGraphTheBundleStoresAndSaysWhenThereIsNone) {
  testing::TempDir dir("tfhost_object_graph");
  const auto checkpoint = Parse<tensorflow::TrackableObjectGraph>(kCheckpointObjects);
  {
    checkpoint::TensorBundleWriter writer(dir.Sub("tf2"));
    ASSERT_TRUE(writer.Add("_CHECKPOINTABLE_OBJECT_GRAPH", Tensor::StringScalar(checkpoint.SerializeAsString())).ok());
    ASSERT_TRUE(writer.Finish().ok());
    checkpoint::TensorBundleWriter tf1(dir.Sub("tf1"));
    ASSERT_TRUE(tf1.Add("w", Tensor::Scalar<float>(1)).ok());
    ASSERT_TRUE(tf1.Finish().ok());
  }
  auto tf2 = checkpoint::TensorBundleReader::Open(dir.Sub("tf2"));
  ASSERT_TRUE(tf2.ok()) << tf2.status().ToString();
  auto read = ReadCheckpointObjectGraph(**tf2, dir.Sub("tf2"));
  ASSERT_TRUE(read.ok()) << read.status().ToString();
  EXPECT_EQ(read->SerializeAsString(), checkpoint.SerializeAsString());

  auto tf1 = checkpoint::TensorBundleReader::Open(dir.Sub("tf1"));
  ASSERT_TRUE(tf1.ok()) << tf1.status().ToString();
  auto none = ReadCheckpointObjectGraph(**tf1, dir.Sub("tf1"));
  EXPECT_EQ(none.status().code(), StatusCode::kNotFound);
  EXPECT_EQ(none.status().message(),
            "checkpoint " + dir.Sub("tf1") + " has no _CHECKPOINTABLE_OBJECT_GRAPH entry (a TF1 checkpoint)");
}

TEST(ObjectGraphCapturesTest, AddedRestoreFillsTheCapturedHandlesFromTheirKeys) {
  testing::TempDir dir("tfhost_object_graph");
  {
    checkpoint::TensorBundleWriter writer(dir.Sub("variables"));
    ASSERT_TRUE(writer.Add("layer/kernel/.ATTRIBUTES/VARIABLE_VALUE", Tensor::FromVector<float>({2, 3})).ok());
    ASSERT_TRUE(writer.Add("layer/bias/.ATTRIBUTES/VARIABLE_VALUE", Tensor::Scalar<float>(0.5f)).ok());
    ASSERT_TRUE(writer.Finish().ok());
  }
  ir::Graph g = MakeGraph(R"(
node { name: "dense/kernel" op: "VarHandleOp" attr { key: "dtype" value { type: DT_FLOAT } }
       attr { key: "shared_name" value { s: "dense/kernel" } } }
node { name: "dense/bias" op: "VarHandleOp" attr { key: "dtype" value { type: DT_FLOAT } }
       attr { key: "shared_name" value { s: "dense/bias" } } }
node { name: "kernel" op: "ReadVariableOp" input: "dense/kernel" attr { key: "dtype" value { type: DT_FLOAT } } }
node { name: "bias" op: "ReadVariableOp" input: "dense/bias" attr { key: "dtype" value { type: DT_FLOAT } } }
)");
  auto restore = AddBoundVariableRestore(g,
                                         {{"dense/kernel", "layer/kernel/.ATTRIBUTES/VARIABLE_VALUE"},
                                          {"dense/bias", "layer/bias/.ATTRIBUTES/VARIABLE_VALUE"}},
                                         dir.Sub("variables"));
  ASSERT_TRUE(restore.ok()) << restore.status().ToString();
  LoadOptions options;
  options.optimize_graph = false;
  options.freeze_variables = false;
  auto session = GraphToSession(std::move(g), nullptr, options, "captures", {*restore, "kernel", "bias"});
  ASSERT_TRUE(session.ok()) << session.status().ToString();
  ASSERT_TRUE((*session)->Run({}, {}, {*restore}).ok());
  auto values = (*session)->Run({}, {"kernel:0", "bias:0"});
  ASSERT_TRUE(values.ok()) << values.status().ToString();
  EXPECT_EQ((*values)[0].data<float>()[0], 2.0f);
  EXPECT_EQ((*values)[0].data<float>()[1], 3.0f);
  EXPECT_EQ((*values)[1].data<float>()[0], 0.5f);
}

TEST(ObjectGraphCapturesTest, RestoringAHandleTheGraphLacksIsNotFound) {
  ir::Graph g = MakeGraph(kCallGraph);
  auto restore = AddBoundVariableRestore(g, {{"gone", "k"}}, "/nonexistent");
  EXPECT_EQ(restore.status().code(), StatusCode::kNotFound);
  EXPECT_EQ(restore.status().message(), "captured variable 'gone' is not in the graph");
}

}  // namespace
}  // namespace tfhost::loaders
