#include "serving/http/http_server.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <future>
#include <mutex>
#include <thread>

#include "base/test_http_client.h"
#include "base/test_status.h"

namespace tfhost::serving {
namespace {

using namespace std::chrono_literals;

using Client = testing::HttpConnection;

HttpResponse Echo(const HttpRequest& r) {
  HttpResponse res;
  res.body = "{\"method\": \"" + r.method + "\", \"target\": \"" + r.target + "\", \"length\": " +
             std::to_string(r.body.size()) + "}";
  return res;
}

std::unique_ptr<HttpServer> StartServer(HttpServerOptions options, HttpHandler handler = Echo) {
  options.address = "127.0.0.1";
  options.port = 0;
  auto server = HttpServer::Start(options, std::move(handler));
  EXPECT_TRUE(server.ok()) << server.status().ToString();
  return server.ok() ? std::move(*server) : nullptr;
}

std::string Get(const std::string& target, const std::string& extra = "") {
  return "GET " + target + " HTTP/1.1\r\nHost: x\r\n" + extra + "\r\n";
}

std::string Post(const std::string& target, const std::string& body) {
  return "POST " + target + " HTTP/1.1\r\nHost: x\r\nContent-Length: " + std::to_string(body.size()) + "\r\n\r\n" +
         body;
}

TEST(HttpServerTest, KeepAliveServesSeveralRequestsOnOneConnection) {
  auto server = StartServer({});
  ASSERT_NE(server, nullptr);
  ASSERT_GT(server->port(), 0);
  Client c(server->port());
  ASSERT_TRUE(c.connected());
  for (int i = 0; i < 3; ++i) {
    c.Send(Post("/v1/models/m:predict", "{\"instances\": [1]}"));
    auto r = c.Read();
    EXPECT_EQ(r.status, 200);
    EXPECT_EQ(r.body, R"({"method": "POST", "target": "/v1/models/m:predict", "length": 18})");
    EXPECT_NE(r.head.find("application/json"), std::string::npos);
  }
}

TEST(HttpServerTest, PipelinedRequestsAreAnsweredInOrder) {
  auto server = StartServer({}, [](const HttpRequest& r) {
    // The first request is slow; its answer must still come first.
    if (r.target == "/slow") std::this_thread::sleep_for(100ms);
    HttpResponse res;
    res.body = r.target;
    return res;
  });
  ASSERT_NE(server, nullptr);
  Client c(server->port());
  c.Send(Get("/slow") + Get("/fast") + Get("/third"));
  EXPECT_EQ(c.Read().body, "/slow");
  EXPECT_EQ(c.Read().body, "/fast");
  EXPECT_EQ(c.Read().body, "/third");
}

TEST(HttpServerTest, Http10WithoutKeepAliveIsClosedAfterTheResponse) {
  auto server = StartServer({});
  Client c(server->port());
  c.Send("GET /a HTTP/1.0\r\n\r\n");
  EXPECT_EQ(c.Read().status, 200);
  EXPECT_TRUE(c.ClosedByServer());
}

TEST(HttpServerTest, BodyOverTheLimitGets413WithJsonError) {
  HttpServerOptions options;
  options.max_body_bytes = 100;
  auto server = StartServer(options);
  Client c(server->port());
  c.Send(Post("/big", std::string(101, 'x')));
  auto r = c.Read();
  EXPECT_EQ(r.status, 413);
  EXPECT_NE(r.body.find("\"error\""), std::string::npos) << r.body;
  EXPECT_NE(r.body.find("request body larger than the limit of 100 bytes (--rest_api_max_body_mb)"),
            std::string::npos)
      << r.body;
  EXPECT_TRUE(c.ClosedByServer());
}

TEST(HttpServerTest, BodyOfExactlyTheLimitIsServed) {
  HttpServerOptions options;
  options.max_body_bytes = 100;
  auto server = StartServer(options);
  Client c(server->port());
  c.Send(Post("/big", std::string(100, 'x')));
  auto r = c.Read();
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(r.body, R"({"method": "POST", "target": "/big", "length": 100})");
}

TEST(HttpServerTest, LargeBodyArrivesInFewReads) {
  // A 600 KB body (a 224x224x3 float32 image) sent in one go: Beast reads
  // no more than the buffer's free room, so a buffer left at its first 512
  // bytes took over a thousand reads, each a trip through the I/O threads.
  auto server = StartServer({});
  ASSERT_NE(server, nullptr);
  Client c(server->port());
  const std::string body(224 * 224 * 3 * 4, 'x');
  uint64_t before = server->reads();
  c.Send(Post("/image", body));
  testing::HttpReply r = c.Read();
  EXPECT_EQ(r.status, 200);
  EXPECT_NE(r.body.find("\"length\": 602112"), std::string::npos) << r.body;
  // 602,112 bytes at up to 64 KiB a read is 10; the socket may hand over
  // less at a time, so allow 4x.
  EXPECT_LE(server->reads() - before, 40u);
  // The next request on the connection is read the same way.
  before = server->reads();
  c.Send(Post("/image", body));
  EXPECT_EQ(c.Read().status, 200);
  EXPECT_LE(server->reads() - before, 40u);
}

TEST(HttpServerTest, BodiesInFlightShareOneMemoryBudget) {
  HttpServerOptions options;
  options.max_total_body_bytes = 150;
  auto server = StartServer(options);
  Client first(server->port());
  first.Send("POST /a HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\npart");
  std::this_thread::sleep_for(100ms);
  // 100 + 100 bytes would pass the budget: the second upload is refused.
  Client second(server->port());
  second.Send("POST /b HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n");
  auto refused = second.Read();
  EXPECT_EQ(refused.status, 503);
  EXPECT_NE(refused.body.find("150 bytes"), std::string::npos) << refused.body;
  // Requests without a body need no budget; a finished upload returns its share.
  Client third(server->port());
  third.Send(Get("/c"));
  EXPECT_EQ(third.Read().status, 200);
  first.Send(std::string(96, 'x'));
  EXPECT_EQ(first.Read().status, 200);
  Client fourth(server->port());
  fourth.Send(Post("/d", std::string(100, 'y')));
  EXPECT_EQ(fourth.Read().status, 200);
}

TEST(HttpServerTest, HeaderOverTheLimitGets413) {
  HttpServerOptions options;
  options.max_header_bytes = 1024;
  auto server = StartServer(options);
  Client c(server->port());
  c.Send(Get("/", "X-Big: " + std::string(4000, 'a') + "\r\n"));
  auto r = c.Read();
  EXPECT_EQ(r.status, 413);
  EXPECT_NE(r.body.find("header"), std::string::npos) << r.body;
}

TEST(HttpServerTest, MalformedRequestLineGets400AndClose) {
  auto server = StartServer({});
  Client c(server->port());
  c.Send("THIS IS NOT HTTP\r\n\r\n");
  auto r = c.Read();
  EXPECT_EQ(r.status, 400);
  EXPECT_NE(r.body.find("Malformed"), std::string::npos) << r.body;
  EXPECT_TRUE(c.ClosedByServer());
}

TEST(HttpServerTest, SlowHandlerGets504AtTheRequestTimeout) {
  HttpServerOptions options;
  options.request_timeout_ms = 100;
  std::atomic<bool> release{false};
  auto server = StartServer(options, [&](const HttpRequest& r) {
    if (r.target == "/slow") {
      for (int i = 0; i < 300 && !release; ++i) std::this_thread::sleep_for(10ms);
    }
    return Echo(r);
  });
  Client c(server->port());
  auto start = std::chrono::steady_clock::now();
  c.Send(Get("/slow"));
  auto r = c.Read();
  auto took = std::chrono::steady_clock::now() - start;
  EXPECT_EQ(r.status, 504);
  EXPECT_NE(r.body.find("timed out"), std::string::npos) << r.body;
  EXPECT_LT(took, 2s);
  // The connection stays usable; the late answer of /slow never shows up.
  c.Send(Get("/next"));
  auto next = c.Read();
  EXPECT_EQ(next.status, 200);
  EXPECT_NE(next.body.find("/next"), std::string::npos) << next.body;
  release = true;
}

TEST(HttpServerTest, HandlerExceptionBecomes500) {
  auto server = StartServer({}, [](const HttpRequest&) -> HttpResponse { throw std::runtime_error("boom"); });
  Client c(server->port());
  c.Send(Get("/"));
  auto r = c.Read();
  EXPECT_EQ(r.status, 500);
  EXPECT_NE(r.body.find("boom"), std::string::npos);
}

TEST(HttpServerTest, IdleConnectionIsClosedAfterTheIdleTimeout) {
  HttpServerOptions options;
  options.idle_timeout_ms = 100;
  auto server = StartServer(options);
  Client c(server->port());
  c.Send(Get("/"));
  EXPECT_EQ(c.Read().status, 200);
  EXPECT_TRUE(c.ClosedByServer());  // within the client's 5 s read timeout
}

TEST(HttpServerTest, SlowClientGets408) {
  HttpServerOptions options;
  options.read_timeout_ms = 150;
  auto server = StartServer(options);
  Client c(server->port());
  c.Send("POST /x HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\nonly a part");
  auto r = c.Read();
  EXPECT_EQ(r.status, 408);
}

TEST(HttpServerTest, Expect100ContinueIsHonoured) {
  auto server = StartServer({});
  Client c(server->port());
  c.Send("POST /x HTTP/1.1\r\nHost: x\r\nContent-Length: 4\r\nExpect: 100-continue\r\n\r\n");
  auto interim = c.Read();
  EXPECT_EQ(interim.status, 100);
  c.Send("abcd");
  auto r = c.Read();
  EXPECT_EQ(r.status, 200);
  EXPECT_NE(r.body.find("\"length\": 4"), std::string::npos) << r.body;
}

TEST(HttpServerTest, StopFinishesInFlightRequestsAndClosesIdleOnes) {
  std::atomic<bool> entered{false};
  auto server = StartServer({}, [&](const HttpRequest& r) {
    entered = true;
    std::this_thread::sleep_for(300ms);
    return Echo(r);
  });
  Client idle(server->port());
  Client busy(server->port());
  ASSERT_TRUE(idle.connected());
  busy.Send(Get("/work"));
  while (!entered) std::this_thread::sleep_for(1ms);
  auto stopped = std::async(std::launch::async, [&] { return server->Stop(5000ms); });
  auto r = busy.Read();
  EXPECT_EQ(r.status, 200);
  EXPECT_NE(r.head.find("Connection: close"), std::string::npos) << r.head;
  EXPECT_TRUE(idle.ClosedByServer());
  EXPECT_TRUE(stopped.get());
  // Nothing is accepted any more.
  Client late(server->port());
  if (late.connected()) {
    late.Send(Get("/"));
    EXPECT_EQ(late.Read().status, 0);
  }
}

TEST(HttpServerTest, StopGivesUpOnRequestsPastTheDeadline) {
  std::atomic<bool> entered{false};
  auto server = StartServer({}, [&](const HttpRequest& r) {
    entered = true;
    std::this_thread::sleep_for(1000ms);
    return Echo(r);
  });
  Client busy(server->port());
  busy.Send(Get("/work"));
  while (!entered) std::this_thread::sleep_for(1ms);
  auto start = std::chrono::steady_clock::now();
  EXPECT_FALSE(server->Stop(100ms));
  EXPECT_LT(std::chrono::steady_clock::now() - start, 3s);
}

std::unique_ptr<HttpServer> StartAsyncServer(HttpServerOptions options, AsyncHttpHandler handler) {
  options.address = "127.0.0.1";
  options.port = 0;
  auto server = HttpServer::StartAsync(options, std::move(handler));
  EXPECT_TRUE(server.ok()) << server.status().ToString();
  return server.ok() ? std::move(*server) : nullptr;
}

// An asynchronous handler answers either before it returns (a fast model
// run inline: written at once from the I/O thread) or later from another
// thread; both reach the client in order on one keep-alive connection, and
// the I/O thread never waits for the late one.
TEST(HttpServerTest, AsyncHandlerAnswersBeforeReturningOrLaterFromAnotherThread) {
  HttpServerOptions options;
  options.num_threads = 1;
  std::mutex mu;
  std::vector<std::thread> late;
  std::promise<void> release;
  std::shared_future<void> released = release.get_future().share();
  auto server = StartAsyncServer(options, [&](std::shared_ptr<HttpRequest> r, HttpResponder respond) {
    HttpResponse res;
    res.body = r->target;
    if (r->target != "/later") return respond(std::move(res));
    std::lock_guard<std::mutex> l(mu);
    late.emplace_back([released, respond = std::move(respond), res = std::move(res)]() mutable {
      released.wait_for(5s);
      respond(std::move(res));
    });
  });
  ASSERT_NE(server, nullptr);
  Client c(server->port());
  for (int i = 0; i < 3; ++i) {
    c.Send(Get("/now" + std::to_string(i)));
    auto r = c.Read();
    EXPECT_EQ(r.status, 200);
    EXPECT_EQ(r.body, "/now" + std::to_string(i));
  }
  Client waiting(server->port());
  waiting.Send(Get("/later"));
  // The one I/O thread stays free while /later waits for its answer.
  c.Send(Get("/meanwhile"));
  EXPECT_EQ(c.Read().body, "/meanwhile");
  release.set_value();
  auto r = waiting.Read();
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(r.body, "/later");
  waiting.Send(Get("/again"));
  EXPECT_EQ(waiting.Read().body, "/again");
  server->Stop(1s);
  std::lock_guard<std::mutex> l(mu);
  for (auto& t : late) t.join();
}

// An asynchronous handler that throws before answering gets 500, and one
// that drops its responder unanswered gets 500 too; the connection goes on.
TEST(HttpServerTest, AsyncHandlerThatThrowsOrDropsTheResponderGets500) {
  auto server = StartAsyncServer({}, [](std::shared_ptr<HttpRequest> r, HttpResponder respond) {
    if (r->target == "/throw") throw std::runtime_error("kaboom");
    if (r->target == "/drop") return;
    HttpResponse res;
    res.body = "ok";
    respond(std::move(res));
  });
  ASSERT_NE(server, nullptr);
  Client c(server->port());
  c.Send(Get("/throw"));
  auto thrown = c.Read();
  EXPECT_EQ(thrown.status, 500);
  EXPECT_NE(thrown.body.find("kaboom"), std::string::npos) << thrown.body;
  c.Send(Get("/drop"));
  EXPECT_EQ(c.Read().status, 500);
  c.Send(Get("/fine"));
  EXPECT_EQ(c.Read().body, "ok");
}

TEST(HttpServerTest, ResponseHeadHasServerTypeLengthAndExtraFieldsWithoutLineBreaks) {
  auto server = StartServer({}, [](const HttpRequest&) {
    HttpResponse res;
    res.status = 404;
    res.content_type = "text/plain";
    res.body = "nope";
    res.headers.emplace_back("X-Extra", "a\r\nInjected: yes");
    return res;
  });
  ASSERT_NE(server, nullptr);
  Client c(server->port());
  c.Send(Get("/"));
  auto r = c.Read();
  EXPECT_EQ(r.status, 404);
  EXPECT_EQ(r.body, "nope");
  EXPECT_EQ(r.head.rfind("HTTP/1.1 404 Not Found\r\n", 0), 0u) << r.head;
  EXPECT_NE(r.head.find("\r\nServer: tfhost\r\n"), std::string::npos) << r.head;
  EXPECT_NE(r.head.find("\r\nContent-Type: text/plain\r\n"), std::string::npos) << r.head;
  EXPECT_NE(r.head.find("\r\nContent-Length: 4"), std::string::npos) << r.head;
  EXPECT_NE(r.head.find("\r\nX-Extra: a  Injected: yes"), std::string::npos) << r.head;
  EXPECT_EQ(r.head.find("\r\nInjected"), std::string::npos) << r.head;
  // HTTP/1.0 with keep-alive asked for is told so, and stays open.
  Client old(server->port());
  old.Send("GET / HTTP/1.0\r\nConnection: keep-alive\r\n\r\n");
  auto r10 = old.Read();
  EXPECT_EQ(r10.head.rfind("HTTP/1.0 404", 0), 0u) << r10.head;
  EXPECT_NE(r10.head.find("\r\nConnection: keep-alive"), std::string::npos) << r10.head;
  old.Send("GET / HTTP/1.0\r\nConnection: keep-alive\r\n\r\n");
  EXPECT_EQ(old.Read().status, 404);
}

TEST(HttpServerTest, PortInUseIsAnErrorNamingThePort) {
  auto first = StartServer({});
  HttpServerOptions options;
  options.address = "127.0.0.1";
  options.port = first->port();
  auto second = HttpServer::Start(options, Echo);
  TFHOST_ASSERT_ERROR(second, StatusCode::kUnavailable, "Address already in use");
  EXPECT_NE(second.status().message().find(std::to_string(first->port())), std::string::npos);
}

}  // namespace
}  // namespace tfhost::serving
