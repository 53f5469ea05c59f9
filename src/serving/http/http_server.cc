// HttpServer's listening, threads and stopping; the per-connection protocol
// is in http_connection.h. The only .cc that includes Beast/Asio for HTTP:
// they compile slowly, so everything else talks to HttpServer through
// http_server.h.
#include "serving/http/http_server.h"

#include <boost/asio/dispatch.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/strand.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>

#include "base/trace/trace.h"
#include "serving/http/http_connection.h"
#include "serving/http/http_server_impl.h"
#include "serving/http/tls_context.h"

namespace tfhost::serving {

namespace beast = boost::beast;
namespace http = boost::beast::http;
namespace net = boost::asio;
using tcp = net::ip::tcp;

namespace {

constexpr size_t kMaxConnections = 10000;

}  // namespace

Status HttpServer::Impl::Listen() {
  if (options_.tls) {
    TFHOST_ASSIGN_OR_RETURN(tls_, http_internal::MakeTlsServerContext(*options_.tls));
  }
  beast::error_code ec;
  auto address = net::ip::make_address(options_.address, ec);
  if (ec) return InvalidArgument("HTTP server: bad listen address '" + options_.address + "': " + ec.message());
  tcp::endpoint endpoint(address, static_cast<unsigned short>(options_.port));
  std::string where = options_.address + ":" + std::to_string(options_.port);
  acceptor_->open(endpoint.protocol(), ec);
  if (ec) return Unavailable("HTTP server: cannot open a socket for " + where + ": " + ec.message());
  acceptor_->set_option(net::socket_base::reuse_address(true), ec);
  acceptor_->bind(endpoint, ec);
  if (ec) return Unavailable("HTTP server: cannot bind " + where + ": " + ec.message());
  acceptor_->listen(net::socket_base::max_listen_connections, ec);
  if (ec) return Unavailable("HTTP server: cannot listen on " + where + ": " + ec.message());
  port_ = acceptor_->local_endpoint(ec).port();
  Accept();
  return OkStatus();
}

void HttpServer::Impl::Accept() {
  acceptor_->async_accept(net::make_strand(*ioc_), [self = shared_from_this()](beast::error_code ec, tcp::socket s) {
    if (ec == net::error::operation_aborted || !self->acceptor_->is_open()) return;
    if (!ec && !self->stopping()) {
      beast::error_code ignored;
      s.set_option(tcp::no_delay(true), ignored);
      size_t live;
      {
        std::lock_guard<std::mutex> lock(self->connections_mu_);
        live = self->connections_.size();
      }
      if (live >= kMaxConnections) {
        s.close(ignored);  // bounded memory: refuse past the connection cap
      } else {
        uint64_t id = self->next_id_++;
        std::shared_ptr<http_internal::ConnectionBase> c;
        if (self->tls_) {
          c = std::make_shared<http_internal::Connection<beast::ssl_stream<beast::tcp_stream>>>(self, id, std::move(s),
                                                                                               *self->tls_);
        } else {
          c = std::make_shared<http_internal::Connection<beast::tcp_stream>>(self, id, std::move(s));
        }
        self->Register(id, c);
        c->Start();
      }
    }
    // Transient accept errors (EMFILE, ...) must not stop the server.
    self->Accept();
  });
}

void HttpServer::Impl::Register(uint64_t id, const std::shared_ptr<http_internal::ConnectionBase>& c) {
  std::lock_guard<std::mutex> lock(connections_mu_);
  connections_[id] = c;
}

void HttpServer::Impl::Unregister(uint64_t id) {
  std::lock_guard<std::mutex> lock(connections_mu_);
  connections_.erase(id);
  connections_cv_.notify_all();
}

void HttpServer::Impl::StartThreads() {
  int n = std::max(1, options_.num_threads);
  running_threads_ = n;
  for (int i = 0; i < n; ++i) {
    // Threads hold the Impl so that a thread still inside a slow handler
    // after Stop() gave up on it cannot outlive what it uses.
    threads_.emplace_back([self = shared_from_this(), i] {
      trace::SetThreadName("http io " + std::to_string(i));
      for (;;) {
        try {
          self->ioc_->run();
          break;
        } catch (...) {
          // A handler threw past every catch; keep serving.
        }
      }
      std::lock_guard<std::mutex> lock(self->threads_mu_);
      --self->running_threads_;
      self->threads_cv_.notify_all();
    });
  }
}

bool HttpServer::Impl::Stop(std::chrono::milliseconds deadline) {
  if (stopped_) return true;
  stopped_ = true;
  auto until = std::chrono::steady_clock::now() + deadline;
  stopping_.store(true, std::memory_order_release);
  net::dispatch(acceptor_->get_executor(), [self = shared_from_this()] {
    beast::error_code ignored;
    self->acceptor_->close(ignored);
  });
  std::vector<std::shared_ptr<http_internal::ConnectionBase>> live;
  {
    std::lock_guard<std::mutex> lock(connections_mu_);
    for (auto& [id, weak] : connections_) {
      if (auto c = weak.lock()) live.push_back(std::move(c));
    }
  }
  for (auto& c : live) c->OnServerStop();
  live.clear();
  bool drained;
  {
    std::unique_lock<std::mutex> lock(connections_mu_);
    drained = connections_cv_.wait_until(lock, until, [&] { return connections_.empty(); });
    if (!drained) {
      for (auto& [id, weak] : connections_) {
        if (auto c = weak.lock()) live.push_back(std::move(c));
      }
    }
  }
  for (auto& c : live) c->ForceClose();
  live.clear();
  ioc_->stop();
  bool threads_done;
  {
    // Threads finish their current handler; a handler stuck past a grace
    // period is left behind (it holds its own reference to this Impl).
    std::unique_lock<std::mutex> lock(threads_mu_);
    threads_done = threads_cv_.wait_for(lock, std::chrono::seconds(2), [&] { return running_threads_ == 0; });
  }
  for (auto& t : threads_) {
    if (threads_done) {
      t.join();
    } else {
      t.detach();
    }
  }
  threads_.clear();
  if (threads_done) {
    {
      std::unique_lock<std::shared_mutex> lock(alive_mu_);
      alive_ = false;
    }
    acceptor_.reset();
    ioc_.reset();
  }
  return drained && in_flight.load() == 0;
}

HttpServer::HttpServer(std::shared_ptr<Impl> impl) : impl_(std::move(impl)) {}

StatusOr<std::unique_ptr<HttpServer>> HttpServer::Start(const HttpServerOptions& options, HttpHandler handler) {
  if (!handler) return InvalidArgument("HTTP server: no handler");
  return StartImpl(options,
                   [handler = std::move(handler)](std::shared_ptr<HttpRequest> request, HttpResponder respond) {
                     respond(handler(*request));
                   },
                   /*handler_may_block=*/true);
}

StatusOr<std::unique_ptr<HttpServer>> HttpServer::StartAsync(const HttpServerOptions& options,
                                                             AsyncHttpHandler handler) {
  if (!handler) return InvalidArgument("HTTP server: no handler");
  return StartImpl(options, std::move(handler), /*handler_may_block=*/false);
}

StatusOr<std::unique_ptr<HttpServer>> HttpServer::StartImpl(const HttpServerOptions& options,
                                                            AsyncHttpHandler handler, bool handler_may_block) {
  if (options.port < 0 || options.port > 65535) {
    return InvalidArgument("HTTP server: port must be in [0, 65535], got " + std::to_string(options.port));
  }
  auto impl = std::make_shared<Impl>(options, std::move(handler), handler_may_block);
  TFHOST_RETURN_IF_ERROR(impl->Listen());
  impl->StartThreads();
  return std::unique_ptr<HttpServer>(new HttpServer(std::move(impl)));
}

HttpServer::~HttpServer() {
  if (impl_) impl_->Stop(std::chrono::milliseconds(0));
}

int HttpServer::port() const { return impl_->port(); }

bool HttpServer::Stop(std::chrono::milliseconds deadline) { return impl_->Stop(deadline); }

int64_t HttpServer::in_flight() const { return impl_->in_flight.load(); }
uint64_t HttpServer::reads() const { return impl_->reads.load(); }

std::string_view HttpReasonPhrase(int status) {
  return http::obsolete_reason(static_cast<http::status>(status));
}

}  // namespace tfhost::serving
