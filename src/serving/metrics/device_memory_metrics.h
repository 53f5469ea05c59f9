// The device memory of the backends a server runs models on, as Prometheus
// families of its MetricsRegistry: for each device backend (a GPU backend's
// BfcAllocator, or the fake GPU's in tests) what its allocator has in use,
// its peak, its limit, what it has taken from the device, and how many
// allocations it refused. Host backends have none and export nothing.
//
//   :tfhost:serving:device_memory_in_use_bytes        gauge   {device, backend}
//   :tfhost:serving:device_memory_peak_bytes          gauge   {device, backend}
//   :tfhost:serving:device_memory_limit_bytes         gauge   {device, backend}
//   :tfhost:serving:device_memory_reserved_bytes      gauge   {device, backend}
//   :tfhost:serving:device_memory_allocation_failures counter {device, backend}
//
// `device` is the GPU as --device spells it ("gpu:0"), `backend` the backend
// that owns the allocator ("cuda:0"). The figures are read from the
// allocators when the metrics are scraped (MetricsRegistry::AddCollector),
// so a request never pays for them.
//
// Thread-safety: made and destroyed on one thread; its collector runs on
// scraping threads, one at a time.
#pragma once

#include <string>
#include <vector>

#include "backends/backend_registry.h"
#include "serving/metrics/metrics_registry.h"

namespace tfhost::serving {

// "gpu:N" for device:N memory.
std::string DeviceMemoryLabel(const backends::Backend& backend);

class DeviceMemoryMetrics {
 public:
  // Exports the device backends of `backends` (which, like `registry`, must
  // outlive this object); none when it has none.
  DeviceMemoryMetrics(MetricsRegistry* registry, const backends::BackendRegistry& backends);
  // Stops the export (the series stay at their last values).
  ~DeviceMemoryMetrics();
  DeviceMemoryMetrics(const DeviceMemoryMetrics&) = delete;
  DeviceMemoryMetrics& operator=(const DeviceMemoryMetrics&) = delete;

  // How many backends are exported.
  size_t size() const { return devices_.size(); }

 private:
  struct Device {
    const backends::Backend* backend;
    GaugeCell* in_use;
    GaugeCell* peak;
    GaugeCell* limit;
    GaugeCell* reserved;
    CounterCell* failures;
  };
  // Reads every allocator into its cells (the registry's collector).
  void Refresh();

  MetricsRegistry* registry_;
  std::vector<Device> devices_;
  int collector_ = -1;
};

}  // namespace tfhost::serving
