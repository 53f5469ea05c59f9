#include "host/launch/launch_plan.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <sstream>

#include "host/launch/hostlist.h"
#include "host/launch/rendezvous.h"
#include "host/launch/slurm_interfaces.h"
#include "host/probe/fs_reader.h"
#include "host/probe/nvml.h"
#include "host/probe/probe.h"

namespace tfhost::host::launch {

StatusOr<Engine> ParseEngine(const std::string& name) {
  if (name == "local") return Engine::kLocal;
  if (name == "slurm") return Engine::kSlurm;
  if (name == "mpi") return Engine::kMpi;
  if (name == "ssh") return Engine::kSsh;
  return InvalidArgument("unknown engine '" + name + "': expected local, slurm, mpi, ssh or auto");
}

const char* EngineName(Engine e) {
  switch (e) {
    case Engine::kLocal: return "local";
    case Engine::kSlurm: return "slurm";
    case Engine::kMpi: return "mpi";
    case Engine::kSsh: return "ssh";
  }
  return "?";
}

namespace {

const std::string* Get(const std::map<std::string, std::string>& env, std::initializer_list<const char*> names,
                       std::string* which = nullptr) {
  for (const char* n : names) {
    auto it = env.find(n);
    if (it != env.end() && !it->second.empty()) {
      if (which != nullptr) *which = n;
      return &it->second;
    }
  }
  return nullptr;
}

StatusOr<int> GetInt(const std::map<std::string, std::string>& env, std::initializer_list<const char*> names,
                     const std::string& what, int min, int max) {
  std::string which;
  const std::string* v = Get(env, names, &which);
  if (v == nullptr) {
    std::string list;
    for (const char* n : names) list += (list.empty() ? "" : ", ") + std::string(n);
    return FailedPrecondition(what + " is unknown: none of " + list + " is set");
  }
  long long x = 0;
  try {
    size_t used = 0;
    x = std::stoll(*v, &used);
    if (used != v->size()) throw std::invalid_argument("trailing");
  } catch (...) {
    return InvalidArgument(which + "='" + v->substr(0, 32) + "' is not a number");
  }
  if (x < min || x > max) {
    return InvalidArgument(which + "=" + *v + " is outside " + std::to_string(min) + ".." + std::to_string(max));
  }
  return static_cast<int>(x);
}

// Where each task runs and which instance starts it.
struct Placement {
  std::vector<std::string> hosts;  // per task
  std::vector<int> ports;          // per task
  std::vector<int> instance;       // per task
  // Per distinct host, its NCCL interface candidates, when the instances
  // exchanged them (mpi rendezvous, slurm store); empty otherwise.
  std::vector<std::vector<std::string>> interfaces;
  std::string warning;  // for every task of this instance (e.g. the exchange failed)
};

StatusOr<ClusterShape> ResolveShape(const LaunchOptions& o, int instances) {
  ClusterShape s;
  s.strategy = o.strategy;
  s.evaluator = o.evaluator;
  s.ps = o.ps >= 0 ? o.ps : (o.strategy == Strategy::kParameterServer ? 1 : 0);
  if (o.workers >= 0) {
    s.workers = o.workers;
  } else if (o.strategy == Strategy::kMirrored) {
    s.workers = 1;
  } else if (o.engine == Engine::kLocal || o.engine == Engine::kSsh) {
    s.workers = o.engine == Engine::kSsh ? static_cast<int>(o.hosts.size()) : 2;
  } else {
    // One task per instance: the engine's task count is the cluster size.
    int others = (o.strategy == Strategy::kParameterServer ? 1 + s.ps : 0) + (s.evaluator ? 1 : 0);
    s.workers = instances - others;
    if (s.workers < 1) {
      return InvalidArgument("the engine started " + std::to_string(instances) + " instances, too few for " +
                             std::to_string(others) + " chief/ps/evaluator tasks plus at least one worker");
    }
  }
  TFHOST_RETURN_IF_ERROR(ValidateShape(s));
  return s;
}

// Whether the tasks this launcher starts get the GPU variables; see the
// header. Every instance of a step decides alike on a uniform cluster.
bool GpuTuning(const LaunchOptions& o, const PlanHooks& hooks) {
  if (!o.tuning.tune) return false;
  if (o.tuning.gpu_requested) return true;
  return o.engine != Engine::kSsh && hooks.gpus != 0;
}

Status CheckShare(int tasks, int instances) {
  if (instances < 1 || tasks % instances != 0) {
    return InvalidArgument("a cluster of " + std::to_string(tasks) + " tasks cannot be split evenly over " +
                           std::to_string(instances) + " launcher instances; choose --workers so that it can");
  }
  return OkStatus();
}

int DerivedSlurmPortBase(const std::map<std::string, std::string>& env) {
  // Same on every node of a step, different for concurrent steps; leaves room
  // for slots below the usual ephemeral range (32768+).
  unsigned long long h = 1469598103934665603ull;
  for (const char* name : {"SLURM_JOB_ID", "SLURM_JOBID", "SLURM_STEP_ID", "SLURM_STEPID"}) {
    auto it = env.find(name);
    if (it == env.end()) continue;
    for (char c : it->second + "/") h = (h ^ static_cast<unsigned char>(c)) * 1099511628211ull;
  }
  return 10000 + static_cast<int>(h % 18000);
}

StatusOr<Placement> PlaceSlurm(const LaunchOptions& o, const std::map<std::string, std::string>& env,
                               const ClusterShape& shape, const PlanHooks& hooks, int* instance, int* instances, std::vector<std::string>* notes) {
  std::string list_var;
  const std::string* nodelist = Get(env, {"SLURM_STEP_NODELIST", "SLURM_JOB_NODELIST", "SLURM_NODELIST"}, &list_var);
  if (nodelist == nullptr) {
    return FailedPrecondition(
        "--engine slurm needs SLURM_JOB_NODELIST: run it inside an allocation with srun (srun tfhost launch ...)");
  }
  if (Get(env, {"SLURM_STEP_ID", "SLURM_STEPID"}) == nullptr) {
    // The batch script itself has SLURM_PROCID=0 and SLURM_NTASKS=N too, but
    // it is one process: started there, launch would run 1/N of the job and
    // wait for peers that never come.
    return FailedPrecondition(
        "not inside an srun job step (SLURM_STEP_ID is unset; this looks like the batch script itself): "
        "start one launcher per task with `srun tfhost launch --engine slurm ...`");
  }
  TFHOST_ASSIGN_OR_RETURN(std::vector<std::string> nodes, ExpandHostlist(*nodelist));
  TFHOST_ASSIGN_OR_RETURN(*instances, GetInt(env, {"SLURM_STEP_NUM_TASKS", "SLURM_NTASKS", "SLURM_NPROCS"},
                                             "the number of srun tasks", 1, kMaxTasks));
  TFHOST_ASSIGN_OR_RETURN(*instance, GetInt(env, {"SLURM_PROCID"}, "this srun task's rank (run under srun)", 0,
                                            *instances - 1));
  std::vector<int> per_node;
  if (const std::string* tpn = Get(env, {"SLURM_STEP_TASKS_PER_NODE", "SLURM_TASKS_PER_NODE"})) {
    TFHOST_ASSIGN_OR_RETURN(per_node, ExpandTasksPerNode(*tpn));
  } else {
    for (size_t i = 0; i < nodes.size(); ++i) {
      per_node.push_back(*instances / nodes.size() + (i < *instances % nodes.size() ? 1 : 0));
    }
  }
  if (per_node.size() != nodes.size()) {
    return InvalidArgument(list_var + " names " + std::to_string(nodes.size()) + " nodes but the tasks-per-node list has " +
                           std::to_string(per_node.size()) + " entries");
  }
  std::vector<std::string> instance_host;
  std::vector<int> instance_local, instance_node;
  for (size_t n = 0; n < nodes.size(); ++n) {
    for (int j = 0; j < per_node[n]; ++j) {
      instance_host.push_back(nodes[n]);
      instance_local.push_back(j);
      instance_node.push_back(n);
    }
  }
  if (static_cast<int>(instance_host.size()) != *instances) {
    return InvalidArgument("the tasks-per-node list adds up to " + std::to_string(instance_host.size()) +
                           " tasks, but the step has " + std::to_string(*instances));
  }
  if (Get(env, {"SLURM_NODEID"}) != nullptr) {
    TFHOST_ASSIGN_OR_RETURN(int nodeid, GetInt(env, {"SLURM_NODEID"}, "node id", 0, 1 << 20));
    if (nodeid != instance_node[*instance]) {
      return FailedPrecondition("SLURM_PROCID " + std::to_string(*instance) + " runs on node " +
                                std::to_string(nodeid) + ", but block distribution puts it on node " +
                                std::to_string(instance_node[*instance]) +
                                "; launch needs srun's default block distribution (--distribution=block)");
    }
  }
  if (o.slurm_use_nodeaddr) {
    if (!hooks.run_command) return Internal("no way to run scontrol");
    std::string joined;
    for (const std::string& n : nodes) joined += (joined.empty() ? "" : ",") + n;
    TFHOST_ASSIGN_OR_RETURN(std::string text, hooks.run_command({"scontrol", "show", "node", "-o", joined}));
    std::map<std::string, std::string> addrs = ParseScontrolNodeAddrs(text);
    for (std::string& h : instance_host) {
      auto it = addrs.find(h);
      if (it == addrs.end()) return FailedPrecondition("scontrol did not report a NodeAddr for node '" + h + "'");
      h = it->second;
    }
    notes->push_back("slurm: tasks addressed by NodeAddr from scontrol");
  }
  std::vector<TaskId> ids = TaskList(shape);
  TFHOST_RETURN_IF_ERROR(CheckShare(ids.size(), *instances));
  int k = ids.size() / *instances;
  int base = o.port_base > 0 ? o.port_base : DerivedSlurmPortBase(env);
  if (base + (*instances) * k > 65535) return InvalidArgument("--port " + std::to_string(base) + " leaves no room for the tasks");
  notes->push_back("slurm: " + std::to_string(nodes.size()) + " nodes from " + list_var + ", " +
                   std::to_string(*instances) + " srun tasks, " + std::to_string(k) + " TensorFlow task(s) each; ports " +
                   std::to_string(base) + "+slot" + (o.port_base > 0 ? " (--port)" : " (derived from the job and step ids)"));
  Placement p;
  for (size_t t = 0; t < ids.size(); ++t) {
    int inst = t / k;
    p.instance.push_back(inst);
    p.hosts.push_back(instance_host[inst]);
    p.ports.push_back(base + instance_local[inst] * k + static_cast<int>(t % k));
  }
  // NCCL_SOCKET_IFNAME must be one name every node has. Pointless on one
  // node, without GPU tuning (no NCCL variables are set), or when the user
  // set it (theirs wins anyway); a timeout of 0 turns the exchange off.
  if (GpuTuning(o, hooks) && o.slurm_exchange_timeout > 0 && nodes.size() > 1 &&
      Get(env, {"NCCL_SOCKET_IFNAME"}) == nullptr) {
    SlurmInterfaceExchange x;
    x.store_host = instance_host[0];
    x.store_port = base + (*instances) * k;  // just above every task port of node 0
    x.instance = *instance;
    x.instances = *instances;
    x.node = instance_node[*instance];
    x.nodes = nodes.size();
    x.publishes = instance_local[*instance] == 0;
    x.candidates = SocketInterfaceCandidates(hooks.network);
    x.timeout_seconds = o.slurm_exchange_timeout;
    StatusOr<std::vector<std::vector<std::string>>> lists =
        x.store_port <= 65535 ? ExchangeSlurmInterfaces(x)
                              : StatusOr<std::vector<std::vector<std::string>>>(
                                    InvalidArgument("no port left above the task ports for the exchange"));
    if (lists.ok()) {
      p.interfaces = std::move(*lists);
      notes->push_back("slurm: the " + std::to_string(nodes.size()) +
                       " nodes exchanged their NCCL interface candidates through launcher 0's store at " +
                       x.store_host + ":" + std::to_string(x.store_port));
    } else {
      p.warning = "NCCL_SOCKET_IFNAME is this node's own pick, not agreed with the other nodes (" +
                  lists.status().message() +
                  "); if the nodes name their NICs differently, pass --env NCCL_SOCKET_IFNAME=...";
      notes->push_back("slurm: " + p.warning);
    }
  }
  return p;
}

std::string RendezvousKey(const std::map<std::string, std::string>& env) {
  const std::string* key = Get(env, {"OMPI_MCA_ess_base_jobid", "PMIX_NAMESPACE", "PMI_JOBID", "SLURM_JOB_ID"});
  std::string k = key != nullptr ? *key : "default";
  std::string safe;
  for (char c : k) safe += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
  return safe.substr(0, 64);
}

StatusOr<Placement> PlaceMpi(const LaunchOptions& o, const std::map<std::string, std::string>& env,
                             const ClusterShape& shape, const PlanHooks& hooks, int* instance, int* instances,
                             std::string* rendezvous_dir, std::vector<std::string>* notes) {
  TFHOST_ASSIGN_OR_RETURN(*instance, GetInt(env, {"OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK"},
                                            "this MPI rank (run under mpirun)", 0, kMaxTasks));
  TFHOST_ASSIGN_OR_RETURN(*instances, GetInt(env, {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE"}, "the MPI world size", 1,
                                             kMaxTasks));
  if (*instance >= *instances) {
    return InvalidArgument("MPI rank " + std::to_string(*instance) + " is not below the world size " +
                           std::to_string(*instances));
  }
  std::vector<TaskId> ids = TaskList(shape);
  TFHOST_RETURN_IF_ERROR(CheckShare(ids.size(), *instances));
  int k = ids.size() / *instances;
  InstanceAddress self;
  self.host = !o.advertise_host.empty() ? o.advertise_host : hooks.hostname();
  self.interfaces = SocketInterfaceCandidates(hooks.network);
  if (o.port_base > 0) {
    // Deterministic ports: the local rank picks its slot on the node.
    TFHOST_ASSIGN_OR_RETURN(int local, GetInt(env, {"OMPI_COMM_WORLD_LOCAL_RANK", "MPI_LOCALRANKID", "PMI_LOCAL_RANK"},
                                              "this rank's local rank", 0, kMaxTasks));
    for (int j = 0; j < k; ++j) self.ports.push_back(o.port_base + local * k + j);
  } else {
    TFHOST_ASSIGN_OR_RETURN(self.ports, hooks.free_ports(k));
  }
  std::string dir = o.rendezvous_dir;
  if (dir.empty()) {
    const std::string* tmp = Get(env, {"TMPDIR"});
    dir = (tmp != nullptr ? *tmp : std::string("/tmp")) + "/tfhost-rendezvous";
  }
  dir += "/" + RendezvousKey(env);
  *rendezvous_dir = dir;
  TFHOST_ASSIGN_OR_RETURN(std::vector<InstanceAddress> all,
                          DirectoryRendezvous(dir, *instance, *instances, self, o.rendezvous_timeout));
  notes->push_back("mpi: rank " + std::to_string(*instance) + " of " + std::to_string(*instances) + ", " +
                   std::to_string(k) + " TensorFlow task(s) each; addresses exchanged through " + dir);
  Placement p;
  for (size_t t = 0; t < ids.size(); ++t) {
    int inst = t / k;
    if (all[inst].ports.size() != static_cast<size_t>(k)) {
      return DataLoss("rendezvous: instance " + std::to_string(inst) + " published " +
                      std::to_string(all[inst].ports.size()) + " ports, expected " + std::to_string(k) +
                      " (do all ranks run the same tfhost launch command?)");
    }
    p.instance.push_back(inst);
    p.hosts.push_back(all[inst].host);
    p.ports.push_back(all[inst].ports[t % k]);
  }
  // One list per host: instances sharing a node report the same interfaces.
  std::map<std::string, std::vector<std::string>> by_host;
  for (const InstanceAddress& a : all) by_host.emplace(a.host, a.interfaces);
  for (auto& [host, interfaces] : by_host) p.interfaces.push_back(std::move(interfaces));
  return p;
}

// argv split on spaces (for --ssh "ssh -p 2222").
std::vector<std::string> SplitWords(const std::string& s) {
  std::vector<std::string> out;
  std::istringstream in(s);
  for (std::string w; in >> w;) out.push_back(w);
  return out;
}

std::vector<std::string> SplitCommas(const std::string& s) {
  std::vector<std::string> out;
  std::string cur;
  for (char c : s) {
    if (c == ',') {
      if (!cur.empty()) out.push_back(cur);
      cur.clear();
    } else {
      cur += c;
    }
  }
  if (!cur.empty()) out.push_back(cur);
  return out;
}

}  // namespace

Engine DetectEngine(const std::map<std::string, std::string>& env) {
  if (Get(env, {"OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK"}) != nullptr) return Engine::kMpi;
  if (Get(env, {"SLURM_PROCID"}) != nullptr && Get(env, {"SLURM_STEP_ID", "SLURM_STEPID"}) != nullptr) {
    return Engine::kSlurm;
  }
  return Engine::kLocal;
}

std::string ShellQuote(const std::string& s) {
  bool plain = !s.empty();
  for (char c : s) {
    plain = plain && (std::isalnum(static_cast<unsigned char>(c)) || std::string("-_./:=,+@%").find(c) != std::string::npos);
  }
  if (plain) return s;
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

StatusOr<std::vector<int>> ProbeFreePorts(int n) {
  std::vector<int> fds, ports;
  Status st;
  for (int i = 0; i < n; ++i) {
    int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) {
      st = Unavailable("cannot open a socket to find a free port");
      break;
    }
    fds.push_back(fd);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_ANY);
    a.sin_port = 0;
    socklen_t len = sizeof(a);
    // Held open until all are chosen, so the n ports are distinct.
    if (::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof(a)) != 0 ||
        ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len) != 0) {
      st = Unavailable("cannot bind a socket to find a free port");
      break;
    }
    ports.push_back(ntohs(a.sin_port));
  }
  for (int fd : fds) ::close(fd);
  if (!st.ok()) return st;
  return ports;
}

