// Instantaneous GPU metrics (what nvidia-smi and DCGM report each second):
// utilisation, memory, power against its limit, temperature, clocks, PCIe
// throughput, throttle reasons, ECC and row remapping, per-process memory.
// Nvml::Sample() fills them; `tfhost monitor` shows and exports them.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace tfhost::host {

struct GpuProcess {
  uint32_t pid = 0;
  uint64_t used_bytes = 0;
};

struct GpuSample {
  int index = -1;
  std::string uuid, name, pci_bus_id;
  int util_pct = -1;              // SM busy
  int mem_util_pct = -1;          // memory controller busy
  uint64_t mem_used_bytes = 0, mem_total_bytes = 0;
  double power_w = -1, power_limit_w = -1;
  int temp_c = -1;
  int sm_clock_mhz = -1, mem_clock_mhz = -1;
  double pcie_tx_mbps = -1, pcie_rx_mbps = -1;
  // NVLink data counters since driver load (KiB, all links), from NVML's
  // field values; Monitor turns them into nvlink_*_mbps between samples.
  int64_t nvlink_tx_kib_total = -1, nvlink_rx_kib_total = -1;
  double nvlink_tx_mbps = -1, nvlink_rx_mbps = -1;
  std::vector<std::string> throttle_reasons;  // active, excluding idle: "sw_power_cap", "hw_slowdown", ...
  int64_t ecc_dbe_volatile = -1;              // uncorrected ECC errors since driver load
  int64_t remapped_rows_pending = -1;
  std::vector<GpuProcess> processes;
};

}  // namespace tfhost::host
