#include "serving/grpc/grpc_server.h"

#include <grpc/grpc.h>
#include <grpcpp/grpcpp.h>
#include <grpcpp/resource_quota.h>

#include <atomic>
#include <charconv>
#include <filesystem>
#include <optional>
#include <system_error>

#include "base/trace/request_span.h"
#include "serving/server_core.h"
#include "serving/v2/v2_grpc_service.h"
#include "tensorflow_serving/apis/model_service.grpc.pb.h"
#include "tensorflow_serving/apis/prediction_service.grpc.pb.h"

namespace tfhost::serving {

namespace {

namespace ts = tensorflow::serving;

// gRPC carries the error text in a trailer; clients refuse trailers over
// their metadata limit (8 KiB by default) and then report a useless
// transport error instead of ours, so long texts are cut well below it.
constexpr size_t kMaxErrorMessageBytes = 4096;

static_assert(static_cast<int>(StatusCode::kCancelled) == grpc::StatusCode::CANCELLED &&
                  static_cast<int>(StatusCode::kInvalidArgument) == grpc::StatusCode::INVALID_ARGUMENT &&
                  static_cast<int>(StatusCode::kNotFound) == grpc::StatusCode::NOT_FOUND &&
                  static_cast<int>(StatusCode::kResourceExhausted) == grpc::StatusCode::RESOURCE_EXHAUSTED &&
                  static_cast<int>(StatusCode::kFailedPrecondition) == grpc::StatusCode::FAILED_PRECONDITION &&
                  static_cast<int>(StatusCode::kUnavailable) == grpc::StatusCode::UNAVAILABLE &&
                  static_cast<int>(StatusCode::kUnauthenticated) == grpc::StatusCode::UNAUTHENTICATED,
              "tfhost status codes must be gRPC's canonical codes");

grpc::Status ToGrpcStatus(const Status& status) {
  if (status.ok()) return grpc::Status::OK;
  std::string message = status.message();
  if (message.size() > kMaxErrorMessageBytes) {
    message.resize(kMaxErrorMessageBytes - 20);
    message += " ... (truncated)";
  }
  // tfhost's StatusCode numbers are gRPC's canonical codes.
  return grpc::Status(static_cast<grpc::StatusCode>(static_cast<int>(status.code())), std::move(message));
}

bool ParseInt32(const std::string& text, int* value) {
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, *value);
  return ec == std::errc() && ptr == end && !text.empty();
}

std::string ListenAddress(const std::string& address, int port) {
  // IPv6 literals need brackets before the port.
  if (address.find(':') != std::string::npos && address.front() != '[') {
    return "[" + address + "]:" + std::to_string(port);
  }
  return address + ":" + std::to_string(port);
}

}  // namespace

// Shared by both services: the core, the in-flight count, and what shutdown
// needs to know.
class GrpcServer::Impl {
 public:
  explicit Impl(ServerCore* core) : core_(core), prediction_(this), model_(this) {}

  // Runs `call` for one RPC: counts it in flight, skips calls the client
  // already gave up on, and notes calls grpc cancelled during shutdown.
  // While a trace is recorded the call is a request span named `method`
  // (the synchronous API hands over decoded messages, so the span runs from
  // the decoded request to the response handed back for encoding).
  template <typename Fn>
  grpc::Status Handle(grpc::ServerContext* context, Fn&& call, const char* method = "gRPC call") {
    in_flight_.fetch_add(1, std::memory_order_relaxed);
    trace::RequestSpan span;
    std::optional<trace::ScopedContext> traced;
    if (trace::Enabled()) {
      span.Begin(method);
      traced.emplace(span.context());
    }
    grpc::Status result;
    if (context->IsCancelled()) {
      result = grpc::Status(grpc::StatusCode::CANCELLED, "the call was cancelled before it started");
    } else {
      result = ToGrpcStatus(call());
      if (shutting_down_.load() && context->IsCancelled()) cancelled_in_shutdown_.fetch_add(1);
    }
    if (span.active()) span.args().Add("grpc_status", static_cast<int>(result.error_code()));
    traced.reset();
    span.End();
    in_flight_.fetch_sub(1, std::memory_order_relaxed);
    return result;
  }

