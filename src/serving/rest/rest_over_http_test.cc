// The REST API over real sockets: HttpServer carrying RestApiHandler on the
// half_plus_two fixture, one keep-alive connection for several TF Serving
// cases, and the server-level errors (413, malformed request line) as JSON.
#include <gtest/gtest.h>

#include <condition_variable>
#include <mutex>

#include "base/test_http_client.h"
#include "base/test_tfserving_models.h"
#include "serving/batching/batching_runner.h"
#include "serving/http/http_server.h"
#include "serving/rest/rest_api_handler.h"
#include "serving/server_core.h"

namespace tfhost::serving {
namespace {

// The shared test connection, each response as {status, body}.
class Socket : public testing::HttpConnection {
 public:
  explicit Socket(int port) : HttpConnection(port) {}
  bool ok() const { return connected(); }
  std::pair<int, std::string> Read() {
    testing::HttpReply r = HttpConnection::Read();
    return {r.status, r.body};
  }
};

// Wired as `tfhost serve` wires it: the asynchronous handler.
StatusOr<std::unique_ptr<HttpServer>> StartAsyncRest(const HttpServerOptions& http, RestApiHandler* rest) {
  return HttpServer::StartAsync(http, [rest](std::shared_ptr<HttpRequest> r, HttpResponder respond) {
    rest->HandleAsync(r->method, r->target, std::move(r->body), [respond](RestResponse res) {
      HttpResponse out;
      out.status = res.status;
      out.body = std::move(res.body);
      out.content_type = std::move(res.content_type);
      respond(std::move(out));
    });
  });
}

class RestOverHttpTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string model = testing::TfServingModelPath("saved_model_half_plus_two_cpu");
    TFHOST_REQUIRE_TFSERVING_MODEL(model);
    ServerCoreOptions options;
    options.model_server_config = SingleModelConfig("default", model);
    options.manager.file_system_poll_wait_seconds = 0;
    auto core = ServerCore::Create(std::move(options));
    ASSERT_TRUE(core.ok()) << core.status().ToString();
    core_ = std::move(*core);
    rest_ = std::make_unique<RestApiHandler>(core_.get(), RestApiOptions{});
    HttpServerOptions http;
    http.address = "127.0.0.1";
    http.port = 0;
    http.num_threads = 2;
    http.max_body_bytes = 4096;
    auto server = StartAsyncRest(http, rest_.get());
    ASSERT_TRUE(server.ok()) << server.status().ToString();
    server_ = std::move(*server);
  }
  void TearDown() override {
    if (server_) server_->Stop(std::chrono::seconds(2));
  }

  static std::string Post(const std::string& path, const std::string& body) {
    return "POST " + path + " HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: " +
           std::to_string(body.size()) + "\r\n\r\n" + body;
  }

  std::unique_ptr<ServerCore> core_;
  std::unique_ptr<RestApiHandler> rest_;
  std::unique_ptr<HttpServer> server_;
};

TEST_F(RestOverHttpTest, TfServingCasesOnOneKeepAliveConnection) {
  Socket s(server_->port());
  ASSERT_TRUE(s.ok());
  s.Send(Post("/v1/models/default:predict", R"({"instances": [2.0, 3.0, 4.0]})"));
  EXPECT_EQ(s.Read(), std::make_pair(200, std::string(R"({"predictions": [3.0,3.5,4.0]})")));
  s.Send(Post("/v1/models/default:predict", R"({"inputs": [2.0, 3.0, 4.0]})"));
  EXPECT_EQ(s.Read(), std::make_pair(200, std::string(R"({"outputs": [3.0,3.5,4.0]})")));
  s.Send(Post("/v1/models/default:regress", R"({"signature_name": "regress_x_to_y", "examples": [{"x": 2.0}]})"));
  EXPECT_EQ(s.Read(), std::make_pair(200, std::string(R"({"results": [3.0]})")));
  s.Send(Post("/v1/models/default:classify", R"({"signature_name": "classify_x_to_y", "examples": [{"x": 2.0}]})"));
  EXPECT_EQ(s.Read(), std::make_pair(200, std::string(R"({"results": [[["",3.0]]]})")));
  s.Send(Post("/v1/models/half:predict", R"({"instances": [1.0, 5.0]})"));
  EXPECT_EQ(s.Read(),
            std::make_pair(404, std::string(R"j({"error": "Servable not found for request: Latest(half)"})j")));
  s.Send("GET /v1/models/default HTTP/1.1\r\nHost: x\r\n\r\n");
  auto status = s.Read();
  EXPECT_EQ(status.first, 200);
  EXPECT_EQ(status.second, R"({"model_version_status": [{"version": "123", "state": "AVAILABLE", )"
                           R"("status": {"error_code": "OK", "error_message": ""}}]})");
  s.Send("GET /v1/foo HTTP/1.1\r\nHost: x\r\n\r\n");
  auto malformed = s.Read();
  EXPECT_EQ(malformed.first, 400);
  EXPECT_NE(malformed.second.find("Malformed request"), std::string::npos);
}

