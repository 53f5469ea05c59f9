// The host probe: collects HostFacts (host_facts.h) from an FsReader (sysfs,
// procfs, DMI), hwloc, an Nvml source and the CUDA libraries on disk. Each
// part is a separate function so other commands (launch, monitor) can ask for
// just what they need. A part that cannot be read leaves its facts empty and
// appends a note; probing never fails as a whole.
//
// Thread-safety: the functions keep no state; sources must not be shared
// across threads while in use.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "base/status.h"
#include "host/probe/fs_reader.h"
#include "host/probe/host_facts.h"
#include "host/probe/nvml.h"

namespace tfhost::host {

using Notes = std::vector<std::string>;

// CPU model, topology and ISA flags from /proc/cpuinfo and sysfs (and, on the
// live machine, cpuid for the x86 extensions the kernel may not list).
CpuFacts ProbeCpu(const FsReader& fs, Notes* notes);
// NUMA nodes: hwloc on the live machine or from `hwloc_xml` (an hwloc XML
// export) when non-empty; otherwise /sys/devices/system/node.
std::vector<NumaNode> ProbeNuma(const FsReader& fs, const std::string& hwloc_xml, Notes* notes);
// hwloc only (live when `xml_path` is empty); errors say why.
StatusOr<std::vector<NumaNode>> NumaFromHwloc(const std::string& xml_path);
// The PCIe tree through hwloc (live, or from an hwloc XML export): host
// bridges, switch ports and the devices under them, depth-first. Errors say
// why (no hwloc I/O discovery in this environment, unreadable XML).
StatusOr<std::vector<PcieNode>> PcieTreeFromHwloc(const std::string& xml_path);
// How two PCI devices (bus ids "0000:34:00.0") connect in `tree`, in
// `nvidia-smi topo -m` terms (PIX, PXB, PHB, NODE, SYS); "" when either is
// not in the tree. NUMA ids stand in where hwloc gives none for a host bridge.
std::string PcieRelationInTree(const std::vector<PcieNode>& tree, const std::string& bus_a, int numa_a,
                               const std::string& bus_b, int numa_b);
MemoryFacts ProbeMemory(const FsReader& fs, Notes* notes);
std::vector<DiskFacts> ProbeDisks(const FsReader& fs, Notes* notes);
std::vector<MountFacts> ProbeMounts(const FsReader& fs, Notes* notes);
// The mount holding `path` (longest mount-point prefix of its real path).
StatusOr<MountFacts> MountForPath(const FsReader& fs, const std::string& path);
// Whether a filesystem type is a network/cluster filesystem.
bool IsNetworkFilesystem(const std::string& fs_type);
// /sys/class/net plus IPv4 addresses from /proc/net/fib_trie.
std::vector<NetInterface> ProbeNetInterfaces(const FsReader& fs, Notes* notes);
// /sys/class/infiniband: ports, link layer, rate, GIDs and their types.
std::vector<RdmaDevice> ProbeRdma(const FsReader& fs, Notes* notes);
// GPUs through `nvml` (may be null: "not probed"). NUMA nodes of GPUs are
// filled from sysfs when NVML does not say.
NvidiaFacts ProbeGpus(const FsReader& fs, Nvml* nvml, Notes* notes);
// cudart, cudnn, nccl, cublas found in `dirs` (empty: the usual places plus
// LD_LIBRARY_PATH from `ld_library_path`).
std::vector<LibraryFacts> ProbeLibraries(const FsReader& fs, const std::vector<std::string>& dirs,
                                         const std::string& ld_library_path, Notes* notes);
// The GPU/NIC matrix: the recorded one when `nvml` has it, else computed
// from NVLink peers and the PCIe tree: hwloc's (`pcie`) where it holds both
// devices, sysfs paths otherwise. Where both exist and disagree, hwloc's
// answer is used and the matrix's notes say so.
TopologyMatrix ProbeTopology(const FsReader& fs, const Nvml* nvml, const NvidiaFacts& gpus,
                             const std::vector<RdmaDevice>& rdma, const std::vector<NetInterface>& net,
                             const std::vector<PcieNode>& pcie = {});
// The pip-installed TensorFlow (name "tensorflow", version from its
// dist-info folder) in site-packages under VIRTUAL_ENV, CONDA_PREFIX,
// ~/.local, PYTHONPATH and the system prefixes; empty name when none.
LibraryFacts ProbeTensorFlow(const FsReader& fs, const std::map<std::string, std::string>& env);
EnvironmentHints ProbeEnvironment(const FsReader& fs, Notes* notes);
ProcessLimits ProbeLimits(const FsReader& fs, Notes* notes);

struct ProbeOptions {
  std::string root = "/";          // snapshot folder in tests
  std::string hwloc_xml;           // hwloc XML export to use instead of the live topology
  bool use_nvml = true;            // false: skip GPUs entirely
  std::string nvml_xml;            // `nvidia-smi -q -x` recording instead of NVML
  std::string nvml_topo;           // `nvidia-smi topo -m` recording (with nvml_xml)
  std::vector<std::string> library_dirs;  // empty: usual places
  std::string ld_library_path;     // LD_LIBRARY_PATH to search as well
  std::vector<std::string> paths;  // paths whose filesystem to report (HostFacts::paths)
};

// Everything. `options.root == "/"` probes this machine.
HostFacts ProbeHost(const ProbeOptions& options);

// PCIe-path relation of two devices whose sysfs device paths are given
// ("/sys/devices/pci0000:00/0000:00:01.0/0000:01:00.0"): "PIX", "PXB", "PHB",
// "NODE" or "SYS" (by `numa_a`/`numa_b`), as `nvidia-smi topo -m` names them.
std::string PcieRelation(const std::string& path_a, int numa_a, const std::string& path_b, int numa_b);

// Human-readable report and JSON (stable field names, documented in docs/host.md).
std::string FormatFactsText(const HostFacts& facts);
std::string FormatFactsJson(const HostFacts& facts);

}  // namespace tfhost::host
