// What GraphToSession checks at load: only the nodes its roots (and
// LoadOptions::keep) reach, as TensorFlow builds only what a fetch needs. A
// training step left in an export (shape conflicts, ops tfhost lacks, attrs
// it cannot infer, corrupt values) must not fail the load; the same fault
// on a node a root reaches still fails it, naming the node and the model.
// Before any of that, a graph of more than --max_graph_nodes is refused.
#include "loaders/graph_to_session.h"

#include <google/protobuf/text_format.h>
#include <gtest/gtest.h>

#include "backends/kernel_table.h"
#include "backends/reference_backend.h"
#include "backends/testing/fake_device_backend.h"
#include "base/test_status.h"
#include "ir/precision_attrs.h"
#include "ops/run_single_op.h"

namespace tfhost::loaders {
namespace {

// y = x [2,3] . w [3,1] serves; grad = x . g is [2,3] x [4,5], which can never
// run, and feeds a training step through an op tfhost has no kernel for;
// cast lacks its DstT, and broken's value holds 3 bytes for 2 floats.
constexpr char kServingAndTraining[] = R"pb(
  node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } }
         attr { key: "shape" value { shape { dim { size: 2 } dim { size: 3 } } } } }
  node { name: "w" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } }
         attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { dim { size: 3 } dim { size: 1 } }
                                              float_val: 1 float_val: 2 float_val: 3 } } } }
  node { name: "y" op: "MatMul" input: "x" input: "w" attr { key: "T" value { type: DT_FLOAT } } }
  node { name: "side" op: "Neg" input: "y" attr { key: "T" value { type: DT_FLOAT } } }
  node { name: "g" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } }
         attr { key: "shape" value { shape { dim { size: 4 } dim { size: 5 } } } } }
  node { name: "grad" op: "MatMul" input: "x" input: "g" attr { key: "T" value { type: DT_FLOAT } } }
  node { name: "cast" op: "Cast" input: "grad" }
  node { name: "broken" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } }
         attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { dim { size: 2 } }
                                              tensor_content: "abc" } } } }
  node { name: "apply" op: "ApplyAdam" input: "grad" input: "cast" input: "broken" }
  node { name: "train" op: "NoOp" input: "^apply" }
)pb";

constexpr char kModel[] = "pruning_test";

StatusOr<std::unique_ptr<runtime::Session>> Load(const std::string& pbtxt, const std::vector<std::string>& roots,
                                                 LoadOptions options = LoadOptions()) {
  tensorflow::GraphDef gd;
  if (!google::protobuf::TextFormat::ParseFromString(pbtxt, &gd)) return InvalidArgument("bad test pbtxt");
  TFHOST_ASSIGN_OR_RETURN(ir::Graph graph, ir::Graph::FromGraphDef(gd));
  options.session.intra_op_threads = 1;
  return GraphToSession(std::move(graph), nullptr, options, kModel, roots);
}

Tensor X() { return Tensor::FromVector<float>({1, 2, 3, 4, 5, 6}, Shape({2, 3})); }

std::vector<float> Floats(const Tensor& t) {
  return std::vector<float>(t.data<float>(), t.data<float>() + t.NumElements());
}

void ExpectFailsNamingGrad(const Status& status) {
  TFHOST_ASSERT_ERROR(status, StatusCode::kInvalidArgument,
                      "model 'pruning_test': shape inference: node 'grad' (MatMul): inner dimensions differ: 3 vs 4 "
                      "(shapes [2,3] and [4,5])");
  EXPECT_NE(status.message().find("node 'grad' (MatMul)"), std::string::npos) << status.message();
  EXPECT_NE(status.message().find("inner dimensions differ: 3 vs 4"), std::string::npos) << status.message();
  EXPECT_NE(status.message().find(std::string("model '") + kModel + "'"), std::string::npos) << status.message();
}

TEST(GraphToSessionPruningTest, FaultsOnNodesNoRootReachesDoNotFailTheLoadAndTheRootRuns) {
  auto session = Load(kServingAndTraining, {"y:0"});
  ASSERT_TRUE(session.ok()) << session.status().ToString();
  for (const char* gone : {"grad", "cast", "broken", "apply", "train"}) {
    EXPECT_LT((*session)->graph().FindNode(gone), 0) << gone;
  }
  auto out = (*session)->Run({{"x:0", X()}}, {"y:0"});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ(Floats((*out)[0]), (std::vector<float>{14, 32}));
}

