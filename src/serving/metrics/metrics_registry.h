// Metrics for `tfhost serve`: labelled counters, gauges and histograms that
// request paths update cheaply from many threads, exported in the Prometheus
// text exposition format (what TF Serving's /monitoring/prometheus/metrics
// serves). ServingMetrics names the families every serving component shares,
// with TensorFlow Serving's metric names so existing dashboards keep working.
//
// Hot path: look a cell up once (Family::Cell / WithLabels) and keep the
// pointer; a cell lives as long as the registry unless its series is removed
// (Family::Remove, for the per-version series of a version the server has
// forgotten, whose cells nobody keeps), so cached pointers stay valid.
// Updating a cell is a few relaxed atomic operations.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <shared_mutex>
#include <string>
#include <unordered_map>
#include <vector>

namespace tfhost::serving {

class CounterCell {
 public:
  void Increment(int64_t by = 1) { value_.fetch_add(by, std::memory_order_relaxed); }
  int64_t value() const { return value_.load(std::memory_order_relaxed); }

 private:
  std::atomic<int64_t> value_{0};
};

class GaugeCell {
 public:
  void Set(double v) { value_.store(v, std::memory_order_relaxed); }
  void Add(double delta);
  double value() const { return value_.load(std::memory_order_relaxed); }

 private:
  std::atomic<double> value_{0.0};
};

class HistogramCell {
 public:
  // `bounds` are the strictly increasing upper bounds of the finite buckets;
  // one more bucket (+Inf) catches the rest.
  explicit HistogramCell(const std::vector<double>* bounds);
  void Observe(double value);

  struct Snapshot {
    std::vector<uint64_t> bucket_counts;  // per bucket (not cumulative), size bounds+1
    double sum = 0;
    uint64_t count = 0;
  };
  Snapshot Read() const;

 private:
  const std::vector<double>* bounds_;
  std::unique_ptr<std::atomic<uint64_t>[]> buckets_;
  std::atomic<double> sum_{0.0};
  std::atomic<uint64_t> count_{0};
};

enum class MetricType { kCounter, kGauge, kHistogram };

// One metric family: a name, help text, label names and one cell per
// distinct label-value tuple. The number of cells is capped (kMaxCells); past
// the cap new label tuples share one overflow cell whose every label value is
// "__overflow__", so untrusted label values can never grow memory unbounded.
template <typename Cell>
class Family {
 public:
  static constexpr size_t kMaxCells = 10000;
  // Longer label values (a model name from a request, say) are cut to this.
  static constexpr size_t kMaxLabelValueBytes = 200;

  const std::string& name() const { return name_; }
  const std::string& help() const { return help_; }
  const std::vector<std::string>& label_names() const { return label_names_; }

  // Values in the order of label_names(); a wrong count is treated as if the
  // missing values were "" (extra values are ignored) -- never a crash.
  Cell* WithLabels(const std::vector<std::string>& label_values);

  // Drops the series with these label values (cut as WithLabels cuts them);
  // whether there was one. A pointer WithLabels gave for it dangles after
  // this, so it is only for series whose cells no caller keeps; an
  // exposition already under way keeps the cell alive until it is done.
  bool Remove(const std::vector<std::string>& label_values);

  // (label values, cell) pairs sorted by label values, for exposition.
  std::vector<std::pair<std::vector<std::string>, std::shared_ptr<const Cell>>> Cells() const;

 private:
  friend class MetricsRegistry;
  Family(std::string name, std::string help, std::vector<std::string> label_names,
         std::vector<double> bounds = {});
  Cell* NewCell();
  std::vector<std::string> CutLabelValues(const std::vector<std::string>& label_values) const;

  std::string name_;
  std::string help_;
  std::vector<std::string> label_names_;
  std::vector<double> bounds_;  // histograms only
  mutable std::shared_mutex mu_;
  std::unordered_map<std::string, std::pair<std::vector<std::string>, std::shared_ptr<Cell>>> cells_;
};

using Counter = Family<CounterCell>;
using Gauge = Family<GaugeCell>;
using Histogram = Family<HistogramCell>;

class MetricsRegistry {
 public:
  MetricsRegistry() = default;
  MetricsRegistry(const MetricsRegistry&) = delete;
  MetricsRegistry& operator=(const MetricsRegistry&) = delete;

  // Adding a name twice returns the family already there when type and
  // label names match, else nullptr (a programming error the caller checks).
  Counter* AddCounter(const std::string& name, const std::string& help,
                      std::vector<std::string> label_names);
  Gauge* AddGauge(const std::string& name, const std::string& help, std::vector<std::string> label_names);
  // `bounds` must be strictly increasing and finite; +Inf is implicit.
  Histogram* AddHistogram(const std::string& name, const std::string& help,
                          std::vector<std::string> label_names, std::vector<double> bounds);

