#include "serving/batching/adaptive_policy.h"

#include <gtest/gtest.h>

namespace tfhost::serving::batching {
namespace {

// A simulated model: L(b) = 1000 µs + 100 µs per row.
int64_t ModelLatency(int64_t b) { return 1000 + 100 * b; }

AdaptiveOptions Options(double target_ms, int64_t max_batch) {
  AdaptiveOptions o;
  o.target_latency_ms = target_ms;
  o.max_batch_size = max_batch;
  o.num_threads = 1;
  return o;
}

// Feeds `n` single-row arrivals every `gap` µs starting at `t`.
int64_t Arrivals(AdaptivePolicy& p, int64_t t, int64_t gap, int n) {
  for (int i = 0; i < n; ++i, t += gap) p.RecordArrival(t, 1);
  return t;
}

TEST(AdaptivePolicyTest, BeforeAnyMeasurementRunsAtOnceUpToTheMaximum) {
  AdaptivePolicy p(Options(50, 128));
  AdaptiveDecision d = p.Decision();
  EXPECT_EQ(d.max_batch_size, 128);
  EXPECT_EQ(d.timeout_micros, 0);
}

TEST(AdaptivePolicyTest, EstimatesLatencyWithALineThroughMeasuredSizes) {
  AdaptivePolicy p(Options(50, 128));
  EXPECT_LT(p.EstimatedLatencyMicros(4), 0);
  p.RecordBatch(8, ModelLatency(8));
  // One size measured: half fixed, half per row.
  EXPECT_DOUBLE_EQ(p.EstimatedLatencyMicros(16), ModelLatency(8) * 1.5);
  p.RecordBatch(64, ModelLatency(64));
  EXPECT_NEAR(p.EstimatedLatencyMicros(32), ModelLatency(32), 1e-6);
  EXPECT_NEAR(p.EstimatedLatencyMicros(128), ModelLatency(128), 1e-6);
}

TEST(AdaptivePolicyTest, LightLoadWaitsForNothingButCapsAtTheLargestBatchThatFits) {
  AdaptivePolicy p(Options(50, 128));
  p.RecordBatch(8, ModelLatency(8));
  p.RecordBatch(64, ModelLatency(64));
  Arrivals(p, 0, 100'000, 70);  // 10 requests/s
  AdaptiveDecision d = p.Decision();
  // 2 * L(128) = 27.6 ms fits 50 ms: whatever is queued may run together.
  EXPECT_EQ(d.max_batch_size, 128) << d.reason;
  EXPECT_EQ(d.target_batch_size, 1) << d.reason;
  EXPECT_EQ(d.timeout_micros, 0);
}

TEST(AdaptivePolicyTest, WaitsJustLongEnoughToFillTheSmallestBatchThatKeepsUp) {
  AdaptivePolicy p(Options(50, 128));
  p.RecordBatch(8, ModelLatency(8));
  p.RecordBatch(64, ModelLatency(64));
  Arrivals(p, 0, 200, 70);  // 5000 rows/s = 0.005 rows/µs
  AdaptiveDecision d = p.Decision();
  // Capacity b / (1000 + 100 b) must reach 1.25 * 0.005: b >= 16.7 -> 32.
  EXPECT_EQ(d.target_batch_size, 32) << d.reason;
  // 31 more rows at 0.005 rows/µs take 6200 µs, well inside the budget.
  EXPECT_EQ(d.timeout_micros, 6200) << d.reason;
  EXPECT_EQ(d.max_batch_size, 128);
  EXPECT_NEAR(d.arrival_rows_per_sec, 5000, 1);
}

TEST(AdaptivePolicyTest, OverloadWaitsForTheLargestCapacityWithinTheTarget) {
  AdaptivePolicy p(Options(50, 1024));
  p.RecordBatch(8, ModelLatency(8));
  p.RecordBatch(64, ModelLatency(64));
  Arrivals(p, 0, 50, 70);  // 20000 rows/s: more than the model can ever do (10000)
  AdaptiveDecision d = p.Decision();
  // 2 * L(b) <= 50 ms allows b <= 240: the largest power of two is 128.
  EXPECT_EQ(d.max_batch_size, 128) << d.reason;
  EXPECT_EQ(d.target_batch_size, 128) << d.reason;
  EXPECT_NE(d.reason.find("overloaded"), std::string::npos);
  EXPECT_LE(d.timeout_micros + 2 * ModelLatency(128), 50'000);
  EXPECT_GT(d.timeout_micros, 0);
}

TEST(AdaptivePolicyTest, ModelSlowerThanTargetGetsSmallestBatchAndNoWait) {
  AdaptivePolicy p(Options(1, 128));  // 1 ms target, model needs >= 1.1 ms
  p.RecordBatch(1, ModelLatency(1));
  p.RecordBatch(8, ModelLatency(8));
  Arrivals(p, 0, 100, 70);
  AdaptiveDecision d = p.Decision();
  EXPECT_EQ(d.max_batch_size, 1);
  EXPECT_EQ(d.timeout_micros, 0);
  EXPECT_NE(d.reason.find("exceeds"), std::string::npos);
}

TEST(AdaptivePolicyTest, UsesOnlyAllowedBatchSizes) {
  AdaptiveOptions o = Options(50, 48);
  o.allowed_batch_sizes = {6, 24, 48};
  AdaptivePolicy p(o);
  p.RecordBatch(6, ModelLatency(6));
  p.RecordBatch(48, ModelLatency(48));
  Arrivals(p, 0, 200, 70);
  EXPECT_EQ(p.Decision().target_batch_size, 24) << p.Decision().reason;
  EXPECT_EQ(p.Decision().max_batch_size, 48) << p.Decision().reason;
}

TEST(AdaptivePolicyTest, OneSlowBatchDoesNotShrinkTheCap) {
  AdaptivePolicy p(Options(50, 128));
  for (int i = 0; i < 5; ++i) {
    p.RecordBatch(8, ModelLatency(8));
    p.RecordBatch(64, ModelLatency(64));
    p.RecordBatch(128, ModelLatency(128));
  }
  Arrivals(p, 0, 200, 70);
  ASSERT_EQ(p.Decision().max_batch_size, 128);
  p.RecordBatch(128, 10'000'000);  // a thread preempted for 10 s
  EXPECT_EQ(p.Decision().max_batch_size, 128) << p.Decision().reason;
  EXPECT_EQ(p.EstimatedLatencyMicros(128), ModelLatency(128));
}

TEST(AdaptivePolicyTest, ArrivalRateFollowsARecentWindowNotBursts) {
  AdaptivePolicy p(Options(50, 128));
  p.RecordBatch(8, ModelLatency(8));
  // 64 requests arrive together, then 64 more 1 ms apart: the window holds
  // only the later ones.
  int64_t t = Arrivals(p, 0, 0, 64);
  Arrivals(p, t, 1000, 65);
  EXPECT_NEAR(p.Decision().arrival_rows_per_sec, 1000, 1);
}

TEST(AdaptivePolicyTest, P99AboveTargetShrinksTheTimeoutBudget) {
  AdaptivePolicy p(Options(10, 128));
  p.RecordBatch(8, ModelLatency(8));
  p.RecordBatch(64, ModelLatency(64));
  Arrivals(p, 0, 200, 70);  // 5000 rows/s -> b = 32, L = 4.2 ms
  const AdaptiveDecision before = p.Decision();
  // Filling 32 rows takes 6.2 ms, but only 10 - 2 * 4.2 = 1.6 ms are left
  // (32 is also the largest size that fits 10 ms).
  EXPECT_EQ(before.max_batch_size, 32) << before.reason;
  EXPECT_EQ(before.target_batch_size, 32) << before.reason;
  EXPECT_EQ(before.timeout_micros, 1600) << before.reason;
  for (int i = 0; i < 100; ++i) p.RecordRequestLatency(80'000);  // p99 80 ms > 10 ms
  EXPECT_LT(p.budget_scale(), 1.0);
  const AdaptiveDecision after = p.Decision();
  EXPECT_EQ(after.max_batch_size, before.max_batch_size);
  EXPECT_LT(after.timeout_micros, before.timeout_micros) << before.reason << " / " << after.reason;
  EXPECT_EQ(p.RecentP99Micros(), 80'000);
  // Recovery once the slow requests have left the 1000-request window.
  for (int i = 0; i < 1000; ++i) p.RecordRequestLatency(1000);
  const double low = p.budget_scale();
  for (int i = 0; i < 1000; ++i) p.RecordRequestLatency(1000);
  EXPECT_GT(p.budget_scale(), low);
  EXPECT_LE(p.budget_scale(), 1.0);
}

}  // namespace
}  // namespace tfhost::serving::batching
