#include "serving/metrics/metrics_registry.h"

#include <algorithm>
#include <charconv>
#include <cmath>

namespace tfhost::serving {

namespace {

void AtomicAdd(std::atomic<double>& target, double delta) {
  double old = target.load(std::memory_order_relaxed);
  while (!target.compare_exchange_weak(old, old + delta, std::memory_order_relaxed)) {
  }
}

// The key joins values with a byte that cannot be confused with their
// contents being concatenated ("a" "bc" vs "ab" "c"): each value is
// length-prefixed.
std::string CellKey(const std::vector<std::string>& values) {
  std::string key;
  for (const auto& v : values) {
    key += std::to_string(v.size());
    key += ':';
    key += v;
  }
  return key;
}

std::string EscapeHelp(const std::string& help) {
  std::string out;
  for (char c : help) {
    if (c == '\\') {
      out += "\\\\";
    } else if (c == '\n') {
      out += "\\n";
    } else {
      out += c;
    }
  }
  return out;
}

std::string LabelSet(const std::vector<std::string>& names, const std::vector<std::string>& values,
                     const std::string& extra_name = "", const std::string& extra_value = "") {
  std::string out;
  for (size_t i = 0; i < names.size(); ++i) {
    out += out.empty() ? "{" : ",";
    out += names[i] + "=\"" + EscapePrometheusLabelValue(i < values.size() ? values[i] : "") + "\"";
  }
  if (!extra_name.empty()) {
    out += out.empty() ? "{" : ",";
    out += extra_name + "=\"" + extra_value + "\"";
  }
  if (!out.empty()) out += "}";
  return out;
}

}  // namespace

void GaugeCell::Add(double delta) { AtomicAdd(value_, delta); }

HistogramCell::HistogramCell(const std::vector<double>* bounds)
    : bounds_(bounds), buckets_(new std::atomic<uint64_t>[bounds->size() + 1]) {
  for (size_t i = 0; i <= bounds_->size(); ++i) buckets_[i].store(0, std::memory_order_relaxed);
}

void HistogramCell::Observe(double value) {
  // Bucket i counts values <= bounds[i] (Prometheus "le"); NaN lands in +Inf.
  size_t index = std::lower_bound(bounds_->begin(), bounds_->end(), value) - bounds_->begin();
  if (std::isnan(value)) index = bounds_->size();
  buckets_[index].fetch_add(1, std::memory_order_relaxed);
  if (!std::isnan(value)) AtomicAdd(sum_, value);
  count_.fetch_add(1, std::memory_order_relaxed);
}

HistogramCell::Snapshot HistogramCell::Read() const {
  Snapshot s;
  s.bucket_counts.resize(bounds_->size() + 1);
  for (size_t i = 0; i <= bounds_->size(); ++i) s.bucket_counts[i] = buckets_[i].load(std::memory_order_relaxed);
  s.sum = sum_.load(std::memory_order_relaxed);
  // The count is the bucket total so that +Inf and _count always agree even
  // while other threads observe.
  s.count = 0;
  for (uint64_t c : s.bucket_counts) s.count += c;
  return s;
}

template <typename Cell>
Family<Cell>::Family(std::string name, std::string help, std::vector<std::string> label_names,
                     std::vector<double> bounds)
    : name_(std::move(name)), help_(std::move(help)), label_names_(std::move(label_names)),
      bounds_(std::move(bounds)) {}

template <typename Cell>
Cell* Family<Cell>::NewCell() {
  if constexpr (std::is_same_v<Cell, HistogramCell>) {
    return new HistogramCell(&bounds_);
  } else {
    return new Cell();
  }
}

template <typename Cell>
std::vector<std::string> Family<Cell>::CutLabelValues(const std::vector<std::string>& label_values) const {
  std::vector<std::string> values = label_values;
  values.resize(label_names_.size());
  for (auto& v : values) {
    if (v.size() > kMaxLabelValueBytes) v.resize(kMaxLabelValueBytes);
  }
  return values;
}

template <typename Cell>
bool Family<Cell>::Remove(const std::vector<std::string>& label_values) {
  const std::string key = CellKey(CutLabelValues(label_values));
  std::unique_lock lock(mu_);
  return cells_.erase(key) > 0;
}

template <typename Cell>
Cell* Family<Cell>::WithLabels(const std::vector<std::string>& label_values) {
  std::vector<std::string> values = CutLabelValues(label_values);
  std::string key = CellKey(values);
  {
    std::shared_lock lock(mu_);
    auto it = cells_.find(key);
    if (it != cells_.end()) return it->second.second.get();
  }
  std::unique_lock lock(mu_);
  auto it = cells_.find(key);
  if (it != cells_.end()) return it->second.second.get();
  if (cells_.size() >= kMaxCells) {
    std::vector<std::string> overflow(label_names_.size(), "__overflow__");
    std::string okey = CellKey(overflow);
    auto oit = cells_.find(okey);
    if (oit != cells_.end()) return oit->second.second.get();
    values = std::move(overflow);
    key = std::move(okey);
  }
  auto& slot = cells_[key];
  slot.first = std::move(values);
  slot.second.reset(NewCell());
  return slot.second.get();
}

template <typename Cell>
std::vector<std::pair<std::vector<std::string>, std::shared_ptr<const Cell>>> Family<Cell>::Cells() const {
  std::vector<std::pair<std::vector<std::string>, std::shared_ptr<const Cell>>> out;
  {
    std::shared_lock lock(mu_);
    out.reserve(cells_.size());
    for (const auto& [key, entry] : cells_) out.emplace_back(entry.first, entry.second);
  }
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  return out;
}

template class Family<CounterCell>;
template class Family<GaugeCell>;
template class Family<HistogramCell>;

Counter* MetricsRegistry::AddCounter(const std::string& name, const std::string& help,
                                     std::vector<std::string> label_names) {
  std::lock_guard lock(mu_);
  if (auto it = counters_.find(name); it != counters_.end()) {
    return it->second->label_names() == label_names ? it->second.get() : nullptr;
  }
  if (gauges_.count(name) || histograms_.count(name)) return nullptr;
  auto* f = new Counter(name, help, std::move(label_names));
  counters_[name].reset(f);
  return f;
}

Gauge* MetricsRegistry::AddGauge(const std::string& name, const std::string& help,
                                 std::vector<std::string> label_names) {
  std::lock_guard lock(mu_);
  if (auto it = gauges_.find(name); it != gauges_.end()) {
    return it->second->label_names() == label_names ? it->second.get() : nullptr;
  }
  if (counters_.count(name) || histograms_.count(name)) return nullptr;
  auto* f = new Gauge(name, help, std::move(label_names));
  gauges_[name].reset(f);
  return f;
}

Histogram* MetricsRegistry::AddHistogram(const std::string& name, const std::string& help,
                                         std::vector<std::string> label_names, std::vector<double> bounds) {
  std::lock_guard lock(mu_);
  if (auto it = histograms_.find(name); it != histograms_.end()) {
    return it->second->label_names() == label_names ? it->second.get() : nullptr;
  }
  if (counters_.count(name) || gauges_.count(name)) return nullptr;
  for (size_t i = 0; i < bounds.size(); ++i) {
    if (!std::isfinite(bounds[i]) || (i > 0 && bounds[i] <= bounds[i - 1])) return nullptr;
  }
  auto* f = new Histogram(name, help, std::move(label_names), std::move(bounds));
  histograms_[name].reset(f);
  return f;
}

std::vector<double> MetricsRegistry::ExponentialBuckets(double scale, double growth, int count) {
  std::vector<double> out;
  double v = scale;
  for (int i = 0; i < count; ++i) {
    out.push_back(v);
    v *= growth;
  }
  return out;
}

std::string EscapePrometheusLabelValue(const std::string& value) {
  std::string out;
  out.reserve(value.size());
  for (char c : value) {
    if (c == '\\') {
      out += "\\\\";
    } else if (c == '"') {
      out += "\\\"";
    } else if (c == '\n') {
      out += "\\n";
    } else {
      out += c;
    }
  }
  return out;
}

std::string FormatPrometheusValue(double value) {
  if (std::isnan(value)) return "NaN";
  if (std::isinf(value)) return value > 0 ? "+Inf" : "-Inf";
  if (value == std::floor(value) && std::fabs(value) < 1e15) {
    return std::to_string(static_cast<int64_t>(value));
  }
  char buf[64];
  auto res = std::to_chars(buf, buf + sizeof(buf), value);
  return std::string(buf, res.ptr);
}

int MetricsRegistry::AddCollector(std::function<void()> refresh) {
  std::lock_guard lock(collectors_mu_);
  const int id = next_collector_++;
  collectors_[id] = std::move(refresh);
  return id;
}

void MetricsRegistry::RemoveCollector(int id) {
  std::lock_guard lock(collectors_mu_);
  collectors_.erase(id);
}

std::string MetricsRegistry::ToPrometheusText() const {
  {
    std::lock_guard lock(collectors_mu_);
    for (const auto& [id, refresh] : collectors_) refresh();
  }
  struct Entry {
    MetricType type;
    const void* family;
  };
  std::map<std::string, Entry> all;
  {
    std::lock_guard lock(mu_);
    for (const auto& [n, f] : counters_) all[n] = {MetricType::kCounter, f.get()};
    for (const auto& [n, f] : gauges_) all[n] = {MetricType::kGauge, f.get()};
    for (const auto& [n, f] : histograms_) all[n] = {MetricType::kHistogram, f.get()};
  }
  std::string out;
  for (const auto& [name, entry] : all) {
    if (entry.type == MetricType::kCounter) {
      const auto* f = static_cast<const Counter*>(entry.family);
      out += "# HELP " + name + " " + EscapeHelp(f->help()) + "\n# TYPE " + name + " counter\n";
      for (const auto& [values, cell] : f->Cells()) {
        out += name + LabelSet(f->label_names(), values) + " " + std::to_string(cell->value()) + "\n";
      }
    } else if (entry.type == MetricType::kGauge) {
      const auto* f = static_cast<const Gauge*>(entry.family);
      out += "# HELP " + name + " " + EscapeHelp(f->help()) + "\n# TYPE " + name + " gauge\n";
      for (const auto& [values, cell] : f->Cells()) {
        out += name + LabelSet(f->label_names(), values) + " " + FormatPrometheusValue(cell->value()) + "\n";
      }
    } else {
      const auto* f = static_cast<const Histogram*>(entry.family);
      out += "# HELP " + name + " " + EscapeHelp(f->help()) + "\n# TYPE " + name + " histogram\n";
      for (const auto& [values, cell] : f->Cells()) {
        HistogramCell::Snapshot s = cell->Read();
        uint64_t cumulative = 0;
        for (size_t i = 0; i < s.bucket_counts.size(); ++i) {
          cumulative += s.bucket_counts[i];
          std::string le = i < f->bounds_.size() ? FormatPrometheusValue(f->bounds_[i]) : "+Inf";
          out += name + "_bucket" + LabelSet(f->label_names(), values, "le", le) + " " +
                 std::to_string(cumulative) + "\n";
        }
        out += name + "_sum" + LabelSet(f->label_names(), values) + " " + FormatPrometheusValue(s.sum) + "\n";
        out += name + "_count" + LabelSet(f->label_names(), values) + " " + std::to_string(s.count) + "\n";
      }
    }
  }
  return out;
}

ServingMetrics::ServingMetrics(MetricsRegistry* r) : registry(r) {
  // TF Serving's request latency buckets: 10us * 1.8^i, 33 buckets (up to ~2.5e9 us).
  const auto latency = MetricsRegistry::ExponentialBuckets(10, 1.8, 33);
  const auto batch = MetricsRegistry::ExponentialBuckets(1, 2, 15);
  request_count = r->AddCounter(":tensorflow:serving:request_count", "The total number of requests.",
                                {"model_name", "status"});
  request_latency = r->AddHistogram(":tensorflow:serving:request_latency",
                                    "Distribution of wall time (in microseconds) for Tensorflow Serving request.",
                                    {"model_name", "API", "entrypoint"}, latency);
  runtime_latency = r->AddHistogram(":tensorflow:serving:runtime_latency",
                                    "Distribution of wall time (in microseconds) for Tensorflow runtime (with batching, "
                                    "the wait for the batch included).",
                                    {"model_name", "API", "runtime"}, latency);
  load_attempt_count = r->AddCounter(":tensorflow:cc:saved_model:load_attempt_count",
                                     "The number of times a SavedModel load (with its warm-up) was attempted, by outcome "
                                     "(status: success or failure).",
                                     {"model_path", "status"});
  load_latency = r->AddCounter(":tensorflow:cc:saved_model:load_latency",
                               "Total microseconds spent loading (and warming up) SavedModels that loaded "
                               "successfully.",
                               {"model_path"});
  model_load_latency = r->AddHistogram(":tensorflow:serving:model_load_latency",
                                       "Distribution of wall time (in microseconds) to load and warm up a model "
                                       "version.",
                                       {"model_name", "version"}, latency);
  model_warmup_latency = r->AddHistogram(":tensorflow:serving:model_warmup_latency",
                                         "Distribution of wall time (in microseconds) for warming up the model.",
                                         {"model_path"}, latency);
  processed_batch_size = r->AddHistogram(":tensorflow:serving:batching:processed_batch_size",
                                         "Tracks the batch size distribution on processing (rows the model ran, padding "
                                         "included).",
                                         {"model_name", "op_name"}, batch);
  input_batch_size = r->AddHistogram(":tensorflow:serving:batching:input_batch_size",
                                     "Tracks the batch size distribution on the inputs (real rows, before padding).", {"model_name", "op_name"},
                                     batch);
  padding_size = r->AddHistogram(":tensorflow:serving:batching:padding_size",
                                 "Tracks the padding size distribution on batches (rows added to reach an allowed batch size).", {"model_name", "op_name"},
                                 batch);
  queuing_latency = r->AddHistogram(":tensorflow:serving:batching:queuing_latency",
                                    "Tracks the latency (in microseconds) of a task spent in the batching queue.",
                                    {"model_name", "op_name"}, latency);
  queue_depth = r->AddGauge(":tfhost:serving:batch_queue_depth", "Requests waiting in the model's batching queues (not yet running), summed over its versions "
                            "and signatures.",
                            {"model_name"});
  batch_fill_ratio = r->AddGauge(":tfhost:serving:batch_fill_ratio",
                                 "Real rows divided by padded rows (the batch size the model ran) of the model's "
                                 "last batch; below 1 when allowed_batch_sizes pads.",
                                 {"model_name"});
  version_state = r->AddGauge(":tfhost:serving:model_version_state",
                              "State of each model version: 10 START, 20 LOADING, 30 AVAILABLE, 40 UNLOADING, 50 END.",
                              {"model_name", "version"});
  load_failures = r->AddCounter(":tfhost:serving:model_load_failures", "Failed load (or warm-up) attempts per model version, retries included.",
                                {"model_name", "version"});
}

void ServingMetrics::ForgetVersion(const std::string& model, int64_t version, const std::string& path) {
  const std::string v = std::to_string(version);
  version_state->Remove({model, v});
  model_load_latency->Remove({model, v});
  load_failures->Remove({model, v});
  load_attempt_count->Remove({path, "success"});
  load_attempt_count->Remove({path, "failure"});
  load_latency->Remove({path});
  model_warmup_latency->Remove({path});
}

}  // namespace tfhost::serving
