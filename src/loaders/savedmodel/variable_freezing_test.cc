#include "loaders/savedmodel/variable_freezing.h"

#include <google/protobuf/text_format.h>
#include <gtest/gtest.h>

#include "ir/attrs.h"
#include "loaders/savedmodel/ref_variables.h"

namespace tfhost::loaders {
namespace {

ir::Graph MakeGraph(const std::string& text) {
  tensorflow::GraphDef gd;
  EXPECT_TRUE(google::protobuf::TextFormat::ParseFromString(text, &gd));
  auto g = ir::Graph::FromGraphDef(gd);
  EXPECT_TRUE(g.ok()) << g.status().ToString();
  return g.ok() ? std::move(*g) : ir::Graph();
}

std::vector<int> Nodes(const ir::Graph& g, std::initializer_list<const char*> names) {
  std::vector<int> ids;
  for (const char* n : names) ids.push_back(g.FindNode(n));
  return ids;
}

// Two signatures' inlined bodies read the same variable; the restore step
// assigns it (not served).
constexpr char kTwoReads[] = R"(
node { name: "w" op: "VarHandleOp" attr { key: "dtype" value { type: DT_FLOAT } }
       attr { key: "shared_name" value { s: "dense/kernel" } } }
node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
node { name: "read_a" op: "ReadVariableOp" input: "w" input: "^x" attr { key: "dtype" value { type: DT_FLOAT } } }
node { name: "read_b" op: "ReadVariableOp" input: "w" attr { key: "dtype" value { type: DT_FLOAT } } }
node { name: "out_a" op: "Mul" input: "x" input: "read_a" attr { key: "T" value { type: DT_FLOAT } } }
node { name: "out_b" op: "Mul" input: "x" input: "read_b" attr { key: "T" value { type: DT_FLOAT } } }
node { name: "restored" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } }
       attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { } float_val: 3 } } } }
node { name: "restore" op: "AssignVariableOp" input: "w" input: "restored"
       attr { key: "dtype" value { type: DT_FLOAT } } }
)";

TEST(VariableFreezingTest, ReadOnlyVariableIsPlannedOnceWithEveryServedRead) {
  ir::Graph g = MakeGraph(kTwoReads);
  FreezePlan plan = PlanVariableFreezing(g, Nodes(g, {"out_a", "out_b"}), {});
  EXPECT_EQ(plan.declined, "");
  ASSERT_EQ(plan.variables.size(), 1u);
  EXPECT_EQ(plan.variables[0].resource, "dense/kernel");
  EXPECT_EQ(plan.variables[0].source, "w");
  EXPECT_EQ(plan.variables[0].reads, (std::vector<std::string>{"read_a", "read_b"}));
}

TEST(VariableFreezingTest, EachVariableBecomesOneConstAndItsReadsIdentitiesOfIt) {
  ir::Graph g = MakeGraph(kTwoReads);
  FreezePlan plan = PlanVariableFreezing(g, Nodes(g, {"out_a", "out_b"}), {});
  Tensor value(DType::kFloat, Shape({}));
  value.data<float>()[0] = 2.5f;
  ASSERT_TRUE(FreezeVariables(g, plan, {value}).ok());

  const int frozen = g.FindNode("w/frozen");
  ASSERT_GE(frozen, 0);
  EXPECT_EQ(g.node(frozen).op, "Const");
  auto held = ir::GetAttr<Tensor>(g.node(frozen), "value");
  ASSERT_TRUE(held.ok()) << held.status().ToString();
  EXPECT_EQ(held->data<float>()[0], 2.5f);
  for (const char* name : {"read_a", "read_b"}) {
    const ir::Node& read = g.node(g.FindNode(name));
    EXPECT_EQ(read.op, "Identity") << name;
    ASSERT_EQ(read.inputs.size(), 1u) << name;
    EXPECT_EQ(read.inputs[0].node, frozen) << name;
    EXPECT_EQ(*ir::GetAttr<DType>(read, "T"), DType::kFloat) << name;
  }
  EXPECT_EQ(g.node(g.FindNode("read_a")).control_inputs, Nodes(g, {"x"}));  // ordering edges survive
}

