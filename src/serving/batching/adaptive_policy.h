// Adaptive batching (tfhost's --batching_mode=adaptive): picks each queue's
// batch size and batch timeout from what it measures, instead of fixed
// numbers in a parameters file.
//
// The model, kept deliberately small so the choice can be explained:
//  - arrival rate  λ (rows/µs): EWMA of rows per request over EWMA of the gap
//    between requests;
//  - run latency   L(b) (µs) for a batch of b rows: EWMA per measured size,
//    and between/beyond measured sizes a least-squares line a + c·b (with one
//    size measured, half of its cost is assumed fixed and half per row);
//  - capacity      threads · b / L(b) rows/µs.
// A request waits at most for one running batch and then for its own, so a
// batch size b is feasible when 2·L(b) <= target. Among feasible sizes we take
// the smallest whose capacity covers 1.25·λ (smallest = lowest latency that
// keeps up); if none keeps up, the feasible size with the highest capacity.
// The timeout is the time λ needs to fill the batch, capped by what is left of
// the budget after 2·L(b). The budget is target · s, where s in [0.2, 1] falls
// by 20% whenever the measured p99 of recent requests exceeds the target and
// creeps back by 5% while p99 stays under 70% of it. Only the timeout uses
// the budget: shrinking batches under overload would cut capacity and make
// queues (and p99) worse.
//
// Thread-safety: all methods may be called concurrently.
#pragma once

#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <vector>

namespace tfhost::serving::batching {

struct AdaptiveOptions {
  double target_latency_ms = 100;
  int64_t max_batch_size = 1000;  // upper bound for any decision
  std::vector<int64_t> allowed_batch_sizes;  // candidates when non-empty
  int num_threads = 1;
  double ewma_alpha = 0.2;  // weight of the newest sample
};

struct AdaptiveDecision {
  int64_t max_batch_size = 0;
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
  // A batch padded to `rows` rows ran in `latency_micros`.
  void RecordBatch(int64_t rows, int64_t latency_micros);
  // A request completed `latency_micros` after it arrived (p99 feedback).
  void RecordRequestLatency(int64_t latency_micros);

  AdaptiveDecision Decision() const;
  // Just the two numbers, for the scheduler's hot path (no string copy).
  struct Limits {
    int64_t max_batch_size;
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
  std::vector<int64_t> CandidatesLocked() const;

  const AdaptiveOptions options_;
  mutable std::mutex mu_;
  // Arrivals.
  int64_t last_arrival_micros_ = -1;
  double ewma_gap_micros_ = -1;
  double ewma_rows_ = -1;
  // Latency per padded batch size.
  std::map<int64_t, double> ewma_latency_;
  // Recent end-to-end latencies (ring) and the budget scale they drive.
  std::vector<int64_t> recent_;
  size_t recent_next_ = 0;
  int64_t since_check_ = 0;
  double budget_scale_ = 1.0;
  AdaptiveDecision decision_;
};

}  // namespace tfhost::serving::batching
