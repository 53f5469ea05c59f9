// The only file that includes Beast/Asio for HTTP: they compile slowly, so
// everything else talks to HttpServer through http_server.h.
#include "serving/http/http_server.h"

#include <array>
#include <atomic>
#include <boost/asio/bind_executor.hpp>
#include <boost/asio/dispatch.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/strand.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <condition_variable>
#include <exception>
#include <mutex>
#include <optional>
#include <shared_mutex>
#include <thread>
#include <unordered_map>

#include "serving/rest/json_tensor_codec.h"

namespace tfhost::serving {

namespace beast = boost::beast;
namespace http = boost::beast::http;
namespace net = boost::asio;
using tcp = net::ip::tcp;

namespace {

constexpr size_t kMaxConnections = 10000;

std::string JsonErrorBody(std::string_view message) { return MakeJsonError(message); }

}  // namespace

class Connection;

class HttpServer::Impl : public std::enable_shared_from_this<HttpServer::Impl> {
 public:
  Impl(const HttpServerOptions& options, AsyncHttpHandler handler, bool handler_may_block)
      : options_(options), handler_(std::move(handler)), handler_may_block_(handler_may_block),
        ioc_(std::make_unique<net::io_context>(std::max(1, options.num_threads))),
        acceptor_(std::make_unique<tcp::acceptor>(net::make_strand(*ioc_))) {}

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
  net::io_context& ioc() { return *ioc_; }
  bool stopping() const { return stopping_.load(std::memory_order_acquire); }
  int port() const { return port_; }

  void Register(uint64_t id, const std::shared_ptr<Connection>& c);
  void Unregister(uint64_t id);

  std::atomic<int64_t> in_flight{0};

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
  std::unordered_map<uint64_t, std::weak_ptr<Connection>> connections_;
  std::condition_variable connections_cv_;
  std::atomic<uint64_t> next_id_{1};
  // Pointers so that Stop() can destroy them: that drops the handlers still
  // queued, and with them the references they hold to connections and to
  // this Impl.
  std::unique_ptr<net::io_context> ioc_;
  std::unique_ptr<tcp::acceptor> acceptor_;
  std::atomic<bool> stopping_{false};
  std::atomic<uint64_t> body_bytes_{0};  // reserved by requests being read or handled
  int port_ = 0;
  std::vector<std::thread> threads_;
  std::mutex threads_mu_;
  std::condition_variable threads_cv_;
  int running_threads_ = 0;
  bool stopped_ = false;
};

// One TCP connection: reads a request, runs the handler off the strand,
// writes the response, repeats while keep-alive holds. Every member is
// touched only on the strand (the stream's executor).
class Connection : public std::enable_shared_from_this<Connection> {
 public:
  Connection(std::shared_ptr<HttpServer::Impl> server, tcp::socket socket, uint64_t id)
      : server_(std::move(server)), stream_(std::move(socket)), timer_(stream_.get_executor()),
        read_timer_(stream_.get_executor()), id_(id) {}
  ~Connection() { server_->Unregister(id_); }

  void Start() {
    net::dispatch(stream_.get_executor(), [self = shared_from_this()] { self->StartRead(); });
  }

  // Called (through the strand) when the server stops: an idle connection
  // closes now; a busy one closes after its response.
  void OnServerStop() {
    net::dispatch(stream_.get_executor(), [self = shared_from_this()] {
      if (self->state_ == State::kIdle) self->Close();
    });
  }

  // Called when the stop deadline passes.
  void ForceClose() {
    net::dispatch(stream_.get_executor(), [self = shared_from_this()] { self->Close(); });
  }

  // The handler's answer to request `generation`, from any thread; dropped
  // when that request already timed out or the connection closed.
  void Deliver(uint64_t generation, HttpResponse response) {
    server_->IfRunning([&] {
      net::dispatch(stream_.get_executor(),
                    [self = shared_from_this(), generation, response = std::move(response)]() mutable {
                      if (generation != self->generation_ || self->state_ != State::kHandling) return;
                      self->timer_.cancel();
                      self->WriteResponse(std::move(response), /*counted=*/true);
                    });
    });
  }

 private:
  enum class State { kIdle, kReading, kHandling, kWriting, kClosed };

  const HttpServerOptions& options() const { return server_->options(); }

