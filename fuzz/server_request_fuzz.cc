// Fuzzes `tfhost serve` in process, through the three ways a request comes in,
// over a ServerCore serving tfhost's demo models (half_plus_two, mlp, cnn)
// written once to the scratch folder, wired as serve_command.cc wires them.
// The first input byte picks the way; the rest is the request:
//
//   0 REST handler: "<METHOD> <TARGET>\n[<Name>: <value>\n...\n]\n<BODY>"
//     (without a blank line after the first, everything after it is the
//     body; without a newline at all, the input is a POST body to
//     /v1/models/half_plus_two:predict) through RestApiHandler::HandleAsync:
//     routing, v1 JSON predict/classify/regress, the Open Inference
//     Protocol's JSON and binary tensor extension (headers such as
//     Inference-Header-Content-Length), tensor conversion, model runs.
//     Every answer must be a valid HTTP status, and an error a JSON
//     {"error": ...} body.
//   1 HTTP wire: the bytes as they are, over a loopback TCP connection to the
//     HttpServer carrying that handler, then a half-close: request-line and
//     header syntax, chunked and Content-Length framing, pipelining, bodies
//     past the limit. The server must answer or close within kWireDeadline.
//   2 gRPC: the second byte picks a method of PredictionService, ModelService
//     or GRPCInferenceService, the rest is the serialized request, sent with
//     a generic stub over a loopback channel to the GrpcServer: protobuf
//     parsing, the v1 and v2 request codecs, model runs. Every call must end
//     (any status) within kWireDeadline.
//
// Left out: requests that change what is served (ModelService's config
// reload, the v2 repository's load and unload, by gRPC and REST). They would
// make each input's outcome depend on the ones before it, so a finding
// would not reproduce from its input alone.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <grpcpp/generic/generic_stub.h>
#include <grpcpp/grpcpp.h>

#include <cerrno>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <future>
#include <memory>
#include <string>
#include <string_view>

#include "fuzz/fuzz_file_util.h"
#include "loaders/savedmodel/demo_models.h"
#include "serving/grpc/grpc_server.h"
#include "serving/http/http_server.h"
#include "serving/rest/rest_api_handler.h"
#include "serving/server_core.h"