TEST(VariableFreezingTest, ResourceGathersBecomeGathersOnTheConst) {
  ir::Graph g = MakeGraph(R"(
node { name: "table" op: "VarHandleOp" attr { key: "dtype" value { type: DT_FLOAT } } }
node { name: "ids" op: "Placeholder" attr { key: "dtype" value { type: DT_INT64 } } }
node { name: "rows" op: "ResourceGather" input: "table" input: "ids"
       attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "Tindices" value { type: DT_INT64 } } }
node { name: "cells" op: "ResourceGatherNd" input: "table" input: "ids"
       attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "Tindices" value { type: DT_INT64 } } }
)");
  FreezePlan plan = PlanVariableFreezing(g, Nodes(g, {"rows", "cells"}), {});
  ASSERT_EQ(plan.declined, "");
  ASSERT_EQ(plan.variables.size(), 1u);
  ASSERT_TRUE(FreezeVariables(g, plan, {Tensor(DType::kFloat, Shape({4, 2}))}).ok());
  const int frozen = g.FindNode("table/frozen");
  const ir::Node& rows = g.node(g.FindNode("rows"));
  EXPECT_EQ(rows.op, "GatherV2");
  ASSERT_EQ(rows.inputs.size(), 3u);
  EXPECT_EQ(rows.inputs[0].node, frozen);
  EXPECT_EQ(rows.inputs[1].node, g.FindNode("ids"));
  EXPECT_EQ(ir::GetAttr<Tensor>(g.node(rows.inputs[2].node), "value")->data<int32_t>()[0], 0);
  EXPECT_EQ(*ir::GetAttr<DType>(rows, "Tindices"), DType::kInt64);
  EXPECT_EQ(*ir::GetAttr<DType>(rows, "Tparams"), DType::kFloat);
  const ir::Node& cells = g.node(g.FindNode("cells"));
  EXPECT_EQ(cells.op, "GatherNd");
  EXPECT_EQ(cells.inputs[0].node, frozen);
}

TEST(VariableFreezingTest, ServedAssignDeclinesNamingTheWriter) {
  ir::Graph g = MakeGraph(kTwoReads);
  FreezePlan plan = PlanVariableFreezing(g, Nodes(g, {"out_a", "restore"}), {});
  EXPECT_TRUE(plan.variables.empty());
  EXPECT_EQ(plan.declined, "AssignVariableOp node 'restore' uses variable 'dense/kernel' other than by reading it");
}

// A While that gets variable w as loop variable 1: the body reads it each
// step (`@BODY_USE@` may add another use), cond ignores it.
constexpr char kLoopOverVariable[] = R"(
node { name: "w" op: "VarHandleOp" attr { key: "dtype" value { type: DT_FLOAT } }
       attr { key: "shared_name" value { s: "w" } } }
node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
node { name: "loop" op: "While" input: "x" input: "w"
       attr { key: "T" value { list { type: DT_FLOAT type: DT_RESOURCE } } }
       attr { key: "output_shapes" value { list { shape { unknown_rank: true } shape { } } } }
       attr { key: "body" value { func { name: "body" } } } attr { key: "cond" value { func { name: "cond" } } } }
@OUTSIDE@
library {
  function {
    signature { name: "cond" input_arg { name: "v" type: DT_FLOAT } input_arg { name: "r" type: DT_RESOURCE }
                output_arg { name: "ok" type: DT_BOOL } }
    node_def { name: "zero" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } }
               attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { } float_val: 0 } } } }
    node_def { name: "less" op: "Less" input: "v" input: "zero:output:0" attr { key: "T" value { type: DT_FLOAT } } }
    ret { key: "ok" value: "less:z:0" }
  }
  function {
    signature { name: "body" input_arg { name: "v" type: DT_FLOAT } input_arg { name: "r" type: DT_RESOURCE }
                output_arg { name: "v_out" type: DT_FLOAT } output_arg { name: "r_out" type: DT_RESOURCE } }
    node_def { name: "read" op: "ReadVariableOp" input: "r" attr { key: "dtype" value { type: DT_FLOAT } } }
    node_def { name: "sum" op: "AddV2" input: "v" input: "read:value:0" attr { key: "T" value { type: DT_FLOAT } } }
    node_def { name: "gate" op: "NoOp" input: "^read" }
    @BODY_USE@
    ret { key: "v_out" value: "sum:z:0" } ret { key: "r_out" value: "r" }
  }
}
)";

std::string LoopOverVariable(const std::string& body_use, const std::string& outside) {
  std::string text = kLoopOverVariable;
  text.replace(text.find("@BODY_USE@"), 10, body_use);
  text.replace(text.find("@OUTSIDE@"), 9, outside);
  return text;
}