  void StartRead() {
    if (state_ == State::kClosed) return;
    if (server_->stopping()) {
      Close();
      return;
    }
    parser_.emplace();
    parser_->header_limit(static_cast<std::uint32_t>(std::min<size_t>(options().max_header_bytes, UINT32_MAX)));
    parser_->body_limit(options().max_body_bytes);
    continue_sent_ = false;
    read_timed_out_ = false;
    body_reserved_ = false;
    state_ = State::kIdle;
    // Our own timer rather than tcp_stream's expiry: that one closes the
    // socket, and a slow client should still get its 408.
    stream_.expires_never();
    ArmReadTimer(options().idle_timeout_ms);
    // Bytes of a pipelined request may already be buffered.
    if (buffer_.size() > 0) BeginRequest();
    ReadSome();
  }

  void BeginRequest() {
    state_ = State::kReading;
    ArmReadTimer(options().read_timeout_ms);
  }

  void ArmReadTimer(int64_t ms) {
    uint64_t generation = ++read_generation_;
    read_timer_.expires_after(std::chrono::milliseconds(ms));
    read_timer_.async_wait([self = shared_from_this(), generation](beast::error_code ec) {
      if (ec || generation != self->read_generation_) return;
      if (self->state_ != State::kIdle && self->state_ != State::kReading) return;
      self->read_timed_out_ = true;
      beast::error_code ignored;
      self->stream_.socket().cancel(ignored);
    });
  }

  void DisarmReadTimer() {
    ++read_generation_;
    read_timer_.cancel();
  }

  void ReadSome() {
    http::async_read_some(stream_, buffer_, *parser_,
                          [self = shared_from_this()](beast::error_code ec, size_t n) { self->OnRead(ec, n); });
  }

  void OnRead(beast::error_code ec, size_t n) {
    if (state_ == State::kClosed) return;
    if (ec) {
      if (read_timed_out_ || ec == beast::error::timeout) {
        if (state_ == State::kReading) {
          return SendErrorAndClose(408, "request not received completely within " +
                                            std::to_string(options().read_timeout_ms) + " ms");
        }
        return Close();  // idle keep-alive connection
      }
      if (ec == net::error::operation_aborted) return Close();
      if (ec == http::error::end_of_stream || ec == net::error::eof || ec == net::error::connection_reset) {
        return Close();
      }
      if (ec == http::error::body_limit) {
        return SendErrorAndClose(413, "request body larger than the limit of " +
                                          std::to_string(options().max_body_bytes) + " bytes");
      }
      if (ec == http::error::header_limit) {
        return SendErrorAndClose(413, "request header larger than the limit of " +
                                          std::to_string(options().max_header_bytes) + " bytes");
      }
      return SendErrorAndClose(400, "Malformed HTTP request: " + ec.message());
    }
    if (state_ == State::kIdle && (n > 0 || parser_->got_some())) {
      // A request that arrived whole in one read needs no slow-client timer.
      if (parser_->is_done()) {
        state_ = State::kReading;
      } else {
        BeginRequest();
      }
    }
    if (parser_->is_header_done() && !body_reserved_) {
      // Bodies in flight share one memory budget, so that many slow large
      // uploads cannot add up past it; the answer is 503, as to any overload.
      body_reserved_ = true;
      auto length = parser_->content_length();
      // No Content-Length: a chunked body may grow to the limit; otherwise
      // there is no body at all.
      uint64_t want = length ? *length : (parser_->chunked() ? options().max_body_bytes : 0);
      if (!server_->ReserveBodyBytes(want)) {
        return SendErrorAndClose(503, "too many large request bodies in flight (" +
                                          std::to_string(options().max_total_body_bytes) +
                                          " bytes in all); retry later");
      }
      reserved_bytes_ = want;
    }
    if (!parser_->is_done()) {
      if (parser_->is_header_done() && !continue_sent_) {
        continue_sent_ = true;
        auto expect = parser_->get().find(http::field::expect);
        if (expect != parser_->get().end() && beast::iequals(expect->value(), "100-continue")) {
          static const std::string kContinue = "HTTP/1.1 100 Continue\r\n\r\n";
          net::async_write(stream_, net::buffer(kContinue),
                           [self = shared_from_this()](beast::error_code wec, size_t) {
                             if (wec) return self->Close();
                             self->ReadSome();
                           });
          return;
        }
      }
      return ReadSome();
    }
    Dispatch();
  }

