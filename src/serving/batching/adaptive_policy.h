// Adaptive batching (tfhost's --batching_mode=adaptive): picks each queue's
// batch size and batch timeout from what it measures, instead of fixed
// numbers in a parameters file.
//
// The model, kept deliberately small so the choice can be explained:
//  - arrival rate  λ (rows/µs) over the last 64 requests;
//  - busy time     L(b) (µs) of a batch thread for a batch of b rows (join,
//    run, split, answer): the median of the last 16 batches of that size
//    once it has 3, and between/beyond those sizes a least-squares line
//    a + c·b through them (with one size measured, half of its cost is
//    assumed fixed and half per row). Medians, not averages: one preempted
//    thread must not make a size look slow for good;
//  - capacity      threads · b / L(b) rows/µs.
// A request waits at most for one running batch and then for its own, so a
// batch size b fits the target when 2·L(b) <= target.
//  - max_batch_size is the largest size that fits: taking whatever is queued
//    up to it never adds waiting, and under load it is what keeps up;
//  - the timeout waits only for the smallest size whose capacity covers
//    1.25·λ (if none does, the fitting size with the most capacity): the time
//    λ needs to bring that many rows, capped by what is left of the budget
//    after 2·L(max_batch_size). At light load that size is 1: no waiting.
// The budget is target · s, where s in [0.2, 1] falls by 20% whenever the
// measured p99 of the last 1000 requests exceeds the target and creeps back
// by 5% while p99 stays under 70% of it. Only the timeout uses the budget:
// shrinking batches under overload would cut capacity and make queues (and
// p99) worse.
//
// Thread-safety: all methods may be called concurrently.
#pragma once

#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

namespace tfhost::serving::batching {

struct AdaptiveOptions {
  double target_latency_ms = 100;
  int64_t max_batch_size = 1000;  // upper bound for any decision
  std::vector<int64_t> allowed_batch_sizes;  // candidates when non-empty
  int num_threads = 1;
};

struct AdaptiveDecision {
  int64_t max_batch_size = 0;
  int64_t target_batch_size = 0;  // what the timeout waits for
  int64_t timeout_micros = 0;
  // Inputs to the decision, for logs, metrics and tests.
  double arrival_rows_per_sec = 0;
  double estimated_latency_micros = 0;  // L(max_batch_size); 0 when unknown
  double budget_micros = 0;
  std::string reason;
};

class AdaptivePolicy {
 public:
  explicit AdaptivePolicy(AdaptiveOptions options);

  // A request of `rows` rows arrived at `now_micros` (any monotonic clock).
  void RecordArrival(int64_t now_micros, int64_t rows);
  // A batch padded to `rows` rows kept its thread busy `latency_micros`.
  void RecordBatch(int64_t rows, int64_t latency_micros);
  // A request completed `latency_micros` after it arrived (p99 feedback).
  void RecordRequestLatency(int64_t latency_micros);

  // The decision on all measurements so far (recomputed; not for hot paths).
  AdaptiveDecision Decision();
  // Just the two numbers as last computed, for the scheduler's hot path
  // (no recomputation, no string copy).
  struct Limits {
    int64_t max_batch_size;
    int64_t target_batch_size;  // a batch this full runs without waiting longer
    int64_t timeout_micros;
  };
  Limits CurrentLimits() const;
  // L(rows) in µs from the measurements; negative when nothing is measured.
  double EstimatedLatencyMicros(int64_t rows) const;
  // Measured p99 of the recent request latencies (µs), 0 when none.
  double RecentP99Micros() const;
  double budget_scale() const;

 private:
  void RecomputeLocked();
  double EstimateLocked(int64_t rows) const;
  double ArrivalRateLocked() const;
  std::vector<int64_t> CandidatesLocked() const;

  const AdaptiveOptions options_;
  mutable std::mutex mu_;
  // Recent arrivals (time, rows), a ring.
  std::vector<std::pair<int64_t, int64_t>> arrivals_;
  size_t arrivals_next_ = 0;
  int arrivals_since_recompute_ = 0;
  // Busy time per padded batch size: recent samples and their median.
  struct SizeLatency {
    std::vector<double> samples;
    size_t next = 0;
    double median = 0;
  };
  std::map<int64_t, SizeLatency> latency_;
  // Recent end-to-end latencies (ring) and the budget scale they drive.
  std::vector<int64_t> recent_;
  size_t recent_next_ = 0;
  int64_t since_check_ = 0;
  double budget_scale_ = 1.0;
  AdaptiveDecision decision_;
};

}  // namespace tfhost::serving::batching