TEST(GraphToSessionLimitTest, GraphOfMaxGraphNodesLoadsAndOneNodeMoreIsRefusedBeforePruning) {
  // kServingAndTraining has 10 nodes; the check counts them all, as read.
  LoadOptions at;
  at.max_graph_nodes = 10;
  EXPECT_TRUE(Load(kServingAndTraining, {"y:0"}, at).ok());
  LoadOptions under;
  under.max_graph_nodes = 9;
  TFHOST_EXPECT_ERROR(Load(kServingAndTraining, {"y:0"}, under), StatusCode::kResourceExhausted,
                      "model 'pruning_test': the graph has 10 nodes, more than the 9 a model may have "
                      "(--max_graph_nodes)");
}

TEST(GraphToSessionPruningTest, ShapeConflictOnAReachableNodeFailsNamingTheNodeAndModel) {
  ExpectFailsNamingGrad(Load(kServingAndTraining, {"y:0", "grad:0"}).status());
}

TEST(GraphToSessionPruningTest, EmptyRootsCheckEveryNode) {
  // Types are checked before shapes: the Cast is the first fault found.
  Status status = Load(kServingAndTraining, {}).status();
  TFHOST_ASSERT_ERROR(status, StatusCode::kInvalidArgument,
                      "model 'pruning_test': node 'cast' (Cast): missing required attr 'DstT'; only output 'y' of Cast "
                      "uses it, so no input can determine it and");
  EXPECT_NE(status.message().find("node 'cast' (Cast): missing required attr 'DstT'"), std::string::npos)
      << status.message();
  EXPECT_NE(status.message().find(std::string("model '") + kModel + "'"), std::string::npos) << status.message();
}

TEST(GraphToSessionPruningTest, KeptNamesSurvivePruningForDirectFetches) {
  LoadOptions options;
  options.keep = {"side:0"};
  auto kept = Load(kServingAndTraining, {"y:0"}, options);
  ASSERT_TRUE(kept.ok()) << kept.status().ToString();
  auto out = (*kept)->Run({{"x:0", X()}}, {"side:0"});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ(Floats((*out)[0]), (std::vector<float>{-14, -32}));

  auto pruned = Load(kServingAndTraining, {"y:0"});
  ASSERT_TRUE(pruned.ok()) << pruned.status().ToString();
  auto missing = (*pruned)->Run({{"x:0", X()}}, {"side:0"});
  TFHOST_ASSERT_ERROR(missing, StatusCode::kNotFound,
                      "model 'pruning_test': fetch 'side:0': no node named 'side' for tensor 'side:0'");
}

TEST(GraphToSessionPruningTest, NodeReachedOnlyThroughAControlEdgeIsKeptAndRuns) {
  // init runs the assignment only through "^assign"; read sees its value.
  constexpr char kInitGroup[] = R"pb(
    node { name: "v" op: "VarHandleOp" attr { key: "dtype" value { type: DT_FLOAT } }
           attr { key: "shape" value { shape {} } } attr { key: "shared_name" value { s: "v" } } }
    node { name: "c" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } }
           attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape {} float_val: 7 } } } }
    node { name: "assign" op: "AssignVariableOp" input: "v" input: "c" }
    node { name: "init" op: "NoOp" input: "^assign" }
    node { name: "read" op: "ReadVariableOp" input: "v" attr { key: "dtype" value { type: DT_FLOAT } } }
  )pb";
  auto session = Load(kInitGroup, {"read:0", "init"});
  ASSERT_TRUE(session.ok()) << session.status().ToString();
  ASSERT_TRUE((*session)->Run({}, {}, {"init"}).ok());
  auto out = (*session)->Run({}, {"read:0"});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ((*out)[0].data<float>()[0], 7.0f);
}

