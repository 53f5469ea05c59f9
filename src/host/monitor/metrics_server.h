// A minimal HTTP/1.1 server for Prometheus scrapes: GET /metrics returns the
// latest text given to Update(); anything else is 404. One background thread,
// one connection at a time, bounded request size and read timeouts, so a
// stuck or hostile client cannot pin it. (The serving module's HTTP stack is
// far more capable; the exporter only needs this and keeps host/ free of it.)
//
// Thread-safety: Update() may be called from any thread.
#pragma once

#include <atomic>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "base/status.h"

namespace tfhost::host {

class MetricsServer {
 public:
  // `address` is "HOST:PORT" or ":PORT" (all interfaces); port 0 picks a free one.
  static StatusOr<std::unique_ptr<MetricsServer>> Start(const std::string& address);
  ~MetricsServer();  // stops the thread and closes the socket

  int port() const { return port_; }
  void Update(std::string body);

 private:
  MetricsServer() = default;
  void Loop();
  void Serve(int fd);

  int listen_fd_ = -1;
  int port_ = 0;
  std::atomic<bool> stop_{false};
  std::thread thread_;
  std::mutex mu_;
  std::string body_;
};

}  // namespace tfhost::host
