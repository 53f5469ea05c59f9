#include "host/launch/allreduce.h"

#include "host/launch/socket_util.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <thread>

#include <rapidjson/document.h>

namespace tfhost::host::launch {

namespace {

using Clock = SteadyClock;

class TcpRing : public Collective {
 public:
  TcpRing(int rank, int size, int next_fd, int prev_fd) : rank_(rank), size_(size), next_(next_fd), prev_(prev_fd) {}
  ~TcpRing() override {
    if (next_ >= 0) ::close(next_);
    if (prev_ >= 0) ::close(prev_);
  }
  int rank() const override { return rank_; }
  int size() const override { return size_; }
  std::string name() const override { return "tcp-ring"; }

  Status AllreduceSum(float* data, size_t count) override {
    if (size_ == 1 || count == 0) return OkStatus();
    auto chunk_begin = [&](int c) { return count * c / size_; };
    auto chunk_len = [&](int c) { return chunk_begin(c + 1) - chunk_begin(c); };
    scratch_.resize(count / size_ + 1);
    // Reduce-scatter: after n-1 steps rank r owns the full sum of chunk r+1.
    for (int s = 0; s < size_ - 1; ++s) {
      int send_c = ((rank_ - s) % size_ + size_) % size_;
      int recv_c = ((rank_ - s - 1) % size_ + size_) % size_;
      TFHOST_RETURN_IF_ERROR(Exchange(data + chunk_begin(send_c), chunk_len(send_c), scratch_.data(), chunk_len(recv_c)));
      float* dst = data + chunk_begin(recv_c);
      for (size_t i = 0; i < chunk_len(recv_c); ++i) dst[i] += scratch_[i];
    }
    // All-gather: pass the finished chunks around.
    for (int s = 0; s < size_ - 1; ++s) {
      int send_c = ((rank_ + 1 - s) % size_ + size_) % size_;
      int recv_c = ((rank_ - s) % size_ + size_) % size_;
      TFHOST_RETURN_IF_ERROR(Exchange(data + chunk_begin(send_c), chunk_len(send_c), data + chunk_begin(recv_c), chunk_len(recv_c)));
    }
    return OkStatus();
  }

  Status Barrier() override {
    float x = 0;
    return AllreduceSum(&x, 1);
  }

 private:
  // Sends `send_n` floats to the next rank while receiving `recv_n` from the
  // previous one; both sockets are non-blocking so neither side stalls.
  Status Exchange(const float* send, size_t send_n, float* recv, size_t recv_n) {
    const char* sp = reinterpret_cast<const char*>(send);
    char* rp = reinterpret_cast<char*>(recv);
    size_t s_left = send_n * sizeof(float), r_left = recv_n * sizeof(float);
    while (s_left > 0 || r_left > 0) {
      pollfd fds[2];
      int n = 0;
      if (s_left > 0) fds[n++] = {next_, POLLOUT, 0};
      if (r_left > 0) fds[n++] = {prev_, POLLIN, 0};
      int ready = ::poll(fds, n, 30000);
      if (ready == 0) return Status(StatusCode::kDeadlineExceeded, "ring exchange made no progress for 30 s");
      if (ready < 0) {
        if (errno == EINTR) continue;
        return Unavailable(std::string("poll: ") + std::strerror(errno));
      }
      for (int i = 0; i < n; ++i) {
        if (fds[i].revents == 0) continue;
        if (fds[i].fd == next_ && s_left > 0) {
          ssize_t w = ::send(next_, sp, s_left, MSG_NOSIGNAL);
          if (w < 0 && errno != EAGAIN && errno != EINTR) return Unavailable("ring send failed: " + std::string(std::strerror(errno)));
          if (w > 0) sp += w, s_left -= w;
        } else if (fds[i].fd == prev_ && r_left > 0) {
          ssize_t r = ::recv(prev_, rp, r_left, 0);
          if (r == 0) return Unavailable("ring predecessor closed the connection");
          if (r < 0 && errno != EAGAIN && errno != EINTR) return Unavailable("ring receive failed: " + std::string(std::strerror(errno)));
          if (r > 0) rp += r, r_left -= r;
        }
      }
    }
    return OkStatus();
  }

