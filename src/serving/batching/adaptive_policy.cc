#include "serving/batching/adaptive_policy.h"

#include <algorithm>
#include <cmath>
#include <sstream>

namespace tfhost::serving::batching {
namespace {

constexpr size_t kRecentWindow = 1000;  // requests in the p99 window
constexpr size_t kArrivalWindow = 64;   // requests in the arrival-rate window
constexpr size_t kSamplesPerSize = 16;  // busy-time samples kept per batch size
constexpr size_t kTrustedSamples = 3;   // samples before a size's median is trusted
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
  if (arrivals_.size() < kArrivalWindow) {
    arrivals_.emplace_back(now_micros, rows);
  } else {
    arrivals_[arrivals_next_] = {now_micros, rows};
    arrivals_next_ = (arrivals_next_ + 1) % kArrivalWindow;
  }
  // Every few arrivals is enough to follow the rate, and keeps this cheap at
  // 100k requests/s.
  if (++arrivals_since_recompute_ >= 8 || arrivals_.size() < kArrivalWindow) {
    arrivals_since_recompute_ = 0;
    RecomputeLocked();
  }
}

double AdaptivePolicy::ArrivalRateLocked() const {
  if (arrivals_.size() < 2) return 0;
  // Rows after the oldest arrival over the time since it: a rate over the
  // last kArrivalWindow requests, robust to bursts and reordered clocks.
  int64_t oldest = arrivals_[0].first, newest = arrivals_[0].first, rows = 0;
  for (const auto& [t, r] : arrivals_) {
    oldest = std::min(oldest, t);
    newest = std::max(newest, t);
    rows += r;
  }
  for (const auto& [t, r] : arrivals_) {
    if (t == oldest) {
      rows -= r;  // the first arrival opens the window
      break;
    }
  }
  if (newest <= oldest) return 1e9;  // all at once: effectively unbounded
  return static_cast<double>(rows) / static_cast<double>(newest - oldest);
}

void AdaptivePolicy::RecordBatch(int64_t rows, int64_t latency_micros) {
  std::lock_guard<std::mutex> l(mu_);
  // Batch sizes are bounded by max_batch_size (or the allowed sizes), so the
  // map stays small; the cap only guards against a huge configured bound.
  if (latency_.size() >= 4096 && latency_.find(rows) == latency_.end()) latency_.erase(latency_.begin());
  SizeLatency& s = latency_[rows];
  const double sample = static_cast<double>(std::max<int64_t>(1, latency_micros));
  if (s.samples.size() < kSamplesPerSize) {
    s.samples.push_back(sample);
  } else {
    s.samples[s.next] = sample;
    s.next = (s.next + 1) % kSamplesPerSize;
  }
  std::vector<double> sorted = s.samples;
  std::nth_element(sorted.begin(), sorted.begin() + sorted.size() / 2, sorted.end());
  s.median = sorted[sorted.size() / 2];
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

AdaptiveDecision AdaptivePolicy::Decision() {
  std::lock_guard<std::mutex> l(mu_);
  RecomputeLocked();  // fresh, whatever the throttling of the hot path skipped
  return decision_;
}

AdaptivePolicy::Limits AdaptivePolicy::CurrentLimits() const {
  std::lock_guard<std::mutex> l(mu_);
  return Limits{decision_.max_batch_size, decision_.target_batch_size, decision_.timeout_micros};
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
  // Sizes with a few samples are trusted; one odd sample (a preempted
  // thread) must not mark a size slow for good, since sizes above the cap
  // are never measured again.
  std::map<int64_t, double> points;
  for (const auto& [b, s] : latency_) {
    if (s.samples.size() >= kTrustedSamples) points[b] = s.median;
  }
  if (points.empty()) {
    for (const auto& [b, s] : latency_) points[b] = s.median;
  }
  if (points.empty()) return -1;
  if (auto it = points.find(rows); it != points.end()) return it->second;
  if (points.size() == 1) {
    const auto& [b0, l0] = *points.begin();
    return l0 * (0.5 + 0.5 * static_cast<double>(rows) / static_cast<double>(b0));
  }
  // Least-squares line through the measured sizes; a batch never gets
  // cheaper with more rows, and never costs nothing.
  double n = 0, sx = 0, sy = 0, sxx = 0, sxy = 0;
  for (const auto& [b, l] : points) {
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
  const double lambda = ArrivalRateLocked();
  AdaptiveDecision d;
  d.arrival_rows_per_sec = lambda * 1e6;
  d.budget_micros = budget;
  if (latency_.empty()) {
    // Nothing measured yet: behave like TF Serving with timeout 0 -- run what
    // is queued at once; batches still form while all threads are busy.
    d.max_batch_size = options_.max_batch_size;
    d.target_batch_size = options_.max_batch_size;
    d.timeout_micros = 0;
    d.reason = "no batch measured yet: run at once, up to the configured maximum";
    decision_ = d;
    return;
  }
  const std::vector<int64_t> candidates = CandidatesLocked();
  const double threads = std::max(1, options_.num_threads);
  // cap: the largest batch that fits the target; target: the smallest that
  // keeps up (else the one with the most capacity).
  int64_t cap = -1, keeps_up = -1, best = -1;
  double best_capacity = -1;
  for (int64_t b : candidates) {
    const double l = EstimateLocked(b);
    if (2 * l > target) continue;
    cap = b;
    const double capacity = threads * static_cast<double>(b) / l;
    if (keeps_up < 0 && capacity >= kHeadroom * lambda) keeps_up = b;
    if (capacity > best_capacity) {
      best_capacity = capacity;
      best = b;
    }
  }
  int64_t want;
  if (cap < 0) {
    cap = want = candidates.front();
    d.reason = "model latency alone exceeds half the target: smallest batch, no waiting";
  } else if (keeps_up >= 0) {
    want = keeps_up;
    d.reason = "wait for the smallest batch whose capacity covers " + Fmt(kHeadroom) + "x the arrival rate";
  } else {
    want = best;
    d.reason = "overloaded: wait for the batch with the most capacity that fits the target";
  }
  const double l_cap = EstimateLocked(cap);
  double timeout = 0;
  if (lambda > 0 && want > 1) timeout = std::min(static_cast<double>(want - 1) / lambda, budget - 2 * l_cap);
  d.max_batch_size = cap;
  d.target_batch_size = want;
  d.timeout_micros = static_cast<int64_t>(std::max(0.0, timeout));
  d.estimated_latency_micros = l_cap;
  d.reason += " (wait for " + std::to_string(want) + " rows, at most " + std::to_string(d.timeout_micros) +
              "us; cap " + std::to_string(cap) + " rows, L(cap)=" + Fmt(l_cap) + "us; arrivals " +
              Fmt(d.arrival_rows_per_sec) + " rows/s; budget " + Fmt(budget) + "us)";
  decision_ = d;
}

}  // namespace tfhost::serving::batching
