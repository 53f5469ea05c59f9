// gRPC front end of `tfhost serve`: tensorflow.serving.PredictionService
// (Predict, Classify, Regress, MultiInference, GetModelMetadata) and
// tensorflow.serving.ModelService (GetModelStatus, HandleReloadConfigRequest)
// over a ServerCore, answering as TensorFlow Serving does: the same messages,
// and the ServerCore's status code (tfhost's code numbers are gRPC's) and
// error text unchanged. The Open Inference Protocol's
// inference.GRPCInferenceService (v2/v2_grpc_service.h) is served beside them.
//
// The services are grpc++ synchronous handlers: ServerCore calls block while
// a model runs (or while a batch fills), which is what sync handler threads
// are for; callback reactors would need a thread hop per call to the same
// effect. Message size limits default to TF Serving's (INT_MAX each way); a
// request or response over the limit fails with RESOURCE_EXHAUSTED before any
// model runs (requests) or instead of the response (responses).
//
// grpc++ headers stay in grpc_server.cc so that includers do not compile them.
//
// Thread-safety: Start/Shutdown from one controlling thread; the services
// run on grpc's threads and call ServerCore concurrently.
#pragma once

#include <chrono>
#include <climits>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "base/status.h"
#include "serving/http/tls_config.h"

namespace tfhost::serving {

class ServerCore;

// One --grpc_channel_arguments entry ("grpc.max_connection_age_ms=2000").
// As in TF Serving, a value that parses as a 32-bit integer is passed to gRPC
// as an integer, anything else as a string.
struct GrpcChannelArgument {
  std::string key;
  std::string value;
};

// Parses TF Serving's --grpc_channel_arguments: comma-separated key=value
// pairs; empty text gives none. Errors name the malformed entry.
StatusOr<std::vector<GrpcChannelArgument>> ParseGrpcChannelArguments(const std::string& text);

struct GrpcServerOptions {
  std::string address = "0.0.0.0";
  int port = 8500;  // 0 = pick a free port (see GrpcServer::port())
  // Serve on TCP address:port at all (false: only on the UNIX socket).
  bool tcp = true;
  // Also serve on this UNIX domain socket (TF Serving's --grpc_socket_path);
  // "" = none. A stale socket file left by a dead server is replaced.
  std::string socket_path;
  // Largest message accepted / sent, 1..INT_MAX bytes (gRPC's own ceiling is
  // INT_MAX, just under 2 GiB). TF Serving fixes both at INT_MAX.
  int max_receive_message_bytes = INT_MAX;
  int max_send_message_bytes = INT_MAX;
  // Most threads grpc++ may run handlers on (TF Serving's --grpc_max_threads);
  // 0 = grpc's default (grows with demand).
  int max_threads = 0;
  // Passed to grpc (ints as ints); grpc.max_receive_message_length and
  // grpc.max_send_message_length replace the limits above (-1 = INT_MAX), as
  // TF Serving's --grpc_channel_arguments can override its limits.
  std::vector<GrpcChannelArgument> channel_arguments;
  // The server version the v2 ServerMetadata call reports.
  std::string server_version;
  // TLS (--ssl_config_file, already validated) on TCP and the UNIX socket;
  // unset: plaintext. client_verify requires a client certificate signed
  // by custom_ca.
  std::optional<TlsConfig> tls;
};

// Checks ranges; errors name the option and the accepted range.
Status ValidateGrpcServerOptions(const GrpcServerOptions& options);

class GrpcServer {
 public:
  // Registers both services over `core` (not owned; must outlive the
  // server), binds and starts serving. Errors name the address and port.
  static StatusOr<std::unique_ptr<GrpcServer>> Start(const GrpcServerOptions& options, ServerCore* core);
  ~GrpcServer();  // Shutdown(0) if still running
  GrpcServer(const GrpcServer&) = delete;
  GrpcServer& operator=(const GrpcServer&) = delete;

  // The bound port (the real one when options.port was 0); 0 when only the
  // UNIX socket is served.
  int port() const { return port_; }

  // Graceful stop (grpc::Server::Shutdown with a deadline): new calls are
  // refused at once; calls in flight may finish until `deadline` has passed,
  // then grpc cancels them (clients see UNAVAILABLE) and this returns once
  // every handler has returned. True if every call finished in time.
  // Idempotent; later calls return the first result.
  bool Shutdown(std::chrono::milliseconds deadline);

  // Calls currently inside a handler.
  int64_t in_flight() const;

  class Impl;

 private:
  GrpcServer() = default;
  std::unique_ptr<Impl> impl_;
  int port_ = 0;
  bool shut_down_ = false;
  bool drained_ = true;
};

}  // namespace tfhost::serving
