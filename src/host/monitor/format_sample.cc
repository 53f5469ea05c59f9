// Renderings of a MonitorSample: the JSON-lines recording, Prometheus text
// (DCGM exporter names and labels for GPUs, node exporter names for the host)
// and the terminal dashboard.
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <algorithm>
#include <cstdio>
#include <sstream>

#include "host/monitor/monitor.h"

namespace tfhost::host {

namespace {

constexpr double kUserHz = 100.0;  // /proc/stat ticks per second (USER_HZ on every Linux ABI)

std::string Num(double v) {
  char buf[40];
  std::snprintf(buf, sizeof(buf), "%.6g", v);
  return buf;
}

// Prometheus label values escape backslash, double quote and newline.
std::string Escape(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '\\') out += "\\\\";
    else if (c == '"') out += "\\\"";
    else if (c == '\n') out += "\\n";
    else out += c;
  }
  return out;
}

class PromWriter {
 public:
  // Starts a metric family; HELP/TYPE are written once per family.
  void Family(const std::string& name, const char* type, const std::string& help) {
    out_ << "# HELP " << name << " " << help << "\n# TYPE " << name << " " << type << "\n";
    name_ = name;
  }
  void Value(const std::vector<std::pair<std::string, std::string>>& labels, double v) {
    out_ << name_;
    if (!labels.empty()) {
      out_ << "{";
      for (size_t i = 0; i < labels.size(); ++i) {
        out_ << (i ? "," : "") << labels[i].first << "=\"" << Escape(labels[i].second) << "\"";
      }
      out_ << "}";
    }
    out_ << " " << Num(v) << "\n";
  }
  std::string str() const { return out_.str(); }

 private:
  std::ostringstream out_;
  std::string name_;
};

using Labels = std::vector<std::pair<std::string, std::string>>;

Labels GpuLabels(const GpuSample& g, const std::string& host) {
  // The labels dcgm-exporter attaches to every GPU series.
  return {{"gpu", std::to_string(g.index)}, {"UUID", g.uuid}, {"device", "nvidia" + std::to_string(g.index)},
          {"modelName", g.name}, {"pci_bus_id", g.pci_bus_id}, {"Hostname", host}};
}

std::string Bar(double pct, int width) {
  int fill = static_cast<int>(std::clamp(pct, 0.0, 100.0) / 100.0 * width + 0.5);
  return "[" + std::string(static_cast<size_t>(fill), '#') + std::string(static_cast<size_t>(width - fill), ' ') + "]";
}

// 512 B, 1.5 MiB, 71.3 GiB.
std::string Bytes(double b) {
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  int u = 0;
  while (b >= 1024 && u < 4) {
    b /= 1024;
    ++u;
  }
  char text[32];
  std::snprintf(text, sizeof(text), u == 0 ? "%.0f %s" : "%.1f %s", b, units[u]);
  return text;
}

std::string Fixed(double v, int decimals = 1) {
  char buf[40];
  std::snprintf(buf, sizeof(buf), "%.*f", decimals, v);
  return buf;
}

}  // namespace

