#include "host/launch/launch_env.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <map>

extern char** environ;

namespace tfhost::host::launch {

namespace {

bool StartsWith(const std::string& s, const std::string& p) { return s.compare(0, p.size(), p) == 0; }

bool IsContainerPlumbing(const std::string& name) {
  for (const char* p : {"docker", "veth", "virbr", "br-", "cni", "flannel", "cali", "vxlan", "tun", "tap"}) {
    if (StartsWith(name, p)) return true;
  }
  return false;
}

bool IsIpv4MappedGid(const std::string& gid) {
  // "0000:0000:0000:0000:0000:ffff:0a00:0001" as sysfs spells it.
  return StartsWith(gid, "0000:0000:0000:0000:0000:ffff:");
}

bool Active(const RdmaPort& p) { return p.state == "ACTIVE"; }

bool IsSocketCandidate(const NetInterface& n) {
  return !n.is_loopback && n.operstate == "up" && !n.ipv4.empty() && !IsContainerPlumbing(n.name);
}

}  // namespace

std::vector<std::string> SocketInterfaceCandidates(const NetworkFacts& facts) {
  std::vector<std::string> out;
  for (const NetInterface& n : facts.interfaces) {
    if (IsSocketCandidate(n)) out.push_back(n.name + ":" + std::to_string(std::max<int64_t>(n.speed_mbps, 0)));
  }
  return out;
}

void UseInterfaceCommonToHosts(const std::vector<std::vector<std::string>>& per_host, NetworkChoice* choice) {
  if (per_host.size() < 2) return;
  // name -> (hosts that have it, slowest speed among them)
  std::map<std::string, std::pair<size_t, int64_t>> seen;
  for (const auto& host : per_host) {
    std::map<std::string, int64_t> mine;
    for (const std::string& c : host) {
      size_t colon = c.rfind(':');
      if (colon == std::string::npos || colon == 0) continue;
      mine[c.substr(0, colon)] = std::atoll(c.c_str() + colon + 1);
    }
    for (const auto& [name, speed] : mine) {
      auto [it, fresh] = seen.emplace(name, std::make_pair(size_t{0}, speed));
      ++it->second.first;
      it->second.second = std::min(it->second.second, speed);
    }
  }
  std::string best;
  int64_t best_speed = -1;
  for (const auto& [name, stat] : seen) {
    if (stat.first != per_host.size()) continue;
    if (stat.second > best_speed) {  // map order breaks ties by name
      best = name;
      best_speed = stat.second;
    }
  }
  if (best.empty()) {
    if (!choice->socket_ifname.empty()) {
      choice->notes.push_back("the " + std::to_string(per_host.size()) +
                              " hosts share no interface name; NCCL_SOCKET_IFNAME left unset so NCCL picks per "
                              "host (this host would use " + choice->socket_ifname + ")");
    }
    choice->socket_ifname.clear();
    return;
  }
  if (best != choice->socket_ifname) {
    choice->notes.push_back("NCCL_SOCKET_IFNAME=" + best + ": the fastest interface all " +
                            std::to_string(per_host.size()) + " hosts have" +
                            (choice->socket_ifname.empty() ? std::string()
                                                           : " (this host alone would use " + choice->socket_ifname + ")"));
    choice->socket_ifname = best;
  } else {
    choice->notes.push_back("NCCL_SOCKET_IFNAME=" + best + " exists on all " + std::to_string(per_host.size()) +
                            " hosts");
  }
}

GpuPeerFacts GpuPeersFromTopology(const TopologyMatrix& topology, const std::string& virtualization) {
  GpuPeerFacts f;
  f.virtualization = virtualization;
  std::vector<size_t> rows;
  for (size_t i = 0; i < topology.labels.size(); ++i) {
    if (StartsWith(topology.labels[i], "GPU")) rows.push_back(i);
  }
  for (size_t r : rows) {
    f.gpus.push_back(topology.labels[r]);
    std::vector<std::string> cells;
    for (size_t c : rows) {
      cells.push_back(r < topology.cells.size() && c < topology.cells[r].size() ? topology.cells[r][c] : "");
    }
    f.links.push_back(std::move(cells));
  }
  return f;
}

std::vector<EnvVar> PeerToPeerHints(const GpuPeerFacts& f, std::vector<std::string>* notes) {
  size_t n = f.gpus.size();
  if (n < 2) return {};
  std::vector<std::string> without_nvlink, across_sockets;
  for (size_t i = 0; i < n; ++i) {
    for (size_t j = i + 1; j < n && j < f.links[i].size(); ++j) {
      const std::string& cell = f.links[i][j];
      if (StartsWith(cell, "NV")) continue;
      std::string pair = f.gpus[i] + "-" + f.gpus[j];
      without_nvlink.push_back(pair + " (" + (cell.empty() ? "?" : cell) + ")");
      if (cell == "SYS") across_sockets.push_back(pair);
    }
  }
  auto join = [](const std::vector<std::string>& v) {
    std::string s;
    for (size_t k = 0; k < v.size() && k < 8; ++k) s += (k ? ", " : "") + v[k];
    if (v.size() > 8) s += " and " + std::to_string(v.size() - 8) + " more";
    return s;
  };
  if (without_nvlink.empty()) {
    notes->push_back("all " + std::to_string(n) + " GPUs are NVLink-connected pairwise: NCCL uses NVLink "
                     "peer-to-peer by default, nothing to set");
    return {};
  }
  if (!f.virtualization.empty()) {
    notes->push_back("virtual machine (" + f.virtualization + ") with GPU pairs that only meet over PCIe: " +
                     join(without_nvlink) + "; NCCL_P2P_LEVEL=NVL keeps peer-to-peer on NVLink only");
    return {EnvVar{"NCCL_P2P_LEVEL", "NVL",
                   "PCIe peer-to-peer through a hypervisor's IOMMU often hangs or crawls; use it over NVLink only"}};
  }
  notes->push_back("GPU pairs without NVLink: " + join(without_nvlink) +
                   "; NCCL moves their traffic over PCIe (no setting needed)");
  if (!across_sockets.empty()) {
    notes->push_back("GPU pairs across CPU sockets (SYS): " + join(across_sockets) +
                     "; place the tasks that exchange the most on GPUs of one NUMA node (CUDA_VISIBLE_DEVICES order)");
  }
  return {};
}

NetworkChoice ChooseNetwork(const NetworkFacts& facts) {
  NetworkChoice choice;
  const NetInterface* best = nullptr;
  for (const NetInterface& n : facts.interfaces) {
    if (!IsSocketCandidate(n)) continue;
    if (best == nullptr) {
      best = &n;
      continue;
    }
    auto key = [](const NetInterface& x) { return std::make_pair(x.speed_mbps, x.is_virtual ? 0 : 1); };
    if (key(n) > key(*best) || (key(n) == key(*best) && n.name < best->name)) best = &n;
  }
  if (best != nullptr) {
    choice.socket_ifname = best->name;
    choice.notes.push_back("NCCL_SOCKET_IFNAME=" + best->name + ": fastest up interface with an IPv4 address (" +
                           (best->speed_mbps > 0 ? std::to_string(best->speed_mbps) + " Mb/s" : "speed unknown") +
                           ")");
  } else {
    choice.notes.push_back("no non-loopback interface is up with an IPv4 address; NCCL_SOCKET_IFNAME left unset");
  }

  std::string hca;
  for (const RdmaDevice& d : facts.rdma) {
    for (const RdmaPort& p : d.ports) {
      if (!Active(p)) continue;
      hca += (hca.empty() ? "=" : ",") + d.name + ":" + std::to_string(p.port);
      if (p.link_layer != "Ethernet" || choice.gid_index >= 0) continue;
      // RoCE: NCCL needs a RoCE v2 GID; an IPv4-mapped one routes across subnets.
      int v2 = -1, v2_mapped = -1;
      for (const RdmaGid& g : p.gids) {
        if (g.type != "RoCE v2") continue;
        if (v2 < 0) v2 = g.index;
        if (v2_mapped < 0 && IsIpv4MappedGid(g.gid)) v2_mapped = g.index;
      }
      choice.gid_index = v2_mapped >= 0 ? v2_mapped : v2;
      if (choice.gid_index < 0) {
        choice.notes.push_back(d.name + " port " + std::to_string(p.port) +
                               " is RoCE but has no RoCE v2 GID; NCCL_IB_GID_INDEX left unset");
      } else {
        choice.notes.push_back("NCCL_IB_GID_INDEX=" + std::to_string(choice.gid_index) + ": RoCE v2 GID" +
                               (v2_mapped >= 0 ? " (IPv4-mapped)" : "") + " of " + d.name + " port " +
                               std::to_string(p.port));
      }
    }
  }
  choice.ib_hca = hca;
  if (hca.empty() && !facts.rdma.empty()) {
    choice.notes.push_back("RDMA devices present but no port is ACTIVE; NCCL will use sockets");
  }
  return choice;
}

std::vector<EnvVar> RecommendedEnv(const NetworkChoice& net, const TuningOptions& options, bool gpus) {
  std::vector<EnvVar> out;
  if (options.tune && (gpus || options.gpu_requested)) {
    if (!net.socket_ifname.empty()) {
      out.push_back({"NCCL_SOCKET_IFNAME", net.socket_ifname, "fastest up non-loopback interface (probe)"});
    }
    if (!net.ib_hca.empty()) out.push_back({"NCCL_IB_HCA", net.ib_hca, "active RDMA ports (probe)"});
    if (net.gid_index >= 0) {
      out.push_back({"NCCL_IB_GID_INDEX", std::to_string(net.gid_index), "RoCE v2 GID (probe)"});
    }
    out.push_back({"TF_GPU_ALLOCATOR", "cuda_malloc_async", "CUDA's stream-ordered allocator: less fragmentation"});
    out.push_back({"TF_FORCE_GPU_ALLOW_GROWTH", "true", "do not grab all GPU memory up front"});
    out.push_back({"TF_GPU_THREAD_MODE", "gpu_private", "dedicated kernel-launch threads per GPU"});
  }
  if (options.xla) out.push_back({"TF_XLA_FLAGS", "--tf_xla_auto_jit=2", "--xla: auto-clustering with XLA"});
  if (options.mixed_precision) {
    out.push_back({"TF_ENABLE_AUTO_MIXED_PRECISION", "1", "--mixed-precision: grappler's automatic float16 rewrite"});
  }
  return out;
}

StatusOr<EnvVar> ParseEnvAssignment(const std::string& text) {
  size_t eq = text.find('=');
  std::string name = text.substr(0, eq);
  bool valid = eq != std::string::npos && !name.empty() && !std::isdigit(static_cast<unsigned char>(name[0]));
  for (char c : name) valid = valid && (std::isalnum(static_cast<unsigned char>(c)) || c == '_');
  if (!valid) return InvalidArgument("--env expects NAME=VALUE with NAME made of letters, digits and _, got '" + text + "'");
  return EnvVar{name, text.substr(eq + 1), "--env"};
}

TaskEnvironment ComposeTaskEnv(const std::map<std::string, std::string>& inherited,
                               const std::vector<EnvVar>& recommended, const std::vector<EnvVar>& user_flags,
                               const std::vector<EnvVar>& task_identity) {
  TaskEnvironment out;
  std::map<std::string, std::string> env = inherited;
  auto record = [&out](const EnvVar& v) {
    for (EnvVar& s : out.set) {
      if (s.name == v.name) {
        s = v;
        return;
      }
    }
    out.set.push_back(v);
  };
  for (const EnvVar& v : recommended) {
    if (inherited.count(v.name) != 0) {
      out.kept.push_back(v.name);
      continue;
    }
    env[v.name] = v.value;
    record(v);
  }
  for (const EnvVar& v : user_flags) {
    env[v.name] = v.value;
    record(v);
  }
  for (const EnvVar& v : task_identity) {
    auto it = inherited.find(v.name);
    if (v.name == "TF_CONFIG" && it != inherited.end() && it->second != v.value) {
      out.warnings.push_back("the inherited TF_CONFIG is replaced by the one launch built for this cluster");
    }
    env[v.name] = v.value;
    record(v);
  }
  for (const auto& [k, v] : env) out.entries.push_back(k + "=" + v);
  return out;
}

std::map<std::string, std::string> CurrentEnvironment() {
  std::map<std::string, std::string> out;
  for (char** e = environ; e != nullptr && *e != nullptr; ++e) {
    std::string s = *e;
    size_t eq = s.find('=');
    if (eq == std::string::npos) continue;
    out.emplace(s.substr(0, eq), s.substr(eq + 1));
  }
  return out;
}

}  // namespace tfhost::host::launch
