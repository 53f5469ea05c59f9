// TF1 control flow end to end: GraphDefs written by hand exactly as TF1's
// tf.while_loop, tf.cond and dynamic_rnn write them (node names, frame names,
// Enter attrs, the pivot control edges on loop constants), loaded the way a
// GraphDef is and run. Expected values are derived by hand in each test.
#include <gtest/gtest.h>

#include <atomic>
#include <cmath>
#include <thread>

#include "control_flow_test_util.h"
#include "base/test_status.h"

namespace tfhost {
namespace {

using testing::FloatConst;
using testing::Floats;
using testing::IntConst;
using testing::Ints;
using testing::SessionFromPbtxt;
using testing::TypeAttr;

std::string Enter(const std::string& name, const std::string& input, const std::string& dt, const std::string& frame,
                  bool is_constant = false, int parallel_iterations = 10) {
  return "node { name: '" + name + "' op: 'Enter' input: '" + input + "' " + TypeAttr("T", dt) +
         " attr { key: 'frame_name' value { s: '" + frame + "' } }" +
         " attr { key: 'is_constant' value { b: " + (is_constant ? "true" : "false") + " } }" +
         " attr { key: 'parallel_iterations' value { i: " + std::to_string(parallel_iterations) + " } } }\n";
}
std::string Op(const std::string& name, const std::string& op, std::vector<std::string> inputs, const std::string& dt,
               const std::string& type_attr = "T") {
  std::string s = "node { name: '" + name + "' op: '" + op + "' ";
  for (const auto& in : inputs) s += "input: '" + in + "' ";
  if (!dt.empty()) s += TypeAttr(type_attr, dt);
  return s + " }\n";
}
std::string Merge(const std::string& name, const std::string& a, const std::string& b, const std::string& dt) {
  return "node { name: '" + name + "' op: 'Merge' input: '" + a + "' input: '" + b + "' " + TypeAttr("T", dt) +
         " attr { key: 'N' value { i: 2 } } }\n";
}

// One loop variable of a TF1 while loop under `scope` (suffix "" or "_1"...):
// Enter -> Merge <- NextIteration, Switch on LoopCond, Identity of the true
// output (the body's input), Exit of the false output.
std::string LoopVar(const std::string& scope, const std::string& suffix, const std::string& init,
                    const std::string& dt, const std::string& frame, const std::string& next_value,
                    int parallel_iterations = 10) {
  return Enter(scope + "/Enter" + suffix, init, dt, frame, false, parallel_iterations) +
         Merge(scope + "/Merge" + suffix, scope + "/Enter" + suffix, scope + "/NextIteration" + suffix, dt) +
         Op(scope + "/Switch" + suffix, "Switch", {scope + "/Merge" + suffix, scope + "/LoopCond"}, dt) +
         Op(scope + "/Identity" + suffix, "Identity", {scope + "/Switch" + suffix + ":1"}, dt) +
         Op(scope + "/NextIteration" + suffix, "NextIteration", {next_value}, dt) +
         Op(scope + "/Exit" + suffix, "Exit", {scope + "/Switch" + suffix}, dt);
}

// Mirrors (TF 1.15, graph mode):
//   x = tf.placeholder(tf.float32, [2], name="x")
//   n = tf.constant(5, name="n")
//   i, acc = tf.while_loop(lambda i, a: i < n, lambda i, a: (i + 1, a * 2.0),
//                          [tf.constant(0), x], parallel_iterations=P)
// n enters the frame once with is_constant=true; the body's constants hang
// off the pivot while/Identity by a control edge, as TF writes them.
std::string CounterLoop(int parallel_iterations, int n) {
  const std::string frame = "while/while_context";
  return "node { name: 'x' op: 'Placeholder' " + TypeAttr("dtype", "DT_FLOAT") + " }\n" + IntConst("n", n) +
         IntConst("Const", 0) + LoopVar("while", "", "Const", "DT_INT32", frame, "while/add", parallel_iterations) +
         LoopVar("while", "_1", "x", "DT_FLOAT", frame, "while/mul", parallel_iterations) +
         Enter("while/Less/Enter", "n", "DT_INT32", frame, true, parallel_iterations) +
         Op("while/Less", "Less", {"while/Merge", "while/Less/Enter"}, "DT_INT32") +
         Op("while/LoopCond", "LoopCond", {"while/Less"}, "") +
         IntConst("while/add/y", 1, "input: '^while/Identity' ") +
         Op("while/add", "AddV2", {"while/Identity", "while/add/y"}, "DT_INT32") +
         FloatConst("while/mul/y", 2.0f, "input: '^while/Identity' ") +
         Op("while/mul", "Mul", {"while/Identity_1", "while/mul/y"}, "DT_FLOAT");
}

TEST(ControlFlowTf1Test, WhileLoopCountsAndAccumulatesWithConstantEnteredOnce) {
  auto session = SessionFromPbtxt(CounterLoop(10, 5));
  ASSERT_TRUE(session.ok()) << session.status().ToString();
  // Five iterations: i = 5 and acc = x * 2^5 = [32, 48] for x = [1, 1.5].
  auto out = (*session)->Run({{"x:0", Tensor::FromVector<float>({1.0f, 1.5f})}}, {"while/Exit:0", "while/Exit_1:0"});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ(Ints((*out)[0]), std::vector<int32_t>({5}));
  EXPECT_EQ(Floats((*out)[1]), std::vector<float>({32.0f, 48.0f}));
  // Runs are independent: the same session again gives the same answer.
  out = (*session)->Run({{"x:0", Tensor::FromVector<float>({3.0f, 0.0f})}}, {"while/Exit_1:0"});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ(Floats((*out)[0]), std::vector<float>({96.0f, 0.0f}));
}

TEST(ControlFlowTf1Test, WhileLoopWithZeroIterationsReturnsTheInitialValues) {
  auto session = SessionFromPbtxt(CounterLoop(10, 0));
  ASSERT_TRUE(session.ok()) << session.status().ToString();
  // 0 < 0 is false at once: the Exits carry i0 = 0 and x unchanged.
  auto out = (*session)->Run({{"x:0", Tensor::FromVector<float>({7.0f, 8.0f})}}, {"while/Exit:0", "while/Exit_1:0"});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ(Ints((*out)[0]), std::vector<int32_t>({0}));
  EXPECT_EQ(Floats((*out)[1]), std::vector<float>({7.0f, 8.0f}));
}

TEST(ControlFlowTf1Test, ParallelIterationsOneAndManyIterationsGiveTheSameResult) {
  // parallel_iterations = 1 makes the counter wait for each body; 20000
  // iterations show there is no small cap (--max_loop_iterations' default is
  // 10^7). acc = x * 2^20000 overflows
  // to inf for x > 0 and stays 0 for x = 0.
  for (int p : {1, 32}) {
    auto session = SessionFromPbtxt(CounterLoop(p, 20000));
    ASSERT_TRUE(session.ok()) << session.status().ToString();
    auto out = (*session)->Run({{"x:0", Tensor::FromVector<float>({0.0f, 1.0f})}}, {"while/Exit:0", "while/Exit_1:0"});
    ASSERT_TRUE(out.ok()) << out.status().ToString();
    EXPECT_EQ(Ints((*out)[0]), std::vector<int32_t>({20000}));
    EXPECT_EQ((*out)[1].data<float>()[0], 0.0f);
    EXPECT_TRUE(std::isinf((*out)[1].data<float>()[1]));
  }
}

// Mirrors:
//   def outer_body(i, total):
//     _, s = tf.while_loop(lambda j, s: j <= i, lambda j, s: (j + 1, s + j), [0, 0])
//     return i + 1, total + s
//   _, total = tf.while_loop(lambda i, t: i < 3, outer_body, [0, 0])
// The inner loop's frame is "while/while/while_context"; the outer i enters it
// with is_constant=true (TF's inner Enter of an outer tensor), and the inner
// initial values hang off the outer pivot.
std::string NestedLoops() {
  const std::string outer = "while/while_context";
  const std::string inner = "while/while/while_context";
  std::string g = IntConst("Const", 0) + IntConst("Const_1", 0) +
                  LoopVar("while", "", "Const", "DT_INT32", outer, "while/add_1") +
                  LoopVar("while", "_1", "Const_1", "DT_INT32", outer, "while/add_2") +
                  IntConst("while/Less/y", 3, "input: '^while/Merge' ") +
                  Op("while/Less", "Less", {"while/Merge", "while/Less/y"}, "DT_INT32") +
                  Op("while/LoopCond", "LoopCond", {"while/Less"}, "") +
                  // Inner loop, initial values are body constants of the outer loop.
                  IntConst("while/Const", 0, "input: '^while/Identity' ") +
                  IntConst("while/Const_1", 0, "input: '^while/Identity' ") +
                  LoopVar("while/while", "", "while/Const", "DT_INT32", inner, "while/while/add") +
                  LoopVar("while/while", "_1", "while/Const_1", "DT_INT32", inner, "while/while/add_1") +
                  Enter("while/while/LessEqual/Enter", "while/Identity", "DT_INT32", inner, true) +
                  Op("while/while/LessEqual", "LessEqual", {"while/while/Merge", "while/while/LessEqual/Enter"},
                     "DT_INT32") +
                  Op("while/while/LoopCond", "LoopCond", {"while/while/LessEqual"}, "") +
                  IntConst("while/while/add/y", 1, "input: '^while/while/Identity' ") +
                  Op("while/while/add", "AddV2", {"while/while/Identity", "while/while/add/y"}, "DT_INT32") +
                  Op("while/while/add_1", "AddV2", {"while/while/Identity_1", "while/while/Identity"}, "DT_INT32") +
                  IntConst("while/add_1/y", 1, "input: '^while/Identity' ") +
                  Op("while/add_1", "AddV2", {"while/Identity", "while/add_1/y"}, "DT_INT32") +
                  Op("while/add_2", "AddV2", {"while/Identity_1", "while/while/Exit_1"}, "DT_INT32");
  return g;
}

TEST(ControlFlowTf1Test, NestedWhileLoopsRunAFreshInnerLoopPerOuterIteration) {
  auto session = SessionFromPbtxt(NestedLoops());
  ASSERT_TRUE(session.ok()) << session.status().ToString();
  // Inner sums: i=0 -> 0; i=1 -> 0+1 = 1; i=2 -> 0+1+2 = 3; total = 4.
  auto out = (*session)->Run({}, {"while/Exit:0", "while/Exit_1:0"});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ(Ints((*out)[0]), std::vector<int32_t>({3}));
  EXPECT_EQ(Ints((*out)[1]), std::vector<int32_t>({4}));
}

// Mirrors:
//   def body(i, acc):
//     acc = tf.cond(i < 2, lambda: acc + 10.0, lambda: acc * 2.0)
//     return i + 1, acc
//   _, acc = tf.while_loop(lambda i, a: i < 4, body, [0, acc0])
// The cond's Switch/Merge live inside the loop frame; its Merge is not a loop
// Merge, so in every iteration it waits for its live branch.
TEST(ControlFlowTf1Test, CondInsideWhileBodyTakesItsBranchEveryIteration) {
  const std::string frame = "while/while_context";
  std::string g = "node { name: 'acc0' op: 'Placeholder' " + TypeAttr("dtype", "DT_FLOAT") + " }\n" +
                  IntConst("Const", 0) + LoopVar("while", "", "Const", "DT_INT32", frame, "while/add") +
                  LoopVar("while", "_1", "acc0", "DT_FLOAT", frame, "while/cond/Merge") +
                  IntConst("while/Less/y", 4, "input: '^while/Merge' ") +
                  Op("while/Less", "Less", {"while/Merge", "while/Less/y"}, "DT_INT32") +
                  Op("while/LoopCond", "LoopCond", {"while/Less"}, "") +
                  IntConst("while/Less_1/y", 2, "input: '^while/Identity' ") +
                  Op("while/Less_1", "Less", {"while/Identity", "while/Less_1/y"}, "DT_INT32") +
                  Op("while/cond/Switch", "Switch", {"while/Less_1", "while/Less_1"}, "DT_BOOL") +
                  Op("while/cond/switch_t", "Identity", {"while/cond/Switch:1"}, "DT_BOOL") +
                  Op("while/cond/switch_f", "Identity", {"while/cond/Switch"}, "DT_BOOL") +
                  Op("while/cond/pred_id", "Identity", {"while/Less_1"}, "DT_BOOL") +
                  Op("while/cond/add/Switch", "Switch", {"while/Identity_1", "while/cond/pred_id"}, "DT_FLOAT") +
                  FloatConst("while/cond/add/y", 10.0f, "input: '^while/cond/switch_t' ") +
                  Op("while/cond/add", "AddV2", {"while/cond/add/Switch:1", "while/cond/add/y"}, "DT_FLOAT") +
                  Op("while/cond/mul/Switch", "Switch", {"while/Identity_1", "while/cond/pred_id"}, "DT_FLOAT") +
                  FloatConst("while/cond/mul/y", 2.0f, "input: '^while/cond/switch_f' ") +
                  Op("while/cond/mul", "Mul", {"while/cond/mul/Switch", "while/cond/mul/y"}, "DT_FLOAT") +
                  Merge("while/cond/Merge", "while/cond/mul", "while/cond/add", "DT_FLOAT") +
                  IntConst("while/add/y", 1, "input: '^while/Identity' ") +
                  Op("while/add", "AddV2", {"while/Identity", "while/add/y"}, "DT_INT32");
  auto session = SessionFromPbtxt(g);
  ASSERT_TRUE(session.ok()) << session.status().ToString();
  // acc0 = 1: i=0 -> 11, i=1 -> 21, i=2 -> 42, i=3 -> 84.
  auto out = (*session)->Run({{"acc0:0", Tensor::Scalar<float>(1.0f)}}, {"while/Exit_1:0"});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ(Floats((*out)[0]), std::vector<float>({84.0f}));
}

// Mirrors:
//   pred = tf.placeholder(tf.bool); x = tf.placeholder(tf.float32)
//   y = tf.cond(pred, lambda: tf.while_loop(lambda i, a: i < 3,
//                                          lambda i, a: (i + 1, a + 1.0), [0, x])[1],
//               lambda: x * 10.0)
// When pred is false the whole loop is dead: its Enters get dead tensors,
// every Exit is dead and the cond's Merge takes the false branch.
TEST(ControlFlowTf1Test, WhileLoopOnAnUntakenCondBranchIsDeadAndMergeTakesTheOtherBranch) {
  const std::string frame = "cond/while/while_context";
  std::string g = "node { name: 'x' op: 'Placeholder' " + TypeAttr("dtype", "DT_FLOAT") + " }\n" +
                  "node { name: 'pred' op: 'Placeholder' " + TypeAttr("dtype", "DT_BOOL") + " }\n" +
                  Op("cond/Switch", "Switch", {"pred", "pred"}, "DT_BOOL") +
                  Op("cond/switch_t", "Identity", {"cond/Switch:1"}, "DT_BOOL") +
                  Op("cond/pred_id", "Identity", {"pred"}, "DT_BOOL") +
                  Op("cond/Switch_1", "Switch", {"x", "cond/pred_id"}, "DT_FLOAT") +
                  IntConst("cond/Const", 0, "input: '^cond/switch_t' ") +
                  LoopVar("cond/while", "", "cond/Const", "DT_INT32", frame, "cond/while/add") +
                  LoopVar("cond/while", "_1", "cond/Switch_1:1", "DT_FLOAT", frame, "cond/while/add_1") +
                  IntConst("cond/while/Less/y", 3, "input: '^cond/while/Merge' ") +
                  Op("cond/while/Less", "Less", {"cond/while/Merge", "cond/while/Less/y"}, "DT_INT32") +
                  Op("cond/while/LoopCond", "LoopCond", {"cond/while/Less"}, "") +
                  IntConst("cond/while/add/y", 1, "input: '^cond/while/Identity' ") +
                  Op("cond/while/add", "AddV2", {"cond/while/Identity", "cond/while/add/y"}, "DT_INT32") +
                  FloatConst("cond/while/add_1/y", 1.0f, "input: '^cond/while/Identity' ") +
                  Op("cond/while/add_1", "AddV2", {"cond/while/Identity_1", "cond/while/add_1/y"}, "DT_FLOAT") +
                  FloatConst("cond/mul/y", 10.0f) +
                  Op("cond/mul", "Mul", {"cond/Switch_1:0", "cond/mul/y"}, "DT_FLOAT") +
                  Merge("cond/Merge", "cond/mul", "cond/while/Exit_1", "DT_FLOAT");
  auto session = SessionFromPbtxt(g);
  ASSERT_TRUE(session.ok()) << session.status().ToString();
  // pred true: three iterations add 1 each: 2 + 3 = 5.
  auto out = (*session)->Run({{"x:0", Tensor::Scalar<float>(2.0f)}, {"pred:0", Tensor::Scalar<bool>(true)}},
                             {"cond/Merge:0"});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ(Floats((*out)[0]), std::vector<float>({5.0f}));
  // pred false: 2 * 10 = 20, and the dead loop does not block the run.
  out = (*session)->Run({{"x:0", Tensor::Scalar<float>(2.0f)}, {"pred:0", Tensor::Scalar<bool>(false)}},
                        {"cond/Merge:0"});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ(Floats((*out)[0]), std::vector<float>({20.0f}));
  // The loop's own output is dead then, and fetching it says so.
  out = (*session)->Run({{"x:0", Tensor::Scalar<float>(2.0f)}, {"pred:0", Tensor::Scalar<bool>(false)}},
                        {"cond/while/Exit_1:0"});
  TFHOST_ASSERT_ERROR(out, StatusCode::kInvalidArgument,
                      "fetch 'cond/while/Exit_1:0' was not computed: it lies on an untaken branch of a Switch");
}

// Mirrors (TF 1.15 dynamic_rnn, time_major=False, a cell h' = x_t + 0.5 * h):
//   x = tf.placeholder(tf.float32, [1, 3, 1])            # batch 1, 3 steps
//   outputs, state = tf.nn.dynamic_rnn(cell, x, initial_state=h0)
// dynamic_rnn transposes to time-major, unstacks the input into a
// TensorArrayV3 (ScatterV3 over range(3)), reads step t inside the loop
// "rnn/while/while_context" (handles and flows enter with is_constant), writes
// h_t to the output TensorArray with the flow as a loop variable, and after
// the loop gathers all steps (SizeV3 + range + GatherV3) and transposes back.
TEST(ControlFlowTf1Test, DynamicRnnStyleLoopAccumulatesStepsInATensorArray) {
  const std::string frame = "rnn/while/while_context";
  auto i32_vec = [](const std::string& name, std::vector<int> v) {
    std::string vals;
    for (int x : v) vals += " int_val: " + std::to_string(x);
    return "node { name: '" + name + "' op: 'Const' " + TypeAttr("dtype", "DT_INT32") +
           " attr { key: 'value' value { tensor { dtype: DT_INT32 tensor_shape { dim { size: " +
           std::to_string(v.size()) + " } }" + vals + " } } } }\n";
  };
  std::string ta_attrs = TypeAttr("dtype", "DT_FLOAT") +
                         " attr { key: 'element_shape' value { shape { dim { size: 1 } dim { size: 1 } } } }"
                         " attr { key: 'dynamic_size' value { b: false } }"
                         " attr { key: 'clear_after_read' value { b: true } }"
                         " attr { key: 'identical_element_shapes' value { b: true } }";
  std::string g =
      "node { name: 'x' op: 'Placeholder' " + TypeAttr("dtype", "DT_FLOAT") +
      " attr { key: 'shape' value { shape { dim { size: 1 } dim { size: 3 } dim { size: 1 } } } } }\n" +
      "node { name: 'h0' op: 'Placeholder' " + TypeAttr("dtype", "DT_FLOAT") + " }\n" + i32_vec("rnn/perm", {1, 0, 2}) +
      Op("rnn/transpose", "Transpose", {"x", "rnn/perm"}, "DT_FLOAT") + IntConst("rnn/steps", 3) +
      "node { name: 'rnn/TensorArray' op: 'TensorArrayV3' input: 'rnn/steps' " + ta_attrs +
      " attr { key: 'tensor_array_name' value { s: 'rnn/dynamic_rnn/output_0' } } }\n" +
      "node { name: 'rnn/TensorArray_1' op: 'TensorArrayV3' input: 'rnn/steps' " + ta_attrs +
      " attr { key: 'tensor_array_name' value { s: 'rnn/dynamic_rnn/input_0' } } }\n" + IntConst("rnn/zero", 0) +
      IntConst("rnn/one", 1) +
      Op("rnn/TensorArrayUnstack/range", "Range", {"rnn/zero", "rnn/steps", "rnn/one"}, "DT_INT32", "Tidx") +
      Op("rnn/TensorArrayUnstack/TensorArrayScatter/TensorArrayScatterV3", "TensorArrayScatterV3",
         {"rnn/TensorArray_1", "rnn/TensorArrayUnstack/range", "rnn/transpose", "rnn/TensorArray_1:1"}, "DT_FLOAT") +
      IntConst("rnn/time", 0) + LoopVar("rnn/while", "", "rnn/time", "DT_INT32", frame, "rnn/while/add", 32) +
      LoopVar("rnn/while", "_1", "rnn/TensorArray:1", "DT_FLOAT", frame,
              "rnn/while/TensorArrayWrite/TensorArrayWriteV3", 32) +
      LoopVar("rnn/while", "_2", "h0", "DT_FLOAT", frame, "rnn/while/cell/add", 32) +
      Enter("rnn/while/Less/Enter", "rnn/steps", "DT_INT32", frame, true, 32) +
      Op("rnn/while/Less", "Less", {"rnn/while/Merge", "rnn/while/Less/Enter"}, "DT_INT32") +
      Op("rnn/while/LoopCond", "LoopCond", {"rnn/while/Less"}, "") +
      Enter("rnn/while/TensorArrayReadV3/Enter", "rnn/TensorArray_1", "DT_RESOURCE", frame, true, 32) +
      Enter("rnn/while/TensorArrayReadV3/Enter_1",
            "rnn/TensorArrayUnstack/TensorArrayScatter/TensorArrayScatterV3", "DT_FLOAT", frame, true, 32) +
      Op("rnn/while/TensorArrayReadV3", "TensorArrayReadV3",
         {"rnn/while/TensorArrayReadV3/Enter", "rnn/while/Identity", "rnn/while/TensorArrayReadV3/Enter_1"},
         "DT_FLOAT", "dtype") +
      FloatConst("rnn/while/cell/half", 0.5f, "input: '^rnn/while/Identity' ") +
      Op("rnn/while/cell/mul", "Mul", {"rnn/while/Identity_2", "rnn/while/cell/half"}, "DT_FLOAT") +
      Op("rnn/while/cell/add", "AddV2", {"rnn/while/TensorArrayReadV3", "rnn/while/cell/mul"}, "DT_FLOAT") +
      Enter("rnn/while/TensorArrayWrite/TensorArrayWriteV3/Enter", "rnn/TensorArray", "DT_RESOURCE", frame, true, 32) +
      Op("rnn/while/TensorArrayWrite/TensorArrayWriteV3", "TensorArrayWriteV3",
         {"rnn/while/TensorArrayWrite/TensorArrayWriteV3/Enter", "rnn/while/Identity", "rnn/while/cell/add",
          "rnn/while/Identity_1"},
         "DT_FLOAT") +
      IntConst("rnn/while/add/y", 1, "input: '^rnn/while/Identity' ") +
      Op("rnn/while/add", "AddV2", {"rnn/while/Identity", "rnn/while/add/y"}, "DT_INT32") +
      Op("rnn/TensorArrayStack/TensorArraySizeV3", "TensorArraySizeV3", {"rnn/TensorArray", "rnn/while/Exit_1"}, "") +
      Op("rnn/TensorArrayStack/range", "Range",
         {"rnn/zero", "rnn/TensorArrayStack/TensorArraySizeV3", "rnn/one"}, "DT_INT32", "Tidx") +
      "node { name: 'rnn/TensorArrayStack/TensorArrayGatherV3' op: 'TensorArrayGatherV3' input: 'rnn/TensorArray' "
      "input: 'rnn/TensorArrayStack/range' input: 'rnn/while/Exit_1' " +
      TypeAttr("dtype", "DT_FLOAT") +
      " attr { key: 'element_shape' value { shape { dim { size: 1 } dim { size: 1 } } } } }\n" +
      Op("rnn/transpose_1", "Transpose", {"rnn/TensorArrayStack/TensorArrayGatherV3", "rnn/perm"}, "DT_FLOAT");
  auto session = SessionFromPbtxt(g);
  ASSERT_TRUE(session.ok()) << session.status().ToString();
  // x = [1, 2, 4], h0 = 0: h1 = 1, h2 = 2 + 0.5 = 2.5, h3 = 4 + 1.25 = 5.25.
  Tensor x = Tensor::FromVector<float>({1.0f, 2.0f, 4.0f}, Shape({1, 3, 1}));
  Tensor h0 = Tensor::FromVector<float>({0.0f}, Shape({1, 1}));
  auto out = (*session)->Run({{"x:0", x}, {"h0:0", h0}}, {"rnn/transpose_1:0", "rnn/while/Exit_2:0"});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ((*out)[0].shape(), Shape({1, 3, 1}));
  EXPECT_EQ(Floats((*out)[0]), std::vector<float>({1.0f, 2.5f, 5.25f}));
  EXPECT_EQ(Floats((*out)[1]), std::vector<float>({5.25f}));
  // Shape inference knows the flows are scalars (nodes after the loop's
  // cycle stay unknown, as InferShapes documents).
  const ir::Graph& graph = (*session)->graph();
  EXPECT_EQ(graph.node(graph.FindNode("rnn/TensorArray")).output_shapes[1].ToString(), "[]");
  EXPECT_EQ(graph.node(graph.FindNode("rnn/TensorArrayUnstack/TensorArrayScatter/TensorArrayScatterV3"))
                .output_shapes[0].ToString(),
            "[]");
  // A second run gets fresh TensorArrays (writing an index twice would fail).
  out = (*session)->Run({{"x:0", x}, {"h0:0", h0}}, {"rnn/transpose_1:0"});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ(Floats((*out)[0]), std::vector<float>({1.0f, 2.5f, 5.25f}));
}

TEST(ControlFlowTf1Test, ConcurrentRunsOfOneLoopGraphDoNotShareLoopState) {
  auto session = SessionFromPbtxt(CounterLoop(4, 50));
  ASSERT_TRUE(session.ok()) << session.status().ToString();
  // Each thread feeds its own x; acc = x * 2^50, exact in float for x = k.
  std::vector<std::thread> threads;
  std::atomic<int> failures{0};
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (int k = 0; k < 20; ++k) {
        float x = static_cast<float>(t + 1);
        auto out = (*session)->Run({{"x:0", Tensor::FromVector<float>({x, -x})}}, {"while/Exit_1:0"});
        if (!out.ok() || (*out)[0].data<float>()[0] != std::ldexp(x, 50) ||
            (*out)[0].data<float>()[1] != -std::ldexp(x, 50)) {
          ++failures;
        }
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(failures.load(), 0);
}

// ---- Malformed loops fail cleanly, naming the node. ----

TEST(ControlFlowTf1Test, NextIterationThatFeedsNoMergeIsRejected) {
  // The back edge goes into an Identity instead of the loop's Merge.
  std::string g = CounterLoop(10, 3);
  g += Op("bad/next", "NextIteration", {"while/add"}, "DT_INT32") +
       Op("bad/use", "Identity", {"bad/next"}, "DT_INT32");
  auto session = SessionFromPbtxt(g);
  ASSERT_TRUE(session.ok()) << session.status().ToString();
  auto out = (*session)->Run({{"x:0", Tensor::FromVector<float>({1.0f, 1.0f})}}, {"bad/use:0"});
  TFHOST_ASSERT_ERROR(out, StatusCode::kInvalidArgument,
                      "model 'control_flow_test': node 'bad/next' (NextIteration) feeds node 'bad/use' (Identity), but a");
  EXPECT_NE(out.status().message().find("Merge"), std::string::npos) << out.status().ToString();
}

TEST(ControlFlowTf1Test, ReadingALoopTensorFromOutsideWithoutEnterIsAFrameMismatch) {
  // while/mul reads x directly instead of through an Enter: x is at the top
  // level, while/Identity_1 inside the loop frame.
  std::string g = CounterLoop(10, 3);
  auto pos = g.find("input: 'while/mul/y'");
  ASSERT_NE(pos, std::string::npos);
  g.replace(pos, std::string("input: 'while/mul/y'").size(), "input: 'x'");
  auto session = SessionFromPbtxt(g);
  ASSERT_TRUE(session.ok()) << session.status().ToString();
  auto out = (*session)->Run({{"x:0", Tensor::FromVector<float>({1.0f, 1.0f})}}, {"while/Exit_1:0"});
  TFHOST_ASSERT_ERROR(out, StatusCode::kInvalidArgument,
                      "model 'control_flow_test': node 'while/mul' (Mul) has inputs from two different frames: while-loop");
  EXPECT_NE(out.status().message().find("different frames"), std::string::npos) << out.status().ToString();
}

TEST(ControlFlowTf1Test, LoopConditionThatNoLoopVariableFeedsFailsInsteadOfHanging) {
  // LoopCond reads a constant true (on the Merge's control edge, as TF places
  // cond constants): the loop could never end.
  const std::string frame = "while/while_context";
  std::string g = IntConst("Const", 0) + LoopVar("while", "", "Const", "DT_INT32", frame, "while/add") +
                  "node { name: 'while/always' op: 'Const' input: '^while/Merge' " + TypeAttr("dtype", "DT_BOOL") +
                  " attr { key: 'value' value { tensor { dtype: DT_BOOL tensor_shape {} bool_val: true } } } }\n" +
                  Op("while/LoopCond", "LoopCond", {"while/always"}, "") +
                  IntConst("while/add/y", 1, "input: '^while/Identity' ") +
                  Op("while/add", "AddV2", {"while/Identity", "while/add/y"}, "DT_INT32");
  auto session = SessionFromPbtxt(g);
  ASSERT_TRUE(session.ok()) << session.status().ToString();
  auto out = (*session)->Run({}, {"while/Exit:0"});
  TFHOST_ASSERT_ERROR(out, StatusCode::kInvalidArgument,
                      "while loop 'while/while_context' can never finish: its condition node 'while/LoopCond' (LoopCond)");
}

TEST(ControlFlowTf1Test, ExitOutsideAnyLoopAndMergeWithOnlyBackEdgesAreRejected) {
  std::string g = IntConst("c", 1) + Op("stray_exit", "Exit", {"c"}, "DT_INT32");
  auto session = SessionFromPbtxt(g);
  ASSERT_TRUE(session.ok()) << session.status().ToString();
  auto out = (*session)->Run({}, {"stray_exit:0"});
  TFHOST_ASSERT_ERROR(out, StatusCode::kInvalidArgument,
                      "model 'control_flow_test': node 'stray_exit' (Exit) is an Exit outside every while loop");

  // A Merge fed only by its own NextIteration can never start.
  std::string h = Merge("m", "n1", "n2", "DT_INT32") + Op("n1", "NextIteration", {"m"}, "DT_INT32") +
                  Op("n2", "NextIteration", {"m"}, "DT_INT32");
  session = SessionFromPbtxt(h);
  ASSERT_TRUE(session.ok()) << session.status().ToString();
  out = (*session)->Run({}, {"m:0"});
  TFHOST_ASSERT_ERROR(out, StatusCode::kInvalidArgument,
                      "model 'control_flow_test': node 'm' (Merge) has only NextIteration inputs, so its loop can never");
}

TEST(ControlFlowTf1Test, EnterWithMismatchedFrameNamesCannotFinishAndSaysWhy) {
  // The second loop variable enters a differently named frame, so while/mul
  // mixes two frames: rejected before running.
  std::string g = CounterLoop(10, 3);
  auto pos = g.find("name: 'while/Enter_1'");
  ASSERT_NE(pos, std::string::npos);
  auto fpos = g.find("while/while_context", pos);
  g.replace(fpos, std::string("while/while_context").size(), "other/while_context");
  auto session = SessionFromPbtxt(g);
  ASSERT_TRUE(session.ok()) << session.status().ToString();
  auto out = (*session)->Run({{"x:0", Tensor::FromVector<float>({1.0f, 1.0f})}}, {"while/Exit_1:0"});
  TFHOST_ASSERT_ERROR(out, StatusCode::kInvalidArgument,
                      "model 'control_flow_test': node 'while/Switch_1' (Switch) has inputs from two different frames:");
}

TEST(ControlFlowTf1Test, LoopWaitingForAnEnterThatNeedsItsOwnExitReportsTheStallInsteadOfHanging) {
  // 'late/Enter' feeds the loop's frame from the loop's own Exit: iteration 0
  // cannot finish before that Enter arrives, which needs the loop to end. With
  // parallel_iterations = 2 the loop stalls after two iterations (TensorFlow
  // would hang); tfhost reports the stall and where it is.
  std::string g = CounterLoop(2, 5) + Enter("late/Enter", "while/Exit", "DT_INT32", "while/while_context", false, 2) +
                  Op("late/use", "Identity", {"late/Enter"}, "DT_INT32") + Op("late/exit", "Exit", {"late/use"}, "DT_INT32");
  auto session = SessionFromPbtxt(g);
  ASSERT_TRUE(session.ok()) << session.status().ToString();
  auto out = (*session)->Run({{"x:0", Tensor::FromVector<float>({1.0f, 1.0f})}}, {"while/Exit_1:0", "late/exit:0"});
  TFHOST_ASSERT_ERROR(out, StatusCode::kInvalidArgument,
                      "the run cannot finish: a malformed while loop; while-loop frame 'while/while_context' is stalled at");
  EXPECT_NE(out.status().message().find("while/while_context"), std::string::npos) << out.status().ToString();
  EXPECT_NE(out.status().message().find("Enter inputs"), std::string::npos) << out.status().ToString();
}


// --max_loop_iterations (runtime/run_limits.h): every iteration after the
// first of every frame instance of a run draws on one budget.

loaders::LoadOptions WithMaxLoopIterations(int64_t n) {
  loaders::LoadOptions options;
  options.session.intra_op_threads = 1;
  options.session.max_loop_iterations = n;
  return options;
}

TEST(ControlFlowTf1Test, LoopOfMaxLoopIterationsFinishesAndOneMoreFailsNamingTheFrameAndTheFlag) {
  for (int p : {1, 10}) {
    SCOPED_TRACE("parallel_iterations " + std::to_string(p));
    auto at = SessionFromPbtxt(CounterLoop(p, 1000), WithMaxLoopIterations(1000));
    ASSERT_TRUE(at.ok()) << at.status().ToString();
    for (int run = 0; run < 2; ++run) {  // per run, not per session
      auto out = (*at)->Run({{"x:0", Tensor::FromVector<float>({0.0f, 0.0f})}}, {"while/Exit:0"});
      ASSERT_TRUE(out.ok()) << out.status().ToString();
      EXPECT_EQ(Ints((*out)[0]), std::vector<int32_t>({1000}));
    }
    auto under = SessionFromPbtxt(CounterLoop(p, 1000), WithMaxLoopIterations(999));
    ASSERT_TRUE(under.ok()) << under.status().ToString();
    TFHOST_EXPECT_ERROR((*under)->Run({{"x:0", Tensor::FromVector<float>({0.0f, 0.0f})}}, {"while/Exit:0"}),
                        StatusCode::kResourceExhausted,
                        "while-loop frame 'while/while_context', iteration 1000: this run has executed 999 "
                        "while-loop iterations, the most one run may (--max_loop_iterations=999;");
  }
}

TEST(ControlFlowTf1Test, NestedLoopsDrawOnOneIterationBudgetPerRun) {
  // 3 outer iterations and 1 + 2 + 3 inner ones: 9 in all.
  auto at = SessionFromPbtxt(NestedLoops(), WithMaxLoopIterations(9));
  ASSERT_TRUE(at.ok()) << at.status().ToString();
  auto out = (*at)->Run({}, {"while/Exit_1:0"});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ(Ints((*out)[0]), std::vector<int32_t>({4}));
  auto under = SessionFromPbtxt(NestedLoops(), WithMaxLoopIterations(8));
  ASSERT_TRUE(under.ok()) << under.status().ToString();
  TFHOST_EXPECT_ERROR((*under)->Run({}, {"while/Exit_1:0"}), StatusCode::kResourceExhausted,
                      "this run has executed 8 while-loop iterations");
}

}  // namespace
}  // namespace tfhost
