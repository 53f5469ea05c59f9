// The data model of `tfhost probe`: plain structs that describe one host (CPU,
// NUMA, memory, disks, network, RDMA, GPUs, CUDA libraries, topology,
// container/cloud hints, kernel settings and limits). The probe fills them
// from sysfs/procfs, hwloc and NVML; doctor, monitor, advise and launch read
// them. Nothing here touches the machine, so tests build facts by hand.
//
// Conventions: sizes are bytes (uint64_t); an unknown number is -1 (signed
// fields) or 0 where 0 cannot be a real value (sizes); an unknown string is
// empty. Every probe that could not read a source says so in HostFacts::notes
// instead of failing the whole probe.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace tfhost::host {

// A resource limit value meaning "unlimited" (RLIM_INFINITY as /proc prints it).
inline constexpr uint64_t kUnlimited = UINT64_MAX;

struct CpuFacts {
  std::string vendor;       // "GenuineIntel", "AuthenticAMD", "ARM" ...
  std::string model_name;   // "Intel(R) Xeon(R) Platinum 8480+"
  int sockets = -1;         // distinct physical package ids
  int physical_cores = -1;  // distinct (package, core) pairs
  int logical_cpus = -1;    // online logical processors
  int online_cpus = -1;     // what this process may use (affinity/cgroup), -1 unknown
  double max_mhz = -1;
  // ISA extensions that matter to TensorFlow kernels (oneDNN, Eigen), spelled
  // as /proc/cpuinfo spells them: avx, avx2, fma, avx512f, avx512bw, avx512vl,
  // avx512_vnni, avx512_bf16, avx512_fp16, amx_tile, amx_bf16, amx_int8,
  // avx_vnni, sve, ... Only present flags are listed.
  std::vector<std::string> isa;
  bool HasIsa(const std::string& flag) const {
    for (const std::string& f : isa) if (f == flag) return true;
    return false;
  }
  // Per-CPU frequency governors seen (deduplicated), e.g. {"performance"}.
  std::vector<std::string> governors;
};

struct NumaNode {
  int id = -1;
  std::vector<int> cpus;        // logical CPU ids
  uint64_t memory_bytes = 0;    // local memory
};

struct MemoryFacts {
  uint64_t total_bytes = 0;
  uint64_t available_bytes = 0;
  uint64_t swap_total_bytes = 0;
  uint64_t swap_free_bytes = 0;
  int swappiness = -1;                 // /proc/sys/vm/swappiness
  std::string thp_enabled;             // selected value of transparent_hugepage/enabled: always|madvise|never
  std::string thp_defrag;              // selected value of transparent_hugepage/defrag
  uint64_t hugepages_total = 0;        // static huge pages (HugePages_Total)
  uint64_t hugepage_size_bytes = 0;
};

struct DiskFacts {
  std::string name;          // "nvme0n1", "sda"
  std::string kind;          // "nvme", "ssd", "hdd", "virtual", "unknown"
  std::string model;         // device/model, trimmed
  uint64_t size_bytes = 0;
  bool removable = false;
};

struct MountFacts {
  std::string mount_point;
  std::string device;        // source as /proc/self/mounts shows it
  std::string fs_type;       // "ext4", "xfs", "nfs4", "lustre", "overlay" ...
  bool network = false;      // nfs, cifs, lustre, gpfs, beegfs, ceph, fuse.* remote ...
  uint64_t total_bytes = 0;  // 0 when statvfs was not possible
  uint64_t free_bytes = 0;   // available to unprivileged users
};

// Where a path the user named (dataset, model dir) lives.
struct PathFacts {
  std::string path;
  MountFacts mount;   // valid when error is empty
  std::string error;  // "does not exist" ...
};

struct NetInterface {
  std::string name;          // "eth0", "ens1f0", "ib0"
  std::string mac;
  std::string operstate;     // "up", "down", "unknown"
  int64_t speed_mbps = -1;   // -1 when the driver does not report it
  int mtu = -1;
  bool is_virtual = false;   // no device/ link: lo, veth, bridges, docker0 ...
  bool is_loopback = false;
  std::string type;          // "ether", "infiniband", "loopback", "other"
  std::string driver;        // device/driver basename: "mlx5_core", "ena", "virtio_net"
  std::string pci_address;   // "0000:17:00.0" when on PCI
  int numa_node = -1;
  std::vector<std::string> ipv4;  // local addresses on this interface
};

struct RdmaGid {
  int index = -1;
  std::string gid;           // "fe80:0000:...:"
  std::string type;          // "IB/RoCE v1", "RoCE v2"
  std::string net_device;    // gid_attrs/ndevs/<i>, for RoCE
};

struct RdmaPort {
  int port = -1;
  std::string state;         // "ACTIVE", "DOWN" ... (text after "N: ")
  std::string link_layer;    // "InfiniBand" or "Ethernet" (RoCE)
  std::string rate;          // "200 Gb/sec (4X HDR)"
  double rate_gbps = -1;
  std::vector<RdmaGid> gids; // only populated (non-zero) GIDs
};

struct RdmaDevice {
  std::string name;          // "mlx5_0"
  std::string pci_address;
  int numa_node = -1;
  std::vector<std::string> net_devices;  // netdevs bound to it ("ens1f0np0"), when known
  std::vector<RdmaPort> ports;
};

struct NvLinkFacts {
  int link = -1;
  bool active = false;
  int version = -1;
  std::string remote_pci_bus_id;  // peer's PCI bus id (GPU or NVSwitch)
  int remote_gpu = -1;            // index of the peer GPU on this host, -1 for NVSwitch/unknown
};