namespace {

constexpr auto kWireDeadline = std::chrono::seconds(20);

const char* const kGrpcMethods[] = {
    "/tensorflow.serving.PredictionService/Predict",
    "/tensorflow.serving.PredictionService/Classify",
    "/tensorflow.serving.PredictionService/Regress",
    "/tensorflow.serving.PredictionService/MultiInference",
    "/tensorflow.serving.PredictionService/GetModelMetadata",
    "/tensorflow.serving.ModelService/GetModelStatus",
    "/inference.GRPCInferenceService/ServerLive",
    "/inference.GRPCInferenceService/ServerReady",
    "/inference.GRPCInferenceService/ModelReady",
    "/inference.GRPCInferenceService/ServerMetadata",
    "/inference.GRPCInferenceService/ModelMetadata",
    "/inference.GRPCInferenceService/ModelInfer",
    "/inference.GRPCInferenceService/RepositoryIndex",
};

[[noreturn]] void Fail(const std::string& what) {
  std::fprintf(stderr, "server_request_fuzz: %s\n", what.c_str());
  std::abort();
}

struct Server {
  std::unique_ptr<tfhost::serving::ServerCore> core;
  std::unique_ptr<tfhost::serving::RestApiHandler> rest;
  std::unique_ptr<tfhost::serving::HttpServer> http;
  std::unique_ptr<tfhost::serving::GrpcServer> grpc;
  std::unique_ptr<grpc::GenericStub> stub;
};

// Shut down when the fuzzer exits (the destructors stop gRPC and HTTP and
// join their threads): left running, gRPC's sync server dropped the records
// of worker threads it had retired, and LeakSanitizer's check at exit
// reported them, after 2 h 20 min and 12.5 million inputs.
Server* the_server = nullptr;

Server& TheServer() {
  static Server* server = [] {
    const std::string dir = tfhost::fuzz::ScratchDir() + "/demo";
    auto written = tfhost::loaders::WriteDemoModels(dir);
    if (!written.ok()) Fail("cannot write demo models: " + written.status().ToString());
    tfhost::serving::ServerCoreOptions options;
    for (const std::string& name : tfhost::loaders::DemoModelNames()) {
      auto* model = options.model_server_config.mutable_model_config_list()->add_config();
      model->set_name(name);
      model->set_base_path(dir + "/" + name);
      model->set_model_platform("tensorflow");
    }
    options.manager.file_system_poll_wait_seconds = 0;
    options.manager.log_sink = [](const std::string&) {};
    options.worker_threads = 2;
    auto core = tfhost::serving::ServerCore::Create(std::move(options));
    if (!core.ok()) Fail("cannot serve the demo models: " + core.status().ToString());
    auto* s = new Server;
    the_server = s;
    std::atexit([] {
      delete the_server;
      the_server = nullptr;
    });
    s->core = std::move(*core);
    s->rest = std::make_unique<tfhost::serving::RestApiHandler>(s->core.get(), tfhost::serving::RestApiOptions{});

    tfhost::serving::HttpServerOptions http;
    http.address = "127.0.0.1";
    http.port = 0;
    http.num_threads = 2;
    http.max_body_bytes = 1 << 20;
    http.read_timeout_ms = 5000;
    auto* rest = s->rest.get();
    auto started = tfhost::serving::HttpServer::StartAsync(
        http, [rest](std::shared_ptr<tfhost::serving::HttpRequest> r, tfhost::serving::HttpResponder respond) {
          rest->HandleAsync(r->method, r->target, r->headers, std::move(r->body),
                            [respond = std::move(respond)](tfhost::serving::RestResponse res) {
                              tfhost::serving::HttpResponse out;
                              out.status = res.status;
                              out.body = std::move(res.body);
                              out.content_type = std::move(res.content_type);
                              out.headers = std::move(res.headers);
                              respond(std::move(out));
                            });
        });
    if (!started.ok()) Fail("cannot start the HTTP server: " + started.status().ToString());
    s->http = std::move(*started);

    tfhost::serving::GrpcServerOptions grpc_options;
    grpc_options.address = "127.0.0.1";
    grpc_options.port = 0;
    grpc_options.max_receive_message_bytes = 1 << 20;
    auto grpc_started = tfhost::serving::GrpcServer::Start(grpc_options, s->core.get());
    if (!grpc_started.ok()) Fail("cannot start the gRPC server: " + grpc_started.status().ToString());
    s->grpc = std::move(*grpc_started);
    auto channel = grpc::CreateChannel("127.0.0.1:" + std::to_string(s->grpc->port()), grpc::InsecureChannelCredentials());
    s->stub = std::make_unique<grpc::GenericStub>(channel);
    return s;
  }();
  return *server;
}

bool ChangesWhatIsServed(std::string_view method, std::string_view target) {
  if (method != "POST" && method != "post") return false;
  std::string lower(target);
  for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return lower.find("repository") != std::string::npos;
}

void ThroughHandler(Server& server, std::string_view all) {
  std::string method = "POST";
  std::string target = "/v1/models/half_plus_two:predict";
  tfhost::serving::RestHeaders headers;
  std::string body(all);
  if (size_t nl = all.find('\n'); nl != std::string_view::npos) {
    std::string_view line = all.substr(0, nl);
    size_t space = line.find(' ');
    method = std::string(line.substr(0, space));
    target = space == std::string_view::npos ? "" : std::string(line.substr(space + 1));
    std::string_view rest = all.substr(nl + 1);
    if (size_t blank = rest.find("\n\n"); blank != std::string_view::npos) {
      std::string_view head = rest.substr(0, blank);
      while (!head.empty()) {
        size_t end = head.find('\n');
        std::string_view field = head.substr(0, end);
        if (size_t colon = field.find(':'); colon != std::string_view::npos) {
          std::string_view value = field.substr(colon + 1);
          while (!value.empty() && value.front() == ' ') value.remove_prefix(1);
          headers.emplace_back(std::string(field.substr(0, colon)), std::string(value));
        }
        head = end == std::string_view::npos ? std::string_view() : head.substr(end + 1);
      }
      rest = rest.substr(blank + 2);
    }
    body = std::string(rest);
  }
  if (ChangesWhatIsServed(method, target)) return;
  auto answer = std::make_shared<std::promise<tfhost::serving::RestResponse>>();
  auto future = answer->get_future();
  server.rest->HandleAsync(method, target, headers, std::move(body),
                           [answer](tfhost::serving::RestResponse r) { answer->set_value(std::move(r)); });
  tfhost::serving::RestResponse r = future.get();  // a second answer would throw: promise already satisfied
  if (r.status < 200 || r.status > 599) Fail("HTTP status " + std::to_string(r.status));
  if (r.status >= 400 && r.body.rfind("{\"error\": ", 0) != 0 && r.body.rfind("{\"error\":", 0) != 0) {
    Fail("error answer without an error body: " + r.body.substr(0, 200));
  }
}

void OverTheWire(Server& server, std::string_view bytes) {
  // The handler path covers repository requests' parsing; here, a request
  // line naming the repository is not sent at all.
  std::string lower(bytes.substr(0, 4096));
  for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (lower.find("repository") != std::string::npos) return;
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) Fail("socket() failed");
  // Each connection comes from another address of 127/8. A connection the
  // server closes first leaves its end in TIME_WAIT for a minute, holding
  // that (client address, port) pair; from one client address, hundreds of
  // connections a second used up its ~28,000 ephemeral ports after about an
  // hour.
  static uint32_t next_source = 0;
  sockaddr_in source{};
  source.sin_family = AF_INET;
  source.sin_addr.s_addr = htonl(0x7F000000u | (1 + next_source++ % 0xFFFFFDu));
  if (::bind(fd, reinterpret_cast<sockaddr*>(&source), sizeof(source)) != 0) {
    Fail(std::string("bind() to a loopback source address failed: ") + std::strerror(errno));
  }
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(server.http->port()));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0) {
    // libFuzzer's once-a-second timer signal can interrupt connect(); the
    // connection then goes on in the background, and SO_ERROR says how it
    // ended. Only a connection that really failed is a finding.
    int error = errno;
    if (error == EINTR) {
      pollfd p{fd, POLLOUT, 0};
      int ready;
      do {
        ready = ::poll(&p, 1, 5000);
      } while (ready < 0 && errno == EINTR);
      socklen_t len = sizeof(error);
      if (ready <= 0) {
        error = ETIMEDOUT;
      } else if (::getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &len) != 0) {
        error = errno;
      }
    }
    if (error != 0) Fail(std::string("connect() to the HTTP server failed: ") + std::strerror(error));
  }
  size_t sent = 0;
  while (sent < bytes.size()) {
    const ssize_t n = ::send(fd, bytes.data() + sent, bytes.size() - sent, MSG_NOSIGNAL);
    if (n <= 0) break;  // the server may close early (a malformed request line)
    sent += static_cast<size_t>(n);
  }
  ::shutdown(fd, SHUT_WR);
  const auto deadline = std::chrono::steady_clock::now() + kWireDeadline;
  char buf[65536];
  for (;;) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) Fail("the HTTP server neither answered nor closed the connection in time");
    pollfd p{fd, POLLIN, 0};
    if (::poll(&p, 1, static_cast<int>(left.count())) <= 0) continue;
    const ssize_t n = ::recv(fd, buf, sizeof(buf), 0);
    if (n <= 0) break;
  }
  // The fuzzer half-closed first, so a plain close would leave this end in
  // TIME_WAIT too; an abortive close frees it now.
  const linger abort_close{1, 0};
  ::setsockopt(fd, SOL_SOCKET, SO_LINGER, &abort_close, sizeof(abort_close));
  ::close(fd);
}

