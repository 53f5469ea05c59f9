// `tfhost monitor`: samples the host (procfs/sysfs counters -> rates) and the
// GPUs (Nvml::Sample) once per interval, and renders a sample as a terminal
// dashboard, a JSON line (the recording format), or Prometheus text with
// DCGM exporter's GPU metric names and node exporter's host metric names.
//
// Thread-safety: a Monitor is used from one thread; the formatters are pure.
#pragma once

#include <memory>
#include <string>

#include "host/monitor/sample.h"
#include "host/probe/nvml.h"

namespace tfhost::host {

class Monitor {
 public:
  // `fs` and `nvml` (may be null: no GPUs) must outlive the monitor.
  Monitor(const FsReader* fs, Nvml* nvml) : fs_(fs), nvml_(nvml) {}

  // Reads counters at monotonic time `now_s` (and wall time `wall_s`). The
  // first call only primes the counters and returns a sample with zero
  // rates (interval_s == 0); later calls return rates since the previous one.
  StatusOr<MonitorSample> Next(double now_s, double wall_s);

 private:
  const FsReader* fs_;
  Nvml* nvml_;
  bool primed_ = false;
  HostCounters last_;
  std::vector<GpuSample> last_gpus_;
  std::string hostname_;
};

// One JSON object on one line (no newline at the end): the `--record` format
// that `tfhost advise` reads.
std::string FormatSampleJsonLine(const MonitorSample& s);

// Prometheus text exposition format 0.0.4.
std::string FormatPrometheus(const MonitorSample& s);

// The terminal dashboard (no escape codes; the caller clears the screen).
std::string FormatDashboard(const MonitorSample& s);

}  // namespace tfhost::host
