// Memory behaviour of a Session: tensors of warm runs come from the session's
// buffer pool, fed and constant tensors are never written in place, the
// liveness plan counts what a run keeps alive, and large constants are held
// once (decoded), not twice.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <thread>

#include "base/test_status.h"
#include "ir/tensor_proto.h"
#include "runtime/session.h"
#include "runtime/test_graph_def_util.h"
#include "tensorflow/core/framework/graph.pb.h"

namespace tfhost::runtime {
namespace {

// A float node (T = DT_FLOAT).
tensorflow::NodeDef* AddNode(tensorflow::GraphDef& g, const std::string& name, const std::string& op,
                             std::vector<std::string> inputs = {}) {
  auto* n = testing::AddNode(g, name, op, std::move(inputs));
  (*n->mutable_attr())["T"].set_type(tensorflow::DT_FLOAT);
  return n;
}

void SetConst(tensorflow::NodeDef* n, const Tensor& value) {
  n->mutable_attr()->erase("T");
  testing::SetConst(n, value);
}

tensorflow::NodeDef* AddPlaceholder(tensorflow::GraphDef& g, const std::string& name) {
  auto* n = AddNode(g, name, "Placeholder");
  n->mutable_attr()->erase("T");
  (*n->mutable_attr())["dtype"].set_type(tensorflow::DT_FLOAT);
  return n;
}

std::unique_ptr<Session> MakeSession(const tensorflow::GraphDef& gd,
                                     backends::KernelChoice kernels = backends::KernelChoice::kFast) {
  auto graph = ir::Graph::FromGraphDef(gd);
  EXPECT_TRUE(graph.ok()) << graph.status().ToString();
  EXPECT_TRUE(ir::InferTypes(*graph, ops::OpRegistry::Global().Lookup()).ok());
  SessionOptions options;
  options.intra_op_threads = 1;
  options.model_name = "test";
  options.kernels = kernels;
  auto session = Session::Create(std::move(*graph), options);
  EXPECT_TRUE(session.ok()) << session.status().ToString();
  return std::move(*session);
}

Tensor Filled(int64_t n, float start) {
  Tensor t(DType::kFloat, Shape({n}));
  for (int64_t i = 0; i < n; ++i) t.data<float>()[i] = start + static_cast<float>(i % 17);
  return t;
}

// Element-wise ops straight on a feed and a constant (directly and through
// Identity): each is a chance for an in-place kernel to overwrite them.
tensorflow::GraphDef ElementwiseOnFeedsAndConstants(int64_t n) {
  tensorflow::GraphDef gd;
  AddPlaceholder(gd, "x");
  SetConst(AddNode(gd, "c", "Const"), Filled(n, 1.0f));
  AddNode(gd, "neg_x", "Neg", {"x"});
  AddNode(gd, "ix", "Identity", {"x"});
  AddNode(gd, "relu_ix", "Relu", {"ix"});
  AddNode(gd, "ic", "Identity", {"c"});
  AddNode(gd, "neg_ic", "Neg", {"ic"});
  AddNode(gd, "sum", "AddV2", {"x", "c"});
  AddNode(gd, "prod", "Mul", {"ic", "ix"});
  AddNode(gd, "a", "AddV2", {"neg_x", "relu_ix"});
  AddNode(gd, "b", "AddV2", {"neg_ic", "sum"});
  AddNode(gd, "out", "AddV2", {"a", "b"});
  AddNode(gd, "out2", "Mul", {"prod", "out"});
  return gd;
}

TEST(SessionMemoryTest, FedAndConstantTensorsAreNeverWrittenInPlace) {
  const int64_t n = 4096;
  for (auto kernels : {backends::KernelChoice::kFast, backends::KernelChoice::kReference}) {
    auto session = MakeSession(ElementwiseOnFeedsAndConstants(n), kernels);
    const Tensor c_before = *ir::TensorFromProto(
        session->GraphWithConstants().node(session->graph().FindNode("c")).attrs.at("value").tensor());
    Tensor x = Filled(n, -8.0f);
    const Tensor x_copy = x.Clone();
    for (int run = 0; run < 3; ++run) {
      auto r = session->Run({{"x:0", x}}, {"out2:0", "ic:0", "ix:0"});
      ASSERT_TRUE(r.ok()) << r.status().ToString();
      const float* out = (*r)[0].data<float>();
      for (int64_t i = 0; i < n; ++i) {
        const float xv = x_copy.data<float>()[i], cv = c_before.data<float>()[i];
        const float expected = (cv * xv) * ((-xv + std::max(xv, 0.0f)) + (-cv + (xv + cv)));
        ASSERT_FLOAT_EQ(out[i], expected) << i;
      }
      EXPECT_TRUE(TensorsEqual((*r)[1], c_before));
      EXPECT_TRUE(TensorsEqual((*r)[2], x_copy));
      EXPECT_TRUE(TensorsEqual(x, x_copy)) << "the fed tensor was modified";
    }
    const Tensor c_after = *ir::TensorFromProto(
        session->GraphWithConstants().node(session->graph().FindNode("c")).attrs.at("value").tensor());
    EXPECT_TRUE(TensorsEqual(c_after, c_before)) << "the constant was modified";
  }
}

TEST(SessionMemoryTest, WarmRunsTakeEveryTensorBufferFromTheSessionPool) {
  auto session = MakeSession(ElementwiseOnFeedsAndConstants(100000));
  Tensor x = Filled(100000, 0.5f);
  ASSERT_TRUE(session->Run({{"x:0", x}}, {"out2:0"}).ok());
  const BufferPoolStats warm = session->buffer_pool_stats();
  EXPECT_GT(warm.system_allocations, 0);
  const int64_t all_pools_before = BufferPool::TotalSystemAllocations();
  for (int run = 0; run < 5; ++run) {
    auto r = session->Run({{"x:0", x}}, {"out2:0"});
    ASSERT_TRUE(r.ok());
    EXPECT_TRUE((*r)[0].FromPool());
  }
  const BufferPoolStats after = session->buffer_pool_stats();
  EXPECT_EQ(after.system_allocations, warm.system_allocations);
  EXPECT_EQ(BufferPool::TotalSystemAllocations(), all_pools_before);
  EXPECT_GT(after.reuses, warm.reuses);
  EXPECT_EQ(after.in_use_bytes, 0) << "every run's tensors went back to the pool";
  // The fed tensor did not come from the pool.
  EXPECT_FALSE(x.FromPool());
}

TEST(SessionMemoryTest, ZeroBoundMeansEveryRunAllocates) {
  auto graph = ir::Graph::FromGraphDef(ElementwiseOnFeedsAndConstants(1000));
  ASSERT_TRUE(ir::InferTypes(*graph, ops::OpRegistry::Global().Lookup()).ok());
  SessionOptions options;
  options.intra_op_threads = 1;
  options.buffer_pool_bytes = 0;
  auto session = Session::Create(std::move(*graph), options);
  ASSERT_TRUE(session.ok());
  Tensor x = Filled(1000, 0.5f);
  ASSERT_TRUE((*session)->Run({{"x:0", x}}, {"out2:0"}).ok());
  const int64_t first = (*session)->buffer_pool_stats().system_allocations;
  ASSERT_TRUE((*session)->Run({{"x:0", x}}, {"out2:0"}).ok());
  EXPECT_EQ((*session)->buffer_pool_stats().system_allocations, 2 * first);
  EXPECT_EQ((*session)->buffer_pool_stats().retained_bytes, 0);
}

TEST(SessionMemoryTest, ARunPastTheTensorMemoryLimitFailsTheAllocatingNodeAndTheSessionRecovers) {
  // Each of the graph's intermediates is 4000 bytes; several live at once.
  auto graph = ir::Graph::FromGraphDef(ElementwiseOnFeedsAndConstants(1000));
  ASSERT_TRUE(ir::InferTypes(*graph, ops::OpRegistry::Global().Lookup()).ok());
  SessionOptions options;
  options.intra_op_threads = 1;
  options.model_name = "capped";
  options.max_tensor_bytes_in_use = 6000;
  auto session = Session::Create(std::move(*graph), options);
  ASSERT_TRUE(session.ok());
  Tensor small = Filled(1000, 0.5f);
  TFHOST_EXPECT_ERROR((*session)->Run({{"x:0", small}}, {"out2:0"}), StatusCode::kResourceExhausted,
                      "out of memory while the kernel ran");
  EXPECT_EQ((*session)->buffer_pool_stats().in_use_bytes, 0) << "the failed run gave back what it held";
  // One intermediate at a time fits.
  auto neg = (*session)->Run({{"x:0", small}}, {"neg_x:0"});
  ASSERT_TRUE(neg.ok()) << neg.status().ToString();
  EXPECT_EQ((*neg)[0].data<float>()[0], -0.5f);
}

TEST(SessionMemoryTest, PlanCountsTensorsAliveTogetherAndNotFeedsConstantsOrAliases) {
  // x -> a = Neg(x) -> b = Neg(a) -> i = Identity(b) -> c = AddV2(a, i): while
  // c runs, a, b (through i) and c are alive: 3 x 4 KiB. x is fed; Identity
  // shares b's buffer; d = Neg(k) of a constant k allocates only its output.
  tensorflow::GraphDef gd;
  AddPlaceholder(gd, "x");
  AddNode(gd, "a", "Neg", {"x"});
  AddNode(gd, "b", "Neg", {"a"});
  AddNode(gd, "i", "Identity", {"b"});
  AddNode(gd, "c", "AddV2", {"a", "i"});
  SetConst(AddNode(gd, "k", "Const"), Filled(1024, 0.0f));
  AddNode(gd, "d", "Neg", {"k"});
  auto session = MakeSession(gd);
  Tensor x = Filled(1024, 1.0f);
  auto plan = session->PlanMemory({{"x:0", x}}, {"c:0", "d:0"});
  ASSERT_TRUE(plan.ok()) << plan.status().ToString();
  EXPECT_EQ(plan->unknown_outputs, 0);
  EXPECT_EQ(plan->planned_outputs, 4);  // a, b, c, d
  EXPECT_EQ(plan->total_bytes, 4 * 4096);
  EXPECT_EQ(plan->fetched_bytes, 2 * 4096);
  // Whatever order d runs in, at most a, b, c and d are alive: c's node sees a, b, c.
  EXPECT_GE(plan->peak_bytes, 3 * 4096);
  EXPECT_LE(plan->peak_bytes, 4 * 4096);
  // The pool's high-water mark of a warm run matches (plus a 64-byte header
  // per block; in-place kernels may only lower it).
  ASSERT_TRUE(session->Run({{"x:0", x}}, {"c:0", "d:0"}).ok());
  session->ResetBufferPoolPeak();
  ASSERT_TRUE(session->Run({{"x:0", x}}, {"c:0", "d:0"}).ok());
  const int64_t peak = session->buffer_pool_stats().peak_in_use_bytes;
  EXPECT_LE(peak, plan->peak_bytes + 4 * 64);
  EXPECT_GE(peak, 2 * 4096);
}

TEST(SessionMemoryTest, LargeConstantsAreHeldOnceAndRestoredOnRequest) {
  tensorflow::GraphDef gd;
  AddPlaceholder(gd, "x");
  SetConst(AddNode(gd, "big", "Const"), Filled(4096, 3.0f));
  SetConst(AddNode(gd, "small", "Const"), Filled(4, 3.0f));
  AddNode(gd, "y", "AddV2", {"x", "big"});
  auto session = MakeSession(gd);
  const ir::Graph& graph = session->graph();
  const auto& big = graph.node(graph.FindNode("big")).attrs.at("value").tensor();
  EXPECT_TRUE(big.tensor_content().empty()) << "the serialized weight was kept beside the decoded one";
  EXPECT_EQ(big.tensor_shape().dim(0).size(), 4096);
  EXPECT_FALSE(graph.node(graph.FindNode("small")).attrs.at("value").tensor().tensor_content().empty());
  ir::Graph full = session->GraphWithConstants();
  auto restored = ir::TensorFromProto(full.node(full.FindNode("big")).attrs.at("value").tensor());
  ASSERT_TRUE(restored.ok());
  EXPECT_TRUE(TensorsEqual(*restored, Filled(4096, 3.0f)));
  auto r = session->Run({{"x:0", Filled(4096, 1.0f)}}, {"y:0"});
  ASSERT_TRUE(r.ok());
  EXPECT_FLOAT_EQ((*r)[0].data<float>()[5], 1.0f + 5 + 3.0f + 5);
}

TEST(SessionMemoryTest, FetchedTensorsOutliveTheirSession) {
  Tensor kept;
  {
    auto session = MakeSession(ElementwiseOnFeedsAndConstants(1000));
    auto r = session->Run({{"x:0", Filled(1000, 0.5f)}}, {"out2:0"});
    ASSERT_TRUE(r.ok());
    kept = (*r)[0];
    EXPECT_TRUE(kept.FromPool());
  }
  const float v = kept.data<float>()[999];
  kept = Tensor();  // returns the block to the closed pool, which frees it
  EXPECT_TRUE(std::isfinite(v));
}

TEST(SessionMemoryTest, ConcurrentRunsShareThePoolAndAgree) {
  auto session = MakeSession(ElementwiseOnFeedsAndConstants(20000));
  auto reference = session->Run({{"x:0", Filled(20000, -3.0f)}}, {"out2:0"});
  ASSERT_TRUE(reference.ok());
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < 20; ++i) {
        auto r = session->Run({{"x:0", Filled(20000, -3.0f)}}, {"out2:0"});
        if (!r.ok() || !TensorsEqual((*r)[0], (*reference)[0])) ++failures;
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(failures.load(), 0);
  auto stats = session->buffer_pool_stats();
  EXPECT_EQ(stats.in_use_bytes, (*reference)[0].ByteSize() + 64) << "only the kept reference is still out";
}

}  // namespace
}  // namespace tfhost::runtime