std::map<std::string, std::string> ParseScontrolNodeAddrs(const std::string& text) {
  std::map<std::string, std::string> out;
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    std::string name, addr;
    std::istringstream words(line);
    for (std::string w; words >> w;) {
      if (w.rfind("NodeName=", 0) == 0) name = w.substr(9);
      if (w.rfind("NodeAddr=", 0) == 0) addr = w.substr(9);
    }
    if (!name.empty() && !addr.empty()) out[name] = addr;
  }
  return out;
}

StatusOr<std::string> RunAndCapture(const std::vector<std::string>& argv) {
  std::string cmd;
  for (const std::string& a : argv) cmd += (cmd.empty() ? "" : " ") + ShellQuote(a);
  FILE* pipe = ::popen((cmd + " 2>/dev/null").c_str(), "r");
  if (pipe == nullptr) return Unavailable("cannot run " + cmd);
  std::string out;
  char buf[4096];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof(buf), pipe)) > 0 && out.size() < (4u << 20)) out.append(buf, n);
  int status = ::pclose(pipe);
  if (status != 0) return Unavailable("'" + cmd + "' failed (status " + std::to_string(status) + ")");
  return out;
}

namespace {

// This host's GPU count and their topology through NVML (loaded with
// dlopen; absent = no GPUs).
void ProbeLiveGpus(PlanHooks* h) {
  auto fs = NewRootedFsReader("/");
  std::unique_ptr<Nvml> nvml = LoadNvml();
  Notes ignored;
  NvidiaFacts gpus = ProbeGpus(*fs, nvml.get(), &ignored);
  h->gpus = static_cast<int>(gpus.gpus.size());
  if (gpus.gpus.size() < 2) return;
  TopologyMatrix topology = ProbeTopology(*fs, nvml.get(), gpus, {}, {});
  h->gpu_peers = GpuPeersFromTopology(topology, ProbeEnvironment(*fs, &ignored).virtualization);
}

}  // namespace

