// TF2 functional control flow end to end: GraphDefs with a FunctionDefLibrary
// written by hand the way tf.function writes them (While with the loop
// counter and maximum_iterations as the first two loop variables, cond/body
// functions whose outputs go through Identity nodes, stateful ops listed in
// control_ret), loaded the way a frozen GraphDef is and run. The function
// runtime executes the bodies; expected values are derived by hand.
#include <gtest/gtest.h>

#include <atomic>
#include <thread>

#include "control_flow_test_util.h"
#include "base/test_status.h"

namespace tfhost {
namespace {

using testing::Floats;
using testing::Ints;
using testing::SessionFromPbtxt;

std::string Attr(const std::string& key, const std::string& value) {
  return "attr { key: '" + key + "' value { " + value + " } } ";
}
std::string T(const std::string& dt) { return Attr("T", "type: " + dt); }
std::string ConstNode(const std::string& name, const std::string& dt, const std::string& value,
                      const std::string& extra = "") {
  std::string field = dt == "DT_FLOAT" ? "float_val" : (dt == "DT_BOOL" ? "bool_val" : "int_val");
  return "node_def { name: '" + name + "' op: 'Const' " + extra + Attr("dtype", "type: " + dt) +
         Attr("value", "tensor { dtype: " + dt + " tensor_shape {} " + field + ": " + value + " }") + "}\n";
}
std::string Func(const std::string& name, const std::string& in_args, const std::string& out_args,
                 const std::string& body, const std::string& rets) {
  return "library { function { signature { name: '" + name + "' " + in_args + out_args + " }\n" + body + rets +
         " } }\n";
}
std::string Arg(const std::string& kind, const std::string& name, const std::string& dt) {
  return kind + " { name: '" + name + "' type: " + dt + " } ";
}
std::string Ret(const std::string& key, const std::string& value) {
  return "ret { key: '" + key + "' value: '" + value + "' } ";
}
std::string TypeList(const std::string& key, std::vector<std::string> types) {
  std::string s = "list {";
  for (auto& t : types) s += " type: " + t;
  return Attr(key, s + " }");
}
std::string FuncAttr(const std::string& key, const std::string& fn) { return Attr(key, "func { name: '" + fn + "' }"); }

// The cond of tf.while_loop(lambda i, x: i < n, ...) as TF2 writes it: args
// are (loop_counter, maximum_iterations, i, x...); output through Identity.
std::string CounterCond(const std::string& name, int n, const std::string& xtype) {
  return Func(name,
              Arg("input_arg", "while_loop_counter", "DT_INT32") +
                  Arg("input_arg", "while_maximum_iterations", "DT_INT32") + Arg("input_arg", "placeholder", "DT_INT32") +
                  Arg("input_arg", "placeholder_1", xtype),
              Arg("output_arg", "identity", "DT_BOOL"),
              ConstNode("Less/y", "DT_INT32", std::to_string(n)) +
                  "node_def { name: 'Less' op: 'Less' input: 'placeholder' input: 'Less/y:output:0' " + T("DT_INT32") +
                  "}\nnode_def { name: 'Identity' op: 'Identity' input: 'Less:z:0' " + T("DT_BOOL") + "}\n",
              Ret("identity", "Identity:output:0"));
}

// A body returning (counter + 1, max, i + 1, <x_expr>) where `x_nodes` build
// node 'x_next' from 'placeholder_1' (and may read 'placeholder', i).
std::string CounterBody(const std::string& name, const std::string& xtype, const std::string& x_nodes,
                        const std::string& x_next_ref, const std::string& extra_sig = "",
                        const std::string& extra_rets = "") {
  return Func(name,
              Arg("input_arg", "while_loop_counter", "DT_INT32") +
                  Arg("input_arg", "while_maximum_iterations", "DT_INT32") + Arg("input_arg", "placeholder", "DT_INT32") +
                  Arg("input_arg", "placeholder_1", xtype),
              Arg("output_arg", "identity", "DT_INT32") + Arg("output_arg", "identity_1", "DT_INT32") +
                  Arg("output_arg", "identity_2", "DT_INT32") + Arg("output_arg", "identity_3", xtype) + extra_sig,
              ConstNode("add_1/y", "DT_INT32", "1") +
                  "node_def { name: 'add_1' op: 'AddV2' input: 'while_loop_counter' input: 'add_1/y:output:0' " +
                  T("DT_INT32") + "}\n" + ConstNode("add/y", "DT_INT32", "1") +
                  "node_def { name: 'add' op: 'AddV2' input: 'placeholder' input: 'add/y:output:0' " + T("DT_INT32") +
                  "}\n" + x_nodes + "node_def { name: 'Identity' op: 'Identity' input: 'add_1:z:0' " + T("DT_INT32") +
                  "}\nnode_def { name: 'Identity_1' op: 'Identity' input: 'while_maximum_iterations' " +
                  T("DT_INT32") + "}\nnode_def { name: 'Identity_2' op: 'Identity' input: 'add:z:0' " + T("DT_INT32") +
                  "}\nnode_def { name: 'Identity_3' op: 'Identity' input: '" + x_next_ref + "' " + T(xtype) + "}\n",
              Ret("identity", "Identity:output:0") + Ret("identity_1", "Identity_1:output:0") +
                  Ret("identity_2", "Identity_2:output:0") + Ret("identity_3", "Identity_3:output:0") + extra_rets);
}

// The While node of tf.while_loop in a tf.function graph.
std::string WhileNode(const std::string& name, const std::string& x_input, const std::string& xtype,
                      const std::string& cond, const std::string& body, const std::string& x_shape) {
  return "node { name: 'while/loop_counter' op: 'Const' " + Attr("dtype", "type: DT_INT32") +
         Attr("value", "tensor { dtype: DT_INT32 tensor_shape {} int_val: 0 }") + "}\n" +
         "node { name: 'while/maximum_iterations' op: 'Const' " + Attr("dtype", "type: DT_INT32") +
         Attr("value", "tensor { dtype: DT_INT32 tensor_shape {} int_val: -1 }") + "}\n" +
         "node { name: 'i0' op: 'Const' " + Attr("dtype", "type: DT_INT32") +
         Attr("value", "tensor { dtype: DT_INT32 tensor_shape {} int_val: 0 }") + "}\n" + "node { name: '" + name +
         "' op: 'While' input: 'while/loop_counter' input: 'while/maximum_iterations' input: 'i0' input: '" + x_input +
         "' " + TypeList("T", {"DT_INT32", "DT_INT32", "DT_INT32", xtype}) + FuncAttr("cond", cond) +
         FuncAttr("body", body) +
         Attr("output_shapes", "list { shape {} shape {} shape {} shape { " + x_shape + " } }") +
         Attr("parallel_iterations", "i: 10") + "}\n";
}

std::string FloatPlaceholder(const std::string& name) {
  return "node { name: '" + name + "' op: 'Placeholder' " + Attr("dtype", "type: DT_FLOAT") + "}\n";
}

// Mirrors:
//   @tf.function
//   def f(x):                       # x: float32[2]
//     _, x = tf.while_loop(lambda i, x: i < 3, lambda i, x: (i + 1, x * 2.0), [0, x])
//     return x
TEST(ControlFlowTf2Test, WhileRunsBodyUntilCondIsFalse) {
  std::string g = FloatPlaceholder("x") + WhileNode("while", "x", "DT_FLOAT", "while_cond_1", "while_body_2",
                                                    "dim { size: 2 }") +
                  CounterCond("while_cond_1", 3, "DT_FLOAT") +
                  CounterBody("while_body_2", "DT_FLOAT",
                              ConstNode("mul/y", "DT_FLOAT", "2") +
                                  "node_def { name: 'mul' op: 'Mul' input: 'placeholder_1' input: 'mul/y:output:0' " +
                                  T("DT_FLOAT") + "}\n",
                              "mul:z:0");
  auto session = SessionFromPbtxt(g);
  ASSERT_TRUE(session.ok()) << session.status().ToString();
  // Three iterations: x * 8; the counter (output 0) and i (output 2) are 3.
  auto out = (*session)->Run({{"x:0", Tensor::FromVector<float>({1.0f, -0.5f})}}, {"while:0", "while:2", "while:3"});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ(Ints((*out)[0]), std::vector<int32_t>({3}));
  EXPECT_EQ(Ints((*out)[1]), std::vector<int32_t>({3}));
  EXPECT_EQ(Floats((*out)[2]), std::vector<float>({8.0f, -4.0f}));
}

// Mirrors a loop variable that grows every iteration
// (shape_invariants=[..., tf.TensorShape([None])]):
//   _, x = tf.while_loop(lambda i, x: i < 3, lambda i, x: (i + 1, tf.concat([x, x * 2.0], 0)),
//                        [0, x], shape_invariants=[i.shape, tf.TensorShape([None])])
TEST(ControlFlowTf2Test, WhileLoopVariableMayChangeShapeEveryIteration) {
  std::string body_nodes =
      ConstNode("mul/y", "DT_FLOAT", "2") + "node_def { name: 'mul' op: 'Mul' input: 'placeholder_1' input: 'mul/y:output:0' " +
      T("DT_FLOAT") + "}\n" + ConstNode("concat/axis", "DT_INT32", "0") +
      "node_def { name: 'concat' op: 'ConcatV2' input: 'placeholder_1' input: 'mul:z:0' input: 'concat/axis:output:0' " +
      T("DT_FLOAT") + Attr("N", "i: 2") + Attr("Tidx", "type: DT_INT32") + "}\n";
  std::string g = FloatPlaceholder("x") +
                  WhileNode("while", "x", "DT_FLOAT", "while_cond_1", "while_body_2", "dim { size: -1 }") +
                  CounterCond("while_cond_1", 3, "DT_FLOAT") +
                  CounterBody("while_body_2", "DT_FLOAT", body_nodes, "concat:output:0");
  auto session = SessionFromPbtxt(g);
  ASSERT_TRUE(session.ok()) << session.status().ToString();
  // [1] -> [1, 2] -> [1, 2, 2, 4] -> [1, 2, 2, 4, 2, 4, 4, 8].
  auto out = (*session)->Run({{"x:0", Tensor::FromVector<float>({1.0f})}}, {"while:3"});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ(Floats((*out)[0]), std::vector<float>({1, 2, 2, 4, 2, 4, 4, 8}));
  // The static shape comes from output_shapes: [?].
  const ir::Graph& graph = (*session)->graph();
  const ir::Node& w = graph.node(graph.FindNode("while"));
  ASSERT_EQ(w.output_shapes.size(), 4u);
  EXPECT_EQ(w.output_shapes[3].ToString(), "[?]");
}

// Mirrors:
//   def body(i, acc):
//     acc = tf.cond(i < 2, lambda: acc + 10.0, lambda: acc * 2.0)
//     return i + 1, acc
//   _, acc = tf.while_loop(lambda i, a: i < 4, body, [0, acc0])
// The body holds an If whose branches are library functions.
TEST(ControlFlowTf2Test, IfInsideWhileBodyPicksItsBranchEveryIteration) {
  std::string branch_args = Arg("input_arg", "acc", "DT_FLOAT");
  std::string branch_out = Arg("output_arg", "identity", "DT_FLOAT");
  std::string then_fn = Func("cond_true_10", branch_args, branch_out,
                             ConstNode("add/y", "DT_FLOAT", "10") +
                                 "node_def { name: 'add' op: 'AddV2' input: 'acc' input: 'add/y:output:0' " +
                                 T("DT_FLOAT") + "}\nnode_def { name: 'Identity' op: 'Identity' input: 'add:z:0' " +
                                 T("DT_FLOAT") + "}\n",
                             Ret("identity", "Identity:output:0"));
  std::string else_fn = Func("cond_false_11", branch_args, branch_out,
                             ConstNode("mul/y", "DT_FLOAT", "2") +
                                 "node_def { name: 'mul' op: 'Mul' input: 'acc' input: 'mul/y:output:0' " +
                                 T("DT_FLOAT") + "}\nnode_def { name: 'Identity' op: 'Identity' input: 'mul:z:0' " +
                                 T("DT_FLOAT") + "}\n",
                             Ret("identity", "Identity:output:0"));
  std::string body_nodes =
      ConstNode("Less/y", "DT_INT32", "2") + "node_def { name: 'Less' op: 'Less' input: 'placeholder' input: 'Less/y:output:0' " +
      T("DT_INT32") + "}\nnode_def { name: 'cond' op: 'If' input: 'Less:z:0' input: 'placeholder_1' " +
      Attr("Tcond", "type: DT_BOOL") + TypeList("Tin", {"DT_FLOAT"}) + TypeList("Tout", {"DT_FLOAT"}) +
      FuncAttr("then_branch", "cond_true_10") + FuncAttr("else_branch", "cond_false_11") +
      Attr("output_shapes", "list { shape {} }") + "}\n";
  std::string g = FloatPlaceholder("acc0") +
                  WhileNode("while", "acc0", "DT_FLOAT", "while_cond_1", "while_body_2", "") +
                  CounterCond("while_cond_1", 4, "DT_FLOAT") +
                  CounterBody("while_body_2", "DT_FLOAT", body_nodes, "cond:output:0") + then_fn + else_fn;
  auto session = SessionFromPbtxt(g);
  ASSERT_TRUE(session.ok()) << session.status().ToString();
  // acc0 = 1: i=0 -> 11, i=1 -> 21, i=2 -> 42, i=3 -> 84.
  auto out = (*session)->Run({{"acc0:0", Tensor::Scalar<float>(1.0f)}}, {"while:3"});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ(Floats((*out)[0]), std::vector<float>({84.0f}));
}

// Mirrors a Keras layer whose call() holds the loop: the model graph calls
// the layer's function with StatefulPartitionedCall, and the While lives in
// that function; its body doubles x through a PartitionedCall of a helper.
TEST(ControlFlowTf2Test, WhileInsideACalledFunctionWithPartitionedCallInItsBody) {
  std::string twice = Func("times_two_5", Arg("input_arg", "v", "DT_FLOAT"), Arg("output_arg", "identity", "DT_FLOAT"),
                           ConstNode("mul/y", "DT_FLOAT", "2") +
                               "node_def { name: 'mul' op: 'Mul' input: 'v' input: 'mul/y:output:0' " + T("DT_FLOAT") +
                               "}\nnode_def { name: 'Identity' op: 'Identity' input: 'mul:z:0' " + T("DT_FLOAT") + "}\n",
                           Ret("identity", "Identity:output:0"));
  std::string body_nodes = "node_def { name: 'call' op: 'PartitionedCall' input: 'placeholder_1' " +
                           TypeList("Tin", {"DT_FLOAT"}) + TypeList("Tout", {"DT_FLOAT"}) +
                           FuncAttr("f", "times_two_5") + "}\n";
  std::string layer_nodes =
      ConstNode("loop_counter", "DT_INT32", "0") + ConstNode("max_iter", "DT_INT32", "-1") +
      ConstNode("i0", "DT_INT32", "0") +
      "node_def { name: 'while' op: 'While' input: 'loop_counter:output:0' input: 'max_iter:output:0' "
      "input: 'i0:output:0' input: 'x' " +
      TypeList("T", {"DT_INT32", "DT_INT32", "DT_INT32", "DT_FLOAT"}) + FuncAttr("cond", "while_cond_1") +
      FuncAttr("body", "while_body_2") + Attr("parallel_iterations", "i: 10") +
      "}\nnode_def { name: 'Identity' op: 'Identity' input: 'while:output:3' " + T("DT_FLOAT") + "}\n";
  std::string layer = Func("layer_call_7", Arg("input_arg", "x", "DT_FLOAT"), Arg("output_arg", "identity", "DT_FLOAT"),
                           layer_nodes, Ret("identity", "Identity:output:0"));
  std::string g = FloatPlaceholder("x") +
                  "node { name: 'StatefulPartitionedCall' op: 'StatefulPartitionedCall' input: 'x' " +
                  TypeList("Tin", {"DT_FLOAT"}) + TypeList("Tout", {"DT_FLOAT"}) + FuncAttr("f", "layer_call_7") +
                  "}\n" + CounterCond("while_cond_1", 4, "DT_FLOAT") +
                  CounterBody("while_body_2", "DT_FLOAT", body_nodes, "call:output:0") + twice + layer;
  auto session = SessionFromPbtxt(g);
  ASSERT_TRUE(session.ok()) << session.status().ToString();
  // Four doublings: 3 * 16 = 48.
  auto out = (*session)->Run({{"x:0", Tensor::Scalar<float>(3.0f)}}, {"StatefulPartitionedCall:0"});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ(Floats((*out)[0]), std::vector<float>({48.0f}));
}

// Mirrors:
//   tf.switch_case(idx, [lambda: x + 1.0, lambda: x * 10.0, lambda: x - 1.0])
// An out-of-range index runs the last branch, as TensorFlow's Case does.
TEST(ControlFlowTf2Test, CaseRunsTheIndexedBranchAndTheLastOneWhenOutOfRange) {
  auto branch = [&](const std::string& name, const std::string& op, const std::string& c) {
    return Func(name, Arg("input_arg", "x", "DT_FLOAT"), Arg("output_arg", "identity", "DT_FLOAT"),
                ConstNode("c", "DT_FLOAT", c) + "node_def { name: 'r' op: '" + op + "' input: 'x' input: 'c:output:0' " +
                    T("DT_FLOAT") + "}\nnode_def { name: 'Identity' op: 'Identity' input: 'r:z:0' " + T("DT_FLOAT") +
                    "}\n",
                Ret("identity", "Identity:output:0"));
  };
  std::string g = FloatPlaceholder("x") + "node { name: 'idx' op: 'Placeholder' " + Attr("dtype", "type: DT_INT32") +
                  "}\nnode { name: 'case' op: 'Case' input: 'idx' input: 'x' " + TypeList("Tin", {"DT_FLOAT"}) +
                  TypeList("Tout", {"DT_FLOAT"}) +
                  Attr("branches", "list { func { name: 'b0' } func { name: 'b1' } func { name: 'b2' } }") + "}\n" +
                  branch("b0", "AddV2", "1") + branch("b1", "Mul", "10") + branch("b2", "Sub", "1");
  auto session = SessionFromPbtxt(g);
  ASSERT_TRUE(session.ok()) << session.status().ToString();
  // x = 5: branch 0 -> 6, 1 -> 50, 2 -> 4; 7 and -1 -> branch 2 -> 4.
  for (auto [index, expected] : std::vector<std::pair<int, float>>{{0, 6}, {1, 50}, {2, 4}, {7, 4}, {-1, 4}}) {
    auto out = (*session)->Run({{"x:0", Tensor::Scalar<float>(5.0f)}, {"idx:0", Tensor::Scalar<int32_t>(index)}},
                               {"case:0"});
    ASSERT_TRUE(out.ok()) << out.status().ToString();
    EXPECT_EQ(Floats((*out)[0]), std::vector<float>({expected})) << "index " << index;
  }
}

// Mirrors:
//   v = tf.Variable(0.0)
//   @tf.function
//   def f():
//     for _ in tf.range(3): v.assign_add(1.5)
//     return v.read_value()
// The variable's handle is a loop variable; AssignAddVariableOp in the body
// runs through control_ret, so every iteration changes the same variable.
TEST(ControlFlowTf2Test, ResourceVariablePassedIntoWhileBodyIsUpdatedEveryIteration) {
  std::string body_nodes = ConstNode("inc", "DT_FLOAT", "1.5") +
                           "node_def { name: 'AssignAddVariableOp' op: 'AssignAddVariableOp' input: 'placeholder_1' "
                           "input: 'inc:output:0' " +
                           Attr("dtype", "type: DT_FLOAT") + "}\n";
  std::string body = CounterBody("while_body_2", "DT_RESOURCE", body_nodes, "placeholder_1", "",
                                 "control_ret { key: 'AssignAddVariableOp' value: 'AssignAddVariableOp' } ");
  // The body's signature lists its control output too.
  auto pos = body.find("output_arg { name: 'identity_3'");
  body.insert(pos, "control_output: 'AssignAddVariableOp' ");
  std::string g = "node { name: 'v' op: 'VarHandleOp' " + Attr("dtype", "type: DT_FLOAT") + Attr("shape", "shape {}") +
                  Attr("shared_name", "s: 'v'") + "}\n" + "node { name: 'zero' op: 'Const' " +
                  Attr("dtype", "type: DT_FLOAT") + Attr("value", "tensor { dtype: DT_FLOAT tensor_shape {} float_val: 0 }") +
                  "}\nnode { name: 'init' op: 'AssignVariableOp' input: 'v' input: 'zero' " +
                  Attr("dtype", "type: DT_FLOAT") + "}\n" +
                  WhileNode("while", "v", "DT_RESOURCE", "while_cond_1", "while_body_2", "") +
                  "node { name: 'read' op: 'ReadVariableOp' input: 'v' input: '^while' " +
                  Attr("dtype", "type: DT_FLOAT") + "}\n" + CounterCond("while_cond_1", 3, "DT_RESOURCE") + body;
  auto session = SessionFromPbtxt(g);
  ASSERT_TRUE(session.ok()) << session.status().ToString();
  ASSERT_TRUE((*session)->Run({}, {}, {"init"}).ok());
  // Three iterations add 1.5 each: 4.5.
  auto out = (*session)->Run({}, {"read:0"});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ(Floats((*out)[0]), std::vector<float>({4.5f}));
  // The variable is the session's: a second run adds three more steps.
  out = (*session)->Run({}, {"read:0"});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ(Floats((*out)[0]), std::vector<float>({9.0f}));
}

// Mirrors a TF2 accumulation (tf.TensorArray in a tf.function, or Keras RNN
// outputs), which TF2 writes as TensorList ops:
//   ta = tf.TensorArray(tf.float32, size=3, element_shape=[2])
//   for i in tf.range(3): ta = ta.write(i, x * tf.cast(i, tf.float32))
//   out = ta.stack()
TEST(ControlFlowTf2Test, TensorListAccumulatesInsideWhileAndStacks) {
  std::string body_nodes =
      "node_def { name: 'Cast' op: 'Cast' input: 'placeholder' " + Attr("SrcT", "type: DT_INT32") +
      Attr("DstT", "type: DT_FLOAT") + "}\nnode_def { name: 'mul' op: 'Mul' input: 'x' input: 'Cast:y:0' " +
      T("DT_FLOAT") + "}\nnode_def { name: 'set' op: 'TensorListSetItem' input: 'placeholder_1' input: 'placeholder' "
      "input: 'mul:z:0' " + Attr("element_dtype", "type: DT_FLOAT") + "}\n";
  std::string body = CounterBody("while_body_2", "DT_VARIANT", body_nodes, "set:output_handle:0");
  // x is captured: an extra argument of the body (TF2 appends captures as
  // loop variables; here it is a fifth input for brevity).
  body.replace(body.find("input_arg { name: 'placeholder_1' type: DT_VARIANT } "),
               std::string("input_arg { name: 'placeholder_1' type: DT_VARIANT } ").size(),
               "input_arg { name: 'placeholder_1' type: DT_VARIANT } input_arg { name: 'x' type: DT_FLOAT } ");
  body.insert(body.find("output_arg { name: 'identity' "), "");
  body.replace(body.find("ret { key: 'identity' "), 0, "ret { key: 'identity_4' value: 'x' } ");
  body.insert(body.find(" }\nnode_def"), " output_arg { name: 'identity_4' type: DT_FLOAT }");
  std::string cond = CounterCond("while_cond_1", 3, "DT_VARIANT");
  cond.replace(cond.find("input_arg { name: 'placeholder_1' type: DT_VARIANT } "),
               std::string("input_arg { name: 'placeholder_1' type: DT_VARIANT } ").size(),
               "input_arg { name: 'placeholder_1' type: DT_VARIANT } input_arg { name: 'x' type: DT_FLOAT } ");
  auto i32_vec = [&](const std::string& name, std::vector<int> v) {
    std::string vals;
    for (int e : v) vals += " int_val: " + std::to_string(e);
    return "node { name: '" + name + "' op: 'Const' " + Attr("dtype", "type: DT_INT32") +
           Attr("value", "tensor { dtype: DT_INT32 tensor_shape { dim { size: " + std::to_string(v.size()) + " } }" +
                             vals + " }") +
           "}\n";
  };
  std::string g =
      FloatPlaceholder("x") + i32_vec("element_shape", {2}) + "node { name: 'n' op: 'Const' " +
      Attr("dtype", "type: DT_INT32") + Attr("value", "tensor { dtype: DT_INT32 tensor_shape {} int_val: 3 }") +
      "}\nnode { name: 'list' op: 'TensorListReserve' input: 'element_shape' input: 'n' " +
      Attr("element_dtype", "type: DT_FLOAT") + Attr("shape_type", "type: DT_INT32") + "}\n" +
      "node { name: 'while/loop_counter' op: 'Const' " + Attr("dtype", "type: DT_INT32") +
      Attr("value", "tensor { dtype: DT_INT32 tensor_shape {} int_val: 0 }") + "}\n" +
      "node { name: 'while/maximum_iterations' op: 'Const' " + Attr("dtype", "type: DT_INT32") +
      Attr("value", "tensor { dtype: DT_INT32 tensor_shape {} int_val: 3 }") + "}\n" +
      "node { name: 'i0' op: 'Const' " + Attr("dtype", "type: DT_INT32") +
      Attr("value", "tensor { dtype: DT_INT32 tensor_shape {} int_val: 0 }") + "}\n" +
      "node { name: 'while' op: 'StatelessWhile' input: 'while/loop_counter' input: 'while/maximum_iterations' "
      "input: 'i0' input: 'list' input: 'x' " +
      TypeList("T", {"DT_INT32", "DT_INT32", "DT_INT32", "DT_VARIANT", "DT_FLOAT"}) +
      FuncAttr("cond", "while_cond_1") + FuncAttr("body", "while_body_2") + Attr("parallel_iterations", "i: 10") +
      "}\nnode { name: 'stack' op: 'TensorListStack' input: 'while:3' input: 'element_shape' " +
      Attr("element_dtype", "type: DT_FLOAT") + Attr("num_elements", "i: 3") + "}\n" + cond + body;
  auto session = SessionFromPbtxt(g);
  ASSERT_TRUE(session.ok()) << session.status().ToString();
  // x = [1, 2]: rows x*0, x*1, x*2 = [[0, 0], [1, 2], [2, 4]].
  auto out = (*session)->Run({{"x:0", Tensor::FromVector<float>({1.0f, 2.0f})}}, {"stack:0"});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ((*out)[0].shape(), Shape({3, 2}));
  EXPECT_EQ(Floats((*out)[0]), std::vector<float>({0, 0, 1, 2, 2, 4}));
  // Shape inference read the constant element_shape: [?, 2].
  const ir::Graph& graph = (*session)->graph();
  EXPECT_EQ(graph.node(graph.FindNode("stack")).output_shapes[0].ToString(), "[?,2]");
}

// Mirrors the generic (non-CuDNN) path of a Keras RNN layer in TF2: the input
// is unstacked into a TensorList, the loop reads step i with
// TensorListGetItem, runs the cell (here h' = x_t + 0.5 * h) and writes h' to
// a reserved output list; the captured input list is the last loop variable.
//   input_ta = TensorListFromTensor(x, [1]); output_ta = TensorListReserve([1], 3)
//   while i < 3: h = x[i] + 0.5 * h; output_ta[i] = h
//   outputs = TensorListStack(output_ta, [1], num_elements=3)
TEST(ControlFlowTf2Test, KerasRnnStyleLoopReadsStepsFromOneListAndWritesAnother) {
  std::vector<std::string> types = {"DT_INT32", "DT_INT32", "DT_INT32", "DT_VARIANT", "DT_FLOAT", "DT_VARIANT"};
  std::vector<std::string> names = {"while_loop_counter", "while_maximum_iterations", "placeholder",
                                    "placeholder_1", "placeholder_2", "tensorlistfromtensor"};
  std::string in_args;
  for (size_t k = 0; k < names.size(); ++k) in_args += Arg("input_arg", names[k], types[k]);
  std::string cond = Func("rnn_cond", in_args, Arg("output_arg", "identity", "DT_BOOL"),
                          ConstNode("n", "DT_INT32", "3") +
                              "node_def { name: 'Less' op: 'Less' input: 'placeholder' input: 'n:output:0' " +
                              T("DT_INT32") + "}\n",
                          Ret("identity", "Less:z:0"));
  std::string out_args;
  for (size_t k = 0; k < names.size(); ++k) out_args += Arg("output_arg", "identity_" + std::to_string(k), types[k]);
  std::string body_nodes =
      ConstNode("one", "DT_INT32", "1") + "node_def { name: 'add' op: 'AddV2' input: 'placeholder' input: 'one:output:0' " +
      T("DT_INT32") + "}\nnode_def { name: 'add_1' op: 'AddV2' input: 'while_loop_counter' input: 'one:output:0' " +
      T("DT_INT32") + "}\nnode_def { name: 'shape' op: 'Const' " + Attr("dtype", "type: DT_INT32") +
      Attr("value", "tensor { dtype: DT_INT32 tensor_shape { dim { size: 1 } } int_val: 1 }") +
      "}\nnode_def { name: 'get' op: 'TensorListGetItem' input: 'tensorlistfromtensor' input: 'placeholder' "
      "input: 'shape:output:0' " + Attr("element_dtype", "type: DT_FLOAT") + "}\n" +
      ConstNode("half", "DT_FLOAT", "0.5") +
      "node_def { name: 'mul' op: 'Mul' input: 'placeholder_2' input: 'half:output:0' " + T("DT_FLOAT") +
      "}\nnode_def { name: 'h' op: 'AddV2' input: 'get:item:0' input: 'mul:z:0' " + T("DT_FLOAT") +
      "}\nnode_def { name: 'set' op: 'TensorListSetItem' input: 'placeholder_1' input: 'placeholder' "
      "input: 'h:z:0' " + Attr("element_dtype", "type: DT_FLOAT") + "}\n";
  std::string rets = Ret("identity_0", "add_1:z:0") + Ret("identity_1", "while_maximum_iterations") +
                     Ret("identity_2", "add:z:0") + Ret("identity_3", "set:output_handle:0") +
                     Ret("identity_4", "h:z:0") + Ret("identity_5", "tensorlistfromtensor");
  std::string body = Func("rnn_body", in_args, out_args, body_nodes, rets);
  auto int_const = [&](const std::string& name, const std::string& tensor) {
    return "node { name: '" + name + "' op: 'Const' " + Attr("dtype", "type: DT_INT32") +
           Attr("value", "tensor { dtype: DT_INT32 " + tensor + " }") + "}\n";
  };
  std::string g =
      FloatPlaceholder("x") + FloatPlaceholder("h0") + int_const("shape", "tensor_shape { dim { size: 1 } } int_val: 1") +
      int_const("steps", "tensor_shape {} int_val: 3") + int_const("zero", "tensor_shape {} int_val: 0") +
      int_const("max", "tensor_shape {} int_val: 3") +
      "node { name: 'input_ta' op: 'TensorListFromTensor' input: 'x' input: 'shape' " +
      Attr("element_dtype", "type: DT_FLOAT") + Attr("shape_type", "type: DT_INT32") + "}\n" +
      "node { name: 'output_ta' op: 'TensorListReserve' input: 'shape' input: 'steps' " +
      Attr("element_dtype", "type: DT_FLOAT") + Attr("shape_type", "type: DT_INT32") + "}\n" +
      "node { name: 'while' op: 'While' input: 'zero' input: 'max' input: 'zero' input: 'output_ta' input: 'h0' "
      "input: 'input_ta' " + TypeList("T", types) + FuncAttr("cond", "rnn_cond") + FuncAttr("body", "rnn_body") +
      Attr("parallel_iterations", "i: 32") + "}\n" +
      "node { name: 'stack' op: 'TensorListStack' input: 'while:3' input: 'shape' " +
      Attr("element_dtype", "type: DT_FLOAT") + Attr("num_elements", "i: 3") + "}\n" + cond + body;
  auto session = SessionFromPbtxt(g);
  ASSERT_TRUE(session.ok()) << session.status().ToString();
  // x = [1, 2, 4], h0 = 0: h1 = 1, h2 = 2 + 0.5 = 2.5, h3 = 4 + 1.25 = 5.25.
  auto out = (*session)->Run({{"x:0", Tensor::FromVector<float>({1, 2, 4}, Shape({3, 1}))},
                              {"h0:0", Tensor::FromVector<float>({0})}},
                             {"stack:0", "while:4"});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ((*out)[0].shape(), Shape({3, 1}));
  EXPECT_EQ(Floats((*out)[0]), std::vector<float>({1.0f, 2.5f, 5.25f}));
  EXPECT_EQ(Floats((*out)[1]), std::vector<float>({5.25f}));
}

TEST(ControlFlowTf2Test, ConcurrentRunsShareFunctionInstancesSafely) {
  std::string g = FloatPlaceholder("x") + WhileNode("while", "x", "DT_FLOAT", "while_cond_1", "while_body_2",
                                                    "dim { size: 2 }") +
                  CounterCond("while_cond_1", 10, "DT_FLOAT") +
                  CounterBody("while_body_2", "DT_FLOAT",
                              ConstNode("mul/y", "DT_FLOAT", "2") +
                                  "node_def { name: 'mul' op: 'Mul' input: 'placeholder_1' input: 'mul/y:output:0' " +
                                  T("DT_FLOAT") + "}\n",
                              "mul:z:0");
  auto session = SessionFromPbtxt(g);
  ASSERT_TRUE(session.ok()) << session.status().ToString();
  // x * 2^10 per thread, all threads instantiating and running the same bodies.
  std::vector<std::thread> threads;
  std::atomic<int> failures{0};
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (int k = 0; k < 20; ++k) {
        float x = static_cast<float>(t + 1);
        auto out = (*session)->Run({{"x:0", Tensor::FromVector<float>({x, 0.5f})}}, {"while:3"});
        if (!out.ok() || (*out)[0].data<float>()[0] != x * 1024.0f || (*out)[0].data<float>()[1] != 512.0f) {
          ++failures;
        }
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(failures.load(), 0);
}

TEST(ControlFlowTf2Test, WhileWhoseBodyReturnsItsInputsUnchangedFailsInsteadOfHanging) {
  // cond: always true (a Const); body: returns its arguments as they are.
  std::string cond = Func("c", Arg("input_arg", "x", "DT_FLOAT"), Arg("output_arg", "identity", "DT_BOOL"),
                          ConstNode("t", "DT_BOOL", "true"), Ret("identity", "t:output:0"));
  std::string body = Func("b", Arg("input_arg", "x", "DT_FLOAT"), Arg("output_arg", "identity", "DT_FLOAT"), "",
                          Ret("identity", "x"));
  std::string g = FloatPlaceholder("x") + "node { name: 'while' op: 'While' input: 'x' " + TypeList("T", {"DT_FLOAT"}) +
                  FuncAttr("cond", "c") + FuncAttr("body", "b") + "}\n" + cond + body;
  auto session = SessionFromPbtxt(g);
  ASSERT_TRUE(session.ok()) << session.status().ToString();
  auto out = (*session)->Run({{"x:0", Tensor::Scalar<float>(1.0f)}}, {"while:0"});
  TFHOST_ASSERT_ERROR(out, StatusCode::kInvalidArgument,
                      "node 'while' (While): the loop can never finish: body 'b' returns its inputs unchanged while cond");
}

TEST(ControlFlowTf2Test, MissingBranchFunctionOrUnsupportedBodyOpFailsTheLoadNamingIt) {
  std::string g = FloatPlaceholder("x") + "node { name: 'p' op: 'Placeholder' " + Attr("dtype", "type: DT_BOOL") +
                  "}\nnode { name: 'if' op: 'StatelessIf' input: 'p' input: 'x' " + Attr("Tcond", "type: DT_BOOL") +
                  TypeList("Tin", {"DT_FLOAT"}) + TypeList("Tout", {"DT_FLOAT"}) + FuncAttr("then_branch", "nope_t") +
                  FuncAttr("else_branch", "ok_f") + "}\n" +
                  Func("ok_f", Arg("input_arg", "x", "DT_FLOAT"), Arg("output_arg", "y", "DT_FLOAT"), "", Ret("y", "x"));
  auto session = SessionFromPbtxt(g);
  TFHOST_ASSERT_ERROR(session, StatusCode::kNotFound,
                      "model 'control_flow_test': function 'nope_t' is not in the model's function library");

  // An op without a kernel deep inside a body: the load names op, node and function.
  std::string h = FloatPlaceholder("x") + "node { name: 'p' op: 'Placeholder' " + Attr("dtype", "type: DT_BOOL") +
                  "}\nnode { name: 'if' op: 'If' input: 'p' input: 'x' " + Attr("Tcond", "type: DT_BOOL") +
                  TypeList("Tin", {"DT_FLOAT"}) + TypeList("Tout", {"DT_FLOAT"}) + FuncAttr("then_branch", "ok_f") +
                  FuncAttr("else_branch", "ghost_f") + "}\n" +
                  Func("ok_f", Arg("input_arg", "x", "DT_FLOAT"), Arg("output_arg", "y", "DT_FLOAT"), "", Ret("y", "x")) +
                  Func("ghost_f", Arg("input_arg", "x", "DT_FLOAT"), Arg("output_arg", "y", "DT_FLOAT"),
                       "node_def { name: 'boo' op: 'GhostOp' input: 'x' }\n", Ret("y", "boo:y:0"));
  session = SessionFromPbtxt(h);
  TFHOST_ASSERT_ERROR(session, StatusCode::kUnimplemented,
                      "model 'control_flow_test': node 'boo' of function 'ghost_f' uses op 'GhostOp', which tfhost does");
  EXPECT_NE(session.status().message().find("ghost_f"), std::string::npos) << session.status().ToString();
}

TEST(ControlFlowTf2Test, RecursionThroughIfIsBoundedInDepth) {
  // f(x) = If(true, f, f)(x): recursion without end.
  std::string f = Func("rec", Arg("input_arg", "x", "DT_FLOAT"), Arg("output_arg", "identity", "DT_FLOAT"),
                       ConstNode("t", "DT_BOOL", "true") + "node_def { name: 'if' op: 'If' input: 't:output:0' input: 'x' " +
                           Attr("Tcond", "type: DT_BOOL") + TypeList("Tin", {"DT_FLOAT"}) +
                           TypeList("Tout", {"DT_FLOAT"}) + FuncAttr("then_branch", "rec") +
                           FuncAttr("else_branch", "rec") + "}\n",
                       Ret("identity", "if:output:0"));
  std::string g = FloatPlaceholder("x") + "node { name: 'call' op: 'PartitionedCall' input: 'x' " +
                  TypeList("Tin", {"DT_FLOAT"}) + TypeList("Tout", {"DT_FLOAT"}) + FuncAttr("f", "rec") + "}\n" + f;
  auto session = SessionFromPbtxt(g);
  ASSERT_TRUE(session.ok()) << session.status().ToString();
  auto out = (*session)->Run({{"x:0", Tensor::Scalar<float>(1.0f)}}, {"call:0"});
  TFHOST_ASSERT_ERROR(out, StatusCode::kResourceExhausted,
                      "function 'rec': function calls are nested more than 100 deep");
}


// --max_loop_iterations and --max_function_depth (runtime/run_limits.h).

loaders::LoadOptions WithLimits(int64_t max_loop_iterations, int max_function_depth = 100) {
  loaders::LoadOptions options;
  options.session.intra_op_threads = 1;
  options.session.max_loop_iterations = max_loop_iterations;
  options.session.max_function_depth = max_function_depth;
  return options;
}

// x * 2^n through a While of n iterations, as WhileRunsBodyUntilCondIsFalse.
std::string DoublingLoop(int n) {
  return FloatPlaceholder("x") +
         WhileNode("while", "x", "DT_FLOAT", "while_cond_1", "while_body_2", "dim { size: 2 }") +
         CounterCond("while_cond_1", n, "DT_FLOAT") +
         CounterBody("while_body_2", "DT_FLOAT",
                     ConstNode("mul/y", "DT_FLOAT", "2") +
                         "node_def { name: 'mul' op: 'Mul' input: 'placeholder_1' input: 'mul/y:output:0' " +
                         T("DT_FLOAT") + "}\n",
                     "mul:z:0");
}

TEST(ControlFlowTf2Test, WhileAtMaxLoopIterationsFinishesAndOneMoreIterationFailsTheRun) {
  const Tensor x = Tensor::FromVector<float>({1.0f, -0.5f});
  auto at = SessionFromPbtxt(DoublingLoop(50), WithLimits(50));
  ASSERT_TRUE(at.ok()) << at.status().ToString();
  // The budget is per run: every run gets all 50 again.
  for (int run = 0; run < 2; ++run) {
    auto out = (*at)->Run({{"x:0", x}}, {"while:3"});
    ASSERT_TRUE(out.ok()) << out.status().ToString();
    EXPECT_EQ(Floats((*out)[0]), std::vector<float>({1125899906842624.0f, -562949953421312.0f}));
  }
  auto under = SessionFromPbtxt(DoublingLoop(50), WithLimits(49));
  ASSERT_TRUE(under.ok()) << under.status().ToString();
  TFHOST_EXPECT_ERROR((*under)->Run({{"x:0", x}}, {"while:3"}), StatusCode::kResourceExhausted,
                      "model 'control_flow_test', node 'while' (While), iteration 49: this run has executed 49 "
                      "while-loop iterations, the most one run may (--max_loop_iterations=49; raise it, or 0 for "
                      "no limit, if the model really loops that long)");
  // 0 lifts the limit.
  auto unlimited = SessionFromPbtxt(DoublingLoop(50), WithLimits(0));
  ASSERT_TRUE(unlimited.ok()) << unlimited.status().ToString();
  EXPECT_TRUE((*unlimited)->Run({{"x:0", x}}, {"while:3"}).ok());
}

TEST(ControlFlowTf2Test, LoopWhoseConditionNeverTurnsFalseFailsAtTheIterationLimitInsteadOfHanging) {
  // cond: always true; body: x + 1, a new value every time, so only the
  // iteration limit can end it.
  std::string cond = Func("c", Arg("input_arg", "x", "DT_FLOAT"), Arg("output_arg", "identity", "DT_BOOL"),
                          ConstNode("t", "DT_BOOL", "true"), Ret("identity", "t:output:0"));
  std::string body = Func("b", Arg("input_arg", "x", "DT_FLOAT"), Arg("output_arg", "identity", "DT_FLOAT"),
                          ConstNode("one", "DT_FLOAT", "1") +
                              "node_def { name: 'add' op: 'AddV2' input: 'x' input: 'one:output:0' " + T("DT_FLOAT") +
                              "}\n",
                          Ret("identity", "add:z:0"));
  std::string g = FloatPlaceholder("x") + "node { name: 'while' op: 'While' input: 'x' " + TypeList("T", {"DT_FLOAT"}) +
                  FuncAttr("cond", "c") + FuncAttr("body", "b") + "}\n" + cond + body;
  auto session = SessionFromPbtxt(g, WithLimits(10000));
  ASSERT_TRUE(session.ok()) << session.status().ToString();
  TFHOST_EXPECT_ERROR((*session)->Run({{"x:0", Tensor::Scalar<float>(0.0f)}}, {"while:0"}),
                      StatusCode::kResourceExhausted,
                      "node 'while' (While), iteration 10000: this run has executed 10000 while-loop iterations");
}

// --max_op_string_mb (ops/output_limits.h): a string that doubles every
// iteration (x = x + x) grows by allocations none of which the system
// refuses, so only the bound on one string value stops it, within twice the
// bound and long before the loop limit.
TEST(ControlFlowTf2Test, LoopThatDoublesAStringStopsAtTheStringLimitNamingTheJoin) {
  std::string cond = Func("c", Arg("input_arg", "x", "DT_STRING"), Arg("output_arg", "identity", "DT_BOOL"),
                          ConstNode("t", "DT_BOOL", "true"), Ret("identity", "t:output:0"));
  std::string body = Func("b", Arg("input_arg", "x", "DT_STRING"), Arg("output_arg", "identity", "DT_STRING"),
                          "node_def { name: 'join' op: 'StringJoin' input: 'x' input: 'x' " + Attr("N", "i: 2") +
                              "}\n",
                          Ret("identity", "join:output:0"));
  std::string g = "node { name: 'x' op: 'Placeholder' " + Attr("dtype", "type: DT_STRING") + "}\n" +
                  "node { name: 'while' op: 'While' input: 'x' " + TypeList("T", {"DT_STRING"}) +
                  FuncAttr("cond", "c") + FuncAttr("body", "b") + "}\n" + cond + body;
  loaders::LoadOptions options = WithLimits(10000);
  options.session.max_op_string_bytes = int64_t{1} << 20;
  auto session = SessionFromPbtxt(g, options);
  ASSERT_TRUE(session.ok()) << session.status().ToString();
  // "ab" doubles to 2^20 bytes after 19 joins; the 20th makes 2^21.
  TFHOST_EXPECT_ERROR((*session)->Run({{"x:0", Tensor::StringScalar("ab")}}, {"while:0"}),
                      StatusCode::kInvalidArgument,
                      "node 'while' (While), body in iteration 19: node '_ret/join' (StringJoin): output 0 holds a "
                      "string value (element 0) of 2097152 bytes, past the limit of 1048576 bytes one value may "
                      "have (--max_op_string_mb=1)");
}

// call -> f, whose body holds an If -> g: two levels of calls.
std::string TwoLevelsOfCalls() {
  std::string g_fn =
      Func("g", Arg("input_arg", "x", "DT_FLOAT"), Arg("output_arg", "y", "DT_FLOAT"), "", Ret("y", "x"));
  std::string f_fn = Func("f", Arg("input_arg", "x", "DT_FLOAT"), Arg("output_arg", "identity", "DT_FLOAT"),
                          ConstNode("t", "DT_BOOL", "true") +
                              "node_def { name: 'if' op: 'If' input: 't:output:0' input: 'x' " +
                              Attr("Tcond", "type: DT_BOOL") + TypeList("Tin", {"DT_FLOAT"}) +
                              TypeList("Tout", {"DT_FLOAT"}) + FuncAttr("then_branch", "g") +
                              FuncAttr("else_branch", "g") + "}\n",
                          Ret("identity", "if:output:0"));
  return FloatPlaceholder("x") + "node { name: 'call' op: 'PartitionedCall' input: 'x' " +
         TypeList("Tin", {"DT_FLOAT"}) + TypeList("Tout", {"DT_FLOAT"}) + FuncAttr("f", "f") + "}\n" + f_fn + g_fn;
}

TEST(ControlFlowTf2Test, CallsNestedAsDeepAsMaxFunctionDepthRunAndOneLevelDeeperFails) {
  auto at = SessionFromPbtxt(TwoLevelsOfCalls(), WithLimits(1000, 2));
  ASSERT_TRUE(at.ok()) << at.status().ToString();
  auto out = (*at)->Run({{"x:0", Tensor::Scalar<float>(4.0f)}}, {"call:0"});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ(Floats((*out)[0]), std::vector<float>({4.0f}));
  auto under = SessionFromPbtxt(TwoLevelsOfCalls(), WithLimits(1000, 1));
  ASSERT_TRUE(under.ok()) << under.status().ToString();
  TFHOST_EXPECT_ERROR((*under)->Run({{"x:0", Tensor::Scalar<float>(4.0f)}}, {"call:0"}),
                      StatusCode::kResourceExhausted,
                      "function 'g': function calls are nested more than 1 deep (a recursive function?) "
                      "(--max_function_depth=1)");
}

}  // namespace
}  // namespace tfhost