  int rank_, size_;
  int next_, prev_;
  std::vector<float> scratch_;
};

}  // namespace

StatusOr<std::unique_ptr<Collective>> ConnectTcpRing(const std::vector<std::string>& addresses, int rank,
                                                     double timeout_seconds) {
  int n = addresses.size();
  if (n < 1 || rank < 0 || rank >= n) return InvalidArgument("ring rank " + std::to_string(rank) + " of " + std::to_string(n));
  if (n == 1) return std::unique_ptr<Collective>(new TcpRing(0, 1, -1, -1));
  auto deadline = Clock::now() + std::chrono::milliseconds(static_cast<long>(timeout_seconds * 1000));
  TFHOST_ASSIGN_OR_RETURN(auto self, SplitAddress(addresses[rank]));
  TFHOST_ASSIGN_OR_RETURN(auto next, SplitAddress(addresses[(rank + 1) % n]));

  TFHOST_ASSIGN_OR_RETURN(int listener, ListenOnPort(self.second, 4));
  // Accept the predecessor on a thread while connecting to the successor, so
  // that the ring forms in any start order.
  int prev_fd = -1;
  std::thread acceptor([&] {
    while (Clock::now() < deadline) {
      pollfd p{listener, POLLIN, 0};
      if (::poll(&p, 1, 100) <= 0) continue;
      int fd = ::accept4(listener, nullptr, nullptr, SOCK_CLOEXEC);
      if (fd < 0) continue;
      int peer = -1;
      if (ReadExact(fd, &peer, sizeof(peer), "ring peer").ok() && peer == (rank + n - 1) % n) {
        prev_fd = fd;
        return;
      }
      ::close(fd);  // a stray connection (port scanner, a stale run): keep waiting
    }
  });
  auto next_fd = ConnectWithRetry(next.first, next.second, deadline, "ring peer");
  if (next_fd.ok()) {
    Status st = WriteExact(*next_fd, &rank, sizeof(rank), "ring peer");
    if (!st.ok()) {
      ::close(*next_fd);
      next_fd = st;
    }
  }
  acceptor.join();
  ::close(listener);
  if (!next_fd.ok() || prev_fd < 0) {
    if (next_fd.ok()) ::close(*next_fd);
    if (prev_fd >= 0) ::close(prev_fd);
    return next_fd.ok() ? Status(StatusCode::kDeadlineExceeded, "ring predecessor never connected") : next_fd.status();
  }
  for (int fd : {*next_fd, prev_fd}) {
    TuneSocket(fd);
    ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) | O_NONBLOCK);
  }
  return std::unique_ptr<Collective>(new TcpRing(rank, n, *next_fd, prev_fd));
}

StatusOr<RingMembership> RingFromTfConfig(const std::string& json) {
  rapidjson::Document d;
  d.Parse(json.c_str(), json.size());
  if (d.HasParseError() || !d.IsObject() || !d.HasMember("cluster") || !d["cluster"].IsObject() ||
      !d.HasMember("task") || !d["task"].IsObject()) {
    return InvalidArgument("TF_CONFIG is not {\"cluster\": {...}, \"task\": {...}} JSON");
  }
  const auto& task = d["task"];
  if (!task.HasMember("type") || !task["type"].IsString() || !task.HasMember("index") || !task["index"].IsInt()) {
    return InvalidArgument("TF_CONFIG task needs a string type and an integer index");
  }
  std::string type = task["type"].GetString();
  int index = task["index"].GetInt();
  RingMembership m;
  m.rank = -1;
  for (const char* t : {"chief", "worker", "ps"}) {
    if (!d["cluster"].HasMember(t)) continue;
    const auto& list = d["cluster"][t];
    if (!list.IsArray()) return InvalidArgument(std::string("TF_CONFIG cluster.") + t + " is not a list");
    for (rapidjson::SizeType i = 0; i < list.Size(); ++i) {
      if (!list[i].IsString()) return InvalidArgument(std::string("TF_CONFIG cluster.") + t + " holds a non-string");
      if (type == t && static_cast<int>(i) == index) m.rank = m.addresses.size();
      m.addresses.push_back(list[i].GetString());
    }
  }
  if (m.rank < 0) return InvalidArgument("TF_CONFIG task " + type + ":" + std::to_string(index) + " is not in its cluster");
  return m;
}

