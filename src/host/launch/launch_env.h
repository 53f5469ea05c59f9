// The environment every launched task gets: the user's own environment, the
// tuning launch recommends (NCCL network choice from the probe, TensorFlow GPU
// allocator and thread settings, XLA and mixed precision on request) and the
// task's identity (TF_CONFIG). Precedence, lowest first:
//   1. recommended tuning: set only where the user's environment lacks the name
//   2. the inherited environment (what the user exported)
//   3. --env NAME=VALUE given to launch
//   4. the task's identity: TF_CONFIG, TFHOST_TASK_TYPE/_INDEX, TFHOST_NUM_TASKS
// so the user always wins over tuning, and the cluster wiring always wins
// over a stale TF_CONFIG left in a shell (reported as a warning).
#pragma once

#include <map>
#include <string>
#include <vector>

#include "base/status.h"
#include "host/launch/net_facts.h"
#include "host/probe/host_facts.h"

namespace tfhost::host::launch {

struct EnvVar {
  std::string name;
  std::string value;
  std::string why;  // one line for --dry-run
};

// What NCCL should use on this host.
struct NetworkChoice {
  std::string socket_ifname;  // NCCL_SOCKET_IFNAME; empty: none suitable
  std::string ib_hca;         // NCCL_IB_HCA ("=mlx5_0:1,mlx5_1:1"); empty: no active RDMA port
  int gid_index = -1;         // NCCL_IB_GID_INDEX, a RoCE v2 GID; -1: not RoCE / none
  std::vector<std::string> notes;
};

// Picks the fastest non-loopback interface that is up and has an IPv4
// address (container plumbing such as docker*, veth*, virbr* is skipped;
// ties go to a physical device, then to the name), every RDMA port that is
// ACTIVE, and for RoCE ports the RoCE v2 GID, preferring an IPv4-mapped one
// (what NCCL's own documentation recommends for routable RoCE).
NetworkChoice ChooseNetwork(const NetworkFacts& facts);

// The interfaces ChooseNetwork would consider on this host, as
// "name:speed_mbps" (0 = speed unknown), for exchange with the other hosts.
std::vector<std::string> SocketInterfaceCandidates(const NetworkFacts& facts);

// NCCL_SOCKET_IFNAME must name an interface every host has. Given each host's
// candidates (SocketInterfaceCandidates, one list per host), replaces
// choice->socket_ifname by the name all hosts share whose slowest host is
// fastest (ties: the name), or clears it when they share none, so NCCL picks
// per host rather than failing on a name some host lacks. A note says which.
void UseInterfaceCommonToHosts(const std::vector<std::vector<std::string>>& per_host, NetworkChoice* choice);

// How this host's GPUs reach each other, for NCCL's peer-to-peer settings.
struct GpuPeerFacts {
  std::vector<std::string> gpus;                // "GPU0", ...
  std::vector<std::vector<std::string>> links;  // GPU x GPU cells: "X", "NV12", "PIX", "PXB", "PHB", "NODE", "SYS"
  std::string virtualization;                   // "kvm", "vmware", ...; "" = bare metal or unknown
};

// The GPU rows and columns of the probe's `nvidia-smi topo -m` matrix.
GpuPeerFacts GpuPeersFromTopology(const TopologyMatrix& topology, const std::string& virtualization);

// NVLink/P2P hints. Every GPU pair on NVLink: nothing to set (NCCL uses it).
// In a virtual machine with pairs that only meet over PCIe,
// NCCL_P2P_LEVEL=NVL: PCIe peer-to-peer through a hypervisor's IOMMU is the
// classic cause of NCCL hangs and crawling bandwidth, and NVLink (where some
// pairs have it) stays in use. On bare metal nothing is set; `notes` say which
// pairs lack NVLink or cross CPU sockets, so the user can place tasks.
std::vector<EnvVar> PeerToPeerHints(const GpuPeerFacts& facts, std::vector<std::string>* notes);

struct TuningOptions {
  bool tune = true;              // false: no recommended variables at all
  bool xla = false;              // TF_XLA_FLAGS=--tf_xla_auto_jit=2
  bool mixed_precision = false;  // TF_ENABLE_AUTO_MIXED_PRECISION=1
  bool gpu_requested = false;    // --tune-gpu: the GPU variables even where no GPU was found
};

// The recommended variables, in the order --dry-run prints them. The GPU
// variables (NCCL_*, TF_GPU_*, TF_FORCE_GPU_ALLOW_GROWTH) come only when
// `gpus` (the tasks' hosts have GPUs) or options.gpu_requested: on a CPU-only
// host they tune nothing, and --dry-run would present them as if they did.
std::vector<EnvVar> RecommendedEnv(const NetworkChoice& net, const TuningOptions& options, bool gpus);

// Parses "NAME=VALUE" (from --env); NAME must be a valid variable name.
StatusOr<EnvVar> ParseEnvAssignment(const std::string& text);

struct TaskEnvironment {
  std::vector<std::string> entries;  // "NAME=VALUE" for execve, sorted by name
  std::vector<EnvVar> set;           // what launch set or changed, for --dry-run
  std::vector<std::string> kept;     // recommended names the user's environment already had
  std::vector<std::string> warnings; // e.g. an inherited TF_CONFIG replaced
};

// Applies the precedence above. `inherited` is the user's environment.
TaskEnvironment ComposeTaskEnv(const std::map<std::string, std::string>& inherited,
                               const std::vector<EnvVar>& recommended, const std::vector<EnvVar>& user_flags,
                               const std::vector<EnvVar>& task_identity);

// The current process environment as a map.
std::map<std::string, std::string> CurrentEnvironment();

}  // namespace tfhost::host::launch