  class PredictionServiceImpl final : public ts::PredictionService::Service {
   public:
    explicit PredictionServiceImpl(Impl* impl) : impl_(impl) {}

    grpc::Status Classify(grpc::ServerContext* context, const ts::ClassificationRequest* request,
                          ts::ClassificationResponse* response) override {
      return impl_->Handle(
          context, [&] { return impl_->core_->Classify(*request, response, Grpc(*context)); }, "gRPC Classify");
    }
    grpc::Status Regress(grpc::ServerContext* context, const ts::RegressionRequest* request,
                         ts::RegressionResponse* response) override {
      return impl_->Handle(
          context, [&] { return impl_->core_->Regress(*request, response, Grpc(*context)); }, "gRPC Regress");
    }
    grpc::Status Predict(grpc::ServerContext* context, const ts::PredictRequest* request,
                         ts::PredictResponse* response) override {
      return impl_->Handle(
          context, [&] { return impl_->core_->Predict(*request, response, Grpc(*context)); }, "gRPC Predict");
    }
    grpc::Status MultiInference(grpc::ServerContext* context, const ts::MultiInferenceRequest* request,
                                ts::MultiInferenceResponse* response) override {
      return impl_->Handle(
          context, [&] { return impl_->core_->MultiInference(*request, response, Grpc(*context)); },
          "gRPC MultiInference");
    }
    grpc::Status GetModelMetadata(grpc::ServerContext* context, const ts::GetModelMetadataRequest* request,
                                  ts::GetModelMetadataResponse* response) override {
      return impl_->Handle(
          context, [&] { return impl_->core_->GetModelMetadata(*request, response, Grpc(*context)); },
          "gRPC GetModelMetadata");
    }

   private:
    static RequestContext Grpc(const grpc::ServerContext& context) {
      RequestContext c{Entrypoint::kGrpc};
      if (context.deadline() != std::chrono::system_clock::time_point::max()) c.deadline = context.deadline();
      return c;
    }
    Impl* impl_;
  };

  class ModelServiceImpl final : public ts::ModelService::Service {
   public:
    explicit ModelServiceImpl(Impl* impl) : impl_(impl) {}

    grpc::Status GetModelStatus(grpc::ServerContext* context, const ts::GetModelStatusRequest* request,
                                ts::GetModelStatusResponse* response) override {
      return impl_->Handle(context, [&] {
        return impl_->core_->GetModelStatus(*request, response, RequestContext{Entrypoint::kGrpc});
      });
    }
    // As in TF Serving, a failed reload is both the call's status and
    // response.status (grpc sends no response body with a non-OK status, so
    // clients see the former).
    grpc::Status HandleReloadConfigRequest(grpc::ServerContext* context, const ts::ReloadConfigRequest* request,
                                           ts::ReloadConfigResponse* response) override {
      return impl_->Handle(context, [&] { return impl_->core_->HandleReloadConfigRequest(*request, response); });
    }

   private:
    Impl* impl_;
  };

  ServerCore* core_;
  PredictionServiceImpl prediction_;
  ModelServiceImpl model_;
  std::unique_ptr<v2::V2GrpcService> v2_;
  std::unique_ptr<grpc::Server> server_;
  std::atomic<int64_t> in_flight_{0};
  std::atomic<bool> shutting_down_{false};
  std::atomic<int64_t> cancelled_in_shutdown_{0};
};

