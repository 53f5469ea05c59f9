#include "serving/batching/batching_runner.h"

#include <gtest/gtest.h>

#include <atomic>
#include <condition_variable>
#include <map>
#include <mutex>
#include <random>
#include <thread>

#include "base/test_status.h"
#include "base/test_tfserving_models.h"
#include "loaders/model_loader.h"

namespace tfhost::serving::batching {
namespace {

using ::tfhost::testing::TfServingModelPath;

constexpr int64_t kHour = 3600LL * 1000 * 1000;
const char* kHalfPlusTwo = "saved_model_half_plus_two_cpu/00000123";

// TF Serving's test model (fixture copy or zoo equivalent) as ServerCore would hold it.
ServableHandle LoadHalfPlusTwo() {
  auto model = loaders::LoadModel(TfServingModelPath(kHalfPlusTwo));
  EXPECT_TRUE(model.ok()) << model.status().ToString();
  if (!model.ok()) return nullptr;
  auto servable = std::make_shared<Servable>();
  servable->name = "half_plus_two";
  servable->version = 123;
  servable->path = TfServingModelPath(kHalfPlusTwo);
  servable->model = std::shared_ptr<runtime::Model>(std::move(model).value());
  return servable;
}

TensorMap Column(const std::vector<float>& values) {
  return {{"x", Tensor::FromVector<float>(values, Shape({static_cast<int64_t>(values.size()), 1}))}};
}

// Polls `done` (bounded) -- for waiting on other threads' progress.
template <typename Fn>
bool Eventually(Fn done) {
  for (int i = 0; i < 3000; ++i) {
    if (done()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return done();
}

class BatchingRunnerModeTest : public ::testing::TestWithParam<BatchingMode> {};

TEST_P(BatchingRunnerModeTest, BatchedOutputsEqualUnbatchedOutputsOnHalfPlusTwo) {
  TFHOST_REQUIRE_TFSERVING_MODEL(TfServingModelPath(kHalfPlusTwo));
  ServableHandle servable = LoadHalfPlusTwo();
  ASSERT_TRUE(servable);
  auto signature = servable->model->FindSignature("serving_default");
  ASSERT_TRUE(signature.ok());

  BatchingRunnerOptions options;
  options.config.max_batch_size = 8;
  options.config.batch_timeout_micros = 2000;
  options.config.allowed_batch_sizes = {2, 4, 8};
  options.config.max_enqueued_batches = 10000;
  options.config.num_batch_threads = 2;
  options.config.mode = GetParam();
  options.config.target_latency_ms = 200;
  MetricsRegistry registry;
  ServingMetrics metrics(&registry);
  options.metrics = &metrics;
  auto runner = BatchingRunner::Create(options);
  ASSERT_TRUE(runner.ok()) << runner.status().ToString();

  constexpr int kClients = 12, kRequests = 15;
  std::atomic<int> mismatches{0}, failures{0};
  std::atomic<int64_t> rows_sent{0};
  std::vector<std::thread> clients;
  for (int c = 0; c < kClients; ++c) {
    clients.emplace_back([&, c] {
      std::mt19937 rng(c);
      for (int i = 0; i < kRequests; ++i) {
        std::vector<float> values;
        const int rows = 1 + static_cast<int>(rng() % 3);
        for (int r = 0; r < rows; ++r) values.push_back(static_cast<float>(c * 1000 + i * 10 + r) / 7.0f);
        rows_sent += rows;
        auto batched = (*runner)->Run(servable, **signature, Column(values), {});
        auto direct = servable->model->RunSignature("serving_default", Column(values));
        if (!batched.ok() || !direct.ok()) {
          ++failures;
          continue;
        }
        if (!TensorsEqual(batched->at("y"), direct->at("y"))) ++mismatches;
      }
    });
  }
  for (auto& t : clients) t.join();
  EXPECT_EQ(failures.load(), 0);
  EXPECT_EQ(mismatches.load(), 0);
  auto queues = (*runner)->Queues();
  ASSERT_EQ(queues.size(), 1u);
  EXPECT_EQ(queues[0].stats.rows_run, rows_sent.load());
  EXPECT_GE(queues[0].stats.padded_rows_run, queues[0].stats.rows_run);
  // Adaptive queues publish the limits they chose; fixed ones do not.
  const bool has_gauge = registry.ToPrometheusText().find(
                             ":tfhost:serving:batching:adaptive_max_batch_size{model_name=\"half_plus_two\","
                             "op_name=\"serving_default\"}") != std::string::npos;
  EXPECT_EQ(has_gauge, GetParam() == BatchingMode::kAdaptive);
}

INSTANTIATE_TEST_SUITE_P(FixedAndAdaptive, BatchingRunnerModeTest,
                         ::testing::Values(BatchingMode::kFixed, BatchingMode::kAdaptive),
                         [](const ::testing::TestParamInfo<BatchingMode>& info) {
                           return std::string(BatchingModeName(info.param));
                         });

TEST(BatchingRunnerTest, BatchFillRatioIsRealRowsOverPaddedRowsAndItsHelpSaysSo) {
  TFHOST_REQUIRE_TFSERVING_MODEL(TfServingModelPath(kHalfPlusTwo));
  ServableHandle servable = LoadHalfPlusTwo();
  ASSERT_TRUE(servable);
  const runtime::Signature& signature = **servable->model->FindSignature("serving_default");
  MetricsRegistry registry;
  ServingMetrics metrics(&registry);
  BatchingRunnerOptions options;
  options.config.max_batch_size = 8;
  options.config.allowed_batch_sizes = {4, 8};
  options.config.num_batch_threads = 1;
  options.metrics = &metrics;
  auto runner = BatchingRunner::Create(options);
  ASSERT_TRUE(runner.ok());
  // 3 real rows run padded to 4: the ratio is 0.75 (3 / max_batch_size would be 0.375).
  auto result = (*runner)->Run(servable, signature, Column({1, 2, 3}), {});
  ASSERT_TRUE(result.ok()) << result.status().ToString();
  const std::string text = registry.ToPrometheusText();
  EXPECT_NE(text.find(":tfhost:serving:batch_fill_ratio{model_name=\"half_plus_two\"} 0.75"), std::string::npos)
      << text;
  EXPECT_NE(text.find("# HELP :tfhost:serving:batch_fill_ratio Real rows divided by padded rows"), std::string::npos)
      << text;
}

TEST(BatchingRunnerTest, ConcurrentRequestsShareOnePaddedBatchOfTheRealModel) {
  TFHOST_REQUIRE_TFSERVING_MODEL(TfServingModelPath(kHalfPlusTwo));
  ServableHandle servable = LoadHalfPlusTwo();
  ASSERT_TRUE(servable);
  const runtime::Signature& signature = **servable->model->FindSignature("serving_default");

  FakeClock clock;
  MetricsRegistry registry;
  ServingMetrics metrics(&registry);
  BatchingRunnerOptions options;
  options.config.max_batch_size = 8;
  options.config.batch_timeout_micros = kHour;  // only the simulated clock releases the batch
  options.config.allowed_batch_sizes = {4, 8};
  options.config.num_batch_threads = 1;
  options.metrics = &metrics;
  options.clock = &clock;
  auto runner = BatchingRunner::Create(options);
  ASSERT_TRUE(runner.ok());

  std::vector<StatusOr<TensorMap>> results(3, Internal("not run"));
  std::vector<std::thread> clients;
  const std::vector<std::vector<float>> inputs = {{1}, {2, 3}, {4}};
  for (int i = 0; i < 3; ++i) {
    clients.emplace_back([&, i] { results[i] = (*runner)->Run(servable, signature, Column(inputs[i]), {}); });
  }
  ASSERT_TRUE(Eventually([&] {
    auto q = (*runner)->Queues();
    return q.size() == 1 && q[0].stats.waiting_tasks == 3;
  }));
  // The queue depth gauge sees the three waiting requests.
  EXPECT_NE(registry.ToPrometheusText().find(":tfhost:serving:batch_queue_depth{model_name=\"half_plus_two\"} 3"),
            std::string::npos)
      << registry.ToPrometheusText();
  clock.Advance(kHour);
  for (auto& t : clients) t.join();
  for (int i = 0; i < 3; ++i) {
    ASSERT_TRUE(results[i].ok()) << results[i].status().ToString();
    std::vector<float> expected;
    for (float v : inputs[i]) expected.push_back(0.5f * v + 2);
    const Tensor& y = results[i]->at("y");
    EXPECT_EQ(y.shape(), Shape({static_cast<int64_t>(inputs[i].size()), 1}));
    EXPECT_EQ(std::vector<float>(y.data<float>(), y.data<float>() + y.NumElements()), expected);
  }
  auto queues = (*runner)->Queues();
  ASSERT_EQ(queues.size(), 1u);
  EXPECT_EQ(queues[0].stats.batches_run, 1);
  EXPECT_EQ(queues[0].stats.rows_run, 4);
  EXPECT_EQ(queues[0].stats.padded_rows_run, 4);

  const std::string text = registry.ToPrometheusText();
  EXPECT_NE(text.find(":tfhost:serving:batch_fill_ratio{model_name=\"half_plus_two\"} 1"), std::string::npos) << text;
  EXPECT_NE(text.find(":tensorflow:serving:batching:processed_batch_size_count{model_name=\"half_plus_two\","
                      "op_name=\"serving_default\"} 1"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find(":tfhost:serving:batch_queue_depth{model_name=\"half_plus_two\"} 0"), std::string::npos);
}

TEST(BatchingRunnerTest, RequestWithWrongInnerShapeFailsAloneWithoutBatching) {
  TFHOST_REQUIRE_TFSERVING_MODEL(TfServingModelPath(kHalfPlusTwo));
  ServableHandle servable = LoadHalfPlusTwo();
  ASSERT_TRUE(servable);
  const runtime::Signature& signature = **servable->model->FindSignature("serving_default");
  BatchingRunnerOptions options;
  options.config.max_batch_size = 4;
  options.config.num_batch_threads = 1;
  auto runner = BatchingRunner::Create(options);
  ASSERT_TRUE(runner.ok());
  TensorMap wrong = {{"x", Tensor::FromVector<float>({1, 2}, Shape({1, 2}))}};
  (void)(*runner)->Run(servable, signature, wrong, {});  // whatever the graph says, it is not batched
  EXPECT_TRUE((*runner)->Queues().empty());
  auto good = (*runner)->Run(servable, signature, Column({2}), {});
  ASSERT_TRUE(good.ok()) << good.status().ToString();
  EXPECT_EQ(good->at("y").data<float>()[0], 3.0f);
}

TEST(BatchingRunnerTest, CanBatchOnlyRequestsTheSignatureLetsMerge) {
  runtime::Signature sig;
  runtime::TensorSpec x;
  x.key = "x";
  x.dtype = DType::kFloat;
  x.shape = ir::PartialShape::Known({-1, 3});
  sig.inputs.push_back(x);
  auto rows = [](Shape shape) { return TensorMap{{"x", Tensor(DType::kFloat, std::move(shape))}}; };
  EXPECT_TRUE(CanBatch(sig, rows(Shape({2, 3})), false));
  EXPECT_FALSE(CanBatch(sig, rows(Shape({2, 4})), false));  // contradicts the signature
  EXPECT_TRUE(CanBatch(sig, rows(Shape({2, 4})), true));    // padded anyway
  EXPECT_FALSE(CanBatch(sig, rows(Shape({6})), false));     // wrong rank
  EXPECT_FALSE(CanBatch(sig, TensorMap{{"x", Tensor::Scalar<float>(1)}}, false));
  sig.inputs[0].shape = ir::PartialShape::Known({1, 3});     // exported for batch size 1
  EXPECT_FALSE(CanBatch(sig, rows(Shape({1, 3})), false));
  sig.inputs[0].shape = ir::PartialShape::Unknown();
  EXPECT_TRUE(CanBatch(sig, rows(Shape({1, 7})), false));
}

TEST(BatchingRunnerTest, RunAsyncAnswersEveryRequestOnceWithoutBlockingTheCaller) {
  TFHOST_REQUIRE_TFSERVING_MODEL(TfServingModelPath(kHalfPlusTwo));
  ServableHandle servable = LoadHalfPlusTwo();
  ASSERT_TRUE(servable);
  const runtime::Signature& signature = **servable->model->FindSignature("serving_default");
  FakeClock clock;
  BatchingRunnerOptions options;
  options.config.max_batch_size = 64;
  options.config.batch_timeout_micros = kHour;
  options.config.num_batch_threads = 1;
  options.clock = &clock;
  auto runner = BatchingRunner::Create(options);
  ASSERT_TRUE(runner.ok());
  std::mutex mu;
  std::condition_variable cv;
  std::map<int, std::vector<float>> answers;
  // One thread issues 40 requests: they all wait in one batch, which only an
  // asynchronous caller can fill.
  for (int i = 0; i < 40; ++i) {
    (*runner)->RunAsync(servable, signature, Column({static_cast<float>(i)}), {},
                        [&, i](StatusOr<TensorMap> r) {
                          std::lock_guard<std::mutex> l(mu);
                          answers[i] = r.ok() ? std::vector<float>{r->at("y").data<float>()[0]}
                                              : std::vector<float>{};
                          cv.notify_all();
                        });
  }
  // A scalar cannot be batched: it is answered at once, on this thread.
  bool scalar_answered = false;
  (*runner)->RunAsync(servable, signature, {{"x", Tensor::Scalar<float>(1)}}, {},
                      [&](StatusOr<TensorMap>) { scalar_answered = true; });
  EXPECT_TRUE(scalar_answered);
  clock.Advance(kHour);
  std::unique_lock<std::mutex> l(mu);
  ASSERT_TRUE(cv.wait_for(l, std::chrono::seconds(30), [&] { return answers.size() == 40; }));
  for (int i = 0; i < 40; ++i) EXPECT_EQ(answers[i], (std::vector<float>{0.5f * i + 2})) << i;
  l.unlock();
  auto queues = (*runner)->Queues();
  ASSERT_EQ(queues.size(), 1u);
  EXPECT_EQ(queues[0].stats.batches_run, 1);
}

TEST(BatchingRunnerTest, PadsVariableLengthInputsOfTfServingsMatrixHalfPlusTwo) {
  const std::string path = TfServingModelPath("matrix_half_plus_two/1");
  TFHOST_REQUIRE_TFSERVING_MODEL(path);
  auto model = loaders::LoadModel(path);
  ASSERT_TRUE(model.ok()) << model.status().ToString();
  auto servable = std::make_shared<Servable>();
  servable->name = "matrix_half_plus_two";
  servable->version = 1;
  servable->model = std::shared_ptr<runtime::Model>(std::move(model).value());
  auto signature = servable->model->FindSignature("serving_default");
  ASSERT_TRUE(signature.ok()) << signature.status().ToString();
  ASSERT_EQ((*signature)->inputs.size(), 1u);
  const std::string input = (*signature)->inputs[0].key;

  FakeClock clock;
  BatchingRunnerOptions options;
  options.config.max_batch_size = 4;
  options.config.batch_timeout_micros = kHour;
  options.config.num_batch_threads = 1;
  options.config.pad_variable_length_inputs = true;
  options.clock = &clock;
  auto runner = BatchingRunner::Create(options);
  ASSERT_TRUE(runner.ok());
  ServableHandle handle = servable;
  StatusOr<TensorMap> small = Internal("not run"), large = Internal("not run");
  std::thread a([&] {
    small = (*runner)->Run(handle, **signature, {{input, Tensor::FromVector<float>({1, 2, 3, 4}, Shape({1, 2, 2}))}}, {});
  });
  std::thread b([&] {
    large = (*runner)->Run(handle, **signature,
                           {{input, Tensor::FromVector<float>({1, 2, 3, 4, 5, 6, 7, 8, 9}, Shape({1, 3, 3}))}}, {});
  });
  ASSERT_TRUE(Eventually([&] {
    auto q = (*runner)->Queues();
    return q.size() == 1 && q[0].stats.waiting_tasks == 2;
  }));
  clock.Advance(kHour);
  a.join();
  b.join();
  ASSERT_TRUE(small.ok()) << small.status().ToString();
  ASSERT_TRUE(large.ok()) << large.status().ToString();
  EXPECT_EQ((*runner)->Queues()[0].stats.batches_run, 1);
  const Tensor& ys = small->begin()->second;
  const Tensor& yl = large->begin()->second;
  // As in TF Serving, outputs keep the padded shape; padding used the first element (1).
  ASSERT_EQ(ys.shape(), Shape({1, 3, 3}));
  EXPECT_EQ(std::vector<float>(ys.data<float>(), ys.data<float>() + 9),
            (std::vector<float>{2.5, 3, 2.5, 3.5, 4, 2.5, 2.5, 2.5, 2.5}));
  EXPECT_EQ(std::vector<float>(yl.data<float>(), yl.data<float>() + 9),
            (std::vector<float>{2.5, 3, 3.5, 4, 4.5, 5, 5.5, 6, 6.5}));
}

TEST(BatchingRunnerTest, ShutdownRefusesNewRequestsWithUnavailable) {
  TFHOST_REQUIRE_TFSERVING_MODEL(TfServingModelPath(kHalfPlusTwo));
  ServableHandle servable = LoadHalfPlusTwo();
  ASSERT_TRUE(servable);
  const runtime::Signature& signature = **servable->model->FindSignature("serving_default");
  BatchingRunnerOptions options;
  options.config.num_batch_threads = 1;
  auto runner = BatchingRunner::Create(options);
  ASSERT_TRUE(runner.ok());
  ASSERT_TRUE((*runner)->Run(servable, signature, Column({1}), {}).ok());
  (*runner)->Shutdown(std::chrono::milliseconds(100));
  auto after = (*runner)->Run(servable, signature, Column({1}), {});
  TFHOST_ASSERT_ERROR(after, StatusCode::kUnavailable,
                      "batching queue 'model 'half_plus_two' version 123 signature 'serving_default'' is shutting "
                      "down; no new requests are accepted");
  EXPECT_EQ(after.status().code(), StatusCode::kUnavailable);
}

TEST(BatchingRunnerTest, QueuesOfUnloadedVersionsArePruned) {
  TFHOST_REQUIRE_TFSERVING_MODEL(TfServingModelPath(kHalfPlusTwo));
  BatchingRunnerOptions options;
  options.config.num_batch_threads = 1;
  auto runner = BatchingRunner::Create(options);
  ASSERT_TRUE(runner.ok());
  {
    ServableHandle servable = LoadHalfPlusTwo();
    ASSERT_TRUE(servable);
    const runtime::Signature& signature = **servable->model->FindSignature("serving_default");
    ASSERT_TRUE((*runner)->Run(servable, signature, Column({1}), {}).ok());
    EXPECT_EQ((*runner)->Queues().size(), 1u);
  }
  // The batch thread may drop its reference to the version a moment after
  // the caller has its answer; once nothing holds it, Prune removes it.
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  do {
    (*runner)->Prune();
    if ((*runner)->Queues().empty()) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  } while (std::chrono::steady_clock::now() < deadline);
  EXPECT_TRUE((*runner)->Queues().empty());
}

}  // namespace
}  // namespace tfhost::serving::batching
