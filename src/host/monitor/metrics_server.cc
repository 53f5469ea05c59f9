#include "host/monitor/metrics_server.h"

#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace tfhost::host {

namespace {

constexpr size_t kMaxRequest = 8192;
constexpr int kReadTimeoutMs = 2000;

void WriteAll(int fd, const std::string& data) {
  size_t off = 0;
  while (off < data.size()) {
    ssize_t n = ::send(fd, data.data() + off, data.size() - off, MSG_NOSIGNAL);
    if (n <= 0) return;
    off += static_cast<size_t>(n);
  }
}

}  // namespace

StatusOr<std::unique_ptr<MetricsServer>> MetricsServer::Start(const std::string& address) {
  size_t colon = address.rfind(':');
  if (colon == std::string::npos) return InvalidArgument("--prometheus address must be HOST:PORT or :PORT, got " + address);
  std::string host = address.substr(0, colon), port = address.substr(colon + 1);
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') host = host.substr(1, host.size() - 2);
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_PASSIVE;
  addrinfo* res = nullptr;
  if (int rc = getaddrinfo(host.empty() ? nullptr : host.c_str(), port.c_str(), &hints, &res); rc != 0) {
    return InvalidArgument("cannot resolve " + address + ": " + gai_strerror(rc));
  }
  std::unique_ptr<MetricsServer> server(new MetricsServer());
  std::string last_error = "no address";
  for (addrinfo* a = res; a != nullptr; a = a->ai_next) {
    int fd = ::socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, a->ai_protocol);
    if (fd < 0) continue;
    int one = 1;
    ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
    if (::bind(fd, a->ai_addr, a->ai_addrlen) == 0 && ::listen(fd, 16) == 0) {
      server->listen_fd_ = fd;
      sockaddr_storage bound{};
      socklen_t len = sizeof(bound);
      ::getsockname(fd, reinterpret_cast<sockaddr*>(&bound), &len);
      server->port_ = bound.ss_family == AF_INET6 ? ntohs(reinterpret_cast<sockaddr_in6*>(&bound)->sin6_port)
                                                 : ntohs(reinterpret_cast<sockaddr_in*>(&bound)->sin_port);
      break;
    }
    last_error = std::strerror(errno);
    ::close(fd);
  }
  freeaddrinfo(res);
  if (server->listen_fd_ < 0) return Unavailable("cannot listen on " + address + ": " + last_error);
  server->thread_ = std::thread([s = server.get()] { s->Loop(); });
  return server;
}

MetricsServer::~MetricsServer() {
  stop_ = true;
  if (thread_.joinable()) thread_.join();
  if (listen_fd_ >= 0) ::close(listen_fd_);
}

void MetricsServer::Update(std::string body) {
  std::lock_guard<std::mutex> lock(mu_);
  body_ = std::move(body);
}

void MetricsServer::Loop() {
  while (!stop_) {
    pollfd p{listen_fd_, POLLIN, 0};
    if (::poll(&p, 1, 100) <= 0) continue;  // wake up regularly to notice stop_
    int fd = ::accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
    if (fd < 0) continue;
    Serve(fd);
    ::close(fd);
  }
}

void MetricsServer::Serve(int fd) {
  std::string req;
  char buf[2048];
  while (req.find("\r\n\r\n") == std::string::npos && req.size() < kMaxRequest) {
    pollfd p{fd, POLLIN, 0};
    if (::poll(&p, 1, kReadTimeoutMs) <= 0) return;
    ssize_t n = ::recv(fd, buf, sizeof(buf), 0);
    if (n <= 0) return;
    req.append(buf, static_cast<size_t>(n));
  }
  size_t sp1 = req.find(' '), sp2 = req.find(' ', sp1 + 1);
  std::string method = req.substr(0, sp1);
  std::string path = sp1 == std::string::npos ? "" : req.substr(sp1 + 1, sp2 - sp1 - 1);
  std::string body, status = "200 OK", type = "text/plain; version=0.0.4; charset=utf-8";
  if ((method == "GET" || method == "HEAD") && (path == "/metrics" || path.rfind("/metrics?", 0) == 0)) {
    std::lock_guard<std::mutex> lock(mu_);
    body = body_;
  } else {
    status = "404 Not Found";
    type = "text/plain";
    body = "tfhost monitor serves /metrics\n";
  }
  std::string head = "HTTP/1.1 " + status + "\r\nContent-Type: " + type + "\r\nContent-Length: " +
                     std::to_string(body.size()) + "\r\nConnection: close\r\n\r\n";
  WriteAll(fd, method == "HEAD" ? head : head + body);
}

}  // namespace tfhost::host