TEST(VariableFreezingTest, ALoopThatOnlyReadsAVariableGetsItsValueAsALoopVariable) {
  ir::Graph g = MakeGraph(LoopOverVariable("", ""));
  FreezePlan plan = PlanVariableFreezing(g, Nodes(g, {"loop"}), {});
  ASSERT_EQ(plan.declined, "");
  ASSERT_EQ(plan.variables.size(), 1u);
  EXPECT_EQ(plan.variables[0].loop_inputs, (std::vector<std::pair<std::string, int>>{{"loop", 1}}));
  ASSERT_TRUE(FreezeVariables(g, plan, {Tensor::FromVector<float>({1, 2, 3})}).ok());

  const ir::Node& loop = g.node(g.FindNode("loop"));
  EXPECT_EQ(g.node(loop.inputs[1].node).name, "w/frozen");
  EXPECT_EQ(loop.FindAttr("T")->list().type(1), tensorflow::DT_FLOAT);
  EXPECT_EQ(loop.FindAttr("output_shapes")->list().shape(1).dim(0).size(), 3);
  const tensorflow::FunctionDef* body = g.FindFunction(loop.FindAttr("body")->func().name());
  const tensorflow::FunctionDef* cond = g.FindFunction(loop.FindAttr("cond")->func().name());
  ASSERT_NE(body, nullptr);
  ASSERT_NE(cond, nullptr);
  EXPECT_EQ(body->signature().name(), "body_frozen");
  EXPECT_EQ(body->signature().input_arg(1).type(), tensorflow::DT_FLOAT);
  EXPECT_EQ(body->signature().output_arg(1).type(), tensorflow::DT_FLOAT);
  EXPECT_EQ(cond->signature().input_arg(1).type(), tensorflow::DT_FLOAT);
  EXPECT_EQ(body->arg_attr().at(1).attr().at("_output_shapes").list().shape(0).dim(0).size(), 3);
  // The read is gone: its reader takes the argument, its control user waits on nothing.
  std::string text;
  google::protobuf::TextFormat::PrintToString(*body, &text);
  EXPECT_EQ(text.find("ReadVariableOp"), std::string::npos) << text;
  EXPECT_NE(text.find("input: \"r\""), std::string::npos) << text;
  EXPECT_EQ(text.find("^read"), std::string::npos) << text;
  EXPECT_NE(g.FindFunction("body"), nullptr);  // other callers keep the original
}

TEST(VariableFreezingTest, ALoopBodyThatAssignsTheVariableDeclinesNamingTheNode) {
  ir::Graph g = MakeGraph(LoopOverVariable(
      R"(node_def { name: "write" op: "AssignVariableOp" input: "r" input: "sum:z:0" attr { key: "dtype" value { type: DT_FLOAT } } })",
      ""));
  FreezePlan plan = PlanVariableFreezing(g, Nodes(g, {"loop"}), {});
  EXPECT_TRUE(plan.variables.empty());
  EXPECT_EQ(plan.declined, "AssignVariableOp node 'write' of function 'body' uses argument 'r' other than by reading it");
}

TEST(VariableFreezingTest, AVariableReadBackFromTheLoopDeclinesNamingTheReader) {
  ir::Graph g = MakeGraph(LoopOverVariable(
      "", R"(node { name: "after" op: "ReadVariableOp" input: "loop:1" attr { key: "dtype" value { type: DT_FLOAT } } })"));
  FreezePlan plan = PlanVariableFreezing(g, Nodes(g, {"loop", "after"}), {});
  EXPECT_TRUE(plan.variables.empty());
  EXPECT_EQ(plan.declined, "ReadVariableOp node 'after' reads the variable back from While node 'loop'");
}

TEST(VariableFreezingTest, AHandlePassedIntoALoopWithoutBodyDeclinesNamingTheLoop) {
  ir::Graph g = MakeGraph(R"(
node { name: "w" op: "VarHandleOp" attr { key: "dtype" value { type: DT_FLOAT } } }
node { name: "loop" op: "While" input: "w" }
)");
  FreezePlan plan = PlanVariableFreezing(g, Nodes(g, {"loop"}), {});
  EXPECT_TRUE(plan.variables.empty());
  EXPECT_EQ(plan.declined, "While node 'loop' has a body or cond that does not match its 1 loop variables");
}