std::string FormatPrometheus(const MonitorSample& s) {
  PromWriter w;
  struct GpuMetric {
    const char* name;
    const char* type;
    const char* help;
    double (*get)(const GpuSample&);
  };
  static const GpuMetric kGpu[] = {
      {"DCGM_FI_DEV_GPU_UTIL", "gauge", "GPU utilization (in %).", [](const GpuSample& g) { return double(g.util_pct); }},
      {"DCGM_FI_DEV_MEM_COPY_UTIL", "gauge", "Memory utilization (in %).",
       [](const GpuSample& g) { return double(g.mem_util_pct); }},
      {"DCGM_FI_DEV_FB_USED", "gauge", "Framebuffer memory used (in MiB).",
       [](const GpuSample& g) { return double(g.mem_used_bytes >> 20); }},
      {"DCGM_FI_DEV_FB_FREE", "gauge", "Framebuffer memory free (in MiB).",
       [](const GpuSample& g) {
         return double((g.mem_total_bytes > g.mem_used_bytes ? g.mem_total_bytes - g.mem_used_bytes : 0) >> 20);
       }},
      {"DCGM_FI_DEV_POWER_USAGE", "gauge", "Power draw (in W).", [](const GpuSample& g) { return g.power_w; }},
      {"DCGM_FI_DEV_POWER_MGMT_LIMIT", "gauge", "Power management limit (in W).",
       [](const GpuSample& g) { return g.power_limit_w; }},
      {"DCGM_FI_DEV_GPU_TEMP", "gauge", "GPU temperature (in C).", [](const GpuSample& g) { return double(g.temp_c); }},
      {"DCGM_FI_DEV_SM_CLOCK", "gauge", "SM clock frequency (in MHz).",
       [](const GpuSample& g) { return double(g.sm_clock_mhz); }},
      {"DCGM_FI_DEV_MEM_CLOCK", "gauge", "Memory clock frequency (in MHz).",
       [](const GpuSample& g) { return double(g.mem_clock_mhz); }},
      {"DCGM_FI_PROF_PCIE_TX_BYTES", "gauge", "The rate of data transmitted over the PCIe bus (in B/s).",
       [](const GpuSample& g) { return g.pcie_tx_mbps < 0 ? -1 : g.pcie_tx_mbps * 1e6; }},
      {"DCGM_FI_PROF_PCIE_RX_BYTES", "gauge", "The rate of data received over the PCIe bus (in B/s).",
       [](const GpuSample& g) { return g.pcie_rx_mbps < 0 ? -1 : g.pcie_rx_mbps * 1e6; }},
      {"DCGM_FI_PROF_NVLINK_TX_BYTES", "gauge", "The rate of data transmitted over NVLink (in B/s).",
       [](const GpuSample& g) { return g.nvlink_tx_mbps < 0 ? -1 : g.nvlink_tx_mbps * 1e6; }},
      {"DCGM_FI_PROF_NVLINK_RX_BYTES", "gauge", "The rate of data received over NVLink (in B/s).",
       [](const GpuSample& g) { return g.nvlink_rx_mbps < 0 ? -1 : g.nvlink_rx_mbps * 1e6; }},
      {"DCGM_FI_DEV_ECC_DBE_VOL_TOTAL", "counter", "Total number of double-bit volatile ECC errors.",
       [](const GpuSample& g) { return double(g.ecc_dbe_volatile); }},
      {"DCGM_FI_DEV_ROW_REMAP_PENDING", "gauge", "Whether a row remapping is pending (reset the GPU).",
       [](const GpuSample& g) { return double(g.remapped_rows_pending); }},
  };
  for (const GpuMetric& m : kGpu) {
    bool any = false;
    for (const GpuSample& g : s.gpus) any |= m.get(g) >= 0;
    if (!any) continue;  // unknown everywhere: leave the family out rather than export -1
    w.Family(m.name, m.type, m.help);
    for (const GpuSample& g : s.gpus) {
      double v = m.get(g);
      if (v >= 0) w.Value(GpuLabels(g, s.hostname), v);
    }
  }
  if (!s.gpus.empty()) {
    w.Family("tfhost_gpu_clock_throttle_active", "gauge",
             "1 for each active clock throttle reason (NVML nvmlClocksThrottleReasons names).");
    for (const GpuSample& g : s.gpus) {
      for (const std::string& r : g.throttle_reasons) {
        Labels l = GpuLabels(g, s.hostname);
        l.push_back({"reason", r});
        w.Value(l, 1);
      }
    }
    w.Family("tfhost_gpu_process_memory_bytes", "gauge", "GPU memory used by each process.");
    for (const GpuSample& g : s.gpus) {
      for (const GpuProcess& p : g.processes) {
        Labels l = GpuLabels(g, s.hostname);
        l.push_back({"pid", std::to_string(p.pid)});
        w.Value(l, static_cast<double>(p.used_bytes));
      }
    }
  }
  // Host: node exporter's names, from the raw counters.
  const HostCounters& c = s.counters;
  w.Family("node_cpu_seconds_total", "counter", "Seconds the CPUs spent in each mode.");
  for (const auto& [name, t] : c.cpus) {
    if (name == "cpu") continue;
    const std::string cpu = name.substr(3);
    const std::pair<const char*, uint64_t> modes[] = {{"user", t.user},       {"nice", t.nice},   {"system", t.system},
                                                      {"idle", t.idle},       {"iowait", t.iowait}, {"irq", t.irq},
                                                      {"softirq", t.softirq}, {"steal", t.steal}};
    for (const auto& [mode, ticks] : modes) w.Value({{"cpu", cpu}, {"mode", mode}}, static_cast<double>(ticks) / kUserHz);
  }
  w.Family("node_memory_MemTotal_bytes", "gauge", "Memory information field MemTotal_bytes.");
  w.Value({}, static_cast<double>(c.mem_total_bytes));
  w.Family("node_memory_MemAvailable_bytes", "gauge", "Memory information field MemAvailable_bytes.");
  w.Value({}, static_cast<double>(c.mem_available_bytes));
  struct DiskMetric {
    const char* name;
    const char* help;
    double (*get)(const DiskCounters&);
  };
  static const DiskMetric kDisk[] = {
      {"node_disk_reads_completed_total", "The total number of reads completed successfully.",
       [](const DiskCounters& d) { return double(d.reads); }},
      {"node_disk_writes_completed_total", "The total number of writes completed successfully.",
       [](const DiskCounters& d) { return double(d.writes); }},
      {"node_disk_read_bytes_total", "The total number of bytes read successfully.",
       [](const DiskCounters& d) { return double(d.read_sectors) * 512; }},
      {"node_disk_written_bytes_total", "The total number of bytes written successfully.",
       [](const DiskCounters& d) { return double(d.write_sectors) * 512; }},
      {"node_disk_io_time_seconds_total", "Total seconds spent doing I/Os.",
       [](const DiskCounters& d) { return double(d.io_ms) / 1000.0; }},
  };
  for (const DiskMetric& m : kDisk) {
    if (c.disks.empty()) break;
    w.Family(m.name, "counter", m.help);
    for (const auto& [dev, d] : c.disks) w.Value({{"device", dev}}, m.get(d));
  }
  if (!c.net.empty()) {
    w.Family("node_network_receive_bytes_total", "counter", "Network device statistic receive_bytes.");
    for (const auto& [dev, n] : c.net) w.Value({{"device", dev}}, static_cast<double>(n.rx_bytes));
    w.Family("node_network_transmit_bytes_total", "counter", "Network device statistic transmit_bytes.");
    for (const auto& [dev, n] : c.net) w.Value({{"device", dev}}, static_cast<double>(n.tx_bytes));
  }
  if (!c.rdma.empty()) {
    auto split = [](const std::string& key) {
      size_t slash = key.find('/');
      return Labels{{"device", key.substr(0, slash)}, {"port", slash == std::string::npos ? "" : key.substr(slash + 1)}};
    };
    w.Family("node_infiniband_port_data_received_bytes_total", "counter", "Number of data octets received on all links.");
    for (const auto& [k, n] : c.rdma) w.Value(split(k), static_cast<double>(n.rx_bytes));
    w.Family("node_infiniband_port_data_transmitted_bytes_total", "counter",
             "Number of data octets transmitted on all links.");
    for (const auto& [k, n] : c.rdma) w.Value(split(k), static_cast<double>(n.tx_bytes));
  }
  return w.str();
}

