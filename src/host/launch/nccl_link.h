// The nominal speed `tfhost bench allreduce --backend nccl` sets beside the
// measured bus bandwidth when all ranks share one host: the GPU's own path
// to its peers as the probe sees it (NVML through host/probe), per
// direction, since bus bandwidth counts the bytes each GPU sends:
//   NVLink: active links x the per-link rate of the NVLink generation
//     (NVIDIA's NVLink pages give per-GPU totals, both directions: NVLink 1
//     160 GB/s over 4 links, 2: 300 GB/s over 6, 3: 600 GB/s over 12,
//     4: 900 GB/s over 18, 5: 1.8 TB/s over 18, i.e. 20, 25, 25, 25 and
//     50 GB/s per link and direction).
//   PCIe: lanes x the per-lane rate after line encoding (PCI-SIG: gen1
//     2.5 GT/s and gen2 5 GT/s with 8b/10b, gen3 8, gen4 16, gen5 32 GT/s
//     with 128b/130b, gen6 64 GT/s with FLIT mode, about 242/256).
// Across hosts the network is the bottleneck and the network line of the
// other backends applies instead.
#pragma once

#include <string>

#include "host/probe/host_facts.h"

namespace tfhost::host::launch {

struct NominalLink {
  std::string description;  // "18 NVLink 4 links" / "PCIe gen5 x16"; "" = unknown
  double gbs = 0;           // GB/s per direction; 0 = unknown
};

NominalLink NominalGpuLink(const GpuFacts& gpu);

// PCI bus ids in NVML ("00000000:18:00.0") and CUDA ("0000:18:00.0")
// spellings name the same device when bus, device and function agree.
bool SamePciDevice(const std::string& a, const std::string& b);

// "# link GPU0 (NVIDIA H100 ...): 18 NVLink 4 links = 450.00 GB/s nominal per
// direction; best bus bandwidth 360.00 GB/s (80%)", or why no comparison.
std::string GpuLinkLine(const NvidiaFacts& gpus, const std::string& pci_bus_id, double best_busbw);

// GpuLinkLine with this host's GPUs, read through NVML.
std::string LiveGpuLinkLine(const std::string& pci_bus_id, double best_busbw);

}  // namespace tfhost::host::launch
