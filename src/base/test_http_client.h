// Test helper: a blocking HTTP/1.1 client over one loopback TCP connection,
// every read bounded by a timeout, for the tests of tfhost's HTTP servers
// (the HTTP server itself, REST over it, `tfhost serve`, tracing).
//
//   testing::HttpConnection c(port);
//   c.Send("GET /v1/models/m HTTP/1.1\r\nHost: x\r\n\r\n");
//   testing::HttpReply r = c.Read();   // r.status, r.head, r.body
//
// Thread-safety: one connection per thread.
#pragma once

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <cctype>
#include <string>

namespace tfhost::testing {

struct HttpReply {
  int status = 0;  // 0: the connection closed or timed out before a whole response
  std::string head;
  std::string body;
};

class HttpConnection {
 public:
  explicit HttpConnection(int port, int timeout_seconds = 10) {
    fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
    timeval tv{timeout_seconds, 0};
    ::setsockopt(fd_, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(static_cast<uint16_t>(port));
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    connected_ = fd_ >= 0 && ::connect(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) == 0;
  }
  ~HttpConnection() {
    if (fd_ >= 0) ::close(fd_);
  }
  HttpConnection(const HttpConnection&) = delete;
  HttpConnection& operator=(const HttpConnection&) = delete;

  bool connected() const { return connected_; }

  // Sends all of `data` (stops early if the server closed).
  void Send(const std::string& data) {
    size_t off = 0;
    while (off < data.size()) {
      const ssize_t n = ::send(fd_, data.data() + off, data.size() - off, MSG_NOSIGNAL);
      if (n <= 0) return;
      off += static_cast<size_t>(n);
    }
  }

  // One response, framed by its Content-Length (none: an empty body).
  HttpReply Read() {
    HttpReply r;
    size_t head_end;
    while ((head_end = buffer_.find("\r\n\r\n")) == std::string::npos) {
      if (!Fill()) return r;
    }
    r.head = buffer_.substr(0, head_end);
    size_t length = 0;
    const size_t cl = Lower(r.head).find("content-length:");
    if (cl != std::string::npos) length = std::stoul(r.head.substr(cl + 15));
    while (buffer_.size() < head_end + 4 + length) {
      if (!Fill()) return r;
    }
    r.body = buffer_.substr(head_end + 4, length);
    buffer_.erase(0, head_end + 4 + length);
    if (r.head.size() >= 12) r.status = std::stoi(r.head.substr(9, 3));
    return r;
  }

  // Whether the server closed the connection (a read returns 0) within the timeout.
  bool ClosedByServer() {
    char c;
    return ::recv(fd_, &c, 1, 0) == 0;
  }

 private:
  static std::string Lower(std::string s) {
    for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return s;
  }
  bool Fill() {
    char buf[65536];
    const ssize_t n = ::recv(fd_, buf, sizeof(buf), 0);
    if (n <= 0) return false;
    buffer_.append(buf, static_cast<size_t>(n));
    return true;
  }

  int fd_ = -1;
  bool connected_ = false;
  std::string buffer_;
};

// One request on a fresh connection; `headers` are extra header lines, each
// ending in "\r\n".
inline HttpReply HttpExchange(int port, const std::string& method, const std::string& target,
                              const std::string& body = "", const std::string& headers = "",
                              int timeout_seconds = 10) {
  HttpConnection c(port, timeout_seconds);
  if (!c.connected()) return {};
  c.Send(method + " " + target + " HTTP/1.1\r\nHost: localhost\r\n" + headers +
         "Content-Length: " + std::to_string(body.size()) + "\r\n\r\n" + body);
  return c.Read();
}

}  // namespace tfhost::testing