std::string FormatSampleJsonLine(const MonitorSample& s) {
  rapidjson::StringBuffer buf;
  rapidjson::Writer<rapidjson::StringBuffer> w(buf);
  auto num = [&](const char* k, double v) { w.Key(k); w.Double(v); };
  auto str = [&](const char* k, const std::string& v) {
    w.Key(k);
    w.String(v.c_str(), static_cast<rapidjson::SizeType>(v.size()));
  };
  w.StartObject();
  num("time", s.time_s);
  str("host", s.hostname);
  num("interval_s", s.host.interval_s);
  num("cpu_busy_pct", s.host.cpu_busy_pct);
  w.Key("core_busy_pct");
  w.StartArray();
  for (double c : s.host.core_busy_pct) w.Double(c);
  w.EndArray();
  num("mem_used_bytes", static_cast<double>(s.host.mem_used_bytes));
  num("mem_total_bytes", static_cast<double>(s.host.mem_total_bytes));
  w.Key("disks");
  w.StartObject();
  for (const auto& [name, d] : s.host.disks) {
    w.Key(name.c_str());
    w.StartObject();
    num("read_iops", d.read_iops);
    num("write_iops", d.write_iops);
    num("read_mbps", d.read_mbps);
    num("write_mbps", d.write_mbps);
    num("busy_pct", d.busy_pct);
    w.EndObject();
  }
  w.EndObject();
  for (const auto& [key, map] : {std::pair{"net", &s.host.net}, {"rdma", &s.host.rdma}}) {
    w.Key(key);
    w.StartObject();
    for (const auto& [name, n] : *map) {
      w.Key(name.c_str());
      w.StartObject();
      num("rx_mbps", n.rx_mbps);
      num("tx_mbps", n.tx_mbps);
      w.EndObject();
    }
    w.EndObject();
  }
  w.Key("gpus");
  w.StartArray();
  for (const GpuSample& g : s.gpus) {
    w.StartObject();
    num("index", g.index);
    str("uuid", g.uuid);
    num("util_pct", g.util_pct);
    num("mem_util_pct", g.mem_util_pct);
    num("mem_used_bytes", static_cast<double>(g.mem_used_bytes));
    num("mem_total_bytes", static_cast<double>(g.mem_total_bytes));
    num("power_w", g.power_w);
    num("power_limit_w", g.power_limit_w);
    num("temp_c", g.temp_c);
    num("sm_clock_mhz", g.sm_clock_mhz);
    num("mem_clock_mhz", g.mem_clock_mhz);
    num("pcie_tx_mbps", g.pcie_tx_mbps);
    num("pcie_rx_mbps", g.pcie_rx_mbps);
    num("nvlink_tx_mbps", g.nvlink_tx_mbps);
    num("nvlink_rx_mbps", g.nvlink_rx_mbps);
    w.Key("throttle_reasons");
    w.StartArray();
    for (const std::string& r : g.throttle_reasons) w.String(r.c_str());
    w.EndArray();
    w.EndObject();
  }
  w.EndArray();
  if (!s.serve.empty()) {
    str("serve", s.serve);
    if (!s.serve_error.empty()) str("serve_error", s.serve_error);
    w.Key("serve_devices");
    w.StartArray();
    for (const ServeDeviceMemory& d : s.serve_devices) {
      w.StartObject();
      str("device", d.device);
      str("backend", d.backend);
      num("in_use_bytes", d.in_use_bytes);
      num("peak_bytes", d.peak_bytes);
      num("limit_bytes", d.limit_bytes);
      num("reserved_bytes", d.reserved_bytes);
      num("allocation_failures", d.allocation_failures);
      w.EndObject();
    }
    w.EndArray();
  }
  w.EndObject();
  return std::string(buf.GetString(), buf.GetSize());
}

