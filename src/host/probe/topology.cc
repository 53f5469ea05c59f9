// The GPU/NIC matrix in `nvidia-smi topo -m` style, computed from NVLink
// peers and the PCIe tree (hwloc's, or sysfs paths where hwloc lacks a
// device) when no recorded matrix is at hand. NCCL and launch use it to pair
// each GPU with its nearest NIC.
#include <algorithm>
#include <cctype>

#include "host/probe/probe.h"

namespace tfhost::host {

namespace {

std::vector<std::string> PathParts(const std::string& path) {
  std::string p = path;
  const std::string kDevices = "/sys/devices/";
  size_t at = p.find(kDevices);
  if (at != std::string::npos) p = p.substr(at + kDevices.size());
  return SplitNonEmpty(p, "/");
}

// NVML spells bus ids "00000000:18:00.0"; sysfs "0000:18:00.0".
std::string SysfsBusId(const std::string& nvml_id) {
  std::string id = nvml_id;
  for (char& c : id) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  size_t colon = id.find(':');
  if (colon != std::string::npos && colon > 4) id = id.substr(colon - 4);
  return id;
}

struct Endpoint {
  std::string label;
  std::string pci;       // sysfs bus id
  std::string path;      // resolved sysfs device path
  int numa = -1;
  int gpu = -1;          // GPU index, -1 for NICs
  std::string cpus;
};

}  // namespace

std::string PcieRelation(const std::string& path_a, int numa_a, const std::string& path_b, int numa_b) {
  std::vector<std::string> a = PathParts(path_a), b = PathParts(path_b);
  if (a.empty() || b.empty() || a[0] != b[0]) {
    // Different host bridges: same NUMA node or across the SMP interconnect.
    return numa_a == numa_b ? "NODE" : "SYS";
  }
  size_t k = 0;
  while (k < a.size() && k < b.size() && a[k] == b[k]) ++k;
  if (k <= 1) return "PHB";  // the common ancestor is the host bridge itself
  // Bridges between the common ancestor and each device (the device excluded).
  size_t da = a.size() > k ? a.size() - k - 1 : 0;
  size_t db = b.size() > k ? b.size() - k - 1 : 0;
  return da <= 1 && db <= 1 ? "PIX" : "PXB";
}

TopologyMatrix ProbeTopology(const FsReader& fs, const Nvml* nvml, const NvidiaFacts& gpus,
                             const std::vector<RdmaDevice>& rdma, const std::vector<NetInterface>& net,
                             const std::vector<PcieNode>& pcie) {
  if (nvml != nullptr) {
    TopologyMatrix recorded = nvml->RecordedTopology();
    if (!recorded.empty()) return recorded;
  }
  TopologyMatrix m;
  if (gpus.gpus.empty()) return m;
  std::vector<Endpoint> ends;
  auto resolve = [&](Endpoint e) {
    std::string dev = "/sys/bus/pci/devices/" + e.pci;
    StatusOr<std::string> real = fs.RealPath(dev);
    e.path = real.ok() ? *real : "";
    if (e.numa < 0) e.numa = static_cast<int>(fs.ReadInt(dev + "/numa_node"));
    for (const PcieNode& node : pcie) {  // hwloc knows the node of every device's host bridge
      if (e.numa < 0 && node.kind == "device" && node.bus_id == e.pci) e.numa = node.numa_node;
    }
    e.cpus = fs.ReadTrimmed(dev + "/local_cpulist");
    ends.push_back(std::move(e));
  };
  for (const GpuFacts& g : gpus.gpus) {
    resolve({"GPU" + std::to_string(g.index), SysfsBusId(g.pci_bus_id), "", g.numa_node, g.index, ""});
  }
  if (!rdma.empty()) {
    for (const RdmaDevice& d : rdma) if (!d.pci_address.empty()) resolve({d.name, d.pci_address, "", d.numa_node, -1, ""});
  } else {
    for (const NetInterface& n : net) {
      if (!n.is_virtual && !n.pci_address.empty()) resolve({n.name, n.pci_address, "", n.numa_node, -1, ""});
    }
  }
  const size_t n = ends.size();
  for (const Endpoint& e : ends) {
    m.labels.push_back(e.label);
    m.cpu_affinity.push_back(e.gpu >= 0 ? e.cpus : "");
    m.numa_affinity.push_back(e.gpu >= 0 && e.numa >= 0 ? std::to_string(e.numa) : "");
  }
  m.cells.assign(n, std::vector<std::string>(n));
  bool used_hwloc = false, used_sysfs = false;
  for (size_t i = 0; i < n; ++i) {
    for (size_t j = 0; j < n; ++j) {
      if (i == j) {
        m.cells[i][j] = "X";
        continue;
      }
      int links = 0;
      if (ends[i].gpu >= 0 && ends[j].gpu >= 0) {
        const GpuFacts& gi = gpus.gpus[static_cast<size_t>(ends[i].gpu)];
        const GpuFacts& gj = gpus.gpus[static_cast<size_t>(ends[j].gpu)];
        for (const NvLinkFacts& l : gi.nvlinks) links += l.remote_gpu == gj.index;
        // Behind NVSwitches a link's far end is the switch, not the peer:
        // every GPU reaches every other through all of its switch links.
        int switch_i = 0, switch_j = 0;
        for (const NvLinkFacts& l : gi.nvlinks) switch_i += l.remote_gpu < 0;
        for (const NvLinkFacts& l : gj.nvlinks) switch_j += l.remote_gpu < 0;
        if (links == 0 && switch_i > 0 && switch_j > 0) links = std::min(switch_i, switch_j);
      }
      if (links > 0) {
        m.cells[i][j] = "NV" + std::to_string(links);
        continue;
      }
      const std::string from_sysfs = ends[i].path.empty() || ends[j].path.empty()
                                         ? ""
                                         : PcieRelation(ends[i].path, ends[i].numa, ends[j].path, ends[j].numa);
      const std::string from_hwloc = PcieRelationInTree(pcie, ends[i].pci, ends[i].numa, ends[j].pci, ends[j].numa);
      m.cells[i][j] = !from_hwloc.empty() ? from_hwloc : !from_sysfs.empty() ? from_sysfs : "?";
      if (!from_hwloc.empty() && !from_sysfs.empty() && from_hwloc != from_sysfs && i < j) {
        m.notes.push_back(ends[i].label + "-" + ends[j].label + ": hwloc's PCIe tree gives " + from_hwloc +
                          ", sysfs paths give " + from_sysfs + "; hwloc's is shown");
      }
      if (!from_hwloc.empty()) used_hwloc = true;
      if (from_hwloc.empty() && !from_sysfs.empty()) used_sysfs = true;
    }
  }
  m.pcie_source = used_hwloc && used_sysfs ? "hwloc+sysfs" : used_hwloc ? "hwloc" : used_sysfs ? "sysfs" : "";
  return m;
}

}  // namespace tfhost::host