// TF1 tf.while_loop(lambda i, a: i < 3, lambda i, a: (i + 1, a * 2), [0, x])
// as TF writes it; only the accumulator's Exit is a root, so the counter's
// Exit goes, while the counter itself stays: the loop condition reads it.
std::string CounterLoop() {
  auto type = [](const std::string& key, const std::string& dt) {
    return "attr { key: '" + key + "' value { type: " + dt + " } } ";
  };
  auto op = [&](const std::string& name, const std::string& kind, const std::vector<std::string>& inputs,
                const std::string& dt, const std::string& extra = "") {
    std::string s = "node { name: '" + name + "' op: '" + kind + "' ";
    for (const auto& in : inputs) s += "input: '" + in + "' ";
    return s + (dt.empty() ? "" : type("T", dt)) + extra + "}\n";
  };
  auto konst = [&](const std::string& name, const std::string& dt, const std::string& value,
                   const std::string& control = "") {
    return "node { name: '" + name + "' op: 'Const' " + control + type("dtype", dt) +
           "attr { key: 'value' value { tensor { dtype: " + dt + " tensor_shape {} " + value + " } } } }\n";
  };
  const std::string frame = "attr { key: 'frame_name' value { s: 'while/while_context' } } ";
  auto loop_var = [&](const std::string& suffix, const std::string& init, const std::string& dt,
                      const std::string& next) {
    return op("while/Enter" + suffix, "Enter", {init}, dt, frame) +
           op("while/Merge" + suffix, "Merge", {"while/Enter" + suffix, "while/NextIteration" + suffix}, dt,
              "attr { key: 'N' value { i: 2 } } ") +
           op("while/Switch" + suffix, "Switch", {"while/Merge" + suffix, "while/LoopCond"}, dt) +
           op("while/Identity" + suffix, "Identity", {"while/Switch" + suffix + ":1"}, dt) +
           op("while/NextIteration" + suffix, "NextIteration", {next}, dt) +
           op("while/Exit" + suffix, "Exit", {"while/Switch" + suffix}, dt);
  };
  return "node { name: 'x' op: 'Placeholder' " + type("dtype", "DT_FLOAT") + "}\n" +
         konst("n", "DT_INT32", "int_val: 3") + konst("zero", "DT_INT32", "int_val: 0") +
         loop_var("", "zero", "DT_INT32", "while/add") + loop_var("_1", "x", "DT_FLOAT", "while/mul") +
         op("while/Less/Enter", "Enter", {"n"}, "DT_INT32", frame + "attr { key: 'is_constant' value { b: true } } ") +
         op("while/Less", "Less", {"while/Merge", "while/Less/Enter"}, "DT_INT32") +
         op("while/LoopCond", "LoopCond", {"while/Less"}, "") +
         konst("while/add/y", "DT_INT32", "int_val: 1", "input: '^while/Identity' ") +
         op("while/add", "AddV2", {"while/Identity", "while/add/y"}, "DT_INT32") +
         konst("while/mul/y", "DT_FLOAT", "float_val: 2", "input: '^while/Identity' ") +
         op("while/mul", "Mul", {"while/Identity_1", "while/mul/y"}, "DT_FLOAT");
}

TEST(GraphToSessionPruningTest, WhileLoopKeepsEveryNodeItsFetchedExitNeeds) {
  auto session = Load(CounterLoop(), {"while/Exit_1:0"});
  ASSERT_TRUE(session.ok()) << session.status().ToString();
  const ir::Graph& graph = (*session)->graph();
  EXPECT_LT(graph.FindNode("while/Exit"), 0);
  EXPECT_GE(graph.FindNode("while/NextIteration"), 0);
  auto out = (*session)->Run({{"x:0", Tensor::FromVector<float>({1, 1.5f})}}, {"while/Exit_1:0"});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ(Floats((*out)[0]), (std::vector<float>{8, 12}));
}