  // Runs `refresh` at the start of every ToPrometheusText, so that families
  // mirroring figures kept elsewhere (device allocators) are current when
  // scraped rather than updated on every change. `refresh` must not call
  // ToPrometheusText or add or remove collectors. Returns the id
  // RemoveCollector takes.
  int AddCollector(std::function<void()> refresh);
  // After it returns `refresh` is not running and never runs again, so what
  // it captured may be destroyed.
  void RemoveCollector(int id);

  // Prometheus text format 0.0.4: per family "# HELP" and "# TYPE" lines,
  // then samples; label values escaped (\\, \", \n); histograms as
  // _bucket{le="..."} (cumulative, ending le="+Inf"), _sum and _count.
  // Families appear in name order, samples in label order.
  std::string ToPrometheusText() const;

  // Bucket helpers. Exponential: scale * growth^i for i in [0, count).
  static std::vector<double> ExponentialBuckets(double scale, double growth, int count);

 private:
  mutable std::mutex mu_;
  std::map<std::string, std::unique_ptr<Counter>> counters_;
  std::map<std::string, std::unique_ptr<Gauge>> gauges_;
  std::map<std::string, std::unique_ptr<Histogram>> histograms_;
  // Held while collectors run, so that RemoveCollector waits for a scrape
  // that is running one; scrapes refresh one at a time.
  mutable std::mutex collectors_mu_;
  std::map<int, std::function<void()>> collectors_;
  int next_collector_ = 0;
};

// Escapes a label value for the exposition format.
std::string EscapePrometheusLabelValue(const std::string& value);
// Formats a sample value: integers without a fraction, "+Inf"/"-Inf"/"NaN",
// otherwise the shortest round-trip decimal.
std::string FormatPrometheusValue(double value);

// The families the serving components share. Latencies are in microseconds,
// as in TF Serving.
struct ServingMetrics {
  explicit ServingMetrics(MetricsRegistry* registry);

  MetricsRegistry* registry;
  // ---- TensorFlow Serving names ----
  // :tensorflow:serving:request_count {model_name, status}; status is the
  // canonical code name ("OK", "NOT_FOUND", ...).
  Counter* request_count;
  // :tensorflow:serving:request_latency {model_name, API, entrypoint};
  // API = "predict"/"classify"/"regress"/"multi_inference"/"get_model_metadata"
  // (the entry points in TF Serving's own labels), entrypoint = "GRPC"/"REST"/"INTERNAL".
  Histogram* request_latency;
  // :tensorflow:serving:runtime_latency {model_name, API, runtime}; time spent
  // running the graph (runtime = "TF1" in TF Serving; "tfhost" here).
  Histogram* runtime_latency;
  // :tensorflow:cc:saved_model:load_attempt_count {model_path, status}
  Counter* load_attempt_count;
  // :tensorflow:cc:saved_model:load_latency {model_path}: total microseconds of
  // successful loads, warm-up included (a counter, as TensorFlow defines it).
  Counter* load_latency;
  // :tensorflow:serving:model_load_latency {model_name, version}: histogram of
  // load (+ warm-up) time of each version (tfhost addition, same units).
  Histogram* model_load_latency;
  // :tensorflow:serving:model_warmup_latency {model_path}
  Histogram* model_warmup_latency;
  // :tensorflow:serving:batching:processed_batch_size {model_name, op_name}
  // (op_name = signature name here). Batch size after padding.
  Histogram* processed_batch_size;
  // :tensorflow:serving:batching:input_batch_size {model_name, op_name}
  Histogram* input_batch_size;
  // :tensorflow:serving:batching:padding_size {model_name, op_name}
  Histogram* padding_size;
  // :tensorflow:serving:batching:queuing_latency {model_name, op_name}
  Histogram* queuing_latency;
  // ---- tfhost additions ----
  // :tfhost:serving:batch_queue_depth {model_name} (tasks waiting)
  Gauge* queue_depth;
  // :tfhost:serving:batch_fill_ratio {model_name}: real rows / padded rows of
  // the model's last batch
  Gauge* batch_fill_ratio;
  // :tfhost:serving:model_version_state {model_name, version}: the
  // ModelVersionStatus.State number (10 START ... 30 AVAILABLE ... 50 END).
  Gauge* version_state;
  // :tfhost:serving:model_load_failures {model_name, version}: failed load attempts.
  Counter* load_failures;

  // Drops the series of one version of `model` loaded from `path`, once the
  // server has forgotten it (ended, and its folder gone): its state, load
  // latency and failures, and its path's load attempts, load latency and
  // warm-up latency. Without this a server that reloads every 30 s would
  // add a few series, about 2 KB, every time, for as long as it runs.
  void ForgetVersion(const std::string& model, int64_t version, const std::string& path);
};

}  // namespace tfhost::serving