  void Dispatch() {
    state_ = State::kHandling;
    DisarmReadTimer();
    server_->in_flight.fetch_add(1, std::memory_order_relaxed);
    auto& req = parser_->get();
    keep_alive_ = req.keep_alive();
    version_ = req.version();
    auto request = std::make_shared<HttpRequest>();
    request->method = std::string(req.method_string());
    request->target = std::string(req.target());
    request->body = std::move(req.body());
    for (const auto& field : req) {
      request->headers.emplace_back(std::string(field.name_string()), std::string(field.value()));
    }
    auto now = std::chrono::steady_clock::now();
    request->deadline = options().request_timeout_ms > 0
                            ? now + std::chrono::milliseconds(options().request_timeout_ms)
                            : std::chrono::steady_clock::time_point::max();
    uint64_t generation = ++generation_;
    if (options().request_timeout_ms > 0) {
      timer_.expires_at(request->deadline);
      timer_.async_wait([self = shared_from_this(), generation](beast::error_code ec) {
        if (ec || generation != self->generation_ || self->state_ != State::kHandling) return;
        ++self->generation_;  // the handler's late answer is dropped
        HttpResponse timeout;
        timeout.status = 504;
        timeout.body = JsonErrorBody("request timed out after " + std::to_string(self->options().request_timeout_ms) +
                                     " ms (--rest_api_timeout_in_ms)");
        self->WriteResponse(std::move(timeout), /*counted=*/true);
      });
    }
    if (server_->handler_may_block()) {
      // A blocking handler runs outside the strand so that the timeout
      // above can fire while it works.
      net::post(server_->ioc(), [self = shared_from_this(), request = std::move(request), generation]() mutable {
        self->CallHandler(std::move(request), generation);
      });
      return;
    }
    // An asynchronous handler returns quickly, so it runs here on the
    // strand: no hop to another I/O thread, and an answer it gives before
    // returning (a fast model run inline) is written from this thread
    // at once (Deliver's dispatch runs inline on the strand). Posting cost
    // two thread wake-ups per request under load.
    CallHandler(std::move(request), generation);
  }

  void CallHandler(std::shared_ptr<HttpRequest> request, uint64_t generation) {
    auto state = std::make_shared<Answer>(shared_from_this(), generation);
    HttpResponder respond = [state](HttpResponse response) { state->Give(std::move(response)); };
    try {
      server_->handler()(std::move(request), std::move(respond));
    } catch (const std::exception& e) {
      state->Give(InternalError(std::string("internal error: ") + e.what()));
    } catch (...) {
      state->Give(InternalError("internal error"));
    }
  }

  static HttpResponse InternalError(const std::string& message) {
    HttpResponse response;
    response.status = 500;
    response.body = JsonErrorBody(message);
    return response;
  }

  // Shared by the copies of one request's HttpResponder: the first answer
  // wins, and a request nobody answered gets 500 when the last copy goes.
  class Answer {
   public:
    Answer(std::shared_ptr<Connection> connection, uint64_t generation)
        : connection_(std::move(connection)), generation_(generation) {}
    ~Answer() { Give(InternalError("internal error: the request was dropped without an answer")); }
    void Give(HttpResponse response) {
      if (given_.exchange(true)) return;
      connection_->Deliver(generation_, std::move(response));
    }

   private:
    std::shared_ptr<Connection> connection_;
    uint64_t generation_;
    std::atomic<bool> given_{false};
  };

  void SendErrorAndClose(int status, const std::string& message) {
    keep_alive_ = false;
    if (version_ == 0) version_ = 11;
    HttpResponse response;
    response.status = status;
    response.body = JsonErrorBody(message);
    WriteResponse(std::move(response), /*counted=*/false);
  }

