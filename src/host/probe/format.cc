// `tfhost probe` output: a readable report and a JSON document whose field
// names follow host_facts.h (docs/host.md lists them).
#include <rapidjson/prettywriter.h>
#include <rapidjson/stringbuffer.h>

#include <cstdio>
#include <sstream>

#include "host/probe/probe.h"

namespace tfhost::host {

namespace {

std::string Bytes(uint64_t b) {
  if (b == 0) return "?";
  if (b == kUnlimited) return "unlimited";
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
  double v = static_cast<double>(b);
  int u = 0;
  while (v >= 1024 && u < 5) v /= 1024, ++u;
  char buf[32];
  std::snprintf(buf, sizeof(buf), u == 0 ? "%.0f %s" : "%.1f %s", v, units[u]);
  return buf;
}

std::string Join(const std::vector<std::string>& v, const char* sep = " ") {
  std::string s;
  for (const std::string& x : v) {
    if (!s.empty()) s += sep;
    s += x;
  }
  return s;
}

std::string CpuRanges(const std::vector<int>& cpus) {
  std::string s;
  for (size_t i = 0; i < cpus.size();) {
    size_t j = i;
    while (j + 1 < cpus.size() && cpus[j + 1] == cpus[j] + 1) ++j;
    if (!s.empty()) s += ',';
    s += std::to_string(cpus[i]);
    if (j > i) {
      s += '-';
      s += std::to_string(cpus[j]);
    }
    i = j + 1;
  }
  return s;
}

std::string CudaVersionText(int v) {
  return v < 0 ? "?" : std::to_string(v / 1000) + "." + std::to_string((v % 1000) / 10);
}

// The PCI class names that matter on a GPU server; others print as hex.
std::string PciClassName(int class_id) {
  switch (class_id) {
    case 0x0300: return "VGA";
    case 0x0302: return "3D controller (GPU)";
    case 0x0200: return "Ethernet";
    case 0x0207: return "InfiniBand";
    case 0x0108: return "NVMe";
    case 0x0106: return "SATA";
    case 0x0604: return "PCI bridge";
    case 0x0680: return "bridge (NVSwitch/other)";
    case -1: return "";
  }
  char buf[16];
  std::snprintf(buf, sizeof(buf), "class %04x", class_id);
  return buf;
}

std::string Limit(uint64_t v) { return v == kUnlimited ? "unlimited" : std::to_string(v); }

}  // namespace

std::string FormatFactsText(const HostFacts& f) {
  std::ostringstream o;
  const CpuFacts& c = f.cpu;
  o << "CPU\n  " << (c.model_name.empty() ? "?" : c.model_name) << " (" << c.vendor << ")\n"
    << "  sockets " << c.sockets << ", physical cores " << c.physical_cores << ", logical CPUs " << c.logical_cpus;
  if (c.online_cpus >= 0) o << ", usable by this process " << c.online_cpus;
  o << "\n";
  if (c.max_mhz > 0) o << "  max " << static_cast<int>(c.max_mhz) << " MHz\n";
  o << "  ISA: " << (c.isa.empty() ? "(none of interest)" : Join(c.isa)) << "\n";
  if (!c.governors.empty()) o << "  frequency governor: " << Join(c.governors, ", ") << "\n";
  o << "NUMA\n";
  for (const NumaNode& n : f.numa) o << "  node " << n.id << ": CPUs " << CpuRanges(n.cpus) << ", " << Bytes(n.memory_bytes) << "\n";
  const MemoryFacts& m = f.memory;
  o << "Memory\n  total " << Bytes(m.total_bytes) << ", available " << Bytes(m.available_bytes) << "\n"
    << "  swap " << (m.swap_total_bytes ? Bytes(m.swap_total_bytes) : "none") << ", swappiness " << m.swappiness
    << ", transparent huge pages " << (m.thp_enabled.empty() ? "?" : m.thp_enabled) << " (defrag "
    << (m.thp_defrag.empty() ? "?" : m.thp_defrag) << ")\n";
  o << "Disks\n";
  for (const DiskFacts& d : f.disks) {
    o << "  " << d.name << ": " << d.kind << ", " << Bytes(d.size_bytes) << (d.model.empty() ? "" : ", " + d.model) << "\n";
  }
  o << "Filesystems\n";
  for (const MountFacts& mt : f.mounts) {
    o << "  " << mt.mount_point << ": " << mt.fs_type << (mt.network ? " (network)" : "") << ", free "
      << Bytes(mt.free_bytes) << " of " << Bytes(mt.total_bytes) << "\n";
  }
  for (const PathFacts& p : f.paths) {
    if (!p.error.empty()) o << "  path " << p.path << ": " << p.error << "\n";
    else o << "  path " << p.path << ": on " << p.mount.mount_point << " (" << p.mount.fs_type
           << (p.mount.network ? ", network filesystem" : ", local") << ")\n";
  }
  o << "Network\n";
  for (const NetInterface& n : f.net) {
    o << "  " << n.name << ": " << n.operstate << ", " << (n.speed_mbps > 0 ? std::to_string(n.speed_mbps) + " Mb/s" : "speed ?")
      << ", mtu " << n.mtu << (n.is_virtual ? ", virtual" : "") << (n.driver.empty() ? "" : ", " + n.driver)
      << (n.ipv4.empty() ? "" : ", " + Join(n.ipv4, ",")) << "\n";
  }
  o << "RDMA\n";
  if (f.rdma.empty()) o << "  none\n";
  for (const RdmaDevice& d : f.rdma) {
    for (const RdmaPort& p : d.ports) {
      std::string types;
      for (const RdmaGid& g : p.gids) {
        if (!types.empty()) types += ", ";
        types += std::to_string(g.index);
        types += ':';
        types += g.type;
      }
      o << "  " << d.name << " port " << p.port << ": " << p.link_layer << (p.link_layer == "Ethernet" ? " (RoCE)" : "")
        << ", " << p.state << ", " << p.rate << (d.net_devices.empty() ? "" : ", netdev " + Join(d.net_devices, ","))
        << (types.empty() ? "" : ", GIDs " + types) << "\n";
    }
  }
  const NvidiaFacts& nv = f.nvidia;
  o << "GPUs\n";
  if (!nv.nvml_loaded) {
    o << "  none: " << nv.nvml_error << "\n";
  } else {
    o << "  driver " << nv.driver_version << ", CUDA driver API " << CudaVersionText(nv.cuda_driver_version)
      << " (" << nv.source << ")\n";
    for (const GpuFacts& g : nv.gpus) {
      o << "  GPU" << g.index << ": " << g.name << ", " << Bytes(g.memory_total_bytes) << ", sm_" << g.cc_major
        << g.cc_minor << ", PCIe gen " << g.pcie_gen_current << "/" << g.pcie_gen_max << " x" << g.pcie_width_current
        << "/" << g.pcie_width_max << ", NVLinks " << g.ActiveNvLinks() << ", MIG " << g.mig_mode << ", NUMA "
        << g.numa_node << ", " << g.pci_bus_id << ", " << g.uuid << "\n";
    }
  }
  o << "CUDA libraries\n";
  if (f.libraries.empty()) o << "  none found\n";
  for (const LibraryFacts& l : f.libraries) {
    o << "  " << l.name << " " << (l.version.empty() ? "?" : l.version) << "  " << l.path << "\n";
  }
  if (!f.topology.empty()) {
    o << "Topology (nvidia-smi topo -m style)\n  " << std::string(8, ' ');
    for (const std::string& l : f.topology.labels) o << l << std::string(l.size() < 8 ? 8 - l.size() : 1, ' ');
    o << "CPU Affinity    NUMA Affinity\n";
    for (size_t i = 0; i < f.topology.labels.size(); ++i) {
      const std::string& l = f.topology.labels[i];
      o << "  " << l << std::string(l.size() < 8 ? 8 - l.size() : 1, ' ');
      for (size_t j = 0; j < f.topology.cells[i].size(); ++j) {
        const std::string& cell = f.topology.cells[i][j];
        size_t w = std::max<size_t>(8, f.topology.labels[j].size() + 1);
        o << cell << std::string(cell.size() < w ? w - cell.size() : 1, ' ');
      }
      o << f.topology.cpu_affinity[i] << std::string(16 - std::min<size_t>(15, f.topology.cpu_affinity[i].size()), ' ')
        << f.topology.numa_affinity[i] << "\n";
    }
    if (!f.topology.pcie_source.empty()) o << "  PCIe relations from " << f.topology.pcie_source << "\n";
    for (const std::string& note : f.topology.notes) o << "  note: " << note << "\n";
  }
  if (!f.pcie.empty()) {
    o << "PCIe (hwloc)\n";
    for (const PcieNode& n : f.pcie) {
      o << std::string(2 + 2 * n.depth, ' ');
      if (n.kind == "host_bridge") {
        o << "host bridge " << n.bus_id << (n.numa_node >= 0 ? ", NUMA node " + std::to_string(n.numa_node) : "");
      } else {
        o << n.bus_id << " " << (n.kind == "bridge" ? "switch port" : PciClassName(n.class_id));
        if (!n.vendor_device.empty()) o << " [" << n.vendor_device << "]";
        if (n.link_gbps > 0) {
          char buf[32];
          std::snprintf(buf, sizeof(buf), ", %.1f GB/s", n.link_gbps);
          o << buf;
        }
        if (!n.os_devices.empty()) o << " (" << Join(n.os_devices, ", ") << ")";
      }
      o << "\n";
    }
  }
  const EnvironmentHints& e = f.env;
  o << "Environment\n  host " << e.hostname << ", kernel " << e.kernel_release << "\n"
    << "  container: " << (e.in_container ? e.container_runtime : "no") << ", cgroup " << e.cgroup_version;
  if (e.cgroup_memory_limit) o << ", memory limit " << Bytes(e.cgroup_memory_limit);
  if (e.cgroup_cpu_limit > 0) o << ", CPU limit " << e.cgroup_cpu_limit;
  std::string machine = Join({e.dmi_sys_vendor, e.dmi_product_name});
  o << "\n  machine: " << (Trim(machine).empty() ? "unknown (no DMI)" : machine)
    << (e.cloud.empty() ? "" : ", cloud " + e.cloud) << (e.virtualization.empty() ? "" : ", virtualized (" + e.virtualization + ")")
    << "\n";
  o << "Limits\n  memlock " << Limit(f.limits.memlock_soft) << " (hard " << Limit(f.limits.memlock_hard) << "), nofile "
    << Limit(f.limits.nofile_soft) << " (hard " << Limit(f.limits.nofile_hard) << ")\n";
  if (!f.notes.empty()) {
    o << "Notes\n";
    for (const std::string& n : f.notes) o << "  " << n << "\n";
  }
  return o.str();
}

std::string FormatFactsJson(const HostFacts& f) {
  rapidjson::StringBuffer buf;
  rapidjson::PrettyWriter<rapidjson::StringBuffer> w(buf);
  auto str = [&](const char* k, const std::string& v) { w.Key(k); w.String(v.c_str(), static_cast<rapidjson::SizeType>(v.size())); };
  auto i64 = [&](const char* k, int64_t v) { w.Key(k); w.Int64(v); };
  auto u64 = [&](const char* k, uint64_t v) {
    w.Key(k);
    if (v == kUnlimited) w.String("unlimited");
    else w.Uint64(v);
  };
  auto strs = [&](const char* k, const std::vector<std::string>& v) {
    if (k != nullptr) w.Key(k);
    w.StartArray();
    for (const std::string& s : v) w.String(s.c_str(), static_cast<rapidjson::SizeType>(s.size()));
    w.EndArray();
  };
  w.StartObject();
  w.Key("cpu");
  w.StartObject();
  str("vendor", f.cpu.vendor);
  str("model_name", f.cpu.model_name);
  i64("sockets", f.cpu.sockets);
  i64("physical_cores", f.cpu.physical_cores);
  i64("logical_cpus", f.cpu.logical_cpus);
  i64("online_cpus", f.cpu.online_cpus);
  w.Key("max_mhz");
  w.Double(f.cpu.max_mhz);
  strs("isa", f.cpu.isa);
  strs("governors", f.cpu.governors);
  w.EndObject();
  w.Key("numa");
  w.StartArray();
  for (const NumaNode& n : f.numa) {
    w.StartObject();
    i64("id", n.id);
    str("cpus", CpuRanges(n.cpus));
    u64("memory_bytes", n.memory_bytes);
    w.EndObject();
  }
  w.EndArray();
  w.Key("memory");
  w.StartObject();
  u64("total_bytes", f.memory.total_bytes);
  u64("available_bytes", f.memory.available_bytes);
  u64("swap_total_bytes", f.memory.swap_total_bytes);
  u64("swap_free_bytes", f.memory.swap_free_bytes);
  i64("swappiness", f.memory.swappiness);
  str("thp_enabled", f.memory.thp_enabled);
  str("thp_defrag", f.memory.thp_defrag);
  w.EndObject();
  w.Key("disks");
  w.StartArray();
  for (const DiskFacts& d : f.disks) {
    w.StartObject();
    str("name", d.name);
    str("kind", d.kind);
    str("model", d.model);
    u64("size_bytes", d.size_bytes);
    w.EndObject();
  }
  w.EndArray();
  w.Key("mounts");
  w.StartArray();
  for (const MountFacts& m : f.mounts) {
    w.StartObject();
    str("mount_point", m.mount_point);
    str("device", m.device);
    str("fs_type", m.fs_type);
    w.Key("network");
    w.Bool(m.network);
    u64("total_bytes", m.total_bytes);
    u64("free_bytes", m.free_bytes);
    w.EndObject();
  }
  w.EndArray();
  w.Key("paths");
  w.StartArray();
  for (const PathFacts& p : f.paths) {
    w.StartObject();
    str("path", p.path);
    str("error", p.error);
    str("mount_point", p.mount.mount_point);
    str("fs_type", p.mount.fs_type);
    w.Key("network");
    w.Bool(p.mount.network);
    w.EndObject();
  }
  w.EndArray();
  w.Key("net");
  w.StartArray();
  for (const NetInterface& n : f.net) {
    w.StartObject();
    str("name", n.name);
    str("mac", n.mac);
    str("operstate", n.operstate);
    i64("speed_mbps", n.speed_mbps);
    i64("mtu", n.mtu);
    str("type", n.type);
    w.Key("virtual");
    w.Bool(n.is_virtual);
    str("driver", n.driver);
    str("pci_address", n.pci_address);
    i64("numa_node", n.numa_node);
    strs("ipv4", n.ipv4);
    w.EndObject();
  }
  w.EndArray();
  w.Key("rdma");
  w.StartArray();
  for (const RdmaDevice& d : f.rdma) {
    w.StartObject();
    str("name", d.name);
    str("pci_address", d.pci_address);
    i64("numa_node", d.numa_node);
    strs("net_devices", d.net_devices);
    w.Key("ports");
    w.StartArray();
    for (const RdmaPort& p : d.ports) {
      w.StartObject();
      i64("port", p.port);
      str("state", p.state);
      str("link_layer", p.link_layer);
      str("rate", p.rate);
      w.Key("gids");
      w.StartArray();
      for (const RdmaGid& g : p.gids) {
        w.StartObject();
        i64("index", g.index);
        str("gid", g.gid);
        str("type", g.type);
        str("net_device", g.net_device);
        w.EndObject();
      }
      w.EndArray();
      w.EndObject();
    }
    w.EndArray();
    w.EndObject();
  }
  w.EndArray();
  w.Key("nvidia");
  w.StartObject();
  w.Key("nvml_loaded");
  w.Bool(f.nvidia.nvml_loaded);
  str("nvml_error", f.nvidia.nvml_error);
  str("source", f.nvidia.source);
  str("driver_version", f.nvidia.driver_version);
  i64("cuda_driver_version", f.nvidia.cuda_driver_version);
  w.Key("gpus");
  w.StartArray();
  for (const GpuFacts& g : f.nvidia.gpus) {
    w.StartObject();
    i64("index", g.index);
    str("name", g.name);
    str("uuid", g.uuid);
    str("pci_bus_id", g.pci_bus_id);
    u64("memory_total_bytes", g.memory_total_bytes);
    str("compute_capability", g.cc_major < 0 ? "" : std::to_string(g.cc_major) + "." + std::to_string(g.cc_minor));
    i64("pcie_gen_max", g.pcie_gen_max);
    i64("pcie_gen_current", g.pcie_gen_current);
    i64("pcie_width_max", g.pcie_width_max);
    i64("pcie_width_current", g.pcie_width_current);
    str("mig_mode", g.mig_mode);
    i64("numa_node", g.numa_node);
    w.Key("nvlinks");
    w.StartArray();
    for (const NvLinkFacts& l : g.nvlinks) {
      w.StartObject();
      i64("link", l.link);
      i64("remote_gpu", l.remote_gpu);
      str("remote_pci_bus_id", l.remote_pci_bus_id);
      w.EndObject();
    }
    w.EndArray();
    w.EndObject();
  }
  w.EndArray();
  w.EndObject();
  w.Key("libraries");
  w.StartArray();
  for (const LibraryFacts& l : f.libraries) {
    w.StartObject();
    str("name", l.name);
    str("version", l.version);
    str("path", l.path);
    str("how", l.how);
    w.EndObject();
  }
  w.EndArray();
  w.Key("pcie");
  w.StartArray();
  for (const PcieNode& n : f.pcie) {
    w.StartObject();
    str("kind", n.kind);
    str("bus_id", n.bus_id);
    i64("depth", n.depth);
    i64("class_id", n.class_id);
    str("vendor_device", n.vendor_device);
    w.Key("link_gbps");
    w.Double(n.link_gbps);
    i64("numa_node", n.numa_node);
    strs("os_devices", n.os_devices);
    w.EndObject();
  }
  w.EndArray();
  w.Key("topology");
  w.StartObject();
  strs("labels", f.topology.labels);
  w.Key("cells");
  w.StartArray();
  for (const auto& row : f.topology.cells) strs(nullptr, row);
  w.EndArray();
  strs("cpu_affinity", f.topology.cpu_affinity);
  strs("numa_affinity", f.topology.numa_affinity);
  str("pcie_source", f.topology.pcie_source);
  strs("notes", f.topology.notes);
  w.EndObject();
  w.Key("environment");
  w.StartObject();
  w.Key("in_container");
  w.Bool(f.env.in_container);
  str("container_runtime", f.env.container_runtime);
  str("cgroup_version", f.env.cgroup_version);
  u64("cgroup_memory_limit", f.env.cgroup_memory_limit);
  w.Key("cgroup_cpu_limit");
  w.Double(f.env.cgroup_cpu_limit);
  str("dmi_sys_vendor", f.env.dmi_sys_vendor);
  str("dmi_product_name", f.env.dmi_product_name);
  str("cloud", f.env.cloud);
  str("virtualization", f.env.virtualization);
  str("hostname", f.env.hostname);
  str("kernel_release", f.env.kernel_release);
  w.EndObject();
  w.Key("limits");
  w.StartObject();
  u64("memlock_soft", f.limits.memlock_soft);
  u64("memlock_hard", f.limits.memlock_hard);
  u64("nofile_soft", f.limits.nofile_soft);
  u64("nofile_hard", f.limits.nofile_hard);
  w.EndObject();
  strs("notes", f.notes);
  w.EndObject();
  return std::string(buf.GetString(), buf.GetSize()) + "\n";
}

}  // namespace tfhost::host
