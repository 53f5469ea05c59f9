// The REST API over real sockets: HttpServer carrying RestApiHandler on the
// half_plus_two fixture, one keep-alive connection for several TF Serving
// cases, and the server-level errors (413, malformed request line) as JSON.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include "base/test_fixtures.h"
#include "serving/http/http_server.h"
#include "serving/rest/rest_api_handler.h"
#include "serving/server_core.h"

namespace tfhost::serving {
namespace {

class Socket {
 public:
  explicit Socket(int port) {
    fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
    timeval tv{10, 0};
    ::setsockopt(fd_, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(static_cast<uint16_t>(port));
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    ok_ = ::connect(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) == 0;
  }
  ~Socket() { ::close(fd_); }
  bool ok() const { return ok_; }
  void Send(const std::string& s) { ::send(fd_, s.data(), s.size(), MSG_NOSIGNAL); }
  // One Content-Length framed response: {status, body}; status 0 on close.
  std::pair<int, std::string> Read() {
    size_t head;
    while ((head = buffer_.find("\r\n\r\n")) == std::string::npos) {
      if (!Fill()) return {0, ""};
    }
    size_t cl = buffer_.find("Content-Length: ");
    size_t length = cl < head ? std::stoul(buffer_.substr(cl + 16)) : 0;
    while (buffer_.size() < head + 4 + length) {
      if (!Fill()) return {0, ""};
    }
    int status = std::stoi(buffer_.substr(9, 3));
    std::string body = buffer_.substr(head + 4, length);
    buffer_.erase(0, head + 4 + length);
    return {status, body};
  }

 private:
  bool Fill() {
    char buf[4096];
    ssize_t n = ::recv(fd_, buf, sizeof(buf), 0);
    if (n <= 0) return false;
    buffer_.append(buf, n);
    return true;
  }
  int fd_ = -1;
  bool ok_ = false;
  std::string buffer_;
};

class RestOverHttpTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string model = testing::FixturePath("models/tfserving/saved_model_half_plus_two_cpu");
    TFHOST_REQUIRE_FIXTURE(model);
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
    auto server = HttpServer::Start(http, [this](const HttpRequest& r) {
      RestResponse res = rest_->Handle(r.method, r.target, r.body);
      HttpResponse out;
      out.status = res.status;
      out.body = std::move(res.body);
      out.content_type = std::move(res.content_type);
      return out;
    });
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
  EXPECT_NE(status.second.find(R"("state":"AVAILABLE")"), std::string::npos) << status.second;
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

}  // namespace
}  // namespace tfhost::serving
