#include "host/launch/socket_util.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <thread>

namespace tfhost::host::launch {

StatusOr<std::pair<std::string, int>> SplitAddress(const std::string& a) {
  size_t colon = a.rfind(':');
  if (colon == std::string::npos || colon == 0) return InvalidArgument("address '" + a + "' is not HOST:PORT");
  std::string host = a.substr(0, colon);
  if (host.size() > 2 && host.front() == '[' && host.back() == ']') host = host.substr(1, host.size() - 2);
  int port = std::atoi(a.c_str() + colon + 1);
  if (port < 1 || port > 65535) return InvalidArgument("address '" + a + "' has no valid port");
  return std::make_pair(host, port);
}

void TuneSocket(int fd) {
  int one = 1;
  ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
  int buf = 4 << 20;
  ::setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &buf, sizeof(buf));
  ::setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &buf, sizeof(buf));
}

Status ReadExact(int fd, void* p, size_t n, const char* what) {
  char* c = static_cast<char*>(p);
  while (n > 0) {
    ssize_t r = ::read(fd, c, n);
    if (r < 0 && (errno == EINTR || errno == EAGAIN)) {
      pollfd pf{fd, POLLIN, 0};
      ::poll(&pf, 1, 1000);
      continue;
    }
    if (r <= 0) return Unavailable(std::string(what) + " closed the connection");
    c += r;
    n -= r;
  }
  return OkStatus();
}

Status WriteExact(int fd, const void* p, size_t n, const char* what) {
  const char* c = static_cast<const char*>(p);
  while (n > 0) {
    ssize_t r = ::send(fd, c, n, MSG_NOSIGNAL);
    if (r < 0 && (errno == EINTR || errno == EAGAIN)) {
      pollfd pf{fd, POLLOUT, 0};
      ::poll(&pf, 1, 1000);
      continue;
    }
    if (r <= 0) return Unavailable(std::string(what) + " closed the connection");
    c += r;
    n -= r;
  }
  return OkStatus();
}

StatusOr<int> ConnectWithRetry(const std::string& host, int port, SteadyClock::time_point deadline,
                               const char* what) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  std::string port_text = std::to_string(port);
  while (true) {
    addrinfo* res = nullptr;
    if (::getaddrinfo(host.c_str(), port_text.c_str(), &hints, &res) == 0) {
      for (addrinfo* a = res; a != nullptr; a = a->ai_next) {
        int fd = ::socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, a->ai_protocol);
        if (fd < 0) continue;
        if (::connect(fd, a->ai_addr, a->ai_addrlen) == 0) {
          ::freeaddrinfo(res);
          return fd;
        }
        ::close(fd);
      }
      ::freeaddrinfo(res);
    }
    if (SteadyClock::now() > deadline) return Unavailable("cannot connect to " + std::string(what) + " " + host + ":" + port_text);
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
}

StatusOr<int> ListenOnPort(int port, int backlog) {
  int listener = ::socket(AF_INET6, SOCK_STREAM | SOCK_CLOEXEC, 0);
  bool v6 = listener >= 0;
  if (!v6) listener = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (listener < 0) return Unavailable(std::string("cannot create a listening socket: ") + std::strerror(errno));
  int one = 1, zero = 0;
  ::setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
  int bound;
  if (v6) {
    ::setsockopt(listener, IPPROTO_IPV6, IPV6_V6ONLY, &zero, sizeof(zero));
    sockaddr_in6 a{};
    a.sin6_family = AF_INET6;
    a.sin6_addr = in6addr_any;
    a.sin6_port = htons(port);
    bound = ::bind(listener, reinterpret_cast<sockaddr*>(&a), sizeof(a));
  } else {
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_ANY);
    a.sin_port = htons(port);
    bound = ::bind(listener, reinterpret_cast<sockaddr*>(&a), sizeof(a));
  }
  if (bound != 0 || ::listen(listener, backlog) != 0) {
    std::string why = std::strerror(errno);
    ::close(listener);
    return Unavailable("cannot listen on port " + std::to_string(port) + ": " + why);
  }
  return listener;
}

}  // namespace tfhost::host::launch