std::string FormatDashboard(const MonitorSample& s) {
  std::ostringstream o;
  const HostRates& h = s.host;
  o << "tfhost monitor  " << s.hostname << "  interval " << Fixed(h.interval_s, 2) << " s\n\n";
  for (const GpuSample& g : s.gpus) {
    double mem_pct = g.mem_total_bytes ? 100.0 * static_cast<double>(g.mem_used_bytes) / static_cast<double>(g.mem_total_bytes) : 0;
    o << "GPU" << g.index << " " << g.name << "\n"
      << "  util " << Bar(g.util_pct, 20) << " " << std::max(0, g.util_pct) << "%   mem " << Bar(mem_pct, 20) << " "
      << Fixed(static_cast<double>(g.mem_used_bytes) / (1 << 30)) << "/"
      << Fixed(static_cast<double>(g.mem_total_bytes) / (1 << 30)) << " GiB\n"
      << "  power " << Fixed(g.power_w, 0) << "/" << Fixed(g.power_limit_w, 0) << " W  temp " << g.temp_c << " C  SM "
      << g.sm_clock_mhz << " MHz  mem " << g.mem_clock_mhz << " MHz  PCIe tx/rx " << Fixed(g.pcie_tx_mbps) << "/"
      << Fixed(g.pcie_rx_mbps) << " MB/s";
    if (g.nvlink_tx_mbps >= 0) o << "  NVLink tx/rx " << Fixed(g.nvlink_tx_mbps) << "/" << Fixed(g.nvlink_rx_mbps) << " MB/s";
    if (!g.throttle_reasons.empty()) {
      o << "  THROTTLED:";
      for (const std::string& r : g.throttle_reasons) o << " " << r;
    }
    if (g.ecc_dbe_volatile > 0) o << "  ECC DBE " << g.ecc_dbe_volatile;
    if (g.remapped_rows_pending > 0) o << "  ROW REMAP PENDING";
    o << "\n";
    for (const GpuProcess& p : g.processes) {
      o << "    pid " << p.pid << "  " << Fixed(static_cast<double>(p.used_bytes) / (1 << 20), 0) << " MiB\n";
    }
  }
  if (s.gpus.empty()) o << "no GPU metrics (no NVIDIA GPU or driver)\n";
  if (!s.serve.empty()) {
    // The error names the server itself.
    if (!s.serve_error.empty()) {
      o << "\n" << s.serve_error << "\n";
    } else {
      o << "\ntfhost serve " << s.serve << (s.serve_devices.empty() ? ": no device memory (serving on the CPU)" : "")
        << "\n";
    }
    for (const ServeDeviceMemory& d : s.serve_devices) {
      const double pct = d.limit_bytes > 0 ? 100.0 * d.reserved_bytes / d.limit_bytes : 0;
      o << "  " << d.device << " (" << d.backend << ")  reserved " << Bar(pct, 20) << " " << Bytes(d.reserved_bytes)
        << "/" << Bytes(d.limit_bytes) << "  in use " << Bytes(d.in_use_bytes) << "  peak " << Bytes(d.peak_bytes)
        << "  " << Num(d.allocation_failures) << " failed allocations\n";
    }
  }
  o << "\nCPU " << Bar(h.cpu_busy_pct, 40) << " " << Fixed(h.cpu_busy_pct) << "%\n";
  for (size_t i = 0; i < h.core_busy_pct.size(); ++i) {
    o << "  " << (i < 10 ? " " : "") << i << " " << Bar(h.core_busy_pct[i], 10) << (i % 4 == 3 ? "\n" : " ");
  }
  if (h.core_busy_pct.size() % 4 != 0) o << "\n";
  double mem_pct = h.mem_total_bytes ? 100.0 * static_cast<double>(h.mem_used_bytes) / static_cast<double>(h.mem_total_bytes) : 0;
  o << "MEM " << Bar(mem_pct, 40) << " " << Fixed(static_cast<double>(h.mem_used_bytes) / (1 << 30)) << "/"
    << Fixed(static_cast<double>(h.mem_total_bytes) / (1 << 30)) << " GiB\n";
  for (const auto& [name, d] : h.disks) {
    o << "disk " << name << ": " << Fixed(d.read_iops, 0) << " r/s " << Fixed(d.write_iops, 0) << " w/s  "
      << Fixed(d.read_mbps) << " MB/s read " << Fixed(d.write_mbps) << " MB/s write  busy " << Fixed(d.busy_pct, 0)
      << "%\n";
  }
  for (const auto& [name, n] : h.net) {
    o << "net " << name << ": rx " << Fixed(n.rx_mbps, 2) << " MB/s tx " << Fixed(n.tx_mbps, 2) << " MB/s\n";
  }
  for (const auto& [name, n] : h.rdma) {
    o << "rdma " << name << ": rx " << Fixed(n.rx_mbps, 2) << " MB/s tx " << Fixed(n.tx_mbps, 2) << " MB/s\n";
  }
  return o.str();
}

}  // namespace tfhost::host