TEST_F(RestOverHttpTest, OversizedBodyGets413JsonError) {
  Socket s(server_->port());
  s.Send(Post("/v1/models/default:predict", "{\"instances\": [" + std::string(8000, '1') + "]}"));
  auto r = s.Read();
  EXPECT_EQ(r.first, 413);
  EXPECT_EQ(r.second.rfind("{\"error\": ", 0), 0u) << r.second;
}

TEST_F(RestOverHttpTest, GarbageRequestLineGets400JsonError) {
  Socket s(server_->port());
  s.Send("\x01\x02 garbage\r\n\r\n");
  auto r = s.Read();
  EXPECT_EQ(r.first, 400);
  EXPECT_EQ(r.second.rfind("{\"error\": ", 0), 0u) << r.second;
}

// Holds runs of model "slow" until opened; other models run directly.
class SlowModelRunner : public SignatureRunner {
 public:
  StatusOr<TensorMap> Run(const ServableHandle& servable, const runtime::Signature& signature, TensorMap inputs,
                          const std::vector<std::string>& output_filter) override {
    if (servable->name == "slow") {
      std::unique_lock<std::mutex> l(mu_);
      ++entered_;
      cv_.notify_all();
      cv_.wait_for(l, std::chrono::seconds(30), [&] { return open_; });
    }
    return direct_.Run(servable, signature, std::move(inputs), output_filter);
  }
  bool WaitEntered() {
    std::unique_lock<std::mutex> l(mu_);
    return cv_.wait_for(l, std::chrono::seconds(30), [&] { return entered_ > 0; });
  }
  void Open() {
    std::lock_guard<std::mutex> l(mu_);
    open_ = true;
    cv_.notify_all();
  }

 private:
  DirectRunner direct_;
  std::mutex mu_;
  std::condition_variable cv_;
  int entered_ = 0;
  bool open_ = false;
};

// --rest_api_num_threads=1: the one HTTP thread must stay free while a model
// runs, with batching (the batch thread answers) and without (the worker pool
// runs the model).
class OneHttpThreadTest : public ::testing::TestWithParam<bool> {};

