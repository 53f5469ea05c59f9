#include "serving/metrics/metrics_registry.h"

#include <gtest/gtest.h>

#include <thread>

namespace tfhost::serving {
namespace {

TEST(MetricsRegistryTest, CounterExpositionHasHelpTypeAndLabelledSamples) {
  MetricsRegistry registry;
  Counter* c = registry.AddCounter(":tensorflow:serving:request_count", "The total number of requests.",
                                   {"model_name", "status"});
  ASSERT_NE(c, nullptr);
  c->WithLabels({"half", "OK"})->Increment();
  c->WithLabels({"half", "OK"})->Increment(2);
  c->WithLabels({"half", "NOT_FOUND"})->Increment();
  EXPECT_EQ(registry.ToPrometheusText(),
            "# HELP :tensorflow:serving:request_count The total number of requests.\n"
            "# TYPE :tensorflow:serving:request_count counter\n"
            ":tensorflow:serving:request_count{model_name=\"half\",status=\"NOT_FOUND\"} 1\n"
            ":tensorflow:serving:request_count{model_name=\"half\",status=\"OK\"} 3\n");
}

TEST(MetricsRegistryTest, LabelValuesAreEscaped) {
  MetricsRegistry registry;
  Gauge* g = registry.AddGauge("g", "help with \\ and\nnewline", {"l"});
  g->WithLabels({"a\"b\\c\nd"})->Set(1.5);
  EXPECT_EQ(registry.ToPrometheusText(),
            "# HELP g help with \\\\ and\\nnewline\n# TYPE g gauge\ng{l=\"a\\\"b\\\\c\\nd\"} 1.5\n");
}

TEST(MetricsRegistryTest, HistogramHasCumulativeBucketsInfSumAndCount) {
  MetricsRegistry registry;
  Histogram* h = registry.AddHistogram("lat", "Latency.", {"model_name"}, {10, 100});
  ASSERT_NE(h, nullptr);
  HistogramCell* cell = h->WithLabels({"m"});
  cell->Observe(5);
  cell->Observe(10);   // le is inclusive
  cell->Observe(50);
  cell->Observe(1000);
  EXPECT_EQ(registry.ToPrometheusText(),
            "# HELP lat Latency.\n# TYPE lat histogram\n"
            "lat_bucket{model_name=\"m\",le=\"10\"} 2\n"
            "lat_bucket{model_name=\"m\",le=\"100\"} 3\n"
            "lat_bucket{model_name=\"m\",le=\"+Inf\"} 4\n"
            "lat_sum{model_name=\"m\"} 1065\n"
            "lat_count{model_name=\"m\"} 4\n");
}

TEST(MetricsRegistryTest, ReAddingReturnsSameFamilyAndMismatchedKindIsRefused) {
  MetricsRegistry registry;
  Counter* a = registry.AddCounter("x", "h", {"l"});
  EXPECT_EQ(registry.AddCounter("x", "h", {"l"}), a);
  EXPECT_EQ(registry.AddCounter("x", "h", {"other"}), nullptr);
  EXPECT_EQ(registry.AddGauge("x", "h", {"l"}), nullptr);
  EXPECT_EQ(registry.AddHistogram("bad", "h", {}, {2, 1}), nullptr);
}

TEST(MetricsRegistryTest, CellCountIsCappedWithOverflowCell) {
  MetricsRegistry registry;
  Counter* c = registry.AddCounter("c", "h", {"model_name"});
  for (size_t i = 0; i < Counter::kMaxCells + 50; ++i) c->WithLabels({"m" + std::to_string(i)})->Increment();
  auto cells = c->Cells();
  EXPECT_EQ(cells.size(), Counter::kMaxCells + 1);
  int64_t overflow = 0;
  for (const auto& [values, cell] : cells) {
    if (values[0] == "__overflow__") overflow = cell->value();
  }
  EXPECT_EQ(overflow, 50);
}

TEST(MetricsRegistryTest, LongLabelValuesAreTruncated) {
  MetricsRegistry registry;
  Counter* c = registry.AddCounter("c", "h", {"model_name"});
  c->WithLabels({std::string(100000, 'a')})->Increment();
  c->WithLabels({std::string(5000, 'a')})->Increment();
  auto cells = c->Cells();
  ASSERT_EQ(cells.size(), 1u);
  EXPECT_EQ(cells[0].first[0].size(), Counter::kMaxLabelValueBytes);
  EXPECT_EQ(cells[0].second->value(), 2);
}

TEST(MetricsRegistryTest, ConcurrentIncrementsAreNotLost) {
  MetricsRegistry registry;
  Counter* c = registry.AddCounter("c", "h", {"model_name"});
  Histogram* h = registry.AddHistogram("h", "h", {}, {1});
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < 10000; ++i) {
        c->WithLabels({"m"})->Increment();
        h->WithLabels({})->Observe(0.5);
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(c->WithLabels({"m"})->value(), 40000);
  EXPECT_EQ(h->WithLabels({})->Read().count, 40000u);
  EXPECT_DOUBLE_EQ(h->WithLabels({})->Read().sum, 20000.0);
}

TEST(MetricsRegistryTest, ARemovedSeriesLeavesTheExpositionAndComesBackFromZero) {
  MetricsRegistry registry;
  Counter* c = registry.AddCounter("c_total", "help", {"model", "version"});
  c->WithLabels({"m", "1"})->Increment(5);
  c->WithLabels({"m", "2"})->Increment(7);
  // An exposition that took its cells before the removal still reads them.
  auto cells = c->Cells();
  EXPECT_TRUE(c->Remove({"m", "1"}));
  EXPECT_FALSE(c->Remove({"m", "1"}));
  EXPECT_FALSE(c->Remove({"m", "3"}));
  ASSERT_EQ(cells.size(), 2u);
  EXPECT_EQ(cells[0].second->value(), 5);
  std::string text = registry.ToPrometheusText();
  EXPECT_EQ(text.find("c_total{model=\"m\",version=\"1\"}"), std::string::npos) << text;
  EXPECT_NE(text.find("c_total{model=\"m\",version=\"2\"} 7"), std::string::npos) << text;
  c->WithLabels({"m", "1"})->Increment();
  EXPECT_NE(registry.ToPrometheusText().find("c_total{model=\"m\",version=\"1\"} 1"), std::string::npos);
  // Label values are cut as WithLabels cuts them, so a long one is found.
  const std::string long_value(Counter::kMaxLabelValueBytes + 10, 'x');
  c->WithLabels({long_value, "1"})->Increment();
  EXPECT_TRUE(c->Remove({long_value, "1"}));
}

TEST(MetricsRegistryTest, ServingMetricsRegistersTfServingNames) {
  MetricsRegistry registry;
  ServingMetrics metrics(&registry);
  ASSERT_NE(metrics.request_count, nullptr);
  ASSERT_NE(metrics.request_latency, nullptr);
  ASSERT_NE(metrics.runtime_latency, nullptr);
  ASSERT_NE(metrics.version_state, nullptr);
  ASSERT_NE(metrics.processed_batch_size, nullptr);
  metrics.request_latency->WithLabels({"half", "predict", "GRPC"})->Observe(120);
  std::string text = registry.ToPrometheusText();
  EXPECT_NE(text.find("# TYPE :tensorflow:serving:request_latency histogram"), std::string::npos);
  EXPECT_NE(text.find(":tensorflow:serving:request_latency_bucket{model_name=\"half\",API=\"predict\","
                      "entrypoint=\"GRPC\",le=\"+Inf\"} 1"),
            std::string::npos);
  // Families with no cells still announce themselves.
  EXPECT_NE(text.find("# TYPE :tensorflow:serving:request_count counter"), std::string::npos);
}

}  // namespace
}  // namespace tfhost::serving