StatusOr<std::vector<GrpcChannelArgument>> ParseGrpcChannelArguments(const std::string& text) {
  std::vector<GrpcChannelArgument> out;
  if (text.empty()) return out;
  size_t start = 0;
  while (start <= text.size()) {
    size_t comma = text.find(',', start);
    if (comma == std::string::npos) comma = text.size();
    std::string entry = text.substr(start, comma - start);
    size_t eq = entry.find('=');
    if (eq == std::string::npos || eq == 0) {
      return InvalidArgument("--grpc_channel_arguments: entry '" + entry +
                             "' is not key=value (expected e.g. grpc.max_connection_age_ms=2000,"
                             "grpc.max_concurrent_streams=100)");
    }
    out.push_back({entry.substr(0, eq), entry.substr(eq + 1)});
    start = comma + 1;
  }
  return out;
}

Status ValidateGrpcServerOptions(const GrpcServerOptions& options) {
  if (options.port < 0 || options.port > 65535) {
    return InvalidArgument("gRPC port must be between 0 and 65535, got " + std::to_string(options.port));
  }
  if (options.max_receive_message_bytes < 1 || options.max_send_message_bytes < 1) {
    return InvalidArgument("gRPC message size limits must be between 1 and " + std::to_string(INT_MAX) +
                           " bytes, got receive " + std::to_string(options.max_receive_message_bytes) + " and send " +
                           std::to_string(options.max_send_message_bytes));
  }
  if (options.max_threads < 0) {
    return InvalidArgument("gRPC max threads must be 0 (grpc's default) or more, got " +
                           std::to_string(options.max_threads));
  }
  if (options.tcp && options.address.empty()) return InvalidArgument("gRPC listen address must not be empty");
  if (!options.tcp && options.socket_path.empty()) {
    return InvalidArgument("gRPC must listen somewhere: a TCP port or a UNIX socket path (--grpc_socket_path)");
  }
  // sockaddr_un holds 108 bytes with the terminating NUL.
  if (options.socket_path.size() > 107) {
    return InvalidArgument("gRPC socket path '" + options.socket_path + "' is " +
                           std::to_string(options.socket_path.size()) + " bytes; UNIX sockets allow at most 107");
  }
  for (const GrpcChannelArgument& arg : options.channel_arguments) {
    if (arg.key.empty()) return InvalidArgument("gRPC channel argument with an empty key (value '" + arg.value + "')");
  }
  return OkStatus();
}

