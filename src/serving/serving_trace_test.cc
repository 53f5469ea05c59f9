// Serving traced end to end, read back from the Chrome JSON: REST requests
// over real sockets to the demo half_plus_two, with and without batching.
// Each request's span (first byte in to last byte out) must enclose the
// node slices of the model run that served it, found through the ids the
// slices carry (request -> queue wait -> batch -> run -> nodes, or request
// -> run -> nodes); and GET /v1/trace answers a trace, or 400/409 with the
// reason.
#include <gtest/gtest.h>

#include <map>
#include <set>
#include <thread>

#include "base/test_http_client.h"
#include "base/test_status.h"
#include "base/test_temp_dir.h"
#include "base/trace/chrome_json.h"
#include "base/trace/recorder.h"
#include "base/trace/trace_test_util.h"
#include "loaders/savedmodel/demo_models.h"
#include "serving/batching/batching_runner.h"
#include "serving/http/http_server.h"
#include "serving/rest/rest_api_handler.h"
#include "serving/rest/trace_endpoint.h"
#include "serving/server_core.h"

namespace tfhost::serving {
namespace {

using trace::testing::ParsedSlice;
using trace::testing::ParsedTrace;

// One HTTP/1.1 exchange on a fresh connection: {status, body}; 0 when no
// answer came. Returns once the server has closed the connection, which it
// does after the request's span has ended.
std::pair<int, std::string> Exchange(int port, const std::string& method, const std::string& target,
                                     const std::string& body = "") {
  testing::HttpConnection c(port, 30);
  if (!c.connected()) return {0, ""};
  c.Send(method + " " + target + " HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Length: " +
         std::to_string(body.size()) + "\r\n\r\n" + body);
  testing::HttpReply r = c.Read();
  c.ClosedByServer();
  return {r.status, r.body};
}

// The demo models, a core serving half_plus_two (batched or not) and the
// REST API over HTTP, wired as `tfhost serve` wires them.
class Server {
 public:
  explicit Server(bool batching) : dir_("tfhost_serving_trace") {
    EXPECT_TRUE(loaders::WriteDemoModels(dir_.path()).ok());
    ServerCoreOptions o;
    o.model_server_config = SingleModelConfig("half_plus_two", dir_.Sub("half_plus_two"));
    o.manager.file_system_poll_wait_seconds = 0;
    o.manager.max_num_load_retries = 0;
    o.manager.log_sink = [](const std::string&) {};
    o.inline_run_limit = std::chrono::microseconds(0);  // runs go to the worker pool: a thread hand-off to follow
    auto core = ServerCore::Create(std::move(o));
    EXPECT_TRUE(core.ok()) << core.status().ToString();
    if (!core.ok()) return;
    core_ = std::move(*core);
    if (batching) {
      batching::BatchingRunnerOptions b;
      b.config.num_batch_threads = 1;
      b.config.max_batch_size = 64;
      b.config.batch_timeout_micros = 20000;  // long enough for concurrent requests to share a batch
      auto runner = batching::BatchingRunner::Create(b);
      EXPECT_TRUE(runner.ok()) << runner.status().ToString();
      batcher_ = *runner;
      core_->SetDefaultRunner(batcher_);
    }
    RestApiOptions rest_options;
    rest_options.trace_max_seconds = 5;
    rest_ = std::make_unique<RestApiHandler>(core_.get(), rest_options);
    HttpServerOptions http;
    http.address = "127.0.0.1";
    http.port = 0;
    http.num_threads = 4;
    RestApiHandler* rest = rest_.get();
    auto started = HttpServer::StartAsync(http, [rest](std::shared_ptr<HttpRequest> r, HttpResponder respond) {
      rest->HandleAsync(r->method, r->target, std::move(r->body), [respond](RestResponse res) {
        HttpResponse out;
        out.status = res.status;
        out.body = std::move(res.body);
        out.content_type = std::move(res.content_type);
        respond(std::move(out));
      });
    });
    EXPECT_TRUE(started.ok()) << started.status().ToString();
    if (started.ok()) http_ = std::move(*started);
  }
  ~Server() {
    if (http_) http_->Stop(std::chrono::milliseconds(1000));
    http_.reset();
    if (core_ && batcher_) core_->SetDefaultRunner(nullptr);
    rest_.reset();
    batcher_.reset();
    core_.reset();
  }
  bool ok() const { return http_ != nullptr; }
  void BeginDraining() { rest_->SetDraining(true); }
  int port() const { return http_->port(); }