Status ParseSizeRange(const std::string& text, size_t* min_bytes, size_t* max_bytes) {
  auto parse = [](std::string s, size_t* out) -> bool {
    if (s.empty()) return false;
    size_t mult = 1;
    char u = std::toupper(static_cast<unsigned char>(s.back()));
    if (u == 'K' || u == 'M' || u == 'G') {
      mult = u == 'K' ? 1024 : u == 'M' ? 1024 * 1024 : 1024ull * 1024 * 1024;
      s.pop_back();
    }
    if (s.empty() || s.size() > 12 || s.find_first_not_of("0123456789") != std::string::npos) return false;
    *out = std::stoull(s) * mult;
    return true;
  };
  size_t colon = text.find(':');
  std::string a = text.substr(0, colon), b = colon == std::string::npos ? a : text.substr(colon + 1);
  if (!parse(a, min_bytes) || !parse(b, max_bytes) || *min_bytes < 4 || *max_bytes < *min_bytes ||
      *max_bytes > (4ull << 30)) {
    return InvalidArgument("--sizes expects MIN:MAX bytes with K/M/G suffixes, 4 <= MIN <= MAX <= 4G, got '" + text + "'");
  }
  return OkStatus();
}

StatusOr<std::vector<AllreduceRow>> RunAllreduceBench(Collective& comm, const AllreduceBenchOptions& o) {
  std::vector<AllreduceRow> rows;
  int n = comm.size();
  std::vector<float> data(o.max_bytes / sizeof(float));
  for (size_t bytes = o.min_bytes; bytes <= o.max_bytes; bytes *= 2) {
    size_t count = bytes / sizeof(float);
    AllreduceRow row;
    row.bytes = count * sizeof(float);
    if (o.check) {
      // Small integers: every partial sum is exact in float.
      for (size_t i = 0; i < count; ++i) data[i] = static_cast<float>((comm.rank() + 1) * (i % 7 + 1));
      TFHOST_RETURN_IF_ERROR(comm.AllreduceSum(data.data(), count));
      float ranks = n * (n + 1) / 2.0f;
      for (size_t i = 0; i < count; ++i) row.wrong += data[i] != ranks * (i % 7 + 1);
    }
    for (int w = 0; w < o.warmup; ++w) TFHOST_RETURN_IF_ERROR(comm.AllreduceSum(data.data(), count));
    TFHOST_RETURN_IF_ERROR(comm.Barrier());
    auto start = Clock::now();
    for (int it = 0; it < o.iters; ++it) TFHOST_RETURN_IF_ERROR(comm.AllreduceSum(data.data(), count));
    double seconds = std::chrono::duration<double>(Clock::now() - start).count() / std::max(o.iters, 1);
    row.time_us = seconds * 1e6;
    row.algbw_gbs = seconds > 0 ? row.bytes / seconds / 1e9 : 0;
    row.busbw_gbs = row.algbw_gbs * (n > 1 ? 2.0 * (n - 1) / n : 0.0);
    rows.push_back(row);
    if (bytes > o.max_bytes / 2) break;  // no overflow on the doubling
  }
  return rows;
}

std::string FormatAllreduceTable(const std::vector<AllreduceRow>& rows, const Collective& comm) {
  std::string s = "# allreduce (sum, float32) over " + std::to_string(comm.size()) + " ranks, backend " + comm.name() +
                  "\n#        size    count   time(us)  algbw(GB/s)  busbw(GB/s)  #wrong\n";
  char line[160];
  for (const AllreduceRow& r : rows) {
    std::snprintf(line, sizeof(line), "%14zu %8zu %10.1f %12.3f %12.3f %7zu\n", r.bytes, r.bytes / sizeof(float), r.time_us,
                  r.algbw_gbs, r.busbw_gbs, r.wrong);
    s += line;
  }
  return s;
}

}  // namespace tfhost::host::launch