PlanHooks LiveHooks() {
  PlanHooks h;
  h.free_ports = ProbeFreePorts;
  h.hostname = [] {
    char buf[256] = {};
    if (::gethostname(buf, sizeof(buf) - 1) != 0) return std::string("localhost");
    return std::string(buf);
  };
  h.network = ReadNetworkFacts("/");
  ProbeLiveGpus(&h);
  h.run_command = RunAndCapture;
  return h;
}

StatusOr<LaunchPlan> PlanLaunch(const LaunchOptions& o, const std::map<std::string, std::string>& env,
                                const PlanHooks& hooks) {
  if (o.command.empty()) return InvalidArgument("no command to launch: put it after --, e.g. -- python3 train.py");
  if (o.port_base < 0 || o.port_base > 65535) return InvalidArgument("--port must be in 1..65535");
  LaunchPlan plan;
  plan.engine = o.engine;
  Placement p;
  ClusterShape shape;
  switch (o.engine) {
    case Engine::kLocal: {
      TFHOST_ASSIGN_OR_RETURN(shape, ResolveShape(o, 1));
      int n = TaskList(shape).size();
      if (o.port_base > 0) {
        if (o.port_base + n - 1 > 65535) return InvalidArgument("--port leaves no room for " + std::to_string(n) + " tasks");
        for (int i = 0; i < n; ++i) p.ports.push_back(o.port_base + i);
        plan.notes.push_back("local: ports " + std::to_string(o.port_base) + ".." + std::to_string(o.port_base + n - 1) + " (--port)");
      } else {
        TFHOST_ASSIGN_OR_RETURN(p.ports, hooks.free_ports(n));
        plan.notes.push_back("local: free ports probed on this host");
      }
      p.hosts.assign(n, "localhost");
      p.instance.assign(n, 0);
      break;
    }
    case Engine::kSsh: {
      if (o.hosts.empty()) return InvalidArgument("--engine ssh needs --hosts (e.g. --hosts 'node[01-04]')");
      TFHOST_ASSIGN_OR_RETURN(shape, ResolveShape(o, 1));
      int n = TaskList(shape).size();
      int h = o.hosts.size();
      int per = (n + h - 1) / h;
      int base = o.port_base > 0 ? o.port_base : 20000;
      if (base + per > 65535) return InvalidArgument("--port leaves no room for the tasks");
      for (int t = 0; t < n; ++t) {
        p.hosts.push_back(o.hosts[t / per]);
        p.ports.push_back(base + t % per);
        p.instance.push_back(0);
      }
      plan.notes.push_back("ssh: " + std::to_string(n) + " tasks over " + std::to_string(h) + " hosts, up to " +
                           std::to_string(per) + " per host, ports " + std::to_string(base) + "+slot" +
                           (o.port_base > 0 ? " (--port)" : " (default; --port BASE to change)"));
      break;
    }
    case Engine::kSlurm:
    case Engine::kMpi: {
      int instances = 1;
      if (o.engine == Engine::kSlurm) {
        TFHOST_ASSIGN_OR_RETURN(instances, GetInt(env, {"SLURM_STEP_NUM_TASKS", "SLURM_NTASKS", "SLURM_NPROCS"},
                                                  "the number of srun tasks", 1, kMaxTasks));
      } else {
        TFHOST_ASSIGN_OR_RETURN(instances, GetInt(env, {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE"}, "the MPI world size", 1,
                                                  kMaxTasks));
      }
      TFHOST_ASSIGN_OR_RETURN(shape, ResolveShape(o, instances));
      if (o.engine == Engine::kSlurm) {
        TFHOST_ASSIGN_OR_RETURN(p, PlaceSlurm(o, env, shape, hooks, &plan.instance, &plan.instances, &plan.notes));
      } else {
        TFHOST_ASSIGN_OR_RETURN(p, PlaceMpi(o, env, shape, hooks, &plan.instance, &plan.instances,
                                            &plan.rendezvous_dir, &plan.notes));
      }
      break;
    }
  }
  TFHOST_ASSIGN_OR_RETURN(plan.cluster, BuildClusterSpec(shape, p.hosts, p.ports));

  plan.network = ChooseNetwork(hooks.network);
  // Instances on other hosts told us their interfaces: NCCL_SOCKET_IFNAME
  // must name one they all have.
  if (p.interfaces.size() > 1) {
    UseInterfaceCommonToHosts(p.interfaces, &plan.network);
  }
  const bool gpu_tuning = GpuTuning(o, hooks);
  std::vector<EnvVar> recommended = RecommendedEnv(plan.network, o.tuning, gpu_tuning);
  if (gpu_tuning && o.engine != Engine::kSsh) {  // remote hosts' GPUs are not this host's
    for (EnvVar& v : PeerToPeerHints(hooks.gpu_peers, &plan.notes)) recommended.push_back(std::move(v));
  }
  if (o.engine == Engine::kSsh) {
    // This host's interfaces say nothing about the remote ones.
    std::vector<EnvVar> kept;
    for (const EnvVar& v : recommended) {
      if (v.name.rfind("NCCL_", 0) != 0) kept.push_back(v);
    }
    recommended = kept;
    if (o.tuning.tune) {
      plan.notes.push_back(gpu_tuning ? "ssh: --tune-gpu: TF_GPU_* variables set for the remote hosts"
                                      : "ssh: the remote hosts' GPUs are not known here, so no TF_GPU_* variables "
                                        "are set; --tune-gpu sets them");
      plan.notes.push_back("ssh: NCCL network variables are not guessed for remote hosts; pass --env NCCL_SOCKET_IFNAME=...");
    }
  } else if (gpu_tuning) {
    if (hooks.gpus == 0) {
      plan.notes.push_back("--tune-gpu: NCCL_*/TF_GPU_* variables set although no GPU was found on this host");
    }
    for (const std::string& n : plan.network.notes) plan.notes.push_back(n);
  } else if (o.tuning.tune) {
    plan.notes.push_back("no GPU found on this host, so no NCCL_*/TF_GPU_* variables are set; --tune-gpu sets them "
                         "anyway");
  }

  const std::string* inherited_gpus = Get(env, {"CUDA_VISIBLE_DEVICES"});
  std::vector<std::string> gpu_pool = inherited_gpus != nullptr ? SplitCommas(*inherited_gpus) : std::vector<std::string>{};
  std::map<std::string, int> gpu_slot_on_host;
  int total = plan.cluster.tasks.size();
  for (size_t t = 0; t < plan.cluster.tasks.size(); ++t) {
    const TaskAddress& a = plan.cluster.tasks[t];
    int gpu_slot = -1;
    if (a.task.type != "ps") gpu_slot = gpu_slot_on_host[a.host + "#" + std::to_string(p.instance[t])]++;
    if (p.instance[t] != plan.instance) continue;
    PlannedTask task;
    task.id = a.task;
    task.host = a.host;
    task.port = a.port;
    task.completes_job = shape.strategy == Strategy::kParameterServer ? a.task.type == "chief"
                                                                       : a.task.type == "worker";
    std::vector<EnvVar> identity;
    TFHOST_ASSIGN_OR_RETURN(std::string tf_config, TfConfigJson(plan.cluster, a.task));
    if (!tf_config.empty()) identity.push_back({"TF_CONFIG", tf_config, "this task's place in the cluster"});
    identity.push_back({"TFHOST_TASK_TYPE", a.task.type, "task identity"});
    identity.push_back({"TFHOST_TASK_INDEX", std::to_string(a.task.index), "task identity"});
    identity.push_back({"TFHOST_NUM_TASKS", std::to_string(total), "task identity"});
    if (o.gpus_per_task > 0) {
      std::string devices;
      if (gpu_slot >= 0) {
        for (int g = 0; g < o.gpus_per_task; ++g) {
          int idx = gpu_slot * o.gpus_per_task + g;
          std::string dev = gpu_pool.empty() ? std::to_string(idx)
                                             : (idx < static_cast<int>(gpu_pool.size()) ? gpu_pool[idx] : "");
          if (dev.empty()) {
            return InvalidArgument("task " + a.task.Label() + " needs GPU slot " + std::to_string(idx) +
                                   " but CUDA_VISIBLE_DEVICES lists only " + std::to_string(gpu_pool.size()));
          }
          devices += (devices.empty() ? "" : ",") + dev;
        }
      }
      identity.push_back({"CUDA_VISIBLE_DEVICES", devices,
                          gpu_slot >= 0 ? "--gpus-per-task" : "parameter servers keep variables on the CPU"});
    }
    task.env = ComposeTaskEnv(env, recommended, o.user_env, identity);
    if (!p.warning.empty()) task.env.warnings.push_back(p.warning);
    if (o.engine == Engine::kSsh) {
      task.argv = SplitWords(o.ssh_command);
      if (task.argv.empty()) return InvalidArgument("--ssh is empty");
      for (const char* a2 : {"-tt", "-o", "BatchMode=yes"}) task.argv.push_back(a2);
      task.argv.push_back(a.host);
      std::string remote = "env";
      for (const EnvVar& v : task.env.set) remote += " " + ShellQuote(v.name + "=" + v.value);
      for (const std::string& c : o.command) remote += " " + ShellQuote(c);
      task.argv.push_back(remote);
      // The local ssh process itself runs with the user's environment.
      task.env.entries.clear();
      for (const auto& [k, v] : env) task.env.entries.push_back(k + "=" + v);
    } else {
      task.argv = o.command;
    }
    plan.tasks.push_back(std::move(task));
  }
  return plan;
}

std::string FormatPlan(const LaunchPlan& plan) {
  std::ostringstream s;
  s << "engine: " << EngineName(plan.engine) << " (instance " << plan.instance << " of " << plan.instances
    << ", starting " << plan.tasks.size() << " of " << plan.cluster.tasks.size() << " tasks)\n";
  s << "strategy: " << StrategyName(plan.cluster.strategy) << "\n";
  s << "cluster: " << ClusterJson(plan.cluster) << "\n";
  for (const TaskAddress& a : plan.cluster.tasks) {
    if (a.task.type == "evaluator") s << "evaluator: " << a.Address() << " (outside the cluster spec, as TensorFlow expects)\n";
  }
  for (const std::string& n : plan.notes) s << "note: " << n << "\n";
  for (const PlannedTask& t : plan.tasks) {
    s << "\n[" << t.id.Label() << "] " << t.host << ":" << t.port << (t.completes_job ? "" : " (stopped when the job completes)") << "\n";
    s << "  command:";
    for (const std::string& a : t.argv) s << " " << ShellQuote(a);
    s << "\n";
    for (const EnvVar& v : t.env.set) s << "  env " << v.name << "=" << v.value << "    # " << v.why << "\n";
    for (const std::string& k : t.env.kept) s << "  env " << k << " kept from your environment\n";
    for (const std::string& w : t.env.warnings) s << "  warning: " << w << "\n";
  }
  return s.str();
}

}  // namespace tfhost::host::launch