void ThroughGrpc(Server& server, std::string_view bytes) {
  if (bytes.empty()) return;
  const char* method = kGrpcMethods[static_cast<uint8_t>(bytes[0]) % std::size(kGrpcMethods)];
  bytes.remove_prefix(1);
  grpc::Slice slice(bytes.data(), bytes.size());
  grpc::ByteBuffer request(&slice, 1);
  grpc::ByteBuffer response;
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() + kWireDeadline);
  std::promise<grpc::Status> done;
  server.stub->UnaryCall(&context, method, grpc::StubOptions(), &request, &response,
                         [&done](grpc::Status status) { done.set_value(std::move(status)); });
  const grpc::Status status = done.get_future().get();
  if (status.error_code() == grpc::StatusCode::DEADLINE_EXCEEDED) Fail(std::string(method) + " did not answer in time");
  if (status.error_code() != grpc::StatusCode::UNAVAILABLE) return;
  // UNAVAILABLE is also an answer tfhost gives; the server must still be up.
  grpc::Slice no_bytes(std::string{});
  grpc::ByteBuffer empty_request(&no_bytes, 1);
  grpc::ByteBuffer live;
  grpc::ClientContext live_context;
  live_context.set_deadline(std::chrono::system_clock::now() + kWireDeadline);
  std::promise<grpc::Status> live_done;
  server.stub->UnaryCall(&live_context, "/inference.GRPCInferenceService/ServerLive", grpc::StubOptions(),
                         &empty_request, &live, [&live_done](grpc::Status s) { live_done.set_value(std::move(s)); });
  const grpc::Status alive = live_done.get_future().get();
  if (!alive.ok()) Fail(std::string(method) + " answered UNAVAILABLE and the server stopped answering: " + alive.error_message());
}

}  // namespace

// The servers start before the first input, so their start never counts
// against an input's -timeout.
extern "C" int LLVMFuzzerInitialize(int*, char***) {
  (void)TheServer();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  Server& server = TheServer();
  if (size == 0) return 0;
  std::string_view request(reinterpret_cast<const char*>(data) + 1, size - 1);
  switch (data[0] % 3) {
    case 0: ThroughHandler(server, request); break;
    case 1: OverTheWire(server, request); break;
    default: ThroughGrpc(server, request); break;
  }
  return 0;
}
