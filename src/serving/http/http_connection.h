// Internal to src/serving/http: one HTTP/1.1 connection of HttpServer, over
// TCP or TLS (the template parameter). Only http_server.cc includes it: it
// pulls in Beast and Asio's SSL.
//
// Thread-safety: see Connection; the server calls Start, OnServerStop and
// ForceClose from any thread, which hop onto the connection's strand.
#pragma once

#include <array>
#include <atomic>
#include <boost/asio/bind_executor.hpp>
#include <boost/asio/dispatch.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/ssl.hpp>
#include <exception>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>

#include "base/trace/request_span.h"
#include "serving/http/http_server_impl.h"
#include "serving/rest/json_tensor_codec.h"

namespace tfhost::serving::http_internal {

namespace beast = boost::beast;
namespace http = boost::beast::http;
namespace net = boost::asio;
using tcp = net::ip::tcp;

// One connection: reads a request, runs the handler off the strand,
// writes the response, repeats while keep-alive holds. Every member is
// touched only on the strand (the stream's executor). `Stream` is
// beast::tcp_stream, or beast::ssl_stream<beast::tcp_stream> for HTTPS,
// where the TLS handshake comes first, bounded by read_timeout_ms.
template <class Stream>
class Connection : public ConnectionBase, public std::enable_shared_from_this<Connection<Stream>> {
 public:
  static constexpr bool kTls = !std::is_same_v<Stream, beast::tcp_stream>;

  // `stream_args` construct the stream: (socket) or (socket, ssl context).
  template <class... StreamArgs>
  Connection(std::shared_ptr<HttpServer::Impl> server, uint64_t id, StreamArgs&&... stream_args)
      : server_(std::move(server)), stream_(std::forward<StreamArgs>(stream_args)...),
        timer_(stream_.get_executor()), read_timer_(stream_.get_executor()), id_(id) {}
  ~Connection() override { server_->Unregister(id_); }

  void Start() override {
    net::dispatch(stream_.get_executor(), [self = this->shared_from_this()] {
      if constexpr (kTls) {
        self->Handshake();
      } else {
        self->StartRead();
      }
    });
  }

  // Called (through the strand) when the server stops: an idle connection
  // closes now; a busy one closes after its response.
  void OnServerStop() override {
    net::dispatch(stream_.get_executor(), [self = this->shared_from_this()] {
      if (self->state_ == State::kIdle) self->Close();
    });
  }

  // Called when the stop deadline passes.
  void ForceClose() override {
    net::dispatch(stream_.get_executor(), [self = this->shared_from_this()] { self->Close(); });
  }

  // The handler's answer to request `generation`, from any thread; dropped
  // when that request already timed out or the connection closed.
  void Deliver(uint64_t generation, HttpResponse response) {
    server_->IfRunning([&] {
      net::dispatch(stream_.get_executor(),
                    [self = this->shared_from_this(), generation, response = std::move(response)]() mutable {
                      if (generation != self->generation_ || self->state_ != State::kHandling) return;
                      self->timer_.cancel();
                      self->WriteResponse(std::move(response), /*counted=*/true);
                    });
    });
  }

 private:
  enum class State { kIdle, kReading, kHandling, kWriting, kClosed };

  const HttpServerOptions& options() const { return server_->options(); }

  auto& Tcp() { return beast::get_lowest_layer(stream_); }

  // A client that does not finish the handshake in time (or, with
  // client_verify, has no valid certificate) is dropped: there is no
  // channel to answer it on.
  void Handshake() {
    state_ = State::kReading;
    ArmReadTimer(options().read_timeout_ms);
    if constexpr (kTls) {
      stream_.async_handshake(net::ssl::stream_base::server, [self = this->shared_from_this()](beast::error_code ec) {
        if (self->state_ == State::kClosed) return;
        self->DisarmReadTimer();
        if (ec) return self->Close();
        self->StartRead();
      });
    }
  }

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
    Tcp().expires_never();
    ArmReadTimer(options().idle_timeout_ms);
    // Bytes of a pipelined request may already be buffered.
    if (buffer_.size() > 0) BeginRequest();
    ReadSome();
  }

  void BeginRequest() {
    if (trace::Enabled()) request_span_.Begin(kTls ? "https request" : "http request");
    state_ = State::kReading;
    ArmReadTimer(options().read_timeout_ms);
  }

  void ArmReadTimer(int64_t ms) {
    uint64_t generation = ++read_generation_;
    read_timer_.expires_after(std::chrono::milliseconds(ms));
    read_timer_.async_wait([self = this->shared_from_this(), generation](beast::error_code ec) {
      if (ec || generation != self->read_generation_) return;
      if (self->state_ != State::kIdle && self->state_ != State::kReading) return;
      self->read_timed_out_ = true;
      beast::error_code ignored;
      self->Tcp().socket().cancel(ignored);
    });
  }

  void DisarmReadTimer() {
    ++read_generation_;
    read_timer_.cancel();
  }

  void ReadSome() {
    http::async_read_some(stream_, buffer_, *parser_,
                          [self = this->shared_from_this()](beast::error_code ec, size_t n) { self->OnRead(ec, n); });
  }

