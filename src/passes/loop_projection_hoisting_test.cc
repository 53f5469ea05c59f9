#include <gtest/gtest.h>

#include "passes/pass_manager.h"
#include "passes/test_graph_util.h"
#include "runtime/session.h"

namespace tfhost::passes {
namespace {

// A recurrent loop as Keras writes it, over x [5, B, 3]: per step,
// h = tanh(x_t W + h U) with x_t = TensorListGetItem(list, i). W comes in as
// `@W@` (substituted per test); U stays in the body.
constexpr char kLoop[] = R"(
node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
node { name: "h0" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
node { name: "elem_shape" op: "Const" attr { key: "dtype" value { type: DT_INT32 } }
       attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape { dim { size: 2 } } int_val: -1 int_val: 3 } } } }
node { name: "list" op: "TensorListFromTensor" input: "x" input: "elem_shape"
       attr { key: "element_dtype" value { type: DT_FLOAT } } attr { key: "shape_type" value { type: DT_INT32 } } }
node { name: "i0" op: "Const" attr { key: "dtype" value { type: DT_INT32 } }
       attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape { } int_val: 0 } } } }
node { name: "w" op: "VarHandleOp" attr { key: "dtype" value { type: DT_FLOAT } }
       attr { key: "shape" value { shape { dim { size: 3 } dim { size: 4 } } } }
       attr { key: "shared_name" value { s: "w" } } }
node { name: "w_value" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } }
       attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { dim { size: 3 } dim { size: 4 } }
         float_val: 0.5 float_val: -0.25 float_val: 0.125 float_val: 1 float_val: -1 float_val: 0.75
         float_val: 0.3 float_val: -0.6 float_val: 0.2 float_val: 0.4 float_val: -0.8 float_val: 0.9 } } } }
node { name: "w_init" op: "AssignVariableOp" input: "w" input: "w_value" attr { key: "dtype" value { type: DT_FLOAT } } }
node { name: "w_tensor" op: "Identity" input: "w_value" attr { key: "T" value { type: DT_FLOAT } } }
node { name: "loop" op: "While" input: "i0" input: "h0" input: "list" input: "@OUTER_W@"
       attr { key: "T" value { list { type: DT_INT32 type: DT_FLOAT type: DT_VARIANT type: @W_TYPE@ } } }
       attr { key: "body" value { func { name: "body" } } } attr { key: "cond" value { func { name: "cond" } } } }
