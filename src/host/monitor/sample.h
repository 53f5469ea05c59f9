// What `tfhost monitor` measures: raw cumulative host counters (procfs/sysfs)
// read at two instants become rates (CPU busy per core, disk IOPS and MB/s,
// network and RDMA MB/s); GPU samples come from NVML as instantaneous values.
// The structs are plain data so the exporter, recorder and dashboard (and
// tests) share them.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "base/status.h"
#include "host/probe/fs_reader.h"
#include "host/monitor/serve_scrape.h"
#include "host/probe/gpu_sample.h"

namespace tfhost::host {

struct CpuTimes {
  uint64_t user = 0, nice = 0, system = 0, idle = 0, iowait = 0, irq = 0, softirq = 0, steal = 0;  // USER_HZ ticks
  uint64_t Busy() const { return user + nice + system + irq + softirq + steal; }
  uint64_t Total() const { return Busy() + idle + iowait; }
};

struct DiskCounters {
  uint64_t reads = 0, read_sectors = 0, writes = 0, write_sectors = 0, io_ms = 0;
};

struct NetCounters {
  uint64_t rx_bytes = 0, tx_bytes = 0;
};

// Raw counters at one instant.
struct HostCounters {
  double time_s = 0;                                 // monotonic seconds
  std::vector<std::pair<std::string, CpuTimes>> cpus;  // "cpu" (all) first, then "cpu0", ...
  std::map<std::string, DiskCounters> disks;
  std::map<std::string, NetCounters> net;
  std::map<std::string, NetCounters> rdma;           // "mlx5_0/1" -> bytes (port counters x 4)
  uint64_t mem_total_bytes = 0, mem_available_bytes = 0;
};

struct DiskRate {
  double read_iops = 0, write_iops = 0, read_mbps = 0, write_mbps = 0, busy_pct = 0;
};

struct NetRate {
  double rx_mbps = 0, tx_mbps = 0;  // megabytes per second
};

// Rates over an interval.
struct HostRates {
  double interval_s = 0;
  double cpu_busy_pct = 0;                  // all CPUs; -1 when a parsed recording lacks it
  std::vector<double> core_busy_pct;        // per logical CPU
  uint64_t mem_total_bytes = 0, mem_used_bytes = 0;
  std::map<std::string, DiskRate> disks;
  std::map<std::string, NetRate> net;
  std::map<std::string, NetRate> rdma;
};

struct MonitorSample {
  double time_s = 0;      // seconds since the epoch
  std::string hostname;
  HostCounters counters;  // the raw counters at the end of the interval (exported as node_* counters)
  HostRates host;
  std::vector<GpuSample> gpus;
  // With --serve: the server read (its endpoint), its devices' allocators,
  // or why they could not be read this time.
  std::string serve;
  std::vector<ServeDeviceMemory> serve_devices;
  std::string serve_error;
};

// Reads the counters now. `time_s` is stamped by the caller (tests choose it).
StatusOr<HostCounters> ReadHostCounters(const FsReader& fs, double time_s);

// Rates between two readings of the same host; counters that went backwards
// (a reset, a device that vanished) count as zero.
HostRates ComputeRates(const HostCounters& before, const HostCounters& after);

}  // namespace tfhost::host