TEST_P(OneHttpThreadTest, SlowModelDoesNotStopHealthzOrAnotherModel) {
  const bool batching = GetParam();
  std::string model = testing::TfServingModelPath("saved_model_half_plus_two_cpu");
  TFHOST_REQUIRE_TFSERVING_MODEL(model);
  ServerCoreOptions options;
  options.model_server_config = SingleModelConfig("slow", model);
  *options.model_server_config.mutable_model_config_list()->add_config() =
      SingleModelConfig("fast", model).model_config_list().config(0);
  options.manager.file_system_poll_wait_seconds = 0;
  options.worker_threads = 2;
  auto core = ServerCore::Create(std::move(options));
  ASSERT_TRUE(core.ok()) << core.status().ToString();
  auto slow_runner = std::make_shared<SlowModelRunner>();
  std::shared_ptr<batching::BatchingRunner> batcher;
  if (batching) {
    batching::BatchingRunnerOptions b;
    b.config.num_batch_threads = 2;
    b.inner = slow_runner;
    auto created = batching::BatchingRunner::Create(std::move(b));
    ASSERT_TRUE(created.ok()) << created.status().ToString();
    batcher = *created;
    (*core)->SetDefaultRunner(batcher);
  } else {
    (*core)->SetDefaultRunner(slow_runner);
  }
  RestApiHandler rest(core->get(), RestApiOptions{});
  HttpServerOptions http;
  http.address = "127.0.0.1";
  http.port = 0;
  http.num_threads = 1;
  auto server = StartAsyncRest(http, &rest);
  ASSERT_TRUE(server.ok()) << server.status().ToString();
  auto post = [](const std::string& path, const std::string& body) {
    return "POST " + path + " HTTP/1.1\r\nHost: x\r\nContent-Length: " + std::to_string(body.size()) + "\r\n\r\n" +
           body;
  };

  Socket slow((*server)->port());
  slow.Send(post("/v1/models/slow:predict", R"({"instances": [[1.0]]})"));
  ASSERT_TRUE(slow_runner->WaitEntered());
  // The slow request is inside the model now; the only HTTP thread is free.
  Socket health((*server)->port());
  health.Send("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n");
  EXPECT_EQ(health.Read(), std::make_pair(200, std::string(R"({"status": "ok"})")));
  Socket fast((*server)->port());
  fast.Send(post("/v1/models/fast:predict", R"({"instances": [[2.0]]})"));
  EXPECT_EQ(fast.Read(), std::make_pair(200, std::string(R"({"predictions": [[3.0]]})")));
  fast.Send(post("/v1/models/fast:regress", R"({"signature_name": "regress_x_to_y", "examples": [{"x": 2.0}]})"));
  EXPECT_EQ(fast.Read(), std::make_pair(200, std::string(R"({"results": [3.0]})")));

  slow_runner->Open();
  EXPECT_EQ(slow.Read(), std::make_pair(200, std::string(R"({"predictions": [[2.5]]})")));
  if (batcher) {
    // The slow request really went through a batch queue, not around it.
    bool queued = false;
    for (const auto& q : batcher->Queues()) queued |= q.model_name == "slow";
    EXPECT_TRUE(queued);
  }
  EXPECT_TRUE((*server)->Stop(std::chrono::seconds(5)));
  if (batcher) batcher->Shutdown(std::chrono::seconds(1));
}

INSTANTIATE_TEST_SUITE_P(BatchingOnAndOff, OneHttpThreadTest, ::testing::Bool(),
                         [](const ::testing::TestParamInfo<bool>& info) {
                           return info.param ? "Batching" : "NoBatching";
                         });

// A full worker queue answers 503 at once instead of queueing without bound.
TEST(RestWorkerPoolTest, FullWorkerQueueAnswers503) {
  std::string model = testing::TfServingModelPath("saved_model_half_plus_two_cpu");
  TFHOST_REQUIRE_TFSERVING_MODEL(model);
  ServerCoreOptions options;
  options.model_server_config = SingleModelConfig("slow", model);
  options.manager.file_system_poll_wait_seconds = 0;
  options.worker_threads = 1;
  options.worker_queue_limit = 1;
  auto core = ServerCore::Create(std::move(options));
  ASSERT_TRUE(core.ok()) << core.status().ToString();
  auto slow_runner = std::make_shared<SlowModelRunner>();
  (*core)->SetDefaultRunner(slow_runner);
  RestApiHandler rest(core->get(), RestApiOptions{});
  std::mutex mu;
  std::condition_variable cv;
  std::vector<RestResponse> answers;
  auto collect = [&](RestResponse r) {
    std::lock_guard<std::mutex> l(mu);
    answers.push_back(std::move(r));
    cv.notify_all();
  };
  const std::string body = R"({"instances": [[1.0]]})";
  rest.HandleAsync("POST", "/v1/models/slow:predict", body, collect);  // runs (blocked)
  ASSERT_TRUE(slow_runner->WaitEntered());
  rest.HandleAsync("POST", "/v1/models/slow:predict", body, collect);  // waits in the queue
  rest.HandleAsync("POST", "/v1/models/slow:predict", body, collect);  // refused
  {
    std::unique_lock<std::mutex> l(mu);
    ASSERT_EQ(answers.size(), 1u);
    EXPECT_EQ(answers[0].status, 503);
    EXPECT_NE(answers[0].body.find("overloaded"), std::string::npos) << answers[0].body;
  }
  slow_runner->Open();
  std::unique_lock<std::mutex> l(mu);
  ASSERT_TRUE(cv.wait_for(l, std::chrono::seconds(30), [&] { return answers.size() == 3; }));
  EXPECT_EQ(answers[1].status, 200);
  EXPECT_EQ(answers[2].status, 200);
}

}  // namespace
}  // namespace tfhost::serving
