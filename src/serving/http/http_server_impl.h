// Internal to src/serving/http: the state an HttpServer shares with its
// connections (HttpServer::Impl) and the interface the server stops them
// through. Includes Beast/Asio, so only http_server.cc and
// http_connection.h include it.
//
// Thread-safety: Impl's public members may be used from any I/O thread;
// Listen/StartThreads/Stop from the controlling thread.
#pragma once

#include <algorithm>
#include <atomic>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl/context.hpp>
#include <boost/asio/strand.hpp>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <shared_mutex>
#include <thread>
#include <unordered_map>
#include <vector>

#include "serving/http/http_server.h"

namespace tfhost::serving {

namespace http_internal {

// What the server needs of a connection, whatever its stream (TCP or TLS).
class ConnectionBase {
 public:
  virtual ~ConnectionBase() = default;
  virtual void Start() = 0;
  // The server stops: an idle connection closes now, a busy one after its response.
  virtual void OnServerStop() = 0;
  // The stop deadline passed.
  virtual void ForceClose() = 0;
};

}  // namespace http_internal

class HttpServer::Impl : public std::enable_shared_from_this<HttpServer::Impl> {
 public:
  Impl(const HttpServerOptions& options, AsyncHttpHandler handler, bool handler_may_block)
      : options_(options), handler_(std::move(handler)), handler_may_block_(handler_may_block),
        ioc_(std::make_unique<boost::asio::io_context>(std::max(1, options.num_threads))),
        acceptor_(std::make_unique<boost::asio::ip::tcp::acceptor>(boost::asio::make_strand(*ioc_))) {}

  Status Listen();
  void StartThreads();
  bool Stop(std::chrono::milliseconds deadline);

  const HttpServerOptions& options() const { return options_; }
  const AsyncHttpHandler& handler() const { return handler_; }
  // A blocking handler (Start) runs off the connection's strand so that
  // the request timeout can fire while it works; an asynchronous one
  // (StartAsync) returns quickly by contract and runs on the strand.
  bool handler_may_block() const { return handler_may_block_; }

  // Runs `fn` (which posts to the io_context) unless the io_context is gone:
  // asynchronous answers may arrive from other threads at any time, also
  // after Stop() destroyed it.
  template <typename Fn>
  void IfRunning(Fn&& fn) {
    std::shared_lock<std::shared_mutex> lock(alive_mu_);
    if (alive_) fn();
  }
  boost::asio::io_context& ioc() { return *ioc_; }
  bool stopping() const { return stopping_.load(std::memory_order_acquire); }
  int port() const { return port_; }

  void Register(uint64_t id, const std::shared_ptr<http_internal::ConnectionBase>& c);
  void Unregister(uint64_t id);

  std::atomic<int64_t> in_flight{0};
  std::atomic<uint64_t> reads{0};  // completed socket reads, all connections

  bool ReserveBodyBytes(uint64_t n) {
    uint64_t cur = body_bytes_.load(std::memory_order_relaxed);
    do {
      if (cur + n > options_.max_total_body_bytes) return false;
    } while (!body_bytes_.compare_exchange_weak(cur, cur + n, std::memory_order_relaxed));
    return true;
  }
  void ReleaseBodyBytes(uint64_t n) {
    if (n > 0) body_bytes_.fetch_sub(n, std::memory_order_relaxed);
  }

 private:
  void Accept();

  HttpServerOptions options_;
  AsyncHttpHandler handler_;
  bool handler_may_block_;
  std::shared_mutex alive_mu_;
  bool alive_ = true;  // ioc_ exists
  // Declared before ioc_: connections (destroyed with ioc_) unregister here.
  std::mutex connections_mu_;
  std::unordered_map<uint64_t, std::weak_ptr<http_internal::ConnectionBase>> connections_;
  std::condition_variable connections_cv_;
  std::atomic<uint64_t> next_id_{1};
  // Pointers so that Stop() can destroy them: that drops the handlers still
  // queued, and with them the references they hold to connections and to
  // this Impl.
  std::unique_ptr<boost::asio::io_context> ioc_;
  std::unique_ptr<boost::asio::ip::tcp::acceptor> acceptor_;
  // Set with options.tls: every accepted connection speaks TLS.
  std::shared_ptr<boost::asio::ssl::context> tls_;
  std::atomic<bool> stopping_{false};
  std::atomic<uint64_t> body_bytes_{0};  // reserved by requests being read or handled
  int port_ = 0;
  std::vector<std::thread> threads_;
  std::mutex threads_mu_;
  std::condition_variable threads_cv_;
  int running_threads_ = 0;
  bool stopped_ = false;
};

}  // namespace tfhost::serving
