// Turns `tfhost launch` options plus what the engine says (environment
// variables of Slurm or MPI, a host list for ssh) into a plan: the whole
// cluster with an address per task, and the processes this launcher instance
// starts, each with its command line and environment.
//
// Engines:
//   local  every task on this host ("localhost"), ports from --port BASE or
//          probed free ports.
//   slurm  one launcher per srun task. Hosts come from SLURM_STEP_NODELIST
//          (or SLURM_JOB_NODELIST / SLURM_NODELIST) and the per-node task
//          counts (SLURM_STEP_TASKS_PER_NODE / SLURM_TASKS_PER_NODE), with
//          Slurm's default block distribution; this instance is SLURM_PROCID.
//          Every instance computes the same cluster with no exchange: ports
//          are BASE + the task's slot on its node, BASE from --port or derived
//          from SLURM_JOB_ID and SLURM_STEP_ID (10000..27999). On more than
//          one node the instances then exchange their NCCL interface
//          candidates through a store instance 0 serves on the next port
//          (slurm_interfaces.h), so NCCL_SOCKET_IFNAME names an interface
//          every node has; after slurm_exchange_timeout each falls back to
//          its own node's pick, with a warning. Tasks are
//          addressed by node name, or with --slurm-address nodeaddr by the
//          NodeAddr Slurm itself uses to reach each node (`scontrol show node`),
//          for clusters whose node names do not resolve on the compute network.
//   mpi    one launcher per rank (OMPI_COMM_WORLD_RANK/SIZE, PMI_RANK/PMI_SIZE,
//          PMIX_RANK). A rank knows only itself, so ranks meet in a directory
//          rendezvous (rendezvous.h): each publishes its host and free ports.
//   ssh    tasks spread over --hosts in blocks, each started as
//          `ssh -tt HOST env NAME=VALUE ... COMMAND`; -tt ties the remote
//          task to the ssh connection, so stopping ssh stops it.
// When the cluster has more tasks than there are instances, each instance
// runs an equal, contiguous share (--workers must divide evenly).
// GPU tuning (NCCL_*, TF_GPU_*) follows the GPUs of the hosts the tasks run
// on: this host's for local, slurm and mpi (each launcher runs beside its
// tasks); under ssh the remote hosts' GPUs are unknown here, so only
// --tune-gpu (TuningOptions::gpu_requested) sets it.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "base/status.h"
#include "host/launch/cluster_spec.h"
#include "host/launch/launch_env.h"
#include "host/launch/net_facts.h"

namespace tfhost::host::launch {

enum class Engine { kLocal, kSlurm, kMpi, kSsh };
StatusOr<Engine> ParseEngine(const std::string& name);  // "local", "slurm", "mpi", "ssh"
const char* EngineName(Engine e);
// "auto": mpi when MPI rank variables are set, slurm inside an srun step
// (SLURM_PROCID and SLURM_STEP_ID), otherwise local.
Engine DetectEngine(const std::map<std::string, std::string>& env);

struct LaunchOptions {
  Engine engine = Engine::kLocal;
  Strategy strategy = Strategy::kMultiWorker;
  int workers = -1;        // -1: engine default (local: 2; slurm/mpi: one task per instance)
  int ps = -1;             // -1: 1 for the ps strategy, 0 otherwise
  bool evaluator = false;
  int port_base = 0;       // 0: probe (local, mpi) or derive (slurm, ssh)
  std::vector<std::string> hosts;  // ssh: host names (already expanded)
  std::string ssh_command = "ssh";  // split on spaces
  std::string rendezvous_dir;       // mpi; empty: $TMPDIR or /tmp, keyed by the MPI job id
  double rendezvous_timeout = 120;
  std::string advertise_host;       // mpi: this rank's address (default: hostname)
  bool slurm_use_nodeaddr = false;  // slurm: NodeAddr instead of NodeName
  double slurm_exchange_timeout = 30;  // slurm: interface exchange between nodes, seconds; 0: none
  int gpus_per_task = 0;            // >0: CUDA_VISIBLE_DEVICES per local slot (ps tasks get none)
  std::vector<std::string> command;
  TuningOptions tuning;
  std::vector<EnvVar> user_env;     // --env
};

struct PlannedTask {
  TaskId id;
  std::string host;
  int port = 0;
  bool completes_job = true;
  std::vector<std::string> argv;  // what is executed (ssh wraps the user's command)
  TaskEnvironment env;
};

struct LaunchPlan {
  Engine engine = Engine::kLocal;
  ClusterSpec cluster;
  int instance = 0;     // this launcher's index among all instances
  int instances = 1;
  std::vector<PlannedTask> tasks;  // the ones this instance starts
  NetworkChoice network;
  std::vector<std::string> notes;  // how hosts/ports were found, tuning notes
  std::string rendezvous_dir;      // mpi: to clean up afterwards (instance 0)
};

// Hooks for what touches the machine, so tests can plan without it.
struct PlanHooks {
  // `n` distinct free TCP ports on this host.
  std::function<StatusOr<std::vector<int>>(int n)> free_ports;
  std::function<std::string()> hostname;
  // Runs a command and returns its stdout (slurm: scontrol).
  std::function<StatusOr<std::string>(const std::vector<std::string>& argv)> run_command;
  NetworkFacts network;
  GpuPeerFacts gpu_peers;  // this host's GPUs and how they connect (empty without GPUs)
  // GPUs on this host (the probe's count); -1: not probed, taken as present.
  // With 0, tasks started here get no NCCL_*/TF_GPU_* tuning unless
  // TuningOptions::gpu_requested.
  int gpus = -1;
};
PlanHooks LiveHooks();
StatusOr<std::vector<int>> ProbeFreePorts(int n);

// `env` is the launcher's own environment (the engine's variables and the
// user's settings alike).
StatusOr<LaunchPlan> PlanLaunch(const LaunchOptions& options, const std::map<std::string, std::string>& env,
                                const PlanHooks& hooks);

// NodeName -> NodeAddr from `scontrol show node -o` output.
std::map<std::string, std::string> ParseScontrolNodeAddrs(const std::string& text);

// Human-readable plan for --dry-run: cluster, then per task the command,
// every variable launch sets (with why) and the ones the user's environment kept.
std::string FormatPlan(const LaunchPlan& plan);

// POSIX-shell quoting ("it's" -> 'it'\''s'); plain words stay bare.
std::string ShellQuote(const std::string& s);

}  // namespace tfhost::host::launch
