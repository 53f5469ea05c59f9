// The frame executor with an inter-op pool: iterations of a TF1 while loop
// overlap (up to parallel_iterations of them), and every result is the one the
// sequential run gives, nested frames and dead branches included.
//
// Graphs are written as TF1's tf.while_loop writes them (see
// tests/models/control_flow_tf1_test.cc for the derivations) and run straight
// through RunWithFrames, so a test can swap in a kernel of its own.
#include "runtime/frame_executor.h"

#include <gtest/gtest.h>
#include <google/protobuf/text_format.h>

#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <set>

#include "ir/op_def_util.h"
#include "ops/op_registry.h"
#include "runtime/session.h"
#include "tensorflow/core/framework/graph.pb.h"
#include "base/test_status.h"

namespace tfhost::runtime {
namespace {

std::string TypeAttr(const std::string& key, const std::string& dt) {
  return "attr { key: '" + key + "' value { type: " + dt + " } }";
}
std::string IntConst(const std::string& name, int value, const std::string& extra = "") {
  return "node { name: '" + name + "' op: 'Const' " + extra + TypeAttr("dtype", "DT_INT32") +
         " attr { key: 'value' value { tensor { dtype: DT_INT32 tensor_shape {} int_val: " + std::to_string(value) +
         " } } } }\n";
}
std::string Enter(const std::string& name, const std::string& input, const std::string& frame, bool is_constant,
                  int parallel_iterations, const std::string& dt = "DT_INT32") {
  return "node { name: '" + name + "' op: 'Enter' input: '" + input + "' " + TypeAttr("T", dt) +
         " attr { key: 'frame_name' value { s: '" + frame + "' } }" +
         " attr { key: 'is_constant' value { b: " + (is_constant ? "true" : "false") + " } }" +
         " attr { key: 'parallel_iterations' value { i: " + std::to_string(parallel_iterations) + " } } }\n";
}
std::string Op(const std::string& name, const std::string& op, std::vector<std::string> inputs,
               const std::string& dt = "DT_INT32", const std::string& type_attr = "T") {
  std::string s = "node { name: '" + name + "' op: '" + op + "' ";
  for (const auto& in : inputs) s += "input: '" + in + "' ";
  if (!dt.empty()) s += TypeAttr(type_attr, dt);
  if (op == "Merge") s += " attr { key: 'N' value { i: 2 } }";
  return s + " }\n";
}
// One int32 loop variable of `scope`: Enter -> Merge <- NextIteration, Switch
// on LoopCond, Identity (body input) and Exit.
std::string LoopVar(const std::string& scope, const std::string& suffix, const std::string& init,
                    const std::string& frame, const std::string& next, int parallel_iterations,
                    const std::string& dt = "DT_INT32") {
  return Enter(scope + "/Enter" + suffix, init, frame, false, parallel_iterations, dt) +
         Op(scope + "/Merge" + suffix, "Merge", {scope + "/Enter" + suffix, scope + "/NextIteration" + suffix}, dt) +
         Op(scope + "/Switch" + suffix, "Switch", {scope + "/Merge" + suffix, scope + "/LoopCond"}, dt) +
         Op(scope + "/Identity" + suffix, "Identity", {scope + "/Switch" + suffix + ":1"}, dt) +
         Op(scope + "/NextIteration" + suffix, "NextIteration", {next}, dt) +
         Op(scope + "/Exit" + suffix, "Exit", {scope + "/Switch" + suffix}, dt);
}

// i, acc = while_loop(i < n, (i + 1, acc + sum(f(fill([kBig], i)))), [0, 0])
// where f is the node "while/f" (an Identity the test may give its own
// kernel). f reads kBig elements so that the executor hands it to the pool
// (small kernels run inline).
constexpr int kBig = 1 << 15;
std::string SumLoop(int n, int parallel_iterations) {
  const std::string frame = "while/while_context";
  return IntConst("Const", 0) + IntConst("n", n) +
         LoopVar("while", "", "Const", frame, "while/add", parallel_iterations) +
         LoopVar("while", "_1", "Const", frame, "while/add_1", parallel_iterations) +
         Enter("while/Less/Enter", "n", frame, true, parallel_iterations) +
         Op("while/Less", "Less", {"while/Merge", "while/Less/Enter"}) + Op("while/LoopCond", "LoopCond", {"while/Less"}, "") +
         IntConst("while/add/y", 1, "input: '^while/Identity' ") +
         Op("while/add", "AddV2", {"while/Identity", "while/add/y"}) +
         "node { name: 'while/dims' op: 'Const' input: '^while/Identity' " + TypeAttr("dtype", "DT_INT32") +
         " attr { key: 'value' value { tensor { dtype: DT_INT32 tensor_shape { dim { size: 1 } } int_val: " +
         std::to_string(kBig) + " } } } }\n" + IntConst("while/axis", 0, "input: '^while/Identity' ") +
         "node { name: 'while/fill' op: 'Fill' input: 'while/dims' input: 'while/Identity' " +
         TypeAttr("T", "DT_INT32") + TypeAttr("index_type", "DT_INT32") + " }\n" +
         Op("while/f", "Identity", {"while/fill"}) +
         "node { name: 'while/sum' op: 'Sum' input: 'while/f' input: 'while/axis' " + TypeAttr("T", "DT_INT32") +
         TypeAttr("Tidx", "DT_INT32") + " attr { key: 'keep_dims' value { b: false } } }\n" +
         Op("while/add_1", "AddV2", {"while/Identity_1", "while/sum"});
}

// A kernel that lets iteration value k finish only once k ^ 1 has started:
// iterations 0 and 1 (2 and 3, ...) must run at the same time. Run one after
// the other, the first of a pair waits `timeout` and fails.
struct Rendezvous {
  std::mutex mu;
  std::condition_variable cv;
  std::set<int32_t> arrived;
  std::chrono::milliseconds timeout{10000};

