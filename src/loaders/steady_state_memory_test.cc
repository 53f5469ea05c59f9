// Real models in the steady state: after one warm-up run, runs of a loaded
// nsfw_mobilenet_v2 (TF.js) and a SavedModel take every tensor buffer from the
// session's pool (no new system allocations), the pool's high-water mark stays
// near the liveness plan's peak, concurrent runs agree, and neither the fed
// tensors nor the model's constants change.
#include <gtest/gtest.h>

#include <atomic>
#include <cmath>
#include <thread>

#include "base/test_fixtures.h"
#include "ir/tensor_proto.h"
#include "loaders/model_loader.h"

namespace tfhost {
namespace {

std::unique_ptr<runtime::Model> Load(const std::string& path,
                                     int64_t buffer_pool_bytes = BufferPool::kDefaultMaxRetainedBytes) {
  loaders::LoadOptions options;
  options.session.intra_op_threads = 2;
  options.session.buffer_pool_bytes = buffer_pool_bytes;
  auto model = loaders::LoadModel(path, options);
  EXPECT_TRUE(model.ok()) << model.status().ToString();
  return model.ok() ? std::move(*model) : nullptr;
}

Tensor NsfwInput(float phase) {
  Tensor t(DType::kFloat, Shape({1, 224, 224, 3}));
  for (int64_t i = 0; i < t.NumElements(); ++i) {
    t.data<float>()[i] = 0.5f + 0.5f * std::sin(static_cast<float>(i) * 0.001f + phase);
  }
  return t;
}

// Every Const value of the session's graph, decoded.
std::vector<Tensor> ConstantValues(runtime::Session& session) {
  std::vector<Tensor> values;
  ir::Graph graph = session.GraphWithConstants();
  for (const auto& node : graph.nodes()) {
    if (node.op != "Const") continue;
    auto v = ir::TensorFromProto(node.attrs.at("value").tensor());
    EXPECT_TRUE(v.ok());
    if (v.ok()) values.push_back(std::move(*v));
  }
  return values;
}

void ExpectSameTensors(const std::vector<Tensor>& a, const std::vector<Tensor>& b) {
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) EXPECT_TRUE(TensorsEqual(a[i], b[i])) << "constant " << i << " changed";
}

float MaxAbsDiff(const Tensor& a, const Tensor& b) {
  float worst = 0;
  for (int64_t i = 0; i < a.NumElements(); ++i) {
    worst = std::max(worst, std::fabs(a.data<float>()[i] - b.data<float>()[i]));
  }
  return worst;
}

TEST(SteadyStateMemoryTest, NsfwWarmRunsAllocateNoNewBuffersAndPeakMatchesThePlan) {
  const std::string path = testing::FixturePath("models/tfjs/nsfw_mobilenet_v2/model.json");
  TFHOST_REQUIRE_FIXTURE(path);
  auto model = Load(path);
  ASSERT_NE(model, nullptr);
  runtime::Session& session = model->session();
  const auto& sig = model->signatures().at("serving_default");
  const std::string input = sig.inputs[0].tensor_name;
  const std::string output = sig.outputs[0].tensor_name;
  const std::vector<Tensor> constants_before = ConstantValues(session);

  Tensor x = NsfwInput(0.0f);
  const Tensor x_copy = x.Clone();
  Tensor expected;
  {
    auto first = session.Run({{input, x}}, {output});
    ASSERT_TRUE(first.ok()) << first.status().ToString();
    // A copy outside the pool: a result the caller keeps holds its block, and
    // the next run would need another.
    expected = (*first)[0].Clone();
  }
  const BufferPoolStats warm = session.buffer_pool_stats();
  session.ResetBufferPoolPeak();
  const int64_t all_pools = BufferPool::TotalSystemAllocations();
  for (int run = 2; run <= 6; ++run) {
    auto r = session.Run({{input, x}}, {output});
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    EXPECT_LE(MaxAbsDiff((*r)[0], expected), 1e-6f);
  }
  const BufferPoolStats after = session.buffer_pool_stats();
  EXPECT_EQ(after.system_allocations, warm.system_allocations) << "runs 2..6 allocated new tensor buffers";
  EXPECT_EQ(BufferPool::TotalSystemAllocations(), all_pools);
  EXPECT_GT(after.reuses, warm.reuses);
  EXPECT_TRUE(TensorsEqual(x, x_copy)) << "the fed tensor changed";

  auto plan = session.PlanMemory({{input, x}}, {output});
  ASSERT_TRUE(plan.ok()) << plan.status().ToString();
  std::printf("nsfw plan: %s; pool peak %lld bytes, %lld system allocations (%lld bytes) on the first run\n",
              plan->ToString().c_str(), static_cast<long long>(after.peak_in_use_bytes),
              static_cast<long long>(warm.system_allocations), static_cast<long long>(warm.system_bytes));
  EXPECT_EQ(plan->unknown_outputs, 0);
  EXPECT_GT(plan->peak_bytes, 0);
  // The pool's high-water mark is near the plan: in-place element-wise
  // kernels may only lower it; kernel scratch tensors and block headers
  // raise it a little.
  EXPECT_LE(after.peak_in_use_bytes, plan->peak_bytes * 5 / 4 + (256 << 10));
  EXPECT_GE(after.peak_in_use_bytes, plan->peak_bytes / 2);
  ExpectSameTensors(ConstantValues(session), constants_before);
}

// A configured pool bound far below the run's working set: the bound grows
// with the largest working set, so warm runs still allocate nothing (before,
// the excess went back to the system and was faulted in again every run).
TEST(SteadyStateMemoryTest, WarmRunsAllocateNothingEvenWhenTheWorkingSetExceedsThePoolBound) {
  const std::string path = testing::FixturePath("models/tfjs/nsfw_mobilenet_v2/model.json");
  TFHOST_REQUIRE_FIXTURE(path);
  auto model = Load(path, /*buffer_pool_bytes=*/1 << 20);
  ASSERT_NE(model, nullptr);
  runtime::Session& session = model->session();
  const auto& sig = model->signatures().at("serving_default");
  const std::string input = sig.inputs[0].tensor_name;
  const std::string output = sig.outputs[0].tensor_name;
  Tensor x = NsfwInput(0.5f);
  ASSERT_TRUE(session.Run({{input, x}}, {output}).ok());
  const BufferPoolStats warm = session.buffer_pool_stats();
  EXPECT_GT(warm.peak_in_use_bytes, 1 << 20) << "the test needs a working set above the bound";
  for (int run = 2; run <= 6; ++run) ASSERT_TRUE(session.Run({{input, x}}, {output}).ok());
  const BufferPoolStats after = session.buffer_pool_stats();
  EXPECT_EQ(after.system_allocations, warm.system_allocations) << "warm runs went to the system";
  EXPECT_GE(after.max_retained_bytes, warm.peak_in_use_bytes);
}

TEST(SteadyStateMemoryTest, NsfwConcurrentRunsFromFourThreadsAgree) {
  const std::string path = testing::FixturePath("models/tfjs/nsfw_mobilenet_v2/model.json");
  TFHOST_REQUIRE_FIXTURE(path);
  auto model = Load(path);
  ASSERT_NE(model, nullptr);
  runtime::Session& session = model->session();
  const auto& sig = model->signatures().at("serving_default");
  const std::string input = sig.inputs[0].tensor_name;
  const std::string output = sig.outputs[0].tensor_name;
  const std::vector<Tensor> constants_before = ConstantValues(session);
  std::vector<Tensor> inputs, expected;
  for (int t = 0; t < 4; ++t) {
    inputs.push_back(NsfwInput(static_cast<float>(t)));
    auto r = session.Run({{input, inputs.back()}}, {output});
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    expected.push_back((*r)[0]);
  }
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 3; ++i) {
        auto r = session.Run({{input, inputs[t]}}, {output});
        if (!r.ok() || MaxAbsDiff((*r)[0], expected[t]) > 1e-5f) ++failures;
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(failures.load(), 0);
  ExpectSameTensors(ConstantValues(session), constants_before);
}

TEST(SteadyStateMemoryTest, SavedModelWarmRunsAllocateNoNewBuffers) {
  const std::string path = testing::FixturePath("models/tfserving/saved_model_half_plus_two_cpu/00000123");
  TFHOST_REQUIRE_FIXTURE(path);
  auto model = Load(path);
  ASSERT_NE(model, nullptr);
  const std::vector<Tensor> constants_before = ConstantValues(model->session());
  const auto& sig = model->signatures().at("serving_default");
  Tensor x(DType::kFloat, sig.inputs[0].shape.rank() == 2 ? Shape({50000, 1}) : Shape({50000}));
  for (int64_t i = 0; i < x.NumElements(); ++i) x.data<float>()[i] = static_cast<float>(i);
  const Tensor x_copy = x.Clone();
  Tensor y;
  {
    auto first = model->RunSignature("serving_default", {{sig.inputs[0].key, x}});
    ASSERT_TRUE(first.ok()) << first.status().ToString();
    y = first->begin()->second.Clone();
  }
  ASSERT_EQ(y.NumElements(), 50000);
  EXPECT_FLOAT_EQ(y.data<float>()[10], 7.0f);  // 0.5 * 10 + 2
  const BufferPoolStats warm = model->session().buffer_pool_stats();
  for (int run = 0; run < 5; ++run) {
    auto r = model->RunSignature("serving_default", {{sig.inputs[0].key, x}});
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    EXPECT_TRUE(TensorsEqual(r->begin()->second, y));
  }
  EXPECT_EQ(model->session().buffer_pool_stats().system_allocations, warm.system_allocations);
  EXPECT_TRUE(TensorsEqual(x, x_copy));
  ExpectSameTensors(ConstantValues(model->session()), constants_before);
}

}  // namespace
}  // namespace tfhost
