// The PCIe tree from hwloc's I/O objects. hwloc knows which bridges are
// switch ports and which devices hang below them (from sysfs on Linux), and
// reads the same from an XML export of another machine, so the tree of a
// GPU server can be checked here.
#include <hwloc.h>

#include <cstdio>
#include <functional>

#include "host/probe/probe.h"

namespace tfhost::host {

namespace {

std::string BusId(unsigned domain, unsigned bus, unsigned dev, unsigned func) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%04x:%02x:%02x.%x", domain, bus, dev, func);
  return buf;
}

int NumaOf(hwloc_obj_t obj) {
  // I/O objects hang off a normal object (package, group, machine); its
  // nodeset names the NUMA node(s) the host bridge is attached to.
  hwloc_obj_t parent = obj;
  while (parent != nullptr && parent->cpuset == nullptr) parent = parent->parent;
  if (parent == nullptr || parent->nodeset == nullptr || hwloc_bitmap_weight(parent->nodeset) != 1) return -1;
  return hwloc_bitmap_first(parent->nodeset);
}

}  // namespace

StatusOr<std::vector<PcieNode>> PcieTreeFromHwloc(const std::string& xml_path) {
  hwloc_topology_t topo;
  if (hwloc_topology_init(&topo) != 0) return Internal("hwloc_topology_init failed");
  hwloc_topology_set_io_types_filter(topo, HWLOC_TYPE_FILTER_KEEP_ALL);
  if (!xml_path.empty() && hwloc_topology_set_xml(topo, xml_path.c_str()) != 0) {
    hwloc_topology_destroy(topo);
    return InvalidArgument("hwloc cannot read XML topology " + xml_path);
  }
  if (hwloc_topology_load(topo) != 0) {
    hwloc_topology_destroy(topo);
    return Internal("hwloc_topology_load failed" + (xml_path.empty() ? "" : " for " + xml_path));
  }
  std::vector<PcieNode> nodes;
  std::function<void(hwloc_obj_t, int, int)> walk = [&](hwloc_obj_t obj, int depth, int numa) {
    if (nodes.size() >= 4096) return;  // bound what a hostile XML can make us hold
    PcieNode n;
    n.depth = depth;
    n.numa_node = numa;
    if (obj->type == HWLOC_OBJ_BRIDGE) {
      const auto& br = obj->attr->bridge;
      if (br.upstream_type == HWLOC_OBJ_BRIDGE_HOST) {
        n.kind = "host_bridge";
        char buf[32];
        std::snprintf(buf, sizeof(buf), "%04x:[%02x-%02x]", br.downstream.pci.domain,
                      br.downstream.pci.secondary_bus, br.downstream.pci.subordinate_bus);
        n.bus_id = buf;
      } else {
        n.kind = "bridge";
        const auto& pci = br.upstream.pci;
        n.bus_id = BusId(pci.domain, pci.bus, pci.dev, pci.func);
        n.class_id = pci.class_id;
        n.link_gbps = pci.linkspeed;
      }
    } else if (obj->type == HWLOC_OBJ_PCI_DEVICE) {
      const auto& pci = obj->attr->pcidev;
      n.kind = "device";
      n.bus_id = BusId(pci.domain, pci.bus, pci.dev, pci.func);
      n.class_id = pci.class_id;
      char vd[16];
      std::snprintf(vd, sizeof(vd), "%04x:%04x", pci.vendor_id, pci.device_id);
      n.vendor_device = vd;
      n.link_gbps = pci.linkspeed;
    } else {
      return;
    }
    for (hwloc_obj_t c = obj->io_first_child; c != nullptr; c = c->next_sibling) {
      if (c->type == HWLOC_OBJ_OS_DEVICE && c->name != nullptr) n.os_devices.push_back(c->name);
    }
    nodes.push_back(std::move(n));
    for (hwloc_obj_t c = obj->io_first_child; c != nullptr; c = c->next_sibling) {
      if (c->type == HWLOC_OBJ_BRIDGE || c->type == HWLOC_OBJ_PCI_DEVICE) walk(c, depth + 1, numa);
    }
  };
  // Host bridges (or PCI devices hwloc attached without one) hang off normal
  // objects; visit those in topology order.
  for (hwloc_obj_t obj = hwloc_get_next_bridge(topo, nullptr); obj != nullptr; obj = hwloc_get_next_bridge(topo, obj)) {
    if (obj->parent != nullptr && obj->parent->type != HWLOC_OBJ_BRIDGE) walk(obj, 0, NumaOf(obj));
  }
  for (hwloc_obj_t obj = hwloc_get_next_pcidev(topo, nullptr); obj != nullptr; obj = hwloc_get_next_pcidev(topo, obj)) {
    if (obj->parent != nullptr && obj->parent->type != HWLOC_OBJ_BRIDGE) walk(obj, 0, NumaOf(obj));
  }
  hwloc_topology_destroy(topo);
  if (nodes.empty()) return NotFound("hwloc found no PCI devices (I/O discovery unavailable here)");
  return nodes;
}

