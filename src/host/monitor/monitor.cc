#include "host/monitor/monitor.h"

namespace tfhost::host {

StatusOr<MonitorSample> Monitor::Next(double now_s, double wall_s) {
  TFHOST_ASSIGN_OR_RETURN(HostCounters c, ReadHostCounters(*fs_, now_s));
  if (hostname_.empty()) hostname_ = fs_->ReadTrimmed("/proc/sys/kernel/hostname");
  MonitorSample s;
  s.time_s = wall_s;
  s.hostname = hostname_;
  s.host = primed_ ? ComputeRates(last_, c) : ComputeRates(c, c);
  if (!primed_) s.host.interval_s = 0;
  s.counters = c;
  last_ = std::move(c);
  primed_ = true;
  if (nvml_ != nullptr) {
    StatusOr<std::vector<GpuSample>> gpus = nvml_->Sample();
    if (gpus.ok()) s.gpus = std::move(*gpus);  // no GPU / no driver: host metrics only
  }
  return s;
}

}  // namespace tfhost::host
