// Allreduce for `tfhost bench allreduce`: a collective interface, a TCP ring
// backend that runs anywhere `tfhost launch` does (peers from TF_CONFIG), and
// the benchmark loop in the manner of nccl-tests: per message size the time,
// algorithm bandwidth (bytes / time) and bus bandwidth (algbw * 2(n-1)/n, the
// traffic each link carries in a ring allreduce, comparable to the link's
// nominal speed), plus a check of the reduced values.
//
// The ring is the bandwidth-optimal algorithm NCCL and Gloo use for large
// messages: a reduce-scatter then an all-gather, each n-1 steps in which every
// rank sends one chunk to its successor while receiving one from its
// predecessor (non-blocking sockets, so both directions overlap).
//
// Thread-safety: one collective per thread; ranks of one ring may be threads
// of one process (tests) or processes on many hosts.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "base/status.h"

namespace tfhost::host::launch {

class Collective {
 public:
  virtual ~Collective() = default;
  virtual int rank() const = 0;
  virtual int size() const = 0;
  virtual std::string name() const = 0;
  // In-place elementwise sum over all ranks.
  virtual Status AllreduceSum(float* data, size_t count) = 0;
  virtual Status Barrier() = 0;
};

// Connects rank `rank` of a ring over `addresses` ("host:port", one per rank,
// the same list on every rank): listens on its own port, connects to the
// next rank (retrying until `timeout_seconds`) and accepts the previous one.
StatusOr<std::unique_ptr<Collective>> ConnectTcpRing(const std::vector<std::string>& addresses, int rank,
                                                     double timeout_seconds);

// Rank and addresses from TF_CONFIG (cluster order: chief, worker, ps).
struct RingMembership {
  std::vector<std::string> addresses;
  int rank = 0;
};
StatusOr<RingMembership> RingFromTfConfig(const std::string& tf_config_json);

struct AllreduceRow {
  size_t bytes = 0;
  double time_us = 0;   // mean per allreduce
  double algbw_gbs = 0;
  double busbw_gbs = 0;
  size_t wrong = 0;     // elements that differ from the expected sum (with check)
};

struct AllreduceBenchOptions {
  size_t min_bytes = 8;
  size_t max_bytes = 64 << 20;
  int iters = 20;
  int warmup = 5;
  bool check = true;
};

// "8:1G" / "1K:64M" (K, M, G are powers of 1024): sizes doubling from min to max.
Status ParseSizeRange(const std::string& text, size_t* min_bytes, size_t* max_bytes);

// Runs the sweep on `comm`; every rank must call it with the same options.
StatusOr<std::vector<AllreduceRow>> RunAllreduceBench(Collective& comm, const AllreduceBenchOptions& options);

// The nccl-tests style table.
std::string FormatAllreduceTable(const std::vector<AllreduceRow>& rows, const Collective& comm);

}  // namespace tfhost::host::launch
