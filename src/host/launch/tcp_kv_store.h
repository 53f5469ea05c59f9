// The rendezvous key-value store of the Gloo collective (what Gloo's
// rendezvous::Store asks for), served by rank 0 on its own TF_CONFIG port so
// that no shared filesystem or extra service is needed: every rank, rank 0
// included, connects as a client, publishes its transport address under its
// own key and reads the others'.
//
// Wire protocol (one TCP connection per client, requests answered in order):
//   set: 'S' u32 key_len key u32 value_len value      -> 'K'
//   get: 'G' u32 timeout_ms u32 key_len key           -> 'V' u32 len value | 'T' (not set in time)
// Keys and values are bounded (kMaxKeyBytes, kMaxValueBytes); a request that
// breaks the protocol closes that connection only.
//
// Thread-safety: the server runs its own threads; a client is used from one
// thread at a time.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "base/status.h"

namespace tfhost::host::launch {

class TcpKvStoreServer {
 public:
  static constexpr uint32_t kMaxKeyBytes = 4096;
  static constexpr uint32_t kMaxValueBytes = 1 << 20;

  // Listens on `port` (0 picks a free one, see port()).
  static StatusOr<std::unique_ptr<TcpKvStoreServer>> Start(int port);
  ~TcpKvStoreServer();

  int port() const { return port_; }

 private:
  TcpKvStoreServer() = default;
  void AcceptLoop();
  void Serve(int fd);

  int listener_ = -1;
  int port_ = 0;
  std::atomic<bool> stopping_{false};
  std::thread acceptor_;
  std::mutex mu_;
  std::condition_variable changed_;
  std::map<std::string, std::string> values_;
  std::vector<int> client_fds_;
  std::vector<std::thread> clients_;
};

class TcpKvStoreClient {
 public:
  // Connects, retrying until `timeout` (the server's rank may start later).
  static StatusOr<std::unique_ptr<TcpKvStoreClient>> Connect(const std::string& host, int port,
                                                             std::chrono::milliseconds timeout);
  ~TcpKvStoreClient();

  Status Set(const std::string& key, const std::string& value);
  // Waits until `key` is set; DeadlineExceeded names the key after `timeout`.
  StatusOr<std::string> Get(const std::string& key, std::chrono::milliseconds timeout);

 private:
  explicit TcpKvStoreClient(int fd) : fd_(fd) {}
  int fd_;
};

}  // namespace tfhost::host::launch