  void WriteResponse(HttpResponse response, bool counted) {
    // The body's share of the budget goes back as soon as the answer exists:
    // a client that has read its answer may upload again at once, before
    // this write's completion handler has run.
    ReleaseBodyBytes();
    state_ = State::kWriting;
    DisarmReadTimer();
    counted_ = counted;
    bool keep = keep_alive_ && !server_->stopping();
    keep_alive_ = keep;
    // The head is formatted here into a buffer the connection reuses, and
    // head and body go out in one gathered write: Beast's message and
    // serializer cost an allocation per header field and a slow buffer walk
    // per request, a visible share of a small predict's cost.
    const unsigned version = version_ ? version_ : 11;
    std::string& head = write_head_;
    head.clear();
    head += version == 10 ? "HTTP/1.0 " : "HTTP/1.1 ";
    head += std::to_string(response.status);
    head += ' ';
    head += HttpReasonPhrase(response.status);
    head += "\r\n";
    if (!options().server_name.empty()) AppendField(http::to_string(http::field::server), options().server_name);
    AppendField(http::to_string(http::field::content_type), response.content_type);
    for (const auto& [name, value] : response.headers) AppendField(name, value);
    AppendField(http::to_string(http::field::content_length), std::to_string(response.body.size()));
    // HTTP/1.1 keeps the connection unless told; HTTP/1.0 closes unless told.
    if (version >= 11 && !keep) AppendField(http::to_string(http::field::connection), "close");
    if (version < 11 && keep) AppendField(http::to_string(http::field::connection), "keep-alive");
    head += "\r\n";
    write_body_ = std::move(response.body);
    stream_.expires_after(std::chrono::milliseconds(options().read_timeout_ms));
    std::array<net::const_buffer, 2> buffers{net::buffer(write_head_), net::buffer(write_body_)};
    net::async_write(stream_, buffers, [self = shared_from_this()](beast::error_code ec, size_t) { self->OnWrite(ec); });
  }

  // One header line; CR and LF in a value (from a handler) become spaces so
  // that no value can end the head early.
  void AppendField(std::string_view name, std::string_view value) {
    write_head_ += name;
    write_head_ += ": ";
    for (char c : value) write_head_ += (c == '\r' || c == '\n') ? ' ' : c;
    write_head_ += "\r\n";
  }

  void ReleaseBodyBytes() {
    server_->ReleaseBodyBytes(reserved_bytes_);
    reserved_bytes_ = 0;
  }

  void OnWrite(beast::error_code ec) {
    // A large answer's memory is not kept for the connection's lifetime.
    if (write_body_.capacity() > 64 * 1024) std::string().swap(write_body_);
    if (counted_) {
      server_->in_flight.fetch_sub(1, std::memory_order_relaxed);
      counted_ = false;
    }
    if (ec || !keep_alive_) return Close();
    StartRead();
  }

  void Close() {
    if (state_ == State::kClosed) return;
    if (counted_) {
      server_->in_flight.fetch_sub(1, std::memory_order_relaxed);
      counted_ = false;
    }
    if (state_ == State::kHandling) {
      // The handler still runs; its answer will find the connection closed.
      server_->in_flight.fetch_sub(1, std::memory_order_relaxed);
      ++generation_;
    }
    state_ = State::kClosed;
    ReleaseBodyBytes();
    timer_.cancel();
    DisarmReadTimer();
    beast::error_code ignored;
    stream_.socket().shutdown(tcp::socket::shutdown_both, ignored);
    stream_.socket().close(ignored);
  }

  std::shared_ptr<HttpServer::Impl> server_;
  beast::tcp_stream stream_;
  net::steady_timer timer_;       // handler timeout
  net::steady_timer read_timer_;  // idle and slow-client timeouts
  uint64_t id_;
  beast::flat_buffer buffer_;
  // The response being written (one at a time per connection).
  std::string write_head_;
  std::string write_body_;
  std::optional<http::request_parser<http::string_body>> parser_;
  State state_ = State::kIdle;
  bool keep_alive_ = true;
  bool continue_sent_ = false;
  bool counted_ = false;
  bool read_timed_out_ = false;
  bool body_reserved_ = false;
  uint64_t reserved_bytes_ = 0;
  uint64_t read_generation_ = 0;
  unsigned version_ = 0;
  uint64_t generation_ = 0;
};

Status HttpServer::Impl::Listen() {
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
        auto c = std::make_shared<Connection>(self, std::move(s), id);
        self->Register(id, c);
        c->Start();
      }
    }
    // Transient accept errors (EMFILE, ...) must not stop the server.
    self->Accept();
  });
}

void HttpServer::Impl::Register(uint64_t id, const std::shared_ptr<Connection>& c) {
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
    threads_.emplace_back([self = shared_from_this()] {
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
  std::vector<std::shared_ptr<Connection>> live;
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

std::string_view HttpReasonPhrase(int status) {
  return http::obsolete_reason(static_cast<http::status>(status));
}

}  // namespace tfhost::serving