// Two wide 1x1 convolutions in a row: --precision bf16 on a CPU with native
// bf16 stores the first one's output in bf16 for the second (bf16 activation
// chaining). Not when a device backend is there: a GPU refuses nodes on bf16
// edges, so the chain would stay on the host.
constexpr char kConvChain[] = R"pb(
  node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } }
         attr { key: "shape" value { shape { dim { size: 1 } dim { size: 4 } dim { size: 4 } dim { size: 128 } } } } }
  node { name: "w" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } }
         attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { dim { size: 1 } dim { size: 1 }
                                              dim { size: 128 } dim { size: 128 } } float_val: 0.01 } } } }
  node { name: "a" op: "Conv2D" input: "x" input: "w" attr { key: "T" value { type: DT_FLOAT } }
         attr { key: "strides" value { list { i: 1 i: 1 i: 1 i: 1 } } } attr { key: "padding" value { s: "VALID" } } }
  node { name: "b" op: "Conv2D" input: "a" input: "w" attr { key: "T" value { type: DT_FLOAT } }
         attr { key: "strides" value { list { i: 1 i: 1 i: 1 i: 1 } } } attr { key: "padding" value { s: "VALID" } } }
)pb";

int Bf16Edges(const runtime::Session& session) {
  int n = 0;
  for (const auto& node : session.graph().nodes()) n += node.FindAttr(ir::kOutputDtypeAttr) != nullptr;
  return n;
}

TEST(GraphToSessionTest, Bf16ActivationsAreChainedOnANativeBf16HostButNotBesideADevice) {
  auto make = [](bool with_device) {
    auto registry = std::make_unique<backends::BackendRegistry>();
    backends::BackendCapabilities bf16;
    bf16.native_bf16 = true;
    EXPECT_TRUE(registry->Add(std::make_unique<backends::HostKernelBackend>("bf16_host", 5, bf16,
                                                                           backends::KernelTable())).ok());
    EXPECT_TRUE(registry->Add(std::make_unique<backends::ReferenceBackend>()).ok());
    if (with_device) EXPECT_TRUE(registry->Add(std::make_unique<backends::testing::FakeDeviceBackend>()).ok());
    return registry;
  };
  for (bool with_device : {false, true}) {
    SCOPED_TRACE(with_device ? "with a device backend" : "host only");
    auto registry = make(with_device);
    LoadOptions options;
    options.precision = "bf16";
    options.session.backends = registry.get();
    auto session = Load(kConvChain, {"b"}, options);
    ASSERT_TRUE(session.ok()) << session.status().ToString();
    EXPECT_EQ(Bf16Edges(**session), with_device ? 0 : 1);
  }
}

// A float32 node of `op`, as a fusion pass asks about it.
ir::Node FloatNode(const std::string& op) {
  ir::Node node;
  node.name = "fused";
  node.op = op;
  node.attrs["T"] = ops::MakeAttr(DType::kFloat);
  return node;
}

TEST(FastKernelCheckTest, BesideADeviceOnlyNodesTheDeviceTakesCountAsFast) {
  for (bool with_device : {false, true}) {
    SCOPED_TRACE(with_device ? "with a device backend" : "host only");
    backends::KernelTable table;
    for (const char* op : {"Neg", "AddV2"}) {
      table.Add(op, [](const ir::Node&, const ops::KernelFn& fallback) { return fallback; });
    }
    backends::BackendRegistry registry;
    ASSERT_TRUE(registry.Add(std::make_unique<backends::HostKernelBackend>("fast_host", 5,
                                                                         backends::BackendCapabilities(),
                                                                         std::move(table))).ok());
    ASSERT_TRUE(registry.Add(std::make_unique<backends::ReferenceBackend>()).ok());
    if (with_device) ASSERT_TRUE(registry.Add(std::make_unique<backends::testing::FakeDeviceBackend>()).ok());
    auto fast = FastKernelCheck(registry, backends::KernelChoice::kFast);
    // AddV2: the fast host kernel, or the device's.
    EXPECT_TRUE(fast(FloatNode("AddV2")));
    // Neg: only the host has a fast kernel; beside a device, a fused host
    // node would take its neighbours' products off the device.
    EXPECT_EQ(fast(FloatNode("Neg")), !with_device);
    // Sub: only the reference kernels take it.
    EXPECT_FALSE(fast(FloatNode("Sub")));
    EXPECT_FALSE(FastKernelCheck(registry, backends::KernelChoice::kReference)(FloatNode("AddV2")));
  }
}

}  // namespace
}  // namespace tfhost::loaders
