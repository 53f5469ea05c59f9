#include "host/launch/nccl_link.h"

#include <algorithm>
#include <cctype>
#include <cstdio>

#include "host/probe/fs_reader.h"
#include "host/probe/nvml.h"
#include "host/probe/probe.h"

namespace tfhost::host::launch {

namespace {

// GB/s per link and direction, by NVLink generation (see the header).
double NvLinkGbs(int version) {
  switch (version) {
    case 1: return 20;
    case 2:
    case 3:
    case 4: return 25;
    case 5: return 50;
    default: return 0;
  }
}

// GB/s per lane and direction, by PCIe generation (see the header).
double PcieLaneGbs(int gen) {
  switch (gen) {
    case 1: return 0.25;
    case 2: return 0.5;
    case 3: return 8.0 * 128 / 130 / 8;
    case 4: return 16.0 * 128 / 130 / 8;
    case 5: return 32.0 * 128 / 130 / 8;
    case 6: return 64.0 * 242 / 256 / 8;
    default: return 0;
  }
}

std::string BusDeviceFunction(const std::string& id) {
  // Drop the domain (the part before the first ':'), whose width differs.
  size_t colon = id.find(':');
  std::string rest = colon == std::string::npos ? id : id.substr(colon + 1);
  for (char& c : rest) c = std::tolower(static_cast<unsigned char>(c));
  return rest;
}

}  // namespace

NominalLink NominalGpuLink(const GpuFacts& gpu) {
  NominalLink link;
  if (gpu.ActiveNvLinks() > 0) {
    int version = 0;
    for (const NvLinkFacts& l : gpu.nvlinks) version = std::max(version, l.version);
    double per = NvLinkGbs(version);
    link.description = std::to_string(gpu.ActiveNvLinks()) + " NVLink " +
                       (version > 0 ? std::to_string(version) : std::string("(version unknown)")) + " links";
    link.gbs = per * gpu.ActiveNvLinks();
    return link;
  }
  // The maximum the slot and device support: the current generation drops
  // at idle to save power, so it says little about what a transfer gets.
  int gen = gpu.pcie_gen_max > 0 ? gpu.pcie_gen_max : gpu.pcie_gen_current;
  int width = gpu.pcie_width_max > 0 ? gpu.pcie_width_max : gpu.pcie_width_current;
  if (gen > 0 && width > 0) {
    link.description = "PCIe gen" + std::to_string(gen) + " x" + std::to_string(width);
    link.gbs = PcieLaneGbs(gen) * width;
  }
  return link;
}

bool SamePciDevice(const std::string& a, const std::string& b) {
  return !a.empty() && !b.empty() && BusDeviceFunction(a) == BusDeviceFunction(b);
}

std::string GpuLinkLine(const NvidiaFacts& gpus, const std::string& pci_bus_id, double best_busbw) {
  if (pci_bus_id.empty()) return "# link: the CUDA runtime did not name rank 0's GPU, so no nominal speed to compare with";
  for (const GpuFacts& g : gpus.gpus) {
    if (!SamePciDevice(g.pci_bus_id, pci_bus_id)) continue;
    NominalLink link = NominalGpuLink(g);
    if (link.gbs <= 0) return "# link GPU" + std::to_string(g.index) + ": NVML reports no NVLink or PCIe speed";
    char buf[300];
    std::snprintf(buf, sizeof(buf),
                  "# link GPU%d (%s): %s = %.2f GB/s nominal per direction; best bus bandwidth %.2f GB/s (%.0f%%)",
                  g.index, g.name.c_str(), link.description.c_str(), link.gbs, best_busbw, 100.0 * best_busbw / link.gbs);
    return buf;
  }
  if (!gpus.nvml_loaded) return "# link: NVML not available (" + gpus.nvml_error + "), so no nominal GPU link speed";
  return "# link: NVML does not list rank 0's GPU " + pci_bus_id;
}

std::string LiveGpuLinkLine(const std::string& pci_bus_id, double best_busbw) {
  auto fs = NewRootedFsReader("/");
  std::unique_ptr<Nvml> nvml = LoadNvml();
  Notes ignored;
  return GpuLinkLine(ProbeGpus(*fs, nvml.get(), &ignored), pci_bus_id, best_busbw);
}

}  // namespace tfhost::host::launch
