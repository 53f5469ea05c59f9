#include "host/launch/tcp_kv_store.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include "host/launch/socket_util.h"

namespace tfhost::host::launch {

namespace {

constexpr char kWhat[] = "rendezvous store";

Status WriteU32(int fd, uint32_t v) {
  uint32_t be = htonl(v);
  return WriteExact(fd, &be, sizeof(be), kWhat);
}

StatusOr<uint32_t> ReadU32(int fd) {
  uint32_t be = 0;
  TFHOST_RETURN_IF_ERROR(ReadExact(fd, &be, sizeof(be), kWhat));
  return ntohl(be);
}

StatusOr<std::string> ReadBytes(int fd, uint32_t limit, const char* field) {
  TFHOST_ASSIGN_OR_RETURN(uint32_t len, ReadU32(fd));
  if (len > limit) {
    return InvalidArgument(std::string("rendezvous store: ") + field + " of " + std::to_string(len) +
                           " bytes exceeds the limit of " + std::to_string(limit));
  }
  std::string s(len, '\0');
  TFHOST_RETURN_IF_ERROR(ReadExact(fd, s.data(), len, kWhat));
  return s;
}

Status WriteBytes(int fd, const std::string& s) {
  TFHOST_RETURN_IF_ERROR(WriteU32(fd, static_cast<uint32_t>(s.size())));
  return WriteExact(fd, s.data(), s.size(), kWhat);
}

}  // namespace

StatusOr<std::unique_ptr<TcpKvStoreServer>> TcpKvStoreServer::Start(int port) {
  TFHOST_ASSIGN_OR_RETURN(int listener, ListenOnPort(port, 64));
  sockaddr_storage addr{};
  socklen_t len = sizeof(addr);
  ::getsockname(listener, reinterpret_cast<sockaddr*>(&addr), &len);
  std::unique_ptr<TcpKvStoreServer> s(new TcpKvStoreServer);
  s->listener_ = listener;
  s->port_ = addr.ss_family == AF_INET6 ? ntohs(reinterpret_cast<sockaddr_in6*>(&addr)->sin6_port)
                                        : ntohs(reinterpret_cast<sockaddr_in*>(&addr)->sin_port);
  s->acceptor_ = std::thread([srv = s.get()] { srv->AcceptLoop(); });
  return s;
}

TcpKvStoreServer::~TcpKvStoreServer() {
  {
    // Under the lock, so a Get waiting on changed_ cannot miss the wake-up.
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
  }
  acceptor_.join();
  ::close(listener_);
  {
    std::lock_guard<std::mutex> lock(mu_);
    // Wakes client threads blocked in read(); their fds are closed by them.
    for (int fd : client_fds_) ::shutdown(fd, SHUT_RDWR);
  }
  changed_.notify_all();
  for (auto& t : clients_) t.join();
}

void TcpKvStoreServer::AcceptLoop() {
  while (!stopping_) {
    pollfd p{listener_, POLLIN, 0};
    if (::poll(&p, 1, 100) <= 0) continue;
    int fd = ::accept4(listener_, nullptr, nullptr, SOCK_CLOEXEC);
    if (fd < 0) continue;
    std::lock_guard<std::mutex> lock(mu_);
    client_fds_.push_back(fd);
    clients_.emplace_back([this, fd] { Serve(fd); });
  }
}

void TcpKvStoreServer::Serve(int fd) {
  while (!stopping_) {
    char op = 0;
    if (!ReadExact(fd, &op, 1, kWhat).ok()) break;
    if (op == 'S') {
      auto key = ReadBytes(fd, kMaxKeyBytes, "key");
      if (!key.ok()) break;
      auto value = ReadBytes(fd, kMaxValueBytes, "value");
      if (!value.ok()) break;
      {
        std::lock_guard<std::mutex> lock(mu_);
        values_[*key] = std::move(*value);
      }
      changed_.notify_all();
      if (!WriteExact(fd, "K", 1, kWhat).ok()) break;
    } else if (op == 'G') {
      auto timeout_ms = ReadU32(fd);
      if (!timeout_ms.ok()) break;
      auto key = ReadBytes(fd, kMaxKeyBytes, "key");
      if (!key.ok()) break;
      std::string value;
      bool found;
      {
        std::unique_lock<std::mutex> lock(mu_);
        found = changed_.wait_for(lock, std::chrono::milliseconds(*timeout_ms),
                                  [&] { return stopping_ || values_.count(*key) > 0; }) &&
                values_.count(*key) > 0;
        if (found) value = values_[*key];
      }
      Status st = found ? WriteExact(fd, "V", 1, kWhat) : WriteExact(fd, "T", 1, kWhat);
      if (st.ok() && found) st = WriteBytes(fd, value);
      if (!st.ok()) break;
    } else {
      break;  // not our protocol: drop this client only
    }
  }
  ::close(fd);
}

StatusOr<std::unique_ptr<TcpKvStoreClient>> TcpKvStoreClient::Connect(const std::string& host, int port,
                                                                      std::chrono::milliseconds timeout) {
  TFHOST_ASSIGN_OR_RETURN(int fd, ConnectWithRetry(host, port, SteadyClock::now() + timeout, kWhat));
  TuneSocket(fd);
  return std::unique_ptr<TcpKvStoreClient>(new TcpKvStoreClient(fd));
}

TcpKvStoreClient::~TcpKvStoreClient() { ::close(fd_); }

Status TcpKvStoreClient::Set(const std::string& key, const std::string& value) {
  if (key.size() > TcpKvStoreServer::kMaxKeyBytes || value.size() > TcpKvStoreServer::kMaxValueBytes) {
    return InvalidArgument("rendezvous store: key '" + key.substr(0, 64) + "' or its value is too large");
  }
  TFHOST_RETURN_IF_ERROR(WriteExact(fd_, "S", 1, kWhat));
  TFHOST_RETURN_IF_ERROR(WriteBytes(fd_, key));
  TFHOST_RETURN_IF_ERROR(WriteBytes(fd_, value));
  char ack = 0;
  TFHOST_RETURN_IF_ERROR(ReadExact(fd_, &ack, 1, kWhat));
  if (ack != 'K') return Internal("rendezvous store: unexpected answer to set '" + key + "'");
  return OkStatus();
}

StatusOr<std::string> TcpKvStoreClient::Get(const std::string& key, std::chrono::milliseconds timeout) {
  if (key.size() > TcpKvStoreServer::kMaxKeyBytes) return InvalidArgument("rendezvous store: key too large");
  uint32_t ms = static_cast<uint32_t>(std::min<int64_t>(std::max<int64_t>(timeout.count(), 0), UINT32_MAX));
  TFHOST_RETURN_IF_ERROR(WriteExact(fd_, "G", 1, kWhat));
  TFHOST_RETURN_IF_ERROR(WriteU32(fd_, ms));
  TFHOST_RETURN_IF_ERROR(WriteBytes(fd_, key));
  char tag = 0;
  TFHOST_RETURN_IF_ERROR(ReadExact(fd_, &tag, 1, kWhat));
  if (tag == 'T') {
    return Status(StatusCode::kDeadlineExceeded, "rendezvous store: key '" + key + "' was not set within " +
                                                     std::to_string(ms) + " ms (a rank did not start?)");
  }
  if (tag != 'V') return Internal("rendezvous store: unexpected answer to get '" + key + "'");
  return ReadBytes(fd_, TcpKvStoreServer::kMaxValueBytes, "value");
}

}  // namespace tfhost::host::launch