  ops::OpRegistration Registration(const ops::OpRegistration& identity) {
    ops::OpRegistration reg = identity;
    reg.kernel = [this](ops::KernelContext& ctx) -> Status {
      const int32_t k = ctx.input(0).data<int32_t>()[0];  // every element is the iteration's i
      std::unique_lock<std::mutex> lock(mu);
      arrived.insert(k);
      cv.notify_all();
      if (!cv.wait_for(lock, timeout, [&] { return arrived.count(k ^ 1) > 0; })) {
        return Status(StatusCode::kDeadlineExceeded, "iteration " + std::to_string(k) + " never ran beside iteration " +
                                std::to_string(k ^ 1));
      }
      ctx.set_output(0, ctx.input(0));
      return OkStatus();
    };
    return reg;
  }
};

// Sends every plain kernel to the pool while alive, so small test graphs
// exercise the concurrent path (by default small kernels run inline).
struct AllKernelsOnThePool {
  AllKernelsOnThePool() : previous(SetFramePoolMinElementsForTesting(0)) {}
  ~AllKernelsOnThePool() { SetFramePoolMinElementsForTesting(previous); }
  int64_t previous;
};

// Loads `pbtxt` and runs it through RunWithFrames; `inter_op_threads` 0 runs
// without a pool (the sequential executor); `special` replaces the kernel of
// the node named "while/f".
StatusOr<std::vector<Tensor>> RunLoopGraph(const std::string& pbtxt, const std::vector<std::string>& fetches,
                                           int inter_op_threads, const ops::OpRegistration* special = nullptr,
                                           const NamedTensors& feeds = {}) {
  tensorflow::GraphDef gd;
  if (!google::protobuf::TextFormat::ParseFromString(pbtxt, &gd)) return InvalidArgument("bad test pbtxt");
  TFHOST_ASSIGN_OR_RETURN(ir::Graph graph, ir::Graph::FromGraphDef(gd));
  TFHOST_RETURN_IF_ERROR(ir::InferTypes(graph, ops::OpRegistry::Global().Lookup()));
  std::vector<const ops::OpRegistration*> kernels(graph.num_nodes());
  for (int i = 0; i < graph.num_nodes(); ++i) {
    kernels[i] = ops::OpRegistry::Global().Find(graph.node(i).op);
    if (special != nullptr && graph.node(i).name == "while/f") kernels[i] = special;
    if (kernels[i] == nullptr) return InvalidArgument("no kernel for " + graph.node(i).op);
  }
  std::vector<Tensor> constants(graph.num_nodes());
  std::vector<std::string> feed_names;
  for (const auto& f : feeds) feed_names.push_back(f.first);
  TFHOST_ASSIGN_OR_RETURN(ExecutionPlan plan, ExecutionPlan::Build(graph, feed_names, fetches, {}));
  if (!plan.has_frames) return InvalidArgument("test graph has no frames");
  std::unique_ptr<ThreadPool> pool;
  if (inter_op_threads > 0) pool = std::make_unique<ThreadPool>(inter_op_threads);
  ops::ResourceManager resources;
  ExecEnv env;
  env.resources = &resources;
  env.inter_op = pool.get();
  FrameExecutorInput in{graph, kernels, constants, plan, FeedList(feeds), fetches};
  return RunWithFrames(in, env);
}

// Fuzzer finding (the graph it built, with a longer path to n7's second
// input): a Merge fed two live inputs fires on the first and hands its
// inputs to its kernel; the second then wrote into the emptied input list
// (UBSan) before the run was refused. Now it is only refused.
TEST(FrameExecutorTest, ASecondLiveInputToAMergeThatRanIsRefusedWithoutTouchingItsInputs) {
  std::string pbtxt = IntConst("s0", 0) + "node { name: 's1' op: 'Placeholder' " + TypeAttr("dtype", "DT_FLOAT") +
                      " }\n" + Enter("n3", "s0", "loop", true, 1) + Op("i1", "Identity", {"s0"}) + Op("i2", "Identity", {"i1"}) +
                      Op("i3", "Identity", {"i2"}) + Op("n5", "Minimum", {"i3", "i3"}) +
                      Op("n6", "Merge", {"s1", "s1"}, "DT_FLOAT") + Op("n7", "Merge", {"n6:1", "n5"});
  const NamedTensors feeds = {{"s1:0", Tensor::Scalar(1.0f)}};
  for (int threads : {0, 2}) {
    TFHOST_EXPECT_ERROR(RunLoopGraph(pbtxt, {"n3:0", "n7:0"}, threads, nullptr, feeds).status(),
                        StatusCode::kInvalidArgument,
                        "received a second live input in iteration 0 of the top level; only one input of a Merge "
                        "may be live");
  }
}

TEST(FrameExecutorTest, IterationsWithinParallelIterationsRunConcurrently) {
  Rendezvous rendezvous;
  auto reg = rendezvous.Registration(*ops::OpRegistry::Global().Find("Identity"));
  // Four iterations in two pairs: only possible when two iterations overlap.
  auto out = RunLoopGraph(SumLoop(4, 2), {"while/Exit:0", "while/Exit_1:0"}, 4, &reg);
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ((*out)[0].data<int32_t>()[0], 4);
  EXPECT_EQ((*out)[1].data<int32_t>()[0], kBig * (0 + 1 + 2 + 3));
}

TEST(FrameExecutorTest, RendezvousLoopFailsWhenIterationsCannotOverlap) {
  // The same graph fails where iterations run one at a time: with
  // parallel_iterations 1, and without an inter-op pool. This is what the
  // test above would see from a sequential executor.
  for (auto [parallel, threads] : {std::pair{1, 4}, std::pair{2, 0}}) {
    Rendezvous rendezvous;
    rendezvous.timeout = std::chrono::milliseconds(200);
    auto reg = rendezvous.Registration(*ops::OpRegistry::Global().Find("Identity"));
    auto out = RunLoopGraph(SumLoop(4, parallel), {"while/Exit_1:0"}, threads, &reg);
    TFHOST_ASSERT_ERROR(out, StatusCode::kDeadlineExceeded,
                        "iteration 0 never ran beside iteration 1") << "parallel_iterations " << parallel << ", threads " << threads;
    EXPECT_NE(out.status().ToString().find("never ran beside"), std::string::npos) << out.status().ToString();
  }
}

// Nested loops (a fresh inner loop per outer iteration), as in
// control_flow_tf1_test's NestedWhileLoopsRunAFreshInnerLoopPerOuterIteration:
// total = sum over i < n of (0 + 1 + ... + i).
std::string NestedLoops(int n, int parallel_iterations) {
  const std::string outer = "while/while_context";
  const std::string inner = "while/while/while_context";
  const int p = parallel_iterations;
  return IntConst("Const", 0) + IntConst("Const_1", 0) + LoopVar("while", "", "Const", outer, "while/add_1", p) +
         LoopVar("while", "_1", "Const_1", outer, "while/add_2", p) +
         IntConst("while/Less/y", n, "input: '^while/Merge' ") +
         Op("while/Less", "Less", {"while/Merge", "while/Less/y"}) + Op("while/LoopCond", "LoopCond", {"while/Less"}, "") +
         IntConst("while/Const", 0, "input: '^while/Identity' ") +
         IntConst("while/Const_1", 0, "input: '^while/Identity' ") +
         LoopVar("while/while", "", "while/Const", inner, "while/while/add", p) +
         LoopVar("while/while", "_1", "while/Const_1", inner, "while/while/add_1", p) +
         Enter("while/while/LessEqual/Enter", "while/Identity", inner, true, p) +
         Op("while/while/LessEqual", "LessEqual", {"while/while/Merge", "while/while/LessEqual/Enter"}) +
         Op("while/while/LoopCond", "LoopCond", {"while/while/LessEqual"}, "") +
         IntConst("while/while/add/y", 1, "input: '^while/while/Identity' ") +
         Op("while/while/add", "AddV2", {"while/while/Identity", "while/while/add/y"}) +
         Op("while/while/add_1", "AddV2", {"while/while/Identity_1", "while/while/Identity"}) +
         IntConst("while/add_1/y", 1, "input: '^while/Identity' ") +
         Op("while/add_1", "AddV2", {"while/Identity", "while/add_1/y"}) +
         Op("while/add_2", "AddV2", {"while/Identity_1", "while/while/Exit_1"});
}

TEST(FrameExecutorTest, NestedLoopsGiveTheSequentialResultOnThePool) {
  AllKernelsOnThePool all;
  for (int p : {1, 3, 10}) {
    auto seq = RunLoopGraph(NestedLoops(6, p), {"while/Exit:0", "while/Exit_1:0"}, 0);
    auto par = RunLoopGraph(NestedLoops(6, p), {"while/Exit:0", "while/Exit_1:0"}, 4);
    ASSERT_TRUE(seq.ok()) << seq.status().ToString();
    ASSERT_TRUE(par.ok()) << par.status().ToString();
    // 0 + 1 + 3 + 6 + 10 + 15 = 35.
    EXPECT_EQ((*seq)[1].data<int32_t>()[0], 35);
    EXPECT_TRUE(TensorsEqual((*seq)[0], (*par)[0]));
    EXPECT_TRUE(TensorsEqual((*seq)[1], (*par)[1])) << "parallel_iterations " << p;
  }
}

// A loop inside the untaken branch of a cond is dead, and a cond inside the
// body picks its branch per iteration: acc = cond(i % 2 == 0, acc + i, acc * 2)
// inside while i < n, all of it behind cond(pred, loop, x * 10).
std::string DeadAndCondGraph(int parallel_iterations) {
  const std::string frame = "cond/while/while_context";
  const int p = parallel_iterations;
  return "node { name: 'x' op: 'Placeholder' " + TypeAttr("dtype", "DT_INT32") + " }\n" +
         "node { name: 'pred' op: 'Placeholder' " + TypeAttr("dtype", "DT_BOOL") + " }\n" +
         Op("cond/Switch", "Switch", {"pred", "pred"}, "DT_BOOL") +
         Op("cond/switch_t", "Identity", {"cond/Switch:1"}, "DT_BOOL") + Op("cond/pred_id", "Identity", {"pred"}, "DT_BOOL") +
         Op("cond/Switch_1", "Switch", {"x", "cond/pred_id"}) + IntConst("cond/Const", 0, "input: '^cond/switch_t' ") +
         LoopVar("cond/while", "", "cond/Const", frame, "cond/while/add", p) +
         LoopVar("cond/while", "_1", "cond/Switch_1:1", frame, "cond/while/c/Merge", p) +
         IntConst("cond/while/Less/y", 7, "input: '^cond/while/Merge' ") +
         Op("cond/while/Less", "Less", {"cond/while/Merge", "cond/while/Less/y"}) +
         Op("cond/while/LoopCond", "LoopCond", {"cond/while/Less"}, "") +
         IntConst("cond/while/two", 2, "input: '^cond/while/Identity' ") +
         IntConst("cond/while/zero", 0, "input: '^cond/while/Identity' ") +
         Op("cond/while/mod", "FloorMod", {"cond/while/Identity", "cond/while/two"}) +
         Op("cond/while/even", "Equal", {"cond/while/mod", "cond/while/zero"}) +
         Op("cond/while/c/add/Switch", "Switch", {"cond/while/Identity_1", "cond/while/even"}) +
         Op("cond/while/c/i/Switch", "Switch", {"cond/while/Identity", "cond/while/even"}) +
         Op("cond/while/c/add", "AddV2", {"cond/while/c/add/Switch:1", "cond/while/c/i/Switch:1"}) +
         Op("cond/while/c/mul/Switch", "Switch", {"cond/while/Identity_1", "cond/while/even"}) +
         Op("cond/while/c/two/Switch", "Switch", {"cond/while/two", "cond/while/even"}) +
         Op("cond/while/c/mul", "Mul", {"cond/while/c/mul/Switch", "cond/while/c/two/Switch"}) +
         Op("cond/while/c/Merge", "Merge", {"cond/while/c/mul", "cond/while/c/add"}) +
         IntConst("cond/while/add/y", 1, "input: '^cond/while/Identity' ") +
         Op("cond/while/add", "AddV2", {"cond/while/Identity", "cond/while/add/y"}) + IntConst("cond/mul/y", 10) +
         Op("cond/mul", "Mul", {"cond/Switch_1:0", "cond/mul/y"}) +
         Op("cond/Merge", "Merge", {"cond/mul", "cond/while/Exit_1"});
}

TEST(FrameExecutorTest, DeadLoopAndCondInBodyGiveTheSequentialResultOnThePool) {
  AllKernelsOnThePool all;
  for (int p : {1, 4, 32}) {
    for (bool pred : {true, false}) {
      NamedTensors feeds = {{"x:0", Tensor::Scalar<int32_t>(1)}, {"pred:0", Tensor::Scalar<bool>(pred)}};
      auto seq = RunLoopGraph(DeadAndCondGraph(p), {"cond/Merge:0"}, 0, nullptr, feeds);
      auto par = RunLoopGraph(DeadAndCondGraph(p), {"cond/Merge:0"}, 4, nullptr, feeds);
      ASSERT_TRUE(seq.ok()) << seq.status().ToString();
      ASSERT_TRUE(par.ok()) << par.status().ToString();
      // pred: 1 -> +0 = 1 -> *2 = 2 -> +2 = 4 -> *2 = 8 -> +4 = 12 -> *2 = 24
      // -> +6 = 30; not pred: 1 * 10.
      EXPECT_EQ((*seq)[0].data<int32_t>()[0], pred ? 30 : 10);
      EXPECT_TRUE(TensorsEqual((*seq)[0], (*par)[0])) << "parallel_iterations " << p << " pred " << pred;
    }
  }
}

TEST(FrameExecutorTest, SmallKernelsRunInlineEvenWithAPool) {
  // The rendezvous on a scalar is too small for the pool: it runs inline and
  // so cannot meet its partner, which shows small kernels stay on the caller.
  Rendezvous rendezvous;
  rendezvous.timeout = std::chrono::milliseconds(100);
  auto reg = rendezvous.Registration(*ops::OpRegistry::Global().Find("Identity"));
  std::string scalar_f = SumLoop(4, 2);
  const std::string big = "int_val: " + std::to_string(kBig);
  scalar_f.replace(scalar_f.find(big), big.size(), "int_val: 1");
  auto out = RunLoopGraph(scalar_f, {"while/Exit_1:0"}, 4, &reg);
  TFHOST_ASSERT_ERROR(out, StatusCode::kDeadlineExceeded, "iteration 0 never ran beside iteration 1");
  AllKernelsOnThePool all;
  Rendezvous again;
  auto reg2 = again.Registration(*ops::OpRegistry::Global().Find("Identity"));
  out = RunLoopGraph(scalar_f, {"while/Exit_1:0"}, 4, &reg2);
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ(out->at(0).data<int32_t>()[0], 0 + 1 + 2 + 3);
}

TEST(FrameExecutorTest, KernelErrorInOneIterationFailsTheRunAfterOthersFinish) {
  // Iteration 0's partner never comes (parallel_iterations 1), while the pool
  // has other work in flight: the error comes back and nothing hangs.
  Rendezvous rendezvous;
  rendezvous.timeout = std::chrono::milliseconds(100);
  auto reg = rendezvous.Registration(*ops::OpRegistry::Global().Find("Identity"));
  auto out = RunLoopGraph(SumLoop(50, 1), {"while/Exit:0", "while/Exit_1:0"}, 4, &reg);
  TFHOST_ASSERT_ERROR(out, StatusCode::kDeadlineExceeded, "iteration 0 never ran beside iteration 1");
}

// TF1 dynamic_rnn as control_flow_tf1_test's DynamicRnnStyleLoop... writes it
// (input unstacked into a TensorArrayV3, step t read in the loop, h_t written
// to an output TensorArray whose flow is a loop variable, gathered after the
// loop), over `steps` steps with the cell h' = x_t + 0.5 * h.
std::string DynamicRnn(int steps, int parallel_iterations) {
  const std::string frame = "rnn/while/while_context";
  const int p = parallel_iterations;
  auto fconst = [](const std::string& name, float v, const std::string& extra) {
    return "node { name: '" + name + "' op: 'Const' " + extra + TypeAttr("dtype", "DT_FLOAT") +
           " attr { key: 'value' value { tensor { dtype: DT_FLOAT tensor_shape {} float_val: " + std::to_string(v) +
           " } } } }\n";
  };
  const std::string perm = "node { name: 'rnn/perm' op: 'Const' " + TypeAttr("dtype", "DT_INT32") +
                           " attr { key: 'value' value { tensor { dtype: DT_INT32 tensor_shape { dim { size: 3 } }"
                           " int_val: 1 int_val: 0 int_val: 2 } } } }\n";
  const std::string ta_attrs = TypeAttr("dtype", "DT_FLOAT") +
                               " attr { key: 'element_shape' value { shape { dim { size: 1 } dim { size: 1 } } } }"
                               " attr { key: 'dynamic_size' value { b: false } }"
                               " attr { key: 'clear_after_read' value { b: true } }"
                               " attr { key: 'identical_element_shapes' value { b: true } }";
  return "node { name: 'x' op: 'Placeholder' " + TypeAttr("dtype", "DT_FLOAT") + " }\n" +
         "node { name: 'h0' op: 'Placeholder' " + TypeAttr("dtype", "DT_FLOAT") + " }\n" + perm +
         Op("rnn/transpose", "Transpose", {"x", "rnn/perm"}, "DT_FLOAT") + IntConst("rnn/steps", steps) +
         "node { name: 'rnn/TensorArray' op: 'TensorArrayV3' input: 'rnn/steps' " + ta_attrs + " }\n" +
         "node { name: 'rnn/TensorArray_1' op: 'TensorArrayV3' input: 'rnn/steps' " + ta_attrs + " }\n" +
         IntConst("rnn/zero", 0) + IntConst("rnn/one", 1) +
         Op("rnn/range", "Range", {"rnn/zero", "rnn/steps", "rnn/one"}, "DT_INT32", "Tidx") +
         Op("rnn/scatter", "TensorArrayScatterV3", {"rnn/TensorArray_1", "rnn/range", "rnn/transpose", "rnn/TensorArray_1:1"},
            "DT_FLOAT") +
         IntConst("rnn/time", 0) + LoopVar("rnn/while", "", "rnn/time", frame, "rnn/while/add", p) +
         LoopVar("rnn/while", "_1", "rnn/TensorArray:1", frame, "rnn/while/write", p, "DT_FLOAT") +
         LoopVar("rnn/while", "_2", "h0", frame, "rnn/while/cell/add", p, "DT_FLOAT") +
         Enter("rnn/while/Less/Enter", "rnn/steps", frame, true, p) +
         Op("rnn/while/Less", "Less", {"rnn/while/Merge", "rnn/while/Less/Enter"}) +
         Op("rnn/while/LoopCond", "LoopCond", {"rnn/while/Less"}, "") +
         Enter("rnn/while/read/Enter", "rnn/TensorArray_1", frame, true, p, "DT_RESOURCE") +
         Enter("rnn/while/read/Enter_1", "rnn/scatter", frame, true, p, "DT_FLOAT") +
         Op("rnn/while/read", "TensorArrayReadV3", {"rnn/while/read/Enter", "rnn/while/Identity", "rnn/while/read/Enter_1"},
            "DT_FLOAT", "dtype") +
         fconst("rnn/while/cell/half", 0.5f, "input: '^rnn/while/Identity' ") +
         Op("rnn/while/cell/mul", "Mul", {"rnn/while/Identity_2", "rnn/while/cell/half"}, "DT_FLOAT") +
         Op("rnn/while/cell/add", "AddV2", {"rnn/while/read", "rnn/while/cell/mul"}, "DT_FLOAT") +
         Enter("rnn/while/write/Enter", "rnn/TensorArray", frame, true, p, "DT_RESOURCE") +
         Op("rnn/while/write", "TensorArrayWriteV3",
            {"rnn/while/write/Enter", "rnn/while/Identity", "rnn/while/cell/add", "rnn/while/Identity_1"}, "DT_FLOAT") +
         IntConst("rnn/while/add/y", 1, "input: '^rnn/while/Identity' ") +
         Op("rnn/while/add", "AddV2", {"rnn/while/Identity", "rnn/while/add/y"}) +
         Op("rnn/size", "TensorArraySizeV3", {"rnn/TensorArray", "rnn/while/Exit_1"}, "") +
         Op("rnn/range_1", "Range", {"rnn/zero", "rnn/size", "rnn/one"}, "DT_INT32", "Tidx") +
         "node { name: 'rnn/gather' op: 'TensorArrayGatherV3' input: 'rnn/TensorArray' input: 'rnn/range_1' "
         "input: 'rnn/while/Exit_1' " +
         TypeAttr("dtype", "DT_FLOAT") +
         " attr { key: 'element_shape' value { shape { dim { size: 1 } dim { size: 1 } } } } }\n" +
         Op("rnn/transpose_1", "Transpose", {"rnn/gather", "rnn/perm"}, "DT_FLOAT");
}

StatusOr<std::vector<Tensor>> RunInSession(const std::string& pbtxt, int inter_op_threads, const NamedTensors& feeds,
                                           const std::vector<std::string>& fetches) {
  tensorflow::GraphDef gd;
  if (!google::protobuf::TextFormat::ParseFromString(pbtxt, &gd)) return InvalidArgument("bad test pbtxt");
  TFHOST_ASSIGN_OR_RETURN(ir::Graph graph, ir::Graph::FromGraphDef(gd));
  TFHOST_RETURN_IF_ERROR(ir::InferTypes(graph, ops::OpRegistry::Global().Lookup()));
  SessionOptions options;
  options.intra_op_threads = 1;
  options.inter_op_threads = inter_op_threads;
  TFHOST_ASSIGN_OR_RETURN(std::unique_ptr<Session> session, Session::Create(std::move(graph), options));
  return session->Run(feeds, fetches, {});
}

TEST(FrameExecutorTest, DynamicRnnWithTensorArraysIsBitIdenticalOnTheInterOpPool) {
  const int steps = 40;
  std::vector<float> xs(steps);
  for (int t = 0; t < steps; ++t) xs[t] = 0.37f * static_cast<float>(t % 7) - 1.1f;
  NamedTensors feeds = {{"x:0", Tensor::FromVector<float>(xs, Shape({1, steps, 1}))},
                        {"h0:0", Tensor::FromVector<float>({0.25f}, Shape({1, 1}))}};
  // The recurrence in float, step by step, as the kernels compute it.
  std::vector<float> want(steps);
  float h = 0.25f;
  for (int t = 0; t < steps; ++t) want[t] = h = xs[t] + h * 0.5f;
  AllKernelsOnThePool all;
  for (int p : {1, 32}) {
    auto seq = RunInSession(DynamicRnn(steps, p), 1, feeds, {"rnn/transpose_1:0", "rnn/while/Exit_2:0"});
    auto par = RunInSession(DynamicRnn(steps, p), 4, feeds, {"rnn/transpose_1:0", "rnn/while/Exit_2:0"});
    ASSERT_TRUE(seq.ok()) << seq.status().ToString();
    ASSERT_TRUE(par.ok()) << par.status().ToString();
    EXPECT_TRUE(TensorsEqual((*seq)[0], Tensor::FromVector<float>(want, Shape({1, steps, 1}))));
    EXPECT_TRUE(TensorsEqual((*seq)[0], (*par)[0])) << "parallel_iterations " << p;
    EXPECT_TRUE(TensorsEqual((*seq)[1], (*par)[1])) << "parallel_iterations " << p;
  }
}

}  // namespace
}  // namespace tfhost::runtime