library {
  function {
    signature { name: "cond" input_arg { name: "i" type: DT_INT32 } input_arg { name: "h" type: DT_FLOAT }
                input_arg { name: "l" type: DT_VARIANT } input_arg { name: "r" type: @W_TYPE@ }
                output_arg { name: "ok" type: DT_BOOL } }
    node_def { name: "n" op: "Const" attr { key: "dtype" value { type: DT_INT32 } }
               attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape { } int_val: 5 } } } }
    node_def { name: "less" op: "Less" input: "i" input: "n:output:0" attr { key: "T" value { type: DT_INT32 } } }
    ret { key: "ok" value: "less:z:0" }
  }
  function {
    signature { name: "body" input_arg { name: "i" type: DT_INT32 } input_arg { name: "h" type: DT_FLOAT }
                input_arg { name: "l" type: DT_VARIANT } input_arg { name: "r" type: @W_TYPE@ }
                output_arg { name: "i_out" type: DT_INT32 } output_arg { name: "h_out" type: DT_FLOAT }
                output_arg { name: "l_out" type: DT_VARIANT } output_arg { name: "r_out" type: @W_TYPE@ } }
    node_def { name: "shape" op: "Const" attr { key: "dtype" value { type: DT_INT32 } }
               attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape { dim { size: 2 } } int_val: -1 int_val: 3 } } } }
    node_def { name: "item" op: "TensorListGetItem" input: "l" input: "i" input: "shape:output:0"
               attr { key: "element_dtype" value { type: DT_FLOAT } } }
    @READ@
    node_def { name: "proj" op: "MatMul" input: "item:item:0" input: "@BODY_W@" attr { key: "T" value { type: DT_FLOAT } } }
    node_def { name: "u" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } }
               attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { dim { size: 4 } dim { size: 4 } }
                 float_val: 0.1 float_val: 0.2 float_val: -0.3 float_val: 0.4 float_val: 0.5 float_val: -0.1
                 float_val: 0.2 float_val: 0.3 float_val: -0.4 float_val: 0.6 float_val: 0.1 float_val: -0.2
                 float_val: 0.3 float_val: -0.5 float_val: 0.7 float_val: 0.1 } } } }
    node_def { name: "rec" op: "MatMul" input: "h" input: "u:output:0" attr { key: "T" value { type: DT_FLOAT } } }
    node_def { name: "sum" op: "AddV2" input: "proj:product:0" input: "rec:product:0" attr { key: "T" value { type: DT_FLOAT } } }
    node_def { name: "act" op: "Tanh" input: "sum:z:0" attr { key: "T" value { type: DT_FLOAT } } }
    node_def { name: "one" op: "Const" attr { key: "dtype" value { type: DT_INT32 } }
               attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape { } int_val: 1 } } } }
    node_def { name: "next" op: "AddV2" input: "i" input: "one:output:0" attr { key: "T" value { type: DT_INT32 } } }
    ret { key: "i_out" value: "next:z:0" } ret { key: "h_out" value: "act:y:0" }
    ret { key: "l_out" value: "l" } ret { key: "r_out" value: "r" }
  }
}
)";

void Replace(std::string& s, const std::string& from, const std::string& to) {
  for (size_t at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size())) {
    s.replace(at, from.size(), to);
  }
}

// The loop with W read from the variable in the body (Keras), or passed in
// as a tensor.
std::string LoopText(bool variable) {
  std::string text = kLoop;
  Replace(text, "@OUTER_W@", variable ? "w" : "w_tensor");
  Replace(text, "@W_TYPE@", variable ? "DT_RESOURCE" : "DT_FLOAT");
  Replace(text, "@READ@",
          variable ? R"(node_def { name: "read" op: "ReadVariableOp" input: "r" attr { key: "dtype" value { type: DT_FLOAT } } })"
                   : "");
  Replace(text, "@BODY_W@", variable ? "read:value:0" : "r");
  return text;
}

ir::Graph Build(const std::string& text) { return testing::AsLoaded(text); }

// h after the loop, for x = ramp [5, 2, 3].
Tensor FinalState(ir::Graph graph) {
  runtime::SessionOptions options;
  options.intra_op_threads = 1;
  options.model_name = "loop";
  auto session = runtime::Session::Create(std::move(graph), options, {"loop", "w_init", "x", "h0"});
  EXPECT_TRUE(session.ok()) << session.status().ToString();
  if (!session.ok()) return Tensor();
  EXPECT_TRUE((*session)->Run({}, {}, {"w_init"}).ok());
  Tensor x(DType::kFloat, Shape({5, 2, 3}));
  for (int64_t k = 0; k < x.NumElements(); ++k) x.data<float>()[k] = 0.1f * static_cast<float>(k % 7) - 0.3f;
  Tensor h0(DType::kFloat, Shape({2, 4}));
  for (int64_t k = 0; k < h0.NumElements(); ++k) h0.data<float>()[k] = 0.05f * static_cast<float>(k);
  auto out = (*session)->Run({{"x", x}, {"h0", h0}}, {"loop:1"});
  EXPECT_TRUE(out.ok()) << out.status().ToString();
  return out.ok() ? (*out)[0] : Tensor();
}

const tensorflow::FunctionDef* BodyOf(const ir::Graph& graph) {
  return graph.FindFunction(graph.node(graph.FindNode("loop")).FindAttr("body")->func().name());
}