namespace {

// Index of each node's parent in a depth-first list (-1 for roots).
std::vector<int> Parents(const std::vector<PcieNode>& tree) {
  std::vector<int> parent(tree.size(), -1);
  std::vector<int> open;  // the chain of ancestors of the node being visited
  for (size_t i = 0; i < tree.size(); ++i) {
    const int depth = tree[i].depth;
    while (static_cast<int>(open.size()) > depth) open.pop_back();
    parent[i] = open.empty() ? -1 : open.back();
    if (static_cast<int>(open.size()) == depth) open.push_back(static_cast<int>(i));
  }
  return parent;
}

// Root first, the node itself last.
std::vector<int> Chain(const std::vector<int>& parent, int i) {
  std::vector<int> chain;
  for (int at = i; at >= 0 && chain.size() <= parent.size(); at = parent[static_cast<size_t>(at)]) chain.push_back(at);
  return {chain.rbegin(), chain.rend()};
}

int FindBusId(const std::vector<PcieNode>& tree, const std::string& bus_id) {
  for (size_t i = 0; i < tree.size(); ++i) {
    if (tree[i].kind == "device" && tree[i].bus_id == bus_id) return static_cast<int>(i);
  }
  return -1;
}

}  // namespace

std::string PcieRelationInTree(const std::vector<PcieNode>& tree, const std::string& bus_a, int numa_a,
                               const std::string& bus_b, int numa_b) {
  const int a = FindBusId(tree, bus_a), b = FindBusId(tree, bus_b);
  if (a < 0 || b < 0) return "";
  const std::vector<int> parent = Parents(tree);
  const std::vector<int> ca = Chain(parent, a), cb = Chain(parent, b);
  if (ca.front() != cb.front()) {
    // Different host bridges: one NUMA node, or across the SMP interconnect.
    // The tree knows each host bridge's node; the caller's NUMA ids (NVML,
    // sysfs) stand in where hwloc does not say.
    const int na = tree[static_cast<size_t>(ca.front())].numa_node >= 0 ? tree[static_cast<size_t>(ca.front())].numa_node : numa_a;
    const int nb = tree[static_cast<size_t>(cb.front())].numa_node >= 0 ? tree[static_cast<size_t>(cb.front())].numa_node : numa_b;
    return na >= 0 && na == nb ? "NODE" : "SYS";
  }
  size_t k = 0;  // length of the shared ancestry
  while (k < ca.size() && k < cb.size() && ca[k] == cb[k]) ++k;
  const PcieNode& common = tree[static_cast<size_t>(ca[k - 1])];
  if (common.kind == "host_bridge") return "PHB";
  // PCI-PCI bridges strictly between the common bridge and each device; a
  // switch's upstream port is the common bridge, its downstream port the one
  // bridge between (nvidia-smi's "at most a single PCIe bridge").
  const size_t da = ca.size() - k - 1, db = cb.size() - k - 1;
  return da <= 1 && db <= 1 ? "PIX" : "PXB";
}

}  // namespace tfhost::host
