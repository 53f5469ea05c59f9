// GracefulStop with gRPC's blocking handlers in front of dynamic batching:
// the stop must end within its deadline whatever state the batches are in.
#include "serving/graceful_stop.h"

#include <grpcpp/grpcpp.h>
#include <gtest/gtest.h>

#include <future>
#include <thread>

#include "base/test_status.h"
#include "base/test_tfserving_models.h"
#include "serving/batching/batching_runner.h"
#include "serving/grpc/grpc_server.h"
#include "serving/server_core.h"
#include "serving/serving_test_util.h"
#include "tensorflow_serving/apis/prediction_service.grpc.pb.h"

namespace tfhost::serving {
namespace {

namespace ts = tensorflow::serving;
using batching::BatchingRunner;
using batching::BatchingRunnerOptions;
using testing::GateRunner;
using ::tfhost::testing::TfServingModelPath;

const char* kBasePath = "saved_model_half_plus_two_cpu";

// half_plus_two behind a batching gRPC server on a free loopback port.
struct BatchedGrpc {
  std::unique_ptr<ServerCore> core;
  std::shared_ptr<BatchingRunner> batcher;
  std::unique_ptr<GrpcServer> server;
  std::unique_ptr<ts::PredictionService::Stub> stub;
};

std::unique_ptr<BatchedGrpc> Serve(const BatchingRunnerOptions& batching) {
  auto s = std::make_unique<BatchedGrpc>();
  ServerCoreOptions o;
  o.model_server_config = SingleModelConfig("half_plus_two", TfServingModelPath(kBasePath));
  o.manager.file_system_poll_wait_seconds = 0;
  o.manager.max_num_load_retries = 0;
  o.manager.log_sink = [](const std::string&) {};
  auto core = ServerCore::Create(std::move(o));
  EXPECT_TRUE(core.ok()) << core.status().ToString();
  if (!core.ok()) return nullptr;
  s->core = std::move(*core);
  auto batcher = BatchingRunner::Create(batching);
  EXPECT_TRUE(batcher.ok()) << batcher.status().ToString();
  if (!batcher.ok()) return nullptr;
  s->batcher = *batcher;
  s->core->SetDefaultRunner(s->batcher);
  GrpcServerOptions options;
  options.address = "127.0.0.1";
  options.port = 0;
  auto server = GrpcServer::Start(options, s->core.get());
  EXPECT_TRUE(server.ok()) << server.status().ToString();
  if (!server.ok()) return nullptr;
  s->server = std::move(*server);
  s->stub = ts::PredictionService::NewStub(grpc::CreateChannel(
      "127.0.0.1:" + std::to_string(s->server->port()), grpc::InsecureChannelCredentials()));
  return s;
}

// One row through Predict on another thread; the future holds the call's
// status and y (or NaN).
std::future<std::pair<grpc::Status, float>> PredictAsync(ts::PredictionService::Stub* stub, float x) {
  return std::async(std::launch::async, [stub, x] {
    ts::PredictRequest request;
    request.mutable_model_spec()->set_name("half_plus_two");
    tensorflow::TensorProto& t = (*request.mutable_inputs())["x"];
    t.set_dtype(tensorflow::DT_FLOAT);
    t.mutable_tensor_shape()->add_dim()->set_size(1);
    t.mutable_tensor_shape()->add_dim()->set_size(1);
    t.add_float_val(x);
    grpc::ClientContext ctx;
    ctx.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(60));
    ts::PredictResponse response;
    grpc::Status status = stub->Predict(&ctx, request, &response);
    float y = status.ok() ? response.outputs().at("y").float_val(0) : std::nanf("");
    return std::make_pair(status, y);
  });
}

// True once the batcher holds `n` tasks that have not started (within 20 s).
bool WaitForQueued(BatchingRunner& batcher, int64_t n) {
  for (int i = 0; i < 2000; ++i) {
    auto queues = batcher.Queues();
    if (queues.size() == 1 && queues[0].stats.waiting_tasks == n) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return false;
}

TEST(GracefulStopTest, TheDrainRunsAPartialBatchAtOnceInsteadOfWaitingForItsTimeout) {
  TFHOST_REQUIRE_TFSERVING_MODEL(TfServingModelPath(kBasePath));
  BatchingRunnerOptions batching;
  batching.config.max_batch_size = 8;
  batching.config.batch_timeout_micros = int64_t{3600} * 1000 * 1000;  // an hour: only the drain can run it
  batching.config.num_batch_threads = 1;
  auto s = Serve(batching);
  ASSERT_TRUE(s);
  auto call = PredictAsync(s->stub.get(), 2.0f);
  ASSERT_TRUE(WaitForQueued(*s->batcher, 1));

  auto stop = std::async(std::launch::async,
                         [&] { return GracefulStop({s->server.get(), nullptr, s->batcher.get()}, std::chrono::seconds(30)); });
  ASSERT_EQ(stop.wait_for(std::chrono::seconds(10)), std::future_status::ready)
      << "the stop waited for the batch's timeout";
  EXPECT_TRUE(stop.get()) << "the queued request should have run, not been cut off";
  auto [status, y] = call.get();
  EXPECT_TRUE(status.ok()) << status.error_code() << ": " << status.error_message();
  EXPECT_FLOAT_EQ(y, 3.0f);
}

TEST(GracefulStopTest, AtTheDeadlineAQueuedRequestIsCancelledWithoutWaitingForTheRunningBatch) {
  TFHOST_REQUIRE_TFSERVING_MODEL(TfServingModelPath(kBasePath));
  auto gate = std::make_shared<GateRunner>();
  BatchingRunnerOptions batching;
  batching.config.max_batch_size = 1;
  batching.config.num_batch_threads = 1;
  batching.inner = gate;
  auto s = Serve(batching);
  ASSERT_TRUE(s);
  auto running = PredictAsync(s->stub.get(), 2.0f);
  ASSERT_TRUE(gate->WaitForWaiting(1));  // the only batch thread is held
  auto queued = PredictAsync(s->stub.get(), 4.0f);
  ASSERT_TRUE(WaitForQueued(*s->batcher, 1));

  auto stop = std::async(std::launch::async, [&] {
    return GracefulStop({s->server.get(), nullptr, s->batcher.get()}, std::chrono::milliseconds(300));
  });
  // Past the deadline the queued request's handler has returned (cancelled),
  // while the held batch still runs.
  bool only_running_left = false;
  for (int i = 0; i < 500 && !only_running_left; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
    only_running_left = s->server->in_flight() == 1;
  }
  EXPECT_TRUE(only_running_left) << "in flight: " << s->server->in_flight();
  EXPECT_EQ(stop.wait_for(std::chrono::milliseconds(0)), std::future_status::timeout)
      << "a running batch is always let finish";
  gate->Open();
  ASSERT_EQ(stop.wait_for(std::chrono::seconds(20)), std::future_status::ready);
  EXPECT_FALSE(stop.get()) << "a request was cancelled, so the drain was not complete";
  EXPECT_EQ(gate->runs_started(), 1) << "the queued request must not run after the deadline";
  EXPECT_FALSE(queued.get().first.ok());
  running.get();  // cut off by grpc at the deadline or answered; either way it ended
}

}  // namespace
}  // namespace tfhost::serving
