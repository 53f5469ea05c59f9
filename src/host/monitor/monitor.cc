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
  // NVLink counters are cumulative: rates need the previous reading.
  const double dt = s.host.interval_s;
  for (GpuSample& g : s.gpus) {
    for (const GpuSample& p : last_gpus_) {
      if (p.index != g.index || dt <= 0 || p.nvlink_tx_kib_total < 0 || g.nvlink_tx_kib_total < p.nvlink_tx_kib_total ||
          g.nvlink_rx_kib_total < p.nvlink_rx_kib_total) {
        continue;
      }
      g.nvlink_tx_mbps = static_cast<double>(g.nvlink_tx_kib_total - p.nvlink_tx_kib_total) * 1024 / 1e6 / dt;
      g.nvlink_rx_mbps = static_cast<double>(g.nvlink_rx_kib_total - p.nvlink_rx_kib_total) * 1024 / 1e6 / dt;
    }
  }
  last_gpus_ = s.gpus;
  return s;
}

}  // namespace tfhost::host