struct GpuFacts {
  int index = -1;
  std::string name;              // "NVIDIA H100 80GB HBM3"
  std::string uuid;              // "GPU-..."
  std::string pci_bus_id;        // "00000000:18:00.0" (NVML spelling)
  uint64_t memory_total_bytes = 0;
  int cc_major = -1, cc_minor = -1;   // compute capability
  int pcie_gen_max = -1, pcie_gen_current = -1;
  int pcie_width_max = -1, pcie_width_current = -1;
  std::string mig_mode;          // "Enabled", "Disabled", "N/A"
  std::string persistence_mode;  // "Enabled", "Disabled"
  int numa_node = -1;
  int power_limit_watts = -1;
  std::vector<NvLinkFacts> nvlinks;   // active links only
  int ActiveNvLinks() const { return static_cast<int>(nvlinks.size()); }
};

struct NvidiaFacts {
  bool nvml_loaded = false;      // libnvidia-ml found and nvmlInit succeeded
  std::string nvml_error;        // why not, when !nvml_loaded
  std::string source;            // "nvml" or the recording it came from
  std::string driver_version;    // "535.104.05"
  int cuda_driver_version = -1;  // what the driver supports: 12020 = 12.2
  std::vector<GpuFacts> gpus;
  uint64_t TotalMemoryBytes() const {
    uint64_t s = 0;
    for (const GpuFacts& g : gpus) s += g.memory_total_bytes;
    return s;
  }
};

// A CUDA-stack library found on the system.
struct LibraryFacts {
  std::string name;      // "cudart", "cudnn", "nccl", "cublas", "nvidia-ml"
  std::string version;   // "12.2.140", "8.9.7", "2.18.5"; empty when unknown
  std::string path;
  std::string how;       // "file name", "dlopen", "header"
};

// The GPU/NIC connectivity matrix in `nvidia-smi topo -m` style. Cell values:
// "X" (self), "NV<n>" (n NVLinks), "PIX" (at most one PCIe switch), "PXB"
// (several PCIe bridges), "PHB" (a PCIe host bridge), "NODE" (host bridges in
// one NUMA node), "SYS" (across NUMA nodes / SMP interconnect).
struct TopologyMatrix {
  std::vector<std::string> labels;              // "GPU0"..., "NIC0"... or "mlx5_0"
  std::vector<std::vector<std::string>> cells;  // labels.size() squared
  std::vector<std::string> cpu_affinity;        // per label, may be empty
  std::vector<std::string> numa_affinity;       // per label, may be empty
  std::string pcie_source;                      // "hwloc", "sysfs", "hwloc+sysfs"; "" when recorded
  std::vector<std::string> notes;               // where hwloc and sysfs disagree
  bool empty() const { return labels.empty(); }
};

struct EnvironmentHints {
  bool in_container = false;
  std::string container_runtime;   // "docker", "podman", "kubernetes", "lxc", "containerd"
  std::string cgroup_version;      // "v1", "v2"
  uint64_t cgroup_memory_limit = 0;  // 0 = none found
  double cgroup_cpu_limit = -1;      // CPUs (quota/period); -1 = none
  std::string dmi_sys_vendor;      // /sys/class/dmi/id/sys_vendor
  std::string dmi_product_name;
  std::string dmi_bios_vendor;
  std::string cloud;               // "aws", "gcp", "azure", "oci", "alibaba", "" when none/unknown
  std::string virtualization;      // "kvm", "vmware", "xen", "hyperv", "" bare metal/unknown
  std::string hostname;
  std::string kernel_release;
};

struct ProcessLimits {
  uint64_t memlock_soft = 0, memlock_hard = 0;  // bytes, kUnlimited
  uint64_t nofile_soft = 0, nofile_hard = 0;
  bool known = false;
};

// One node of the PCIe tree as hwloc sees it: host bridges, PCI-to-PCI
// bridges (switch ports) and the devices under them.
struct PcieNode {
  std::string kind;        // "host_bridge", "bridge", "device"
  std::string bus_id;      // "0000:17:00.0" (devices and PCI-PCI bridges); "0000:[16-1a]" bus range for host bridges
  int depth = 0;           // 0 = host bridge
  int class_id = -1;       // PCI class (0x0302 3D controller, 0x0200 Ethernet, 0x0108 NVMe, ...)
  std::string vendor_device;  // "10de:20b0"
  double link_gbps = 0;    // hwloc's link speed in GB/s (0 = unknown, as in VMs)
  int numa_node = -1;      // the NUMA node the host bridge hangs off, -1 unknown
  std::vector<std::string> os_devices;  // "eth0", "nvme0n1", "mlx5_0", "card0"
};

struct HostFacts {
  CpuFacts cpu;
  std::vector<NumaNode> numa;
  MemoryFacts memory;
  std::vector<DiskFacts> disks;
  std::vector<MountFacts> mounts;
  std::vector<PathFacts> paths;  // only those asked for (probe --path, doctor --data)
  std::vector<NetInterface> net;
  std::vector<RdmaDevice> rdma;
  NvidiaFacts nvidia;
  std::vector<LibraryFacts> libraries;
  TopologyMatrix topology;
  std::vector<PcieNode> pcie;  // depth-first, parents before children
  EnvironmentHints env;
  ProcessLimits limits;
  // What could not be probed and why ("NVML: libnvidia-ml.so.1 not found").
  std::vector<std::string> notes;

  const LibraryFacts* FindLibrary(const std::string& name) const {
    for (const LibraryFacts& l : libraries) if (l.name == name) return &l;
    return nullptr;
  }
  const NetInterface* FindInterface(const std::string& name) const {
    for (const NetInterface& n : net) if (n.name == name) return &n;
    return nullptr;
  }
};

}  // namespace tfhost::host
