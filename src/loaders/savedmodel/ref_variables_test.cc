#include "loaders/savedmodel/ref_variables.h"

#include <google/protobuf/text_format.h>
#include <gtest/gtest.h>

#include "ir/attrs.h"
#include "base/test_status.h"

namespace tfhost::loaders {
namespace {

ir::Graph MakeGraph(const std::string& text) {
  tensorflow::GraphDef gd;
  EXPECT_TRUE(google::protobuf::TextFormat::ParseFromString(text, &gd));
  auto g = ir::Graph::FromGraphDef(gd);
  EXPECT_TRUE(g.ok()) << g.status().ToString();
  return g.ok() ? std::move(*g) : ir::Graph();
}

constexpr char kTf1Variables[] = R"(
node { name: "v" op: "VariableV2" attr { key: "dtype" value { type: DT_FLOAT } }
       attr { key: "shape" value { shape { dim { size: 2 } } } } }
node { name: "w" op: "VariableV2" attr { key: "dtype" value { type: DT_INT32 } }
       attr { key: "shape" value { shape { } } } attr { key: "shared_name" value { s: "shared_w" } } }
node { name: "init" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } }
       attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { dim { size: 2 } } float_val: 1 } } } }
node { name: "v/Assign" op: "Assign" input: "v" input: "init" attr { key: "T" value { type: DT_FLOAT } } }
node { name: "v/AssignAdd" op: "AssignAdd" input: "v" input: "init" attr { key: "T" value { type: DT_FLOAT } } }
node { name: "v/read" op: "Identity" input: "v" attr { key: "T" value { type: DT_FLOAT } } }
node { name: "w/IsInit" op: "IsVariableInitialized" input: "w" attr { key: "dtype" value { type: DT_INT32 } } }
)";

TEST(RefVariablesTest, WritersGetAHandleAndTheVariableNameReadersKeepTheVariable) {
  ir::Graph g = MakeGraph(kTf1Variables);
  auto n = RewriteRefVariables(g, nullptr);
  ASSERT_TRUE(n.ok()) << n.status().ToString();
  EXPECT_EQ(*n, 3);

  int handle = g.FindNode("v/_tfhost_handle");
  ASSERT_GE(handle, 0);
  const ir::Node& h = g.node(handle);
  EXPECT_EQ(h.op, "VarHandleOp");
  EXPECT_EQ(*ir::GetAttr<std::string>(h, "shared_name"), "v");
  EXPECT_EQ(*ir::GetAttr<DType>(h, "dtype"), DType::kFloat);
  EXPECT_EQ(ir::GetAttr<ir::PartialShape>(h, "shape")->ToString(), "[2]");

  for (const char* writer : {"v/Assign", "v/AssignAdd"}) {
    const ir::Node& w = g.node(g.FindNode(writer));
    EXPECT_EQ(w.inputs[0].node, handle) << writer;
    EXPECT_EQ(w.inputs[1].node, g.FindNode("init")) << writer;
    EXPECT_EQ(*ir::GetAttr<std::string>(w, "_tfhost_var_name"), "v") << writer;
  }
  // One handle per variable, shared by its writers.
  EXPECT_EQ(g.FindNode("v/_tfhost_handle_1"), -1);
  // Reads stay on the variable itself.
  EXPECT_EQ(g.node(g.FindNode("v/read")).inputs[0].node, g.FindNode("v"));
  EXPECT_EQ(g.node(g.FindNode("v/read")).FindAttr("_tfhost_var_name"), nullptr);

  // shared_name wins over the node name.
  const ir::Node& is_init = g.node(g.FindNode("w/IsInit"));
  EXPECT_EQ(*ir::GetAttr<std::string>(is_init, "_tfhost_var_name"), "shared_w");
  EXPECT_EQ(*ir::GetAttr<std::string>(g.node(is_init.inputs[0].node), "shared_name"), "shared_w");
}

TEST(RefVariablesTest, SchemaWithRefInputMarksUnknownOpsAsWriters) {
  ir::Graph g = MakeGraph(R"(
node { name: "v" op: "VariableV2" attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "shape" value { shape { } } } }
node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
node { name: "apply" op: "MyRefOp" input: "v" input: "x" }
node { name: "plain" op: "MyValueOp" input: "v" })");
  tensorflow::OpDef ref_op, value_op;
  ref_op.set_name("MyRefOp");
  ref_op.add_input_arg()->set_is_ref(true);
  value_op.set_name("MyValueOp");
  value_op.add_input_arg();
  auto n = RewriteRefVariables(g, [&](const std::string& op) -> const tensorflow::OpDef* {
    return op == "MyRefOp" ? &ref_op : op == "MyValueOp" ? &value_op : nullptr;
  });
  ASSERT_TRUE(n.ok());
  EXPECT_EQ(*n, 1);
  EXPECT_EQ(g.node(g.FindNode("apply")).inputs[0].node, g.FindNode("v/_tfhost_handle"));
  EXPECT_EQ(g.node(g.FindNode("plain")).inputs[0].node, g.FindNode("v"));
}

TEST(RefVariablesTest, VariableWithoutDtypeIsAnError) {
  ir::Graph g = MakeGraph(R"(
node { name: "v" op: "VariableV2" }
node { name: "c" op: "Const" }
node { name: "a" op: "Assign" input: "v" input: "c" })");
  auto n = RewriteRefVariables(g, nullptr);
  TFHOST_ASSERT_ERROR(n, StatusCode::kInvalidArgument, "node 'v' (VariableV2): missing required attr 'dtype'");
}

}  // namespace
}  // namespace tfhost::loaders
