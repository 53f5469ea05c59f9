// A session over a graph split between the host and a fake device backend
// (backends/testing/fake_device_backend.h): placement, copies, the memory
// spaces kernels see, allocator bookkeeping and fallbacks, end to end.
#include <gtest/gtest.h>

#include "backends/reference_backend.h"
#include "backends/testing/fake_device_backend.h"
#include "base/test_status.h"
#include "ir/op_def_util.h"
#include "ir/tensor_proto.h"
#include "ops/op_registry.h"
#include "runtime/session.h"
#include "runtime/test_graph_def_util.h"

namespace tfhost::runtime {
namespace {

using backends::testing::FakeDeviceBackend;
using testing::AddNode;
using testing::SetConst;

tensorflow::NodeDef* Float(tensorflow::NodeDef* n) {
  (*n->mutable_attr())["T"].set_type(tensorflow::DT_FLOAT);
  return n;
}

// r1 = Relu(x); n = Neg(r1) (host only); r2 = Relu(n); a = AddV2(r1, r2);
// m = Mul(a, c). Fetching m and n.
tensorflow::GraphDef MixedGraph(const Tensor& c) {
  tensorflow::GraphDef gd;
  (*AddNode(gd, "x", "Placeholder")->mutable_attr())["dtype"].set_type(tensorflow::DT_FLOAT);
  SetConst(AddNode(gd, "c", "Const"), c);
  Float(AddNode(gd, "r1", "Relu", {"x"}));
  Float(AddNode(gd, "n", "Neg", {"r1"}));
  Float(AddNode(gd, "r2", "Relu", {"n"}));
  Float(AddNode(gd, "a", "AddV2", {"r1", "r2"}));
  Float(AddNode(gd, "m", "Mul", {"a", "c"}));
  return gd;
}

struct Fixture {
  backends::BackendRegistry registry;
  FakeDeviceBackend* device = nullptr;
  std::unique_ptr<Session> session;
};

std::unique_ptr<Fixture> Make(const Tensor& c, backends::KernelChoice kernels = backends::KernelChoice::kFast,
                              int64_t device_memory = 0) {
  auto f = std::make_unique<Fixture>();
  EXPECT_TRUE(f->registry.Add(std::make_unique<backends::ReferenceBackend>()).ok());
  auto device = std::make_unique<FakeDeviceBackend>(device_memory);
  f->device = device.get();
  EXPECT_TRUE(f->registry.Add(std::move(device)).ok());
  auto graph = ir::Graph::FromGraphDef(MixedGraph(c));
  EXPECT_TRUE(graph.ok());
  EXPECT_TRUE(ir::InferTypes(*graph, ops::OpRegistry::Global().Lookup()).ok());
  SessionOptions options;
  options.model_name = "split";
  options.intra_op_threads = 1;
  options.inter_op_threads = 1;
  options.kernels = kernels;
  options.backends = &f->registry;
  auto session = Session::Create(std::move(*graph), options);
  EXPECT_TRUE(session.ok()) << session.status().ToString();
  if (session.ok()) f->session = std::move(*session);
  return f;
}

Tensor X() { return Tensor::FromVector<float>({-1, 2, -3, 4, -5, 6}, Shape({2, 3})); }
Tensor C() { return Tensor::FromVector<float>({1, 10, 100, 1000, 10000, 100000}, Shape({2, 3})); }

TEST(DevicePlacementTest, SplitGraphGivesTheHostOnlyResultsAndFetchesComeBackToTheHost) {
  auto fake = Make(C());
  auto host = Make(C(), backends::KernelChoice::kReference);
  ASSERT_TRUE(fake->session && host->session);
  EXPECT_EQ(fake->session->runner().placement().ToString(), "fake_device 4, reference 3; 4 copies");
  for (int run = 0; run < 2; ++run) {
    auto got = fake->session->Run({{"x", X()}}, {"m", "n"}, {});
    auto want = host->session->Run({{"x", X()}}, {"m", "n"}, {});
    ASSERT_TRUE(got.ok()) << got.status().ToString();
    ASSERT_TRUE(want.ok());
    for (int i = 0; i < 2; ++i) {
      EXPECT_EQ((*got)[i].memory_space(), MemorySpace::Host());
      EXPECT_TRUE(TensorsEqual((*got)[i], (*want)[i])) << (*got)[i].DebugString() << " vs " << (*want)[i].DebugString();
    }
  }
  // Relu, Relu, AddV2, Mul on the device each run; the host reference
  // session never touches it.
  EXPECT_EQ(fake->device->kernel_calls.load(), 8);
  EXPECT_EQ(host->device->kernel_calls.load(), 0);
  // In: x and Neg's output each run, the Const once. Out: r1 for Neg and the
  // fetch of m, each run.
  EXPECT_EQ(fake->device->copies_in.load(), 5);
  EXPECT_EQ(fake->device->copies_out.load(), 4);
}

// r1 = Relu(x); v = Reshape(r1, [3, 2]); e = ExpandDims(v, 0); r2 = Relu(e);
// and h = Reshape(x, [3, 2]) beside the feed. The views follow their input:
// v and e stay on the device with r1 and r2 (no copy between them), h stays
// on the host with x, and the shape and dim Consts are read in host memory.
TEST(DevicePlacementTest, ViewOpsStayBesideTheirInputAndReadTheirShapeOnTheHost) {
  tensorflow::GraphDef gd;
  (*AddNode(gd, "x", "Placeholder")->mutable_attr())["dtype"].set_type(tensorflow::DT_FLOAT);
  SetConst(AddNode(gd, "shape", "Const"), Tensor::FromVector<int32_t>({3, 2}));
  SetConst(AddNode(gd, "dim", "Const"), Tensor::Scalar<int32_t>(0));
  Float(AddNode(gd, "r1", "Relu", {"x"}));
  Float(AddNode(gd, "v", "Reshape", {"r1", "shape"}));
  Float(AddNode(gd, "e", "ExpandDims", {"v", "dim"}));
  Float(AddNode(gd, "r2", "Relu", {"e"}));
  Float(AddNode(gd, "h", "Reshape", {"x", "shape"}));
  backends::BackendRegistry registry;
  ASSERT_TRUE(registry.Add(std::make_unique<backends::ReferenceBackend>()).ok());
  auto device = std::make_unique<FakeDeviceBackend>();
  FakeDeviceBackend* fake = device.get();
  ASSERT_TRUE(registry.Add(std::move(device)).ok());
  auto graph = ir::Graph::FromGraphDef(gd);
  ASSERT_TRUE(graph.ok());
  ASSERT_TRUE(ir::InferTypes(*graph, ops::OpRegistry::Global().Lookup()).ok());
  SessionOptions options;
  options.model_name = "views";
  options.intra_op_threads = 1;
  options.inter_op_threads = 1;
  options.backends = &registry;
  auto session = Session::Create(std::move(*graph), options);
  ASSERT_TRUE(session.ok()) << session.status().ToString();
  // x in for r1 is the only copy node; r2 comes back with the fetch.
  EXPECT_EQ((*session)->runner().placement().ToString(), "fake_device 4, reference 4; 1 copy");
  auto got = (*session)->Run({{"x", X()}}, {"r2", "h"}, {});
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  EXPECT_TRUE(TensorsEqual((*got)[0], Tensor::FromVector<float>({0, 2, 0, 4, 0, 6}, Shape({1, 3, 2}))))
      << (*got)[0].DebugString();
  EXPECT_TRUE(TensorsEqual((*got)[1], Tensor::FromVector<float>({-1, 2, -3, 4, -5, 6}, Shape({3, 2}))))
      << (*got)[1].DebugString();
  EXPECT_EQ(fake->copies_in.load(), 1);
  EXPECT_EQ(fake->copies_out.load(), 1);
}

TEST(DevicePlacementTest, DeviceMemoryIsReturnedExceptTheUploadedConstant) {
  auto f = Make(C());
  ASSERT_TRUE(f->session);
  ASSERT_TRUE(f->session->Run({{"x", X()}}, {"m"}, {}).ok());
  const AllocatorStats stats = f->device->allocator()->stats();
  EXPECT_EQ(stats.bytes_in_use, static_cast<int64_t>(C().ByteSize()));
  EXPECT_GT(stats.peak_bytes_in_use, stats.bytes_in_use);
  f->session.reset();
  EXPECT_EQ(f->device->allocator()->stats().bytes_in_use, 0);
}

TEST(DevicePlacementTest, CallADeviceKernelDeclinesFailsInsteadOfFallingBackToTheHost) {
  // Mul of [2,3] by a broadcast [3]: the fake device kernel declines it, and
  // no other kernel of device:0 takes it.
  auto f = Make(Tensor::FromVector<float>({1, 2, 3}, Shape({3})));
  ASSERT_TRUE(f->session);
  auto got = f->session->Run({{"x", X()}}, {"m"}, {});
  TFHOST_ASSERT_ERROR(got, StatusCode::kUnimplemented,
                      "node 'm' (Mul): no kernel in device:0 accepts this call (its shapes or attrs), and kernels fall "
                      "back only within one memory space");
  EXPECT_NE(got.status().message().find("node 'm' (Mul): no kernel in device:0 accepts this call"), std::string::npos)
      << got.status().ToString();
}

TEST(DevicePlacementTest, RunningOutOfDeviceMemoryIsResourceExhaustedNamingTheNode) {
  // Room for the uploaded input and little else.
  auto f = Make(C(), backends::KernelChoice::kFast, /*device_memory=*/40);
  ASSERT_TRUE(f->session);
  auto got = f->session->Run({{"x", X()}}, {"m"}, {});
  TFHOST_ASSERT_ERROR(
      got, StatusCode::kResourceExhausted,
      "node 'r1' (Relu): fake_device_allocator: cannot allocate 24 bytes in device:0 (in use 24 of limit 40)");
  EXPECT_NE(got.status().message().find("node 'r1' (Relu): fake_device_allocator: cannot allocate 24 bytes in device:0"),
            std::string::npos)
      << got.status().ToString();
  // The server keeps going: a later run with the same session fails the same
  // way, nothing leaked.
  EXPECT_EQ(f->device->allocator()->stats().bytes_in_use, 0);
}

}  // namespace
}  // namespace tfhost::runtime
