// Host counters from procfs/sysfs: /proc/stat (CPU ticks), /proc/meminfo,
// /proc/diskstats, /proc/net/dev and the InfiniBand port counters. Each
// reading is a handful of small file reads, which keeps `tfhost monitor`
// cheap at a 1 s interval.
#include <algorithm>
#include <cctype>
#include <sstream>

#include "host/monitor/sample.h"

namespace tfhost::host {

namespace {

uint64_t U64(const std::string& s) { return std::strtoull(s.c_str(), nullptr, 10); }

bool SkipDisk(const std::string& name) {
  // Partitions and pseudo devices: count whole disks only.
  for (const char* p : {"loop", "ram", "zram", "sr", "fd"}) {
    if (name.rfind(p, 0) == 0) return true;
  }
  if (name.rfind("nvme", 0) == 0) return name.find('p') != std::string::npos;  // nvme0n1p1
  if (name.rfind("sd", 0) == 0 || name.rfind("vd", 0) == 0 || name.rfind("xvd", 0) == 0 ||
      name.rfind("hd", 0) == 0) {
    return std::isdigit(static_cast<unsigned char>(name.back()));  // sda1
  }
  return false;
}

double PerSecond(uint64_t before, uint64_t after, double dt) {
  return after >= before && dt > 0 ? static_cast<double>(after - before) / dt : 0;
}

}  // namespace

StatusOr<HostCounters> ReadHostCounters(const FsReader& fs, double time_s) {
  HostCounters c;
  c.time_s = time_s;
  TFHOST_ASSIGN_OR_RETURN(std::string stat, fs.ReadFile("/proc/stat"));
  std::istringstream in(stat);
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("cpu", 0) != 0) continue;
    std::vector<std::string> f = SplitNonEmpty(line, " ");
    if (f.size() < 8) continue;
    CpuTimes t;
    t.user = U64(f[1]);
    t.nice = U64(f[2]);
    t.system = U64(f[3]);
    t.idle = U64(f[4]);
    t.iowait = U64(f[5]);
    t.irq = U64(f[6]);
    t.softirq = U64(f[7]);
    t.steal = f.size() > 8 ? U64(f[8]) : 0;
    c.cpus.emplace_back(f[0], t);
  }
  if (StatusOr<std::string> mem = fs.ReadFile("/proc/meminfo"); mem.ok()) {
    std::istringstream m(*mem);
    while (std::getline(m, line)) {
      if (line.rfind("MemTotal:", 0) == 0) c.mem_total_bytes = U64(line.substr(9)) * 1024;
      if (line.rfind("MemAvailable:", 0) == 0) c.mem_available_bytes = U64(line.substr(13)) * 1024;
    }
  }
  if (StatusOr<std::string> disks = fs.ReadFile("/proc/diskstats"); disks.ok()) {
    std::istringstream d(*disks);
    while (std::getline(d, line)) {
      // major minor name reads merged sectors ms writes merged sectors ms in_flight io_ms ...
      std::vector<std::string> f = SplitNonEmpty(line, " ");
      if (f.size() < 13 || SkipDisk(f[2])) continue;
      DiskCounters dc;
      dc.reads = U64(f[3]);
      dc.read_sectors = U64(f[5]);
      dc.writes = U64(f[7]);
      dc.write_sectors = U64(f[9]);
      dc.io_ms = U64(f[12]);
      c.disks[f[2]] = dc;
    }
  }
  if (StatusOr<std::string> net = fs.ReadFile("/proc/net/dev"); net.ok()) {
    std::istringstream n(*net);
    while (std::getline(n, line)) {
      size_t colon = line.find(':');
      if (colon == std::string::npos) continue;  // the two header lines
      std::string name = Trim(line.substr(0, colon));
      std::vector<std::string> f = SplitNonEmpty(line.substr(colon + 1), " ");
      if (f.size() < 9 || name == "lo") continue;
      c.net[name] = {U64(f[0]), U64(f[8])};
    }
  }
  if (StatusOr<std::vector<std::string>> devs = fs.ListDir("/sys/class/infiniband"); devs.ok()) {
    for (const std::string& dev : *devs) {
      StatusOr<std::vector<std::string>> ports = fs.ListDir("/sys/class/infiniband/" + dev + "/ports");
      if (!ports.ok()) continue;
      for (const std::string& p : *ports) {
        std::string base = "/sys/class/infiniband/" + dev + "/ports/" + p + "/counters/";
        int64_t rx = fs.ReadInt(base + "port_rcv_data"), tx = fs.ReadInt(base + "port_xmit_data");
        // The data counters count 4-byte words (InfiniBand PortCounters).
        if (rx >= 0 && tx >= 0) c.rdma[dev + "/" + p] = {static_cast<uint64_t>(rx) * 4, static_cast<uint64_t>(tx) * 4};
      }
    }
  }
  return c;
}

HostRates ComputeRates(const HostCounters& a, const HostCounters& b) {
  HostRates r;
  const double dt = b.time_s - a.time_s;
  r.interval_s = dt;
  std::map<std::string, CpuTimes> before(a.cpus.begin(), a.cpus.end());
  for (const auto& [name, t] : b.cpus) {
    auto it = before.find(name);
    if (it == before.end()) continue;
    uint64_t total = t.Total() >= it->second.Total() ? t.Total() - it->second.Total() : 0;
    uint64_t busy = t.Busy() >= it->second.Busy() ? t.Busy() - it->second.Busy() : 0;
    double pct = total > 0 ? 100.0 * static_cast<double>(busy) / static_cast<double>(total) : 0;
    if (name == "cpu") r.cpu_busy_pct = pct;
    else r.core_busy_pct.push_back(pct);
  }
  r.mem_total_bytes = b.mem_total_bytes;
  r.mem_used_bytes = b.mem_total_bytes >= b.mem_available_bytes ? b.mem_total_bytes - b.mem_available_bytes : 0;
  for (const auto& [name, d] : b.disks) {
    auto it = a.disks.find(name);
    if (it == a.disks.end()) continue;
    const DiskCounters& o = it->second;
    DiskRate dr;
    dr.read_iops = PerSecond(o.reads, d.reads, dt);
    dr.write_iops = PerSecond(o.writes, d.writes, dt);
    dr.read_mbps = PerSecond(o.read_sectors, d.read_sectors, dt) * 512 / 1e6;
    dr.write_mbps = PerSecond(o.write_sectors, d.write_sectors, dt) * 512 / 1e6;
    dr.busy_pct = std::min(100.0, PerSecond(o.io_ms, d.io_ms, dt) / 10.0);  // ms per s -> %
    r.disks[name] = dr;
  }
  auto rates = [&](const std::map<std::string, NetCounters>& x, const std::map<std::string, NetCounters>& y,
                   std::map<std::string, NetRate>* out) {
    for (const auto& [name, n] : y) {
      auto it = x.find(name);
      if (it == x.end()) continue;
      (*out)[name] = {PerSecond(it->second.rx_bytes, n.rx_bytes, dt) / 1e6,
                      PerSecond(it->second.tx_bytes, n.tx_bytes, dt) / 1e6};
    }
  };
  rates(a.net, b.net, &r.net);
  rates(a.rdma, b.rdma, &r.rdma);
  return r;
}

}  // namespace tfhost::host