  void OnRead(beast::error_code ec, size_t n) {
    server_->reads.fetch_add(1, std::memory_order_relaxed);
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
                                          std::to_string(options().max_body_bytes) +
                                          " bytes (--rest_api_max_body_mb)");
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
        if (trace::Enabled()) request_span_.Begin(kTls ? "https request" : "http request");
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
      // Beast reads at most the buffer's free capacity, and no less than
      // 512 bytes: a buffer left at its first size reads a 600 KB body 512
      // bytes at a time, each read a trip through the strand. A larger body
      // gets up to kLargeReadBytes of room, kept for the connection's next
      // requests.
      if (want > buffer_.capacity()) buffer_.reserve(std::min<uint64_t>(want, kLargeReadBytes));
    }
    if (!parser_->is_done()) {
      if (parser_->is_header_done() && !continue_sent_) {
        continue_sent_ = true;
        auto expect = parser_->get().find(http::field::expect);
        if (expect != parser_->get().end() && beast::iequals(expect->value(), "100-continue")) {
          static const std::string kContinue = "HTTP/1.1 100 Continue\r\n\r\n";
          net::async_write(stream_, net::buffer(kContinue),
                           [self = this->shared_from_this()](beast::error_code wec, size_t) {
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
    trace::Context trace_context;
    if (request_span_.active()) {
      std::string_view target = req.target();
      request_span_.set_name(request->method + " " + std::string(target.substr(0, target.find('?'))));
      request_span_.args().Add("target", target).Add("bytes_in", request->body.size());
      trace_context = request_span_.context();
    }
    if (options().request_timeout_ms > 0) {
      timer_.expires_at(request->deadline);
      timer_.async_wait([self = this->shared_from_this(), generation](beast::error_code ec) {
        if (ec || generation != self->generation_ || self->state_ != State::kHandling) return;
        ++self->generation_;  // the handler's late answer is dropped
        HttpResponse timeout;
        timeout.status = 504;
        timeout.body = MakeJsonError("request timed out after " + std::to_string(self->options().request_timeout_ms) +
                                     " ms (--rest_api_timeout_in_ms)");
        self->WriteResponse(std::move(timeout), /*counted=*/true);
      });
    }
    if (server_->handler_may_block()) {
      // A blocking handler runs outside the strand so that the timeout
      // above can fire while it works.
      net::post(server_->ioc(), [self = this->shared_from_this(), request = std::move(request), generation,
                                 trace_context]() mutable {
        self->CallHandler(std::move(request), generation, trace_context);
      });
      return;
    }
    // An asynchronous handler returns quickly, so it runs here on the
    // strand: no hop to another I/O thread, and an answer it gives before
    // returning (a fast model run inline) is written from this thread
    // at once (Deliver's dispatch runs inline on the strand). Posting cost
    // two thread wake-ups per request under load.
    CallHandler(std::move(request), generation, trace_context);
  }

  // `trace_context`: the request's span, current while the handler runs so
  // that the work it hands on is drawn as the request's.
  void CallHandler(std::shared_ptr<HttpRequest> request, uint64_t generation, trace::Context trace_context) {
    std::optional<trace::ScopedContext> traced;
    if (trace_context.span != 0) traced.emplace(trace_context);
    auto state = std::make_shared<Answer>(this->shared_from_this(), generation);
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
    response.body = MakeJsonError(message);
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
    response.body = MakeJsonError(message);
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
    if (request_span_.active()) {
      request_span_.args().Add("status", response.status).Add("bytes_out", response.body.size());
    }
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
    Tcp().expires_after(std::chrono::milliseconds(options().read_timeout_ms));
    std::array<net::const_buffer, 2> buffers{net::buffer(write_head_), net::buffer(write_body_)};
    net::async_write(stream_, buffers, [self = this->shared_from_this()](beast::error_code ec, size_t) { self->OnWrite(ec); });
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
    request_span_.End();  // the last byte is out (or the write failed)
    // A large answer's memory is not kept for the connection's lifetime.
    if (write_body_.capacity() > 64 * 1024) std::string().swap(write_body_);
    if (counted_) {
      server_->in_flight.fetch_sub(1, std::memory_order_relaxed);
      counted_ = false;
    }
    if (ec) return Close();
    if (!keep_alive_) {
      if constexpr (kTls) return ShutdownTlsThenClose();
      return Close();
    }
    StartRead();
  }

  // After the last answer on a TLS connection: send close_notify so that
  // the client can tell the end from a truncation, waiting at most a second
  // for its own before closing. Nothing else is in flight on the stream
  // then (no read, no write), which async_shutdown requires.
  void ShutdownTlsThenClose() {
    if constexpr (kTls) {
      Tcp().expires_after(std::chrono::seconds(1));
      stream_.async_shutdown([self = this->shared_from_this()](beast::error_code) { self->Close(); });
    }
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
    request_span_.End();
    ReleaseBodyBytes();
    timer_.cancel();
    DisarmReadTimer();
    beast::error_code ignored;
    Tcp().socket().shutdown(tcp::socket::shutdown_both, ignored);
    Tcp().socket().close(ignored);
  }

  std::shared_ptr<HttpServer::Impl> server_;
  Stream stream_;
  net::steady_timer timer_;       // handler timeout
  net::steady_timer read_timer_;  // idle and slow-client timeouts
  uint64_t id_;
  // The most a large request body's reads take at once (Beast's own cap).
  static constexpr uint64_t kLargeReadBytes = 64 * 1024;
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
  // The current request's trace span (first byte in to last byte out);
  // inert unless a recording was on when its first byte arrived.
  trace::RequestSpan request_span_;
};

}  // namespace tfhost::serving::http_internal
