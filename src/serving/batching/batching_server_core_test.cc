// Batching wired into ServerCore the way `tfhost serve --enable_batching`
// does it (SetDefaultRunner), with TF Serving's fixture model and its
// batching_config.txt.
#include <gtest/gtest.h>

#include <atomic>
#include <condition_variable>
#include <mutex>
#include <thread>

#include "base/test_fixtures.h"
#include "base/test_tfserving_models.h"
#include "serving/batching/batching_runner.h"
#include "serving/server_core.h"
#include "serving/serving_test_util.h"

namespace tfhost::serving::batching {
namespace {

namespace ts = tensorflow::serving;
using ::tfhost::testing::FixturePath;
using ::tfhost::testing::TfServingModelPath;

const char* kBasePath = "saved_model_half_plus_two_cpu";

std::unique_ptr<ServerCore> MakeCore() {
  ServerCoreOptions o;
  o.model_server_config = SingleModelConfig("half_plus_two", TfServingModelPath(kBasePath));
  o.manager.file_system_poll_wait_seconds = 0;
  o.manager.max_num_load_retries = 0;
  o.manager.log_sink = [](const std::string&) {};
  auto core = ServerCore::Create(std::move(o));
  EXPECT_TRUE(core.ok()) << core.status().ToString();
  return core.ok() ? std::move(core).value() : nullptr;
}

ts::PredictRequest Request(const std::vector<float>& xs) {
  ts::PredictRequest request;
  request.mutable_model_spec()->set_name("half_plus_two");
  tensorflow::TensorProto& x = (*request.mutable_inputs())["x"];
  x.set_dtype(tensorflow::DT_FLOAT);
  x.mutable_tensor_shape()->add_dim()->set_size(static_cast<int64_t>(xs.size()));
  x.mutable_tensor_shape()->add_dim()->set_size(1);
  for (float v : xs) x.add_float_val(v);
  return request;
}

TEST(BatchingServerCoreTest, PredictThroughTfServingBatchingConfigMatchesTheModel) {
  TFHOST_REQUIRE_TFSERVING_MODEL(TfServingModelPath(kBasePath));
  const std::string config_path = FixturePath("tfserving-configs/batching_config.txt");
  TFHOST_REQUIRE_FIXTURE(config_path);
  auto core = MakeCore();
  ASSERT_TRUE(core);
  auto config = LoadBatchingParametersFile(config_path);
  ASSERT_TRUE(config.ok()) << config.status().ToString();
  BatchingRunnerOptions options;
  options.config = *config;
  options.metrics = &core->metrics();
  auto runner = BatchingRunner::Create(options);
  ASSERT_TRUE(runner.ok());
  core->SetDefaultRunner(*runner);

  constexpr int kClients = 8, kRequests = 20;
  std::atomic<int> bad{0};
  std::vector<std::thread> clients;
  for (int c = 0; c < kClients; ++c) {
    clients.emplace_back([&, c] {
      for (int i = 0; i < kRequests; ++i) {
        const std::vector<float> xs = {static_cast<float>(c), static_cast<float>(i), 4.0f};
        ts::PredictResponse response;
        Status s = core->Predict(Request(xs), &response);
        if (!s.ok()) {
          ADD_FAILURE() << s.ToString();
          ++bad;
          continue;
        }
        const tensorflow::TensorProto& y = response.outputs().at("y");
        if (y.float_val_size() != 3) {
          ++bad;
          continue;
        }
        for (int k = 0; k < 3; ++k) {
          if (y.float_val(k) != 0.5f * xs[k] + 2) ++bad;
        }
        if (response.model_spec().version().value() != 123) ++bad;
      }
    });
  }
  for (auto& t : clients) t.join();
  EXPECT_EQ(bad.load(), 0);
  auto queues = (*runner)->Queues();
  ASSERT_EQ(queues.size(), 1u);
  EXPECT_EQ(queues[0].stats.rows_run, kClients * kRequests * 3);
  const std::string text = core->MetricsText();
  EXPECT_NE(text.find(":tensorflow:serving:batching:processed_batch_size_bucket{model_name=\"half_plus_two\""),
            std::string::npos);
  EXPECT_NE(text.find(":tfhost:serving:batch_fill_ratio{model_name=\"half_plus_two\"}"), std::string::npos);
  (*runner)->Shutdown(std::chrono::milliseconds(0));
}

TEST(BatchingServerCoreTest, FullQueueAnswersPredictWithUnavailableAtOnce) {
  TFHOST_REQUIRE_TFSERVING_MODEL(TfServingModelPath(kBasePath));
  auto core = MakeCore();
  ASSERT_TRUE(core);
  auto gated = std::make_shared<serving::testing::GateRunner>();
  BatchingRunnerOptions options;
  options.config.max_batch_size = 1;
  options.config.max_enqueued_batches = 1;
  options.config.num_batch_threads = 1;
  options.inner = gated;
  auto runner = BatchingRunner::Create(options);
  ASSERT_TRUE(runner.ok());
  core->SetDefaultRunner(*runner);

  std::vector<std::thread> clients;
  std::vector<Status> statuses(2);
  clients.emplace_back([&] {
    ts::PredictResponse r;
    statuses[0] = core->Predict(Request({1}), &r);
  });
  ASSERT_TRUE(gated->WaitForWaiting(1));  // the only batch thread is busy
  clients.emplace_back([&] {
    ts::PredictResponse r;
    statuses[1] = core->Predict(Request({2}), &r);
  });
  // Wait until the second request holds the one batch the queue may have.
  bool queued = false;
  for (int i = 0; i < 3000 && !queued; ++i) {
    auto q = (*runner)->Queues();
    queued = q.size() == 1 && q[0].stats.waiting_tasks == 1;
    if (!queued) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  ASSERT_TRUE(queued);
  ts::PredictResponse response;
  Status full = core->Predict(Request({3}), &response);
  EXPECT_EQ(full.code(), StatusCode::kUnavailable);
  EXPECT_NE(full.message().find("The batch scheduling queue to which this task was submitted is full"),
            std::string::npos)
      << full.ToString();
  gated->Open();
  for (auto& t : clients) t.join();
  EXPECT_TRUE(statuses[0].ok()) << statuses[0].ToString();
  EXPECT_TRUE(statuses[1].ok()) << statuses[1].ToString();
}

TEST(BatchingServerCoreTest, ARequestWaitingForItsBatchGivesUpAtItsDeadline) {
  TFHOST_REQUIRE_TFSERVING_MODEL(TfServingModelPath(kBasePath));
  auto core = MakeCore();
  ASSERT_TRUE(core);
  auto gated = std::make_shared<serving::testing::GateRunner>();
  BatchingRunnerOptions options;
  options.config.max_batch_size = 1;
  options.config.num_batch_threads = 1;
  options.inner = gated;
  auto runner = BatchingRunner::Create(options);
  ASSERT_TRUE(runner.ok());
  core->SetDefaultRunner(*runner);

  Status held;
  std::thread holder([&] {
    ts::PredictResponse r;
    held = core->Predict(Request({1}), &r);
  });
  ASSERT_TRUE(gated->WaitForWaiting(1));  // the only batch thread is busy

  RequestContext context{Entrypoint::kGrpc};
  context.deadline = std::chrono::system_clock::now() + std::chrono::milliseconds(200);
  const auto start = std::chrono::steady_clock::now();
  ts::PredictResponse response;
  Status late = core->Predict(Request({2}), &response, context);
  const auto waited = std::chrono::steady_clock::now() - start;
  EXPECT_EQ(late.code(), StatusCode::kDeadlineExceeded) << late.ToString();
  EXPECT_NE(late.message().find("deadline passed while it waited for its batch"), std::string::npos) << late.ToString();
  EXPECT_LT(waited, std::chrono::seconds(5)) << "the caller should be let go at its deadline";

  // A deadline already past fails at once, without queueing.
  context.deadline = std::chrono::system_clock::now() - std::chrono::seconds(1);
  Status expired = core->Predict(Request({3}), &response, context);
  EXPECT_EQ(expired.code(), StatusCode::kDeadlineExceeded) << expired.ToString();

  gated->Open();
  holder.join();
  EXPECT_TRUE(held.ok()) << held.ToString();
}

}  // namespace
}  // namespace tfhost::serving::batching
