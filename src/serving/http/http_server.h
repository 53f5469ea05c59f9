// HTTP/1.1 server for `tfhost serve`'s REST API, plain or over TLS (HTTPS,
// options.tls; Boost.Beast and OpenSSL underneath, kept out of this header so
// that includers do not compile Beast).
//
// One io_context runs on `num_threads` threads. Each connection reads one
// request at a time (so pipelined requests are answered in order), runs the
// handler — a blocking one (Start) on one of those threads outside the
// connection's strand (so its timeout can fire meanwhile), an asynchronous
// one (StartAsync) right on the strand, since it returns quickly and may
// answer later from any thread — and writes the response; keep-alive follows
// HTTP/1.1 rules. Limits: header and body sizes (413 with a JSON
// error, then close), idle time between requests, the time a started
// request may take to arrive (slow clients get 408), the time a response may
// take to be written, and the per-request handler timeout (504 with a JSON
// error; the handler's late result is dropped). Stop(deadline) stops
// accepting, closes idle connections, lets in-flight requests finish until
// the deadline, then closes everything.
//
// Thread-safety: the handler is called concurrently from several threads.
// Start/Stop from one controlling thread.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/status.h"
#include "serving/http/tls_config.h"

namespace tfhost::serving {

struct HttpRequest {
  std::string method;  // "GET", "POST", ... as sent
  std::string target;  // path and query, as sent ("/v1/models/x:predict")
  std::string body;
  // Header fields (name as sent, value); few enough to search linearly.
  std::vector<std::pair<std::string, std::string>> headers;
  // When the server will give up on this request (handlers may pass it on).
  std::chrono::steady_clock::time_point deadline;
};

struct HttpResponse {
  int status = 200;
  std::string content_type = "application/json";
  std::string body;
  std::vector<std::pair<std::string, std::string>> headers;  // extra fields
};

// Must be thread-safe; must not throw (exceptions are answered with 500).
using HttpHandler = std::function<HttpResponse(const HttpRequest&)>;

// Answers one request; call it once, from any thread, at any time (a handler
// may return first and answer later from another thread). Dropping every
// copy without calling it answers 500. An answer that arrives after the
// request timed out or the connection closed is discarded.
using HttpResponder = std::function<void(HttpResponse)>;
// An asynchronous handler: called on an I/O thread, it should return quickly
// and answer through the responder (possibly later, or before it returns:
// that answer is written at once from the same thread); the request may be
// moved from. It runs on the connection's strand, so that connection's
// request timeout cannot fire before it returns: work that may take long
// belongs on another thread. Must be thread-safe; exceptions thrown before
// answering are answered with 500.
using AsyncHttpHandler = std::function<void(std::shared_ptr<HttpRequest>, HttpResponder)>;

struct HttpServerOptions {
  std::string address = "0.0.0.0";
  int port = 8501;  // 0 = pick a free port (see HttpServer::port())
  int num_threads = 4;
  // Handler time limit; 0 = none.
  int64_t request_timeout_ms = 0;
  size_t max_header_bytes = 64 * 1024;
  size_t max_body_bytes = 64 * 1024 * 1024;
  // All request bodies being read or handled at once (by Content-Length, or
  // max_body_bytes when chunked); past it new requests get 503.
  size_t max_total_body_bytes = size_t{1} << 30;
  // Time a keep-alive connection may sit between requests.
  int64_t idle_timeout_ms = 60000;
  // Time from a request's first byte to its last; also bounds a write.
  int64_t read_timeout_ms = 30000;
  // Value of the Server header; empty = none.
  std::string server_name = "tfhost";
  // HTTPS (--ssl_config_file, validated by ReadSslConfigFile); unset: plain
  // HTTP. A connection that fails the TLS handshake (within
  // read_timeout_ms) is closed without an answer.
  std::optional<TlsConfig> tls;
};

class HttpServer {
 public:
  // Binds, listens and starts the threads. Errors name the address and port.
  static StatusOr<std::unique_ptr<HttpServer>> Start(const HttpServerOptions& options, HttpHandler handler);
  // The same with an asynchronous handler, so that slow work (a model run)
  // does not hold one of the `num_threads` I/O threads.
  static StatusOr<std::unique_ptr<HttpServer>> StartAsync(const HttpServerOptions& options,
                                                          AsyncHttpHandler handler);
  ~HttpServer();  // Stop(0) if still running

  // The bound port (the real one when options.port was 0).
  int port() const;

  // Graceful stop: no new connections; idle connections close now; requests
  // being read or handled finish (responses carry "Connection: close") until
  // `deadline` passes, then every connection is closed. Returns when all
  // threads have exited; true if every in-flight request finished in time.
  bool Stop(std::chrono::milliseconds deadline);

  // Requests currently being handled or written.
  int64_t in_flight() const;

  // Socket reads completed so far, over all connections: how many trips
  // through the I/O threads requests took to arrive.
  uint64_t reads() const;

  class Impl;

 private:
  explicit HttpServer(std::shared_ptr<Impl> impl);
  static StatusOr<std::unique_ptr<HttpServer>> StartImpl(const HttpServerOptions& options, AsyncHttpHandler handler,
                                                         bool handler_may_block);
  // Shared with the server's threads (see Stop()).
  std::shared_ptr<Impl> impl_;
};

// Canonical reason phrase ("Not Found") for a status code.
std::string_view HttpReasonPhrase(int status);

}  // namespace tfhost::serving