StatusOr<std::unique_ptr<GrpcServer>> GrpcServer::Start(const GrpcServerOptions& options, ServerCore* core) {
  TFHOST_RETURN_IF_ERROR(ValidateGrpcServerOptions(options));
  if (core == nullptr) return InvalidArgument("GrpcServer::Start needs a ServerCore");
  std::unique_ptr<GrpcServer> server(new GrpcServer());
  server->impl_ = std::make_unique<Impl>(core);

  grpc::ServerBuilder builder;
  const std::string address = options.tcp ? ListenAddress(options.address, options.port) : "";
  int selected_port = 0;
  // With --ssl_config_file both listeners (TCP and the UNIX socket) take TLS.
  std::shared_ptr<grpc::ServerCredentials> credentials = grpc::InsecureServerCredentials();
  if (options.tls) {
    grpc::SslServerCredentialsOptions ssl(options.tls->client_verify
                                              ? GRPC_SSL_REQUEST_AND_REQUIRE_CLIENT_CERTIFICATE_AND_VERIFY
                                              : GRPC_SSL_DONT_REQUEST_CLIENT_CERTIFICATE);
    ssl.pem_root_certs = options.tls->custom_ca;
    ssl.pem_key_cert_pairs.push_back({options.tls->server_key, options.tls->server_cert});
    credentials = grpc::SslServerCredentials(ssl);
  }
  if (options.tcp) builder.AddListeningPort(address, credentials, &selected_port);
  int socket_bound = 0;
  if (!options.socket_path.empty()) {
    // A socket file left by a server that died is not in use; a live one
    // would refuse our bind below, and an ordinary file is never removed.
    std::error_code ec;
    if (std::filesystem::is_socket(options.socket_path, ec)) std::filesystem::remove(options.socket_path, ec);
    builder.AddListeningPort("unix:" + options.socket_path, credentials, &socket_bound);
  }
  builder.RegisterService(&server->impl_->prediction_);
  builder.RegisterService(&server->impl_->model_);
  Impl* impl = server->impl_.get();
  impl->v2_ = std::make_unique<v2::V2GrpcService>(
      core, options.server_version,
      [impl](grpc::ServerContext* context, const std::function<Status()>& call) {
        return impl->Handle(context, call, "gRPC v2 inference");
      });
  builder.RegisterService(impl->v2_.get());
  // ServerBuilder applies its own limits over channel arguments with the same
  // keys, so those arguments are folded into the limits instead (TF Serving
  // lets --grpc_channel_arguments override its INT_MAX default this way).
  int max_receive = options.max_receive_message_bytes;
  int max_send = options.max_send_message_bytes;
  std::vector<GrpcChannelArgument> other_arguments;
  for (const GrpcChannelArgument& arg : options.channel_arguments) {
    int value = 0;
    bool is_int = ParseInt32(arg.value, &value);
    if (arg.key == GRPC_ARG_MAX_RECEIVE_MESSAGE_LENGTH || arg.key == GRPC_ARG_MAX_SEND_MESSAGE_LENGTH) {
      if (!is_int || value < -1 || value == 0) {
        return InvalidArgument("gRPC channel argument " + arg.key + "=" + arg.value +
                               ": expected a byte count from 1 to " + std::to_string(INT_MAX) + ", or -1 (no limit)");
      }
      (arg.key == GRPC_ARG_MAX_RECEIVE_MESSAGE_LENGTH ? max_receive : max_send) = value < 0 ? INT_MAX : value;
    } else {
      other_arguments.push_back(arg);
    }
  }
  builder.SetMaxReceiveMessageSize(max_receive);
  builder.SetMaxSendMessageSize(max_send);
  // grpc turns SO_REUSEPORT on by default, which would let a second server
  // "bind" a port that is already serving and split its traffic; a busy
  // port must be an error instead.
  builder.AddChannelArgument(GRPC_ARG_ALLOW_REUSEPORT, 0);
  if (options.max_threads > 0) {
    grpc::ResourceQuota quota("tfhost_grpc");
    quota.SetMaxThreads(options.max_threads);
    builder.SetResourceQuota(quota);
  }
  for (const GrpcChannelArgument& arg : other_arguments) {
    int value = 0;
    if (ParseInt32(arg.value, &value)) {
      builder.AddChannelArgument(arg.key, value);
    } else {
      builder.AddChannelArgument(arg.key, arg.value);
    }
  }
  server->impl_->server_ = builder.BuildAndStart();
  if (server->impl_->server_ == nullptr || (options.tcp && selected_port == 0) ||
      (!options.socket_path.empty() && socket_bound == 0)) {
    if (server->impl_->server_) server->impl_->server_->Shutdown();
    std::string where = options.tcp ? address : "";
    if (!options.socket_path.empty()) where += (where.empty() ? "" : " and ") + ("unix:" + options.socket_path);
    return Unavailable("cannot serve gRPC on " + where +
                       " (is the port in use, the address not one of this machine's, or the socket's folder "
                       "missing or not writable?)");
  }
  server->port_ = selected_port;
  return server;
}

GrpcServer::~GrpcServer() {
  if (impl_ && impl_->server_) Shutdown(std::chrono::milliseconds(0));
}

bool GrpcServer::Shutdown(std::chrono::milliseconds deadline) {
  if (shut_down_) return drained_;
  shut_down_ = true;
  impl_->shutting_down_.store(true);
  // Returns once every handler has returned: those still running at the
  // deadline are cancelled but finish their current model run first.
  impl_->server_->Shutdown(std::chrono::system_clock::now() + std::max(deadline, std::chrono::milliseconds(0)));
  impl_->server_->Wait();
  drained_ = impl_->cancelled_in_shutdown_.load() == 0;
  return drained_;
}

int64_t GrpcServer::in_flight() const { return impl_->in_flight_.load(std::memory_order_relaxed); }

}  // namespace tfhost::serving