int CountOps(const tensorflow::FunctionDef& f, const std::string& op) {
  int n = 0;
  for (const auto& node : f.node_def()) n += node.op() == op;
  return n;
}

void ExpectHoistedAndEqual(bool variable) {
  ir::Graph before = Build(LoopText(variable));
  ir::Graph after = before;
  ASSERT_TRUE(MakeLoopProjectionHoisting()->Run(&after, PassContext::FromRoots(after, {"loop", "w_init"})).ok());

  const tensorflow::FunctionDef* body = BodyOf(after);
  ASSERT_NE(body, nullptr);
  EXPECT_EQ(body->signature().name(), "body_tfhost_hoisted");
  EXPECT_EQ(CountOps(*body, "MatMul"), 1);  // only the recurrent product is left per step
  EXPECT_EQ(body->signature().input_arg_size(), 5);
  const ir::Node& loop = after.node(after.FindNode("loop"));
  ASSERT_EQ(loop.inputs.size(), 5u);
  EXPECT_EQ(after.node(loop.inputs[4].node).op, "TensorListFromTensor");
  EXPECT_NE(after.FindFunction("body"), nullptr);  // the original stays for other callers

  Tensor expected = FinalState(std::move(before));
  Tensor actual = FinalState(std::move(after));
  ASSERT_TRUE(expected.valid() && actual.valid());
  ASSERT_EQ(actual.shape(), expected.shape());
  for (int64_t k = 0; k < expected.NumElements(); ++k) {
    EXPECT_NEAR(actual.data<float>()[k], expected.data<float>()[k], 1e-6f) << "element " << k;
  }
}

TEST(LoopProjectionHoistingTest, InputProductThroughAVariableReadMovesBeforeTheLoopWithTheSameResult) {
  ExpectHoistedAndEqual(/*variable=*/true);
}

TEST(LoopProjectionHoistingTest, InputProductWithALoopInvariantTensorMovesBeforeTheLoopWithTheSameResult) {
  ExpectHoistedAndEqual(/*variable=*/false);
}

TEST(LoopProjectionHoistingTest, AVariableTheBodyAssignsStaysInTheLoop) {
  std::string text = LoopText(true);
  // The body now writes the variable it multiplies by: hoisting the product
  // would read the value before the writes.
  Replace(text, R"(    node_def { name: "one" op: "Const")",
          R"(    node_def { name: "write" op: "AssignVariableOp" input: "r" input: "u:output:0" attr { key: "dtype" value { type: DT_FLOAT } } }
    node_def { name: "one" op: "Const")");
  ir::Graph graph = Build(text);
  ASSERT_TRUE(MakeLoopProjectionHoisting()->Run(&graph, PassContext::FromRoots(graph, {"loop", "w_init"})).ok());
  EXPECT_EQ(BodyOf(graph)->signature().name(), "body");
  EXPECT_EQ(graph.node(graph.FindNode("loop")).inputs.size(), 4u);
}

TEST(LoopProjectionHoistingTest, AListTheBodyChangesStaysInTheLoop) {
  std::string text = LoopText(true);
  // The body returns a different list than it read: step t+1 may not see x.
  Replace(text, R"(ret { key: "l_out" value: "l" })", R"(ret { key: "l_out" value: "lnew:output_handle:0" })");
  Replace(text, R"(    node_def { name: "one" op: "Const")",
          R"(    node_def { name: "lnew" op: "TensorListSetItem" input: "l" input: "i" input: "act:y:0" attr { key: "element_dtype" value { type: DT_FLOAT } } }
    node_def { name: "one" op: "Const")");
  ir::Graph graph = Build(text);
  ASSERT_TRUE(MakeLoopProjectionHoisting()->Run(&graph, PassContext::FromRoots(graph, {"loop", "w_init"})).ok());
  EXPECT_EQ(BodyOf(graph)->signature().name(), "body");
}

}  // namespace
}  // namespace tfhost::passes