TEST(VariableFreezingTest, InitOpThatTouchesAVariableDeclines) {
  ir::Graph g = MakeGraph(kTwoReads);
  FreezePlan plan = PlanVariableFreezing(g, Nodes(g, {"out_a"}), Nodes(g, {"restore"}));
  EXPECT_TRUE(plan.variables.empty());
  EXPECT_EQ(plan.declined, "the init op reaches variable VarHandleOp node 'w'");
}

TEST(VariableFreezingTest, ReadOfAHandleThatIsNoVariableDeclines) {
  ir::Graph g = MakeGraph(R"(
node { name: "h" op: "Placeholder" attr { key: "dtype" value { type: DT_RESOURCE } } }
node { name: "r" op: "ReadVariableOp" input: "h" attr { key: "dtype" value { type: DT_FLOAT } } }
)");
  FreezePlan plan = PlanVariableFreezing(g, Nodes(g, {"r"}), {});
  EXPECT_TRUE(plan.variables.empty());
  EXPECT_EQ(plan.declined,
            "ReadVariableOp node 'r' reads a handle that is not a VarHandleOp (it comes from Placeholder node 'h')");
}

TEST(VariableFreezingTest, Tf1VariableReadThroughIdentityIsFrozenAndItsWriterOutsideTheServedSetIgnored) {
  ir::Graph g = MakeGraph(R"(
node { name: "v" op: "VariableV2" attr { key: "dtype" value { type: DT_FLOAT } }
       attr { key: "shape" value { shape { dim { size: 2 } } } } }
node { name: "init" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } }
       attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { dim { size: 2 } } float_val: 1 } } } }
node { name: "v/Assign" op: "Assign" input: "v" input: "init" attr { key: "T" value { type: DT_FLOAT } } }
node { name: "v/read" op: "Identity" input: "v" attr { key: "T" value { type: DT_FLOAT } } }
)");
  ASSERT_TRUE(RewriteRefVariables(g, nullptr).ok());
  FreezePlan plan = PlanVariableFreezing(g, Nodes(g, {"v/read"}), {});
  EXPECT_EQ(plan.declined, "");
  ASSERT_EQ(plan.variables.size(), 1u);
  EXPECT_EQ(plan.variables[0].source, "v");
  EXPECT_EQ(plan.variables[0].reads, (std::vector<std::string>{"v"}));

  FreezePlan served_writer = PlanVariableFreezing(g, Nodes(g, {"v/read", "v/Assign"}), {});
  EXPECT_EQ(served_writer.declined, "Assign node 'v/Assign' uses variable 'v' other than by reading it");
}

TEST(VariableFreezingTest, GatherWithoutIndicesFailsNamingTheNode) {
  ir::Graph g = MakeGraph(R"(
node { name: "table" op: "VarHandleOp" attr { key: "dtype" value { type: DT_FLOAT } } }
node { name: "rows" op: "ResourceGather" input: "table" attr { key: "dtype" value { type: DT_FLOAT } } }
)");
  FreezePlan plan = PlanVariableFreezing(g, Nodes(g, {"rows"}), {});
  ASSERT_EQ(plan.variables.size(), 1u);
  Status st = FreezeVariables(g, plan, {Tensor(DType::kFloat, Shape({4, 2}))});
  EXPECT_EQ(st.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(st.message(), "ResourceGather node 'rows' has 1 inputs, expected 2 (the variable and the indices)");
}

TEST(VariableFreezingTest, RestoredDtypeThatDisagreesWithTheReadFailsNamingTheNode) {
  ir::Graph g = MakeGraph(kTwoReads);
  FreezePlan plan = PlanVariableFreezing(g, Nodes(g, {"out_a"}), {});
  Status st = FreezeVariables(g, plan, {Tensor(DType::kInt32, Shape({}))});
  EXPECT_EQ(st.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(st.message(),
            "ReadVariableOp node 'read_a' reads variable 'dense/kernel' as DT_FLOAT, but the checkpoint restored DT_INT32");
}

TEST(VariableFreezingTest, ValueCountThatDisagreesWithThePlanIsAnInternalError) {
  ir::Graph g = MakeGraph(kTwoReads);
  FreezePlan plan = PlanVariableFreezing(g, Nodes(g, {"out_a"}), {});
  Status st = FreezeVariables(g, plan, {});
  EXPECT_EQ(st.code(), StatusCode::kInternal);
  EXPECT_EQ(st.message(), "freezing 1 variables with 0 values");
}

}  // namespace
}  // namespace tfhost::loaders
