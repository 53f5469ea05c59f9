#include "serving/metrics/device_memory_metrics.h"

namespace tfhost::serving {

std::string DeviceMemoryLabel(const backends::Backend& backend) {
  return "gpu:" + std::to_string(backend.memory_space().device);
}

DeviceMemoryMetrics::DeviceMemoryMetrics(MetricsRegistry* registry, const backends::BackendRegistry& backends)
    : registry_(registry) {
  const std::vector<std::string> labels = {"device", "backend"};
  Gauge* in_use = nullptr;
  Gauge* peak = nullptr;
  Gauge* limit = nullptr;
  Gauge* reserved = nullptr;
  Counter* failures = nullptr;
  for (const backends::Backend* b : backends.backends()) {
    if (!b->device_memory().has_value()) continue;
    // Added with the first device backend, so that a CPU server's
    // exposition carries no empty device families.
    if (in_use == nullptr) {
      in_use = registry->AddGauge(":tfhost:serving:device_memory_in_use_bytes",
                                  "Bytes of device memory the backend's allocator has given to tensors now "
                                  "(rounded up to its alignment).",
                                  labels);
      peak = registry->AddGauge(":tfhost:serving:device_memory_peak_bytes",
                                "Most bytes of device memory the backend's allocator has had in use at once since "
                                "the server started.",
                                labels);
      limit = registry->AddGauge(":tfhost:serving:device_memory_limit_bytes",
                                 "Most bytes of device memory the backend's allocator may take "
                                 "(--per_process_gpu_memory_fraction of the device); 0 when it has no limit of its "
                                 "own.",
                                 labels);
      reserved = registry->AddGauge(":tfhost:serving:device_memory_reserved_bytes",
                                    "Bytes of device memory the backend's allocator holds (taken from the device, in "
                                    "use or cached for reuse).",
                                    labels);
      failures = registry->AddCounter(":tfhost:serving:device_memory_allocation_failures",
                                      "Device memory allocations the backend's allocator refused (out of memory); "
                                      "each fails the request that asked.",
                                      labels);
      // A family of these names with other labels would be a programming
      // error; export nothing rather than crash a server.
      if (!in_use || !peak || !limit || !reserved || !failures) return;
    }
    const std::vector<std::string> values = {DeviceMemoryLabel(*b), b->name()};
    devices_.push_back(Device{b, in_use->WithLabels(values), peak->WithLabels(values), limit->WithLabels(values),
                              reserved->WithLabels(values), failures->WithLabels(values)});
  }
  if (devices_.empty()) return;
  Refresh();
  collector_ = registry_->AddCollector([this] { Refresh(); });
}

DeviceMemoryMetrics::~DeviceMemoryMetrics() {
  if (collector_ >= 0) registry_->RemoveCollector(collector_);
}

void DeviceMemoryMetrics::Refresh() {
  for (const Device& d : devices_) {
    const std::optional<backends::DeviceMemoryStats> s = d.backend->device_memory();
    if (!s.has_value()) continue;
    d.in_use->Set(static_cast<double>(s->allocator.bytes_in_use));
    d.peak->Set(static_cast<double>(s->allocator.peak_bytes_in_use));
    d.limit->Set(static_cast<double>(s->allocator.bytes_limit));
    d.reserved->Set(static_cast<double>(s->bytes_reserved));
    // The allocator counts its failures itself; the counter follows it (the
    // collector runs one at a time, so nothing is added twice).
    const int64_t more = s->allocator.failed - d.failures->value();
    if (more > 0) d.failures->Increment(more);
  }
}

}  // namespace tfhost::serving
