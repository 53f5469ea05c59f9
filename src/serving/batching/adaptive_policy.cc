#include "serving/batching/adaptive_policy.h"

#include <algorithm>
#include <cmath>
#include <sstream>

namespace tfhost::serving::batching {
namespace {

constexpr size_t kRecentWindow = 1000;  // requests in the p99 window
constexpr int64_t kCheckEvery = 100;    // re-evaluate p99 after this many requests
constexpr double kHeadroom = 1.25;      // capacity must exceed λ by this factor
constexpr double kMinBudgetScale = 0.2;

std::string Fmt(double v) {
  std::ostringstream s;
  s.precision(4);
  s << v;
  return s.str();
}

}  // namespace

AdaptivePolicy::AdaptivePolicy(AdaptiveOptions options) : options_(std::move(options)) {
  std::lock_guard<std::mutex> l(mu_);
  RecomputeLocked();
}

void AdaptivePolicy::RecordArrival(int64_t now_micros, int64_t rows) {
  std::lock_guard<std::mutex> l(mu_);
  const double a = options_.ewma_alpha;
  if (last_arrival_micros_ >= 0) {
    const double gap = static_cast<double>(std::max<int64_t>(0, now_micros - last_arrival_micros_));
    ewma_gap_micros_ = ewma_gap_micros_ < 0 ? gap : a * gap + (1 - a) * ewma_gap_micros_;
  }
  last_arrival_micros_ = std::max(last_arrival_micros_, now_micros);
  ewma_rows_ = ewma_rows_ < 0 ? static_cast<double>(rows) : a * rows + (1 - a) * ewma_rows_;
  RecomputeLocked();
}

void AdaptivePolicy::RecordBatch(int64_t rows, int64_t latency_micros) {
  std::lock_guard<std::mutex> l(mu_);
  const double sample = static_cast<double>(std::max<int64_t>(1, latency_micros));
  auto [it, inserted] = ewma_latency_.emplace(rows, sample);
  if (!inserted) it->second = options_.ewma_alpha * sample + (1 - options_.ewma_alpha) * it->second;
  // Batch sizes are bounded by max_batch_size (or allowed sizes), so the map
  // stays small; the cap only guards against a misconfigured huge bound.
  if (ewma_latency_.size() > 4096) ewma_latency_.erase(ewma_latency_.begin());
  RecomputeLocked();
}

void AdaptivePolicy::RecordRequestLatency(int64_t latency_micros) {
  std::lock_guard<std::mutex> l(mu_);
  if (recent_.size() < kRecentWindow) {
    recent_.push_back(latency_micros);
  } else {
    recent_[recent_next_] = latency_micros;
    recent_next_ = (recent_next_ + 1) % kRecentWindow;
  }
  if (++since_check_ < kCheckEvery) return;
  since_check_ = 0;
  std::vector<int64_t> sorted = recent_;
  const size_t k = std::min(sorted.size() - 1, static_cast<size_t>(std::ceil(0.99 * sorted.size())) - 1);
  std::nth_element(sorted.begin(), sorted.begin() + k, sorted.end());
  const double p99 = static_cast<double>(sorted[k]);
  const double target = options_.target_latency_ms * 1000.0;
  if (p99 > target) {
    budget_scale_ = std::max(kMinBudgetScale, budget_scale_ * 0.8);
  } else if (p99 < 0.7 * target) {
    budget_scale_ = std::min(1.0, budget_scale_ * 1.05);
  }
  RecomputeLocked();
}

AdaptiveDecision AdaptivePolicy::Decision() const {
  std::lock_guard<std::mutex> l(mu_);
  return decision_;
}

AdaptivePolicy::Limits AdaptivePolicy::CurrentLimits() const {
  std::lock_guard<std::mutex> l(mu_);
  return Limits{decision_.max_batch_size, decision_.timeout_micros};
}

double AdaptivePolicy::EstimatedLatencyMicros(int64_t rows) const {
  std::lock_guard<std::mutex> l(mu_);
  return EstimateLocked(rows);
}

double AdaptivePolicy::RecentP99Micros() const {
  std::lock_guard<std::mutex> l(mu_);
  if (recent_.empty()) return 0;
  std::vector<int64_t> sorted = recent_;
  std::sort(sorted.begin(), sorted.end());
  const size_t k = std::min(sorted.size() - 1, static_cast<size_t>(std::ceil(0.99 * sorted.size())) - 1);
  return static_cast<double>(sorted[k]);
}

double AdaptivePolicy::budget_scale() const {
  std::lock_guard<std::mutex> l(mu_);
  return budget_scale_;
}

double AdaptivePolicy::EstimateLocked(int64_t rows) const {
  if (ewma_latency_.empty()) return -1;
  if (auto it = ewma_latency_.find(rows); it != ewma_latency_.end()) return it->second;
  if (ewma_latency_.size() == 1) {
    const auto& [b0, l0] = *ewma_latency_.begin();
    return l0 * (0.5 + 0.5 * static_cast<double>(rows) / static_cast<double>(b0));
  }
  // Least-squares line through the measured sizes; a batch never gets
  // cheaper with more rows, and never costs nothing.
  double n = 0, sx = 0, sy = 0, sxx = 0, sxy = 0;
  for (const auto& [b, l] : ewma_latency_) {
    n += 1;
    sx += b;
    sy += l;
    sxx += static_cast<double>(b) * b;
    sxy += b * l;
  }
  const double denom = n * sxx - sx * sx;
  double slope = denom > 0 ? (n * sxy - sx * sy) / denom : 0;
  slope = std::max(0.0, slope);
  const double intercept = std::max(0.0, (sy - slope * sx) / n);
  return std::max(1.0, intercept + slope * static_cast<double>(rows));
}

std::vector<int64_t> AdaptivePolicy::CandidatesLocked() const {
  std::vector<int64_t> c;
  if (!options_.allowed_batch_sizes.empty()) {
    for (int64_t b : options_.allowed_batch_sizes) {
      if (b <= options_.max_batch_size) c.push_back(b);
    }
  } else {
    for (int64_t b = 1; b < options_.max_batch_size; b *= 2) c.push_back(b);
  }
  if (c.empty() || c.back() != options_.max_batch_size) c.push_back(options_.max_batch_size);
  return c;
}

void AdaptivePolicy::RecomputeLocked() {
  const double target = options_.target_latency_ms * 1000.0;
  const double budget = target * budget_scale_;
  const double lambda =
      (ewma_gap_micros_ < 0 || ewma_rows_ < 0) ? 0.0
      : ewma_gap_micros_ <= 0                   ? 1e9  // simultaneous arrivals: effectively unbounded
                                                : ewma_rows_ / ewma_gap_micros_;
  AdaptiveDecision d;
  d.arrival_rows_per_sec = lambda * 1e6;
  d.budget_micros = budget;
  if (ewma_latency_.empty()) {
    // Nothing measured yet: behave like TF Serving with timeout 0 -- run what
    // is queued at once; batches still form while all threads are busy.
    d.max_batch_size = options_.max_batch_size;
    d.timeout_micros = 0;
    d.reason = "no batch measured yet: run at once, up to the configured maximum";
    decision_ = d;
    return;
  }
  const std::vector<int64_t> candidates = CandidatesLocked();
  const double threads = std::max(1, options_.num_threads);
  int64_t pick = -1, best = -1;
  double best_capacity = -1;
  for (int64_t b : candidates) {
    const double l = EstimateLocked(b);
    if (2 * l > target) continue;
    const double capacity = threads * static_cast<double>(b) / l;
    if (pick < 0 && capacity >= kHeadroom * lambda) pick = b;
    if (capacity > best_capacity) {
      best_capacity = capacity;
      best = b;
    }
  }
  if (pick >= 0) {
    d.reason = "smallest batch whose capacity covers " + Fmt(kHeadroom) + "x the arrival rate";
  } else if (best >= 0) {
    pick = best;
    d.reason = "overloaded: largest-capacity batch that still fits the latency target";
  } else {
    pick = candidates.front();
    d.reason = "model latency alone exceeds half the target: smallest batch, no waiting";
  }
  const double l = EstimateLocked(pick);
  double timeout = 0;
  if (lambda > 0 && pick > 1) timeout = std::min(static_cast<double>(pick - 1) / lambda, budget - 2 * l);
  d.max_batch_size = pick;
  d.timeout_micros = static_cast<int64_t>(std::max(0.0, timeout));
  d.estimated_latency_micros = l;
  d.reason += " (b=" + std::to_string(pick) + ", L(b)=" + Fmt(l) + "us, arrivals=" + Fmt(d.arrival_rows_per_sec) +
              " rows/s, timeout=" + std::to_string(d.timeout_micros) + "us, budget=" + Fmt(budget) + "us)";
  decision_ = d;
}

}  // namespace tfhost::serving::batching
