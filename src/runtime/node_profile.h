// Kernel time per node of a session's top-level graph, summed over the runs
// it was attached to (Session::set_profile; `tfhost bench --profile`): where
// a model's time goes, node by node and so op by op and backend by backend.
// A function body (If/While/Case branch, call) counts in its calling node;
// time between kernels (scheduling, freeing tensors) is in no node. Besides
// the time, which backends computed a node's calls (a fast kernel may hand a
// shape it does not take to another backend's).
#pragma once

#include <atomic>
#include <cstdint>
#include <limits>
#include <memory>

namespace tfhost::runtime {

class NodeProfile {
 public:
  explicit NodeProfile(int num_nodes)
      : num_nodes_(num_nodes),
        nanos_(new std::atomic<int64_t>[num_nodes]()),
        calls_(new std::atomic<int64_t>[num_nodes]()),
        backends_(new std::atomic<uint32_t>[num_nodes]()) {}

  // Thread-safe: nodes of one run may execute at once. Ids outside the
  // graph it was sized for are ignored. `backend_id`: the call's
  // KernelContext::backend_id.
  void Add(int node, int64_t nanos, int backend_id) {
    if (node < 0 || node >= num_nodes_) return;
    nanos_[node].fetch_add(nanos, std::memory_order_relaxed);
    calls_[node].fetch_add(1, std::memory_order_relaxed);
    if (backend_id >= 0 && backend_id < std::numeric_limits<uint32_t>::digits) {
      backends_[node].fetch_or(1u << backend_id, std::memory_order_relaxed);
    }
  }
  int num_nodes() const { return num_nodes_; }
  int64_t nanos(int node) const { return nanos_[node].load(std::memory_order_relaxed); }
  int64_t calls(int node) const { return calls_[node].load(std::memory_order_relaxed); }
  // Bit i set: a call was computed by backend id i (backends::BackendNames
  // names them).
  uint32_t backends(int node) const { return backends_[node].load(std::memory_order_relaxed); }

 private:
  int num_nodes_;
  std::unique_ptr<std::atomic<int64_t>[]> nanos_;
  std::unique_ptr<std::atomic<int64_t>[]> calls_;
  std::unique_ptr<std::atomic<uint32_t>[]> backends_;
};

}  // namespace tfhost::runtime