  // `clients` predict requests at once; each must answer 200.
  void PredictConcurrently(int clients) {
    std::vector<std::thread> threads;
    for (int c = 0; c < clients; ++c) {
      threads.emplace_back([this, c] {
        const std::string body = "{\"instances\": [[" + std::to_string(c) + ".0], [1.0]]}";
        auto [status, answer] = Exchange(port(), "POST", "/v1/models/half_plus_two:predict", body);
        EXPECT_EQ(status, 200) << answer;
      });
    }
    for (auto& t : threads) t.join();
  }

 private:
  testing::TempDir dir_;
  std::unique_ptr<ServerCore> core_;
  std::shared_ptr<batching::BatchingRunner> batcher_;
  std::unique_ptr<RestApiHandler> rest_;
  std::unique_ptr<HttpServer> http_;
};

class ServingTraceTest : public ::testing::Test {
 protected:
  void TearDown() override { trace::Recorder::Global().Stop(); }

  static ParsedTrace Finish() {
    ParsedTrace t = trace::testing::ParseChromeJson(trace::ToChromeJson(trace::Recorder::Global().Stop(), "test"));
    EXPECT_TRUE(t.ok);
    return t;
  }
};

std::map<std::string, const ParsedSlice*> ById(const std::vector<const ParsedSlice*>& slices) {
  std::map<std::string, const ParsedSlice*> out;
  for (const ParsedSlice* s : slices) {
    if (s->name != "queue wait") out[s->Arg("id")] = s;
  }
  return out;
}

// Whether `list` (a JSON array of ids, "[3,7]") holds `id`.
bool ListHolds(const std::string& list, const std::string& id) {
  std::string inner = list.size() >= 2 ? list.substr(1, list.size() - 2) : "";
  size_t start = 0;
  while (start <= inner.size()) {
    const size_t comma = inner.find(',', start);
    if (inner.substr(start, comma == std::string::npos ? std::string::npos : comma - start) == id) return true;
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return false;
}

TEST_F(ServingTraceTest, BatchedRequestSpanEnclosesItsQueueWaitAndItsBatchsNodeSlices) {
  Server server(/*batching=*/true);
  ASSERT_TRUE(server.ok());
  ASSERT_TRUE(trace::Recorder::Global().Start("test").ok());
  constexpr int kClients = 6;
  server.PredictConcurrently(kClients);
  ParsedTrace t = Finish();

  const auto requests = t.WithCategory("request");
  ASSERT_EQ(requests.size(), static_cast<size_t>(kClients));
  const auto batching = t.WithCategory("batching");
  const auto batches = ById(batching);
  const auto runs = ById(t.WithCategory("session"));
  const auto nodes = t.WithCategory("node");
  ASSERT_FALSE(batches.empty());
  for (const ParsedSlice* request : requests) {
    const std::string id = request->Arg("id");
    EXPECT_EQ(request->name, "POST /v1/models/half_plus_two:predict");
    EXPECT_EQ(request->Arg("status"), "200");
    EXPECT_EQ(t.thread_names[request->tid].rfind("request lane ", 0), 0u);
    // Its wait in the batch queue: on its lane, inside its span.
    const ParsedSlice* wait = nullptr;
    for (const ParsedSlice* s : batching) {
      if (s->name == "queue wait" && s->Arg("request") == id) wait = s;
    }
    ASSERT_NE(wait, nullptr) << "no queue wait for request " << id;
    EXPECT_EQ(wait->tid, request->tid);
    EXPECT_TRUE(request->Encloses(*wait));
    // Its batch lists it; the batch's run and that run's nodes lie inside
    // the request's span.
    auto batch = batches.find(wait->Arg("batch"));
    ASSERT_NE(batch, batches.end()) << "request " << id << " waited for batch " << wait->Arg("batch");
    EXPECT_TRUE(ListHolds(batch->second->Arg("requests"), id)) << batch->second->Arg("requests");
    EXPECT_GE(batch->second->ts + 1e-3, wait->end());  // a nanosecond of rounding
    int run_nodes = 0;
    for (const auto& [run_id, run] : runs) {
      if (run->Arg("parent") != batch->first) continue;
      EXPECT_TRUE(batch->second->Encloses(*run));
      for (const ParsedSlice* node : nodes) {
        if (node->Arg("run") != run_id) continue;
        ++run_nodes;
        EXPECT_TRUE(request->Encloses(*node))
            << node->name << " of batch " << batch->first << " outside request " << id;
        EXPECT_FALSE(node->Arg("backend").empty());
      }
    }
    EXPECT_GT(run_nodes, 0) << "no node slices for the batch of request " << id;
  }
}

TEST_F(ServingTraceTest, V2InferRequestSpanEnclosesItsQueueWaitAndItsBatchsRun) {
  Server server(/*batching=*/true);
  ASSERT_TRUE(server.ok());
  ASSERT_TRUE(trace::Recorder::Global().Start("test").ok());
  auto [status, body] =
      Exchange(server.port(), "POST", "/v2/models/half_plus_two/infer",
               R"({"inputs": [{"name": "x", "shape": [2, 1], "datatype": "FP32", "data": [1.0, 2.0]}]})");
  ParsedTrace t = Finish();
  ASSERT_EQ(status, 200) << body;
  const auto requests = t.WithCategory("request");
  ASSERT_EQ(requests.size(), 1u);
  EXPECT_EQ(requests[0]->name, "POST /v2/models/half_plus_two/infer");
  const ParsedSlice* wait = nullptr;
  for (const ParsedSlice* s : t.WithCategory("batching")) {
    if (s->name == "queue wait" && s->Arg("request") == requests[0]->Arg("id")) wait = s;
  }
  ASSERT_NE(wait, nullptr);
  EXPECT_TRUE(requests[0]->Encloses(*wait));
  int nodes = 0;
  for (const ParsedSlice* run : t.WithCategory("session")) {
    if (run->Arg("parent") != wait->Arg("batch")) continue;
    EXPECT_TRUE(requests[0]->Encloses(*run));
    for (const ParsedSlice* n : t.WithCategory("node")) nodes += n->Arg("run") == run->Arg("id");
  }
  EXPECT_GT(nodes, 0);
}

TEST_F(ServingTraceTest, UnbatchedRequestSpanEnclosesTheNodeSlicesOfItsRunOnAWorkerThread) {
  Server server(/*batching=*/false);
  ASSERT_TRUE(server.ok());
  ASSERT_TRUE(trace::Recorder::Global().Start("test").ok());
  server.PredictConcurrently(3);
  ParsedTrace t = Finish();
  const auto requests = t.WithCategory("request");
  ASSERT_EQ(requests.size(), 3u);
  EXPECT_TRUE(t.WithCategory("batching").empty());
  const auto runs = ById(t.WithCategory("session"));
  for (const ParsedSlice* request : requests) {
    const ParsedSlice* run = nullptr;
    for (const auto& [run_id, r] : runs) {
      if (r->Arg("parent") == request->Arg("id")) run = r;
    }
    ASSERT_NE(run, nullptr) << "no run under request " << request->Arg("id");
    EXPECT_TRUE(request->Encloses(*run));
    EXPECT_EQ(t.thread_names[run->tid].rfind("serving worker ", 0), 0u) << t.thread_names[run->tid];
    int run_nodes = 0;
    for (const ParsedSlice* node : t.WithCategory("node")) {
      if (node->Arg("run") != run->Arg("id")) continue;
      ++run_nodes;
      EXPECT_TRUE(request->Encloses(*node)) << node->name;
    }
    EXPECT_GT(run_nodes, 0);
  }
}

TEST_F(ServingTraceTest, TraceEndpointAnswersTheRequestsOfItsWindow) {
  Server server(/*batching=*/true);
  ASSERT_TRUE(server.ok());
  std::pair<int, std::string> answer;
  std::thread tracer([&] { answer = Exchange(server.port(), "GET", "/v1/trace?seconds=1"); });
  // Requests until the recording has begun, then a few inside it.
  for (int i = 0; i < 200 && !trace::Enabled(); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  ASSERT_TRUE(trace::Enabled());
  server.PredictConcurrently(2);
  auto busy = Exchange(server.port(), "GET", "/v1/trace?seconds=1");
  tracer.join();
  EXPECT_EQ(busy.first, 409) << busy.second;
  EXPECT_NE(busy.second.find("already being recorded"), std::string::npos) << busy.second;
  ASSERT_EQ(answer.first, 200) << answer.second.substr(0, 300);
  ParsedTrace t = trace::testing::ParseChromeJson(answer.second);
  ASSERT_TRUE(t.ok) << answer.second.substr(0, 300);
  int predicts = 0;
  for (const ParsedSlice* r : t.WithCategory("request")) predicts += r->name == "POST /v1/models/half_plus_two:predict";
  EXPECT_EQ(predicts, 2);
  EXPECT_FALSE(t.WithCategory("node").empty());
  EXPECT_FALSE(trace::Enabled());
}

TEST_F(ServingTraceTest, TraceEndpointRefusesBadSecondsWith400NamingTheParameter) {
  Server server(/*batching=*/false);
  ASSERT_TRUE(server.ok());
  for (const std::string query : {"", "?seconds=", "?seconds=abc", "?seconds=0", "?seconds=6", "?seconds=-1",
                                  "?seconds=1.5", "?second=1"}) {
    auto [status, body] = Exchange(server.port(), "GET", "/v1/trace" + query);
    EXPECT_EQ(status, 400) << query << ": " << body;
    EXPECT_NE(body.find("seconds"), std::string::npos) << query << ": " << body;
    EXPECT_FALSE(trace::Enabled());
  }
  auto [status, body] = Exchange(server.port(), "GET", "/v1/trace?seconds=6");
  EXPECT_NE(body.find("from 1 to 5"), std::string::npos) << body;
}

TEST_F(ServingTraceTest, DrainingEndsATraceWindowEarlyWithWhatItRecorded) {
  Server server(/*batching=*/false);
  ASSERT_TRUE(server.ok());
  std::pair<int, std::string> answer;
  const auto start = std::chrono::steady_clock::now();
  std::thread tracer([&] { answer = Exchange(server.port(), "GET", "/v1/trace?seconds=5"); });
  for (int i = 0; i < 200 && !trace::Enabled(); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  ASSERT_TRUE(trace::Enabled());
  server.PredictConcurrently(1);
  server.BeginDraining();
  tracer.join();
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(4));
  ASSERT_EQ(answer.first, 200);
  ParsedTrace t = trace::testing::ParseChromeJson(answer.second);
  ASSERT_TRUE(t.ok);
  EXPECT_EQ(t.WithCategory("request").size(), 1u);
  auto later = Exchange(server.port(), "GET", "/v1/trace?seconds=1");
  EXPECT_EQ(later.first, 503) << later.second;
  EXPECT_NE(later.second.find("stopping"), std::string::npos) << later.second;
}

TEST(TraceEndpointTest, ParseSecondsAcceptsOnlyWholeSecondsInRange) {
  EXPECT_EQ(*TraceEndpoint::ParseSeconds("seconds=1", 60), 1);
  EXPECT_EQ(*TraceEndpoint::ParseSeconds("seconds=60", 60), 60);
  TFHOST_EXPECT_ERROR(TraceEndpoint::ParseSeconds("seconds=61", 60), StatusCode::kInvalidArgument,
                      "'seconds' must be a whole number of seconds from 1 to 60, got '61'");
  TFHOST_EXPECT_ERROR(TraceEndpoint::ParseSeconds("x=1&seconds=2", 60), StatusCode::kInvalidArgument,
                      "unknown query parameter 'x'");
  TFHOST_EXPECT_ERROR(TraceEndpoint::ParseSeconds("seconds=1", 0), StatusCode::kInvalidArgument,
                      "--rest_api_timeout_in_ms");
  TFHOST_EXPECT_ERROR(TraceEndpoint::ParseSeconds("", 60), StatusCode::kInvalidArgument,
                      "needs the query parameter seconds=N");
}

}  // namespace
}  // namespace tfhost::serving
