#include "backends/placement.h"

#include <gtest/gtest.h>

#include "backends/reference_backend.h"
#include "backends/testing/fake_device_backend.h"
#include "base/test_status.h"
#include "ir/op_def_util.h"
#include "ops/op_registry.h"
#include "ops/run_single_op.h"

namespace tfhost::backends {
namespace {

ir::Node MakeNode(const std::string& name, const std::string& op, std::vector<ir::TensorRef> inputs) {
  ir::Node n;
  n.name = name;
  n.op = op;
  n.inputs = std::move(inputs);
  n.attrs["T"] = ops::MakeAttr(DType::kFloat);
  n.attrs["dtype"] = ops::MakeAttr(DType::kFloat);
  return n;
}

// x -> r1 = Relu(x) -> n = Neg(r1) -> r2 = Relu(n); a = AddV2(r1, r2); m = Mul(a, c).
// Relu, AddV2 and Mul can go to the fake device; Neg cannot.
ir::Graph MixedGraph() {
  ir::Graph g;
  const int x = *g.AddNode(MakeNode("x", "Placeholder", {}));
  ir::Node c = MakeNode("c", "Const", {});
  c.attrs["value"] = ops::MakeAttr(Tensor::FromVector<float>({2, 2, 2}, Shape({3})));
  const int ci = *g.AddNode(std::move(c));
  const int r1 = *g.AddNode(MakeNode("r1", "Relu", {{x, 0}}));
  const int n = *g.AddNode(MakeNode("n", "Neg", {{r1, 0}}));
  const int r2 = *g.AddNode(MakeNode("r2", "Relu", {{n, 0}}));
  const int a = *g.AddNode(MakeNode("a", "AddV2", {{r1, 0}, {r2, 0}}));
  (void)*g.AddNode(MakeNode("m", "Mul", {{a, 0}, {ci, 0}}));
  EXPECT_TRUE(ir::InferTypes(g, ops::OpRegistry::Global().Lookup()).ok());
  return g;
}

BackendRegistry WithFakeDevice() {
  BackendRegistry r;
  EXPECT_TRUE(r.Add(std::make_unique<ReferenceBackend>()).ok());
  EXPECT_TRUE(r.Add(std::make_unique<testing::FakeDeviceBackend>()).ok());
  return r;
}

const ir::Node& Input(const ir::Graph& g, const std::string& node, int k) {
  return g.node(g.node(g.FindNode(node)).inputs[k].node);
}

TEST(PlacementTest, CopiesGoWhereMemorySpacesMeetAndOnlyThere) {
  BackendRegistry registry = WithFakeDevice();
  ir::Graph g = MixedGraph();
  auto summary = PlaceGraph(&g, registry, KernelChoice::kFast);
  ASSERT_TRUE(summary.ok()) << summary.status().ToString();
  EXPECT_EQ(summary->nodes.at("fake_device"), 4);
  EXPECT_EQ(summary->nodes.at("reference"), 3);  // x, c, Neg
  // x -> r1, r1 -> Neg, Neg -> r2, c -> Mul.
  EXPECT_EQ(summary->copies, 4);
  EXPECT_EQ(summary->ToString(), "fake_device 4, reference 3; 4 copies");
  EXPECT_EQ(g.node(g.FindNode("n")).backend, "reference");
  EXPECT_EQ(g.node(g.FindNode("r1")).backend, "fake_device");
  const ir::Node& into_r1 = Input(g, "r1", 0);
  EXPECT_EQ(into_r1.op, kCopyOp);
  EXPECT_EQ(*ir::GetAttr<std::string>(into_r1, "from"), "host");
  EXPECT_EQ(*ir::GetAttr<std::string>(into_r1, "to"), "device:0");
  EXPECT_EQ(into_r1.backend, "fake_device");
  EXPECT_EQ(into_r1.output_dtypes, std::vector<DType>{DType::kFloat});
  EXPECT_EQ(*ir::GetAttr<std::string>(Input(g, "n", 0), "to"), "host");
  // r1 feeds AddV2 on the same device directly; the Const's copy is marked
  // for a one-time upload.
  EXPECT_EQ(Input(g, "a", 0).name, "r1");
  EXPECT_TRUE(*ir::GetAttr<bool>(Input(g, "m", 1), "constant_source"));
  EXPECT_FALSE(*ir::GetAttr<bool>(into_r1, "constant_source"));
}

TEST(PlacementTest, OneCopyServesEveryConsumerInTheTargetSpace) {
  BackendRegistry registry = WithFakeDevice();
  ir::Graph g;
  const int x = *g.AddNode(MakeNode("x", "Placeholder", {}));
  (void)*g.AddNode(MakeNode("r1", "Relu", {{x, 0}}));
  (void)*g.AddNode(MakeNode("r2", "Relu", {{x, 0}}));
  ASSERT_TRUE(ir::InferTypes(g, ops::OpRegistry::Global().Lookup()).ok());
  auto summary = PlaceGraph(&g, registry, KernelChoice::kFast);
  ASSERT_TRUE(summary.ok());
  EXPECT_EQ(summary->copies, 1);
  EXPECT_EQ(Input(g, "r1", 0).name, Input(g, "r2", 0).name);
}

TEST(PlacementTest, ReferenceChoiceKeepsEveryNodeOnTheHostWithoutCopies) {
  BackendRegistry registry = WithFakeDevice();
  ir::Graph g = MixedGraph();
  const int before = g.num_nodes();
  auto summary = PlaceGraph(&g, registry, KernelChoice::kReference);
  ASSERT_TRUE(summary.ok());
  EXPECT_EQ(summary->copies, 0);
  EXPECT_EQ(g.num_nodes(), before);
  EXPECT_EQ(summary->nodes.at("reference"), before);
}

TEST(PlacementTest, UnreachableNodesAreNotPlaced) {
  BackendRegistry registry = WithFakeDevice();
  ir::Graph g = MixedGraph();
  std::vector<bool> reachable(g.num_nodes(), false);
  reachable[g.FindNode("x")] = reachable[g.FindNode("r1")] = true;
  auto summary = PlaceGraph(&g, registry, KernelChoice::kFast, reachable);
  ASSERT_TRUE(summary.ok());
  EXPECT_EQ(summary->copies, 1);
  EXPECT_EQ(g.node(g.FindNode("n")).backend, "");
}

TEST(PlacementTest, RegistryWithoutReferenceBackendIsRefusedByName) {
  BackendRegistry registry;
  ASSERT_TRUE(registry.Add(std::make_unique<testing::FakeDeviceBackend>()).ok());
  ir::Graph g = MixedGraph();
  auto summary = PlaceGraph(&g, registry, KernelChoice::kFast);
  TFHOST_ASSERT_ERROR(summary, StatusCode::kFailedPrecondition,
                      "placement: the backend registry has no reference backend");
  EXPECT_NE(summary.status().message().find("no reference backend"), std::string::npos);
}

TEST(PlacementTest, CopyKernelNeedsADeviceSideAndNamesTheNode) {
  BackendRegistry host_only;
  ASSERT_TRUE(host_only.Add(std::make_unique<ReferenceBackend>()).ok());
  ir::Node copy = MakeNode("cp", kCopyOp, {});
  copy.attrs["from"] = ops::MakeAttr("host");
  copy.attrs["to"] = ops::MakeAttr("device:3");
  auto k = MakeCopyKernel(host_only, copy);
  TFHOST_ASSERT_ERROR(k, StatusCode::kFailedPrecondition,
                      "node 'cp' (_TfhostCopy): no device backend copies between host and device:3");
  EXPECT_NE(k.status().message().find("node 'cp' (_TfhostCopy): no device backend copies between host and device:3"),
            std::string::npos);
  copy.attrs["to"] = ops::MakeAttr("gpu");
  k = MakeCopyKernel(host_only, copy);
  TFHOST_ASSERT_ERROR(k, StatusCode::kInvalidArgument,
                      "node 'cp' (_TfhostCopy), attr 'to': memory space 'gpu' is not one of: host, pinned_host, "
                      "device:N (N = 0..9999)");
  EXPECT_NE(k.status().message().find("memory space 'gpu' is not one of"), std::string::npos);
}

}  // namespace
}  // namespace tfhost::backends
