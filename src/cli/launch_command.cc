// `tfhost launch [flags] -- COMMAND ARGS...`: runs a distributed TensorFlow
// job's processes with a correct TF_CONFIG each, tuned NCCL/TensorFlow
// environment and fail-fast lifecycle, on the local host, inside a Slurm
// allocation, under mpirun or over ssh; or writes an sbatch script or
// Kubernetes manifests for the job (--emit). The machinery lives in
// src/host/launch; this file maps flags onto it. docs/distributed.md is the
// user's guide.
#include <fstream>
#include <limits>

#include "base/file_util.h"
#include "cli/cli.h"
#include "cli/command_util.h"
#include "host/launch/emit.h"
#include "host/launch/hostlist.h"
#include "host/launch/launch_plan.h"
#include "host/launch/rendezvous.h"
#include "host/launch/supervisor.h"

namespace tfhost::cli {

namespace {

namespace hl = tfhost::host::launch;

constexpr char kName[] = "launch";

StatusOr<double> ParseSeconds(const std::string& text, const std::string& flag) {
  try {
    size_t used = 0;
    double v = std::stod(text, &used);
    if (used == text.size() && v >= 0 && v <= 86400) return v;
  } catch (...) {
  }
  return InvalidArgument(flag + " expects seconds between 0 and 86400, got '" + text + "'");
}

Status WriteOutput(const std::string& path, const std::string& text, std::ostream& out) {
  if (path.empty() || path == "-") {
    out << text;
    return OkStatus();
  }
  TFHOST_RETURN_IF_ERROR(CreateParentDirectories(path));
  std::ofstream f(path, std::ios::trunc);
  f << text;
  if (!f.good()) return Unavailable("cannot write " + path);
  return OkStatus();
}

// What an int flag holds when it was not given (a value nobody types), so
// that a flag given with its default value still counts as given.
constexpr int kNotGiven = std::numeric_limits<int>::min();

// The flags that only shape the job an sbatch script asks Slurm for.
struct SbatchOnlyFlags {
  int nodes = kNotGiven, tasks_per_node = kNotGiven, gpus_per_node = kNotGiven;
  std::string time, partition;
};

// A usage error when any sbatch-only flag was given where nothing reads it
// (`mode` says where, `why` why it has no effect there), else "". Silently
// dropping `--nodes 4` would run a one-node job the user did not ask for.
std::string SbatchOnlyFlagsMisused(const SbatchOnlyFlags& f, const std::string& mode, const std::string& why) {
  std::vector<std::string> given;
  if (f.nodes != kNotGiven) given.push_back("--nodes");
  if (f.tasks_per_node != kNotGiven) given.push_back("--tasks-per-node");
  if (f.gpus_per_node != kNotGiven) given.push_back("--gpus-per-node");
  if (!f.time.empty()) given.push_back("--time");
  if (!f.partition.empty()) given.push_back("--partition");
  if (given.empty()) return "";
  std::string names;
  for (size_t i = 0; i < given.size(); ++i) {
    names += (i == 0 ? "" : i + 1 == given.size() ? " and " : ", ") + given[i];
  }
  return names + (given.size() == 1 ? " applies" : " apply") +
         " to --emit sbatch only (the Slurm job the script asks for); with " + mode + " " +
         (given.size() == 1 ? "it" : "they") + " would be ignored: " + why;
}

// Why the sbatch-only flags mean nothing to a job run by `engine`.
std::string WhyIgnoredBy(hl::Engine engine) {
  switch (engine) {
    case hl::Engine::kLocal:
      return "every task runs on this host (--gpus-per-task shares out its GPUs)";
    case hl::Engine::kSlurm:
      return "nodes, tasks and GPUs are those of the Slurm allocation it runs in (set them with sbatch, salloc or "
             "srun)";
    case hl::Engine::kMpi:
      return "the ranks and their hosts are mpirun's (-np, --host, --hostfile)";
    case hl::Engine::kSsh:
      return "tasks go to the --hosts list, which sets the nodes";
  }
  return "";
}

}  // namespace

int LaunchCommand(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  // Everything after the first "--" is the user's command, untouched.
  std::vector<std::string> flag_args, command;
  bool in_command = false;
  for (const std::string& a : args) {
    if (!in_command && a == "--") {
      in_command = true;
      continue;
    }
    (in_command ? command : flag_args).push_back(a);
  }

  std::string engine_name = "auto", strategy_name = "multiworker", hosts_expr, ssh = "ssh", emit, output;
  std::string slurm_address = "nodename";
  std::string grace = "5", rendezvous, rendezvous_timeout = "120", advertise, log_dir;
  std::string job_name = "tfhost-train", image;
  SbatchOnlyFlags sbatch;
  int workers = -1, ps = -1, port = 0, max_restarts = 0, gpus_per_task = 0;
  bool evaluator = false, dry_run = false, xla = false, mixed_precision = false, no_tune = false, tune_gpu = false;
  std::vector<std::string> env_flags;

  FlagParser flags("tfhost launch [flags] -- COMMAND [ARGS...]",
                   "Runs a distributed TensorFlow job: one process per task with its own TF_CONFIG, NCCL and "
                   "TensorFlow settings from the host probe, prefixed output, and the whole job stopped when one "
                   "task fails. Engines: local (this host), slurm (inside srun), mpi (under mpirun), ssh (--hosts). "
                   "--emit writes an sbatch script or Kubernetes manifests instead. See docs/distributed.md.");
  flags.AddString("engine", &engine_name, "ENGINE", "auto (default: mpi/slurm from the environment, else local), local, slurm, mpi, ssh");
  flags.AddString("strategy", &strategy_name, "S", "multiworker (default), ps (ParameterServerStrategy) or mirrored");
  flags.AddInt("workers", &workers, "N", "worker tasks (default: local 2, slurm/mpi one per srun task / rank)");
  flags.AddInt("ps", &ps, "N", "parameter servers for --strategy ps (default 1)");
  flags.AddBool("evaluator", &evaluator, "add a sidecar evaluator task (not in the cluster spec)");
  flags.AddInt("port", &port, "BASE", "ports BASE, BASE+1, ... per host (default: free ports; slurm: from the job id)");
  flags.AddString("hosts", &hosts_expr, "LIST", "ssh engine: hosts, Slurm hostlist syntax allowed ('node[01-04]')");
  flags.AddString("ssh", &ssh, "CMD", "ssh engine: the ssh command (default ssh; e.g. 'ssh -p 2222')");
  flags.AddBool("dry-run", &dry_run, "print every task's command and environment and exit");
  flags.AddString("emit", &emit, "KIND", "write instead of run: sbatch, k8s (Kubeflow TFJob) or k8s-indexed (Indexed Jobs + headless Service)");
  flags.AddString("output", &output, "FILE", "where --emit writes (default stdout)");
  flags.AddBool("xla", &xla, "TF_XLA_FLAGS=--tf_xla_auto_jit=2");
  flags.AddBool("mixed-precision", &mixed_precision, "TF_ENABLE_AUTO_MIXED_PRECISION=1");
  flags.AddBool("no-tune", &no_tune, "set no recommended NCCL_*/TF_* variables");
  flags.AddBool("tune-gpu", &tune_gpu,
                "set the NCCL_*/TF_GPU_* tuning even where no GPU was found (by default only hosts with GPUs get it; "
                "ssh: the remote hosts' GPUs are unknown, so only with this flag)");
  flags.AddRepeated("env", &env_flags, "NAME=VALUE", "set a variable in every task (beats the inherited environment)");
  flags.AddInt("gpus-per-task", &gpus_per_task, "N", "CUDA_VISIBLE_DEVICES per task on a host; k8s/sbatch GPU requests");
  flags.AddString("grace", &grace, "SECONDS", "between SIGTERM and SIGKILL when stopping tasks (default 5)");
  flags.AddInt("max-restarts", &max_restarts, "N", "restart the whole job up to N times after a failure");
  flags.AddString("log-dir", &log_dir, "DIR", "also keep each task's output in DIR/<type>-<index>.log");
  flags.AddString("rendezvous", &rendezvous, "DIR", "mpi: directory shared by all ranks (default $TMPDIR or /tmp; one node only)");
  flags.AddString("rendezvous-timeout", &rendezvous_timeout, "SECONDS", "mpi: how long ranks wait for each other (default 120)");
  flags.AddString("advertise", &advertise, "HOST", "mpi: the address peers use for this rank (default: its hostname)");
  flags.AddString("slurm-address", &slurm_address, "KIND", "slurm: address tasks by nodename (default) or nodeaddr (Slurm's NodeAddr, from scontrol)");
  flags.AddString("name", &job_name, "NAME", "--emit: job name (default tfhost-train)");
  flags.AddString("image", &image, "IMAGE", "--emit k8s*: container image");
  flags.AddInt("nodes", &sbatch.nodes, "N", "--emit sbatch only: nodes (default 1)");
  flags.AddInt("tasks-per-node", &sbatch.tasks_per_node, "N",
               "--emit sbatch only: srun tasks per node (default: all tasks spread evenly)");
  flags.AddInt("gpus-per-node", &sbatch.gpus_per_node, "N", "--emit sbatch only: GPUs per node");
  flags.AddString("time", &sbatch.time, "T", "--emit sbatch only: time limit (e.g. 04:00:00)");
  flags.AddString("partition", &sbatch.partition, "P", "--emit sbatch only: partition");
  if (int code = ParseOrExit(flags, flag_args, kName, out, err); code >= 0) return code;

  auto strategy = hl::ParseStrategy(strategy_name);
  if (!strategy.ok()) return ReportUsage(err, kName, strategy.status().message());
  auto grace_s = ParseSeconds(grace, "--grace");
  if (!grace_s.ok()) return ReportUsage(err, kName, grace_s.status().message());
  auto rdv_s = ParseSeconds(rendezvous_timeout, "--rendezvous-timeout");
  if (!rdv_s.ok()) return ReportUsage(err, kName, rdv_s.status().message());
  if (max_restarts < 0 || max_restarts > 1000) return ReportUsage(err, kName, "--max-restarts must be in 0..1000");
  if (gpus_per_task < 0 || gpus_per_task > 64) return ReportUsage(err, kName, "--gpus-per-task must be in 0..64");
  if (command.empty()) return ReportUsage(err, kName, "no command: put it after --, e.g. tfhost launch -- python3 train.py");

  std::vector<hl::EnvVar> user_env;
  for (const std::string& e : env_flags) {
    auto v = hl::ParseEnvAssignment(e);
    if (!v.ok()) return ReportUsage(err, kName, v.status().message());
    user_env.push_back(*v);
  }
  hl::TuningOptions tuning;
  tuning.tune = !no_tune;
  tuning.xla = xla;
  tuning.mixed_precision = mixed_precision;
  tuning.gpu_requested = tune_gpu;
  if (no_tune && tune_gpu) return ReportUsage(err, kName, "--no-tune and --tune-gpu contradict each other: give one");

  if (!emit.empty()) {
    hl::ClusterShape shape;
    shape.strategy = *strategy;
    shape.ps = ps >= 0 ? ps : (*strategy == hl::Strategy::kParameterServer ? 1 : 0);
    shape.workers = workers >= 0 ? workers : (*strategy == hl::Strategy::kMirrored ? 1 : 2);
    shape.evaluator = evaluator;
    if (Status st = hl::ValidateShape(shape); !st.ok()) return ReportUsage(err, kName, st.message());
    StatusOr<std::string> text = Status(StatusCode::kInvalidArgument, "");
    if (emit == "sbatch") {
      const int nodes = sbatch.nodes == kNotGiven ? 1 : sbatch.nodes;
      const int tasks_per_node = sbatch.tasks_per_node == kNotGiven ? 0 : sbatch.tasks_per_node;
      auto per_node = hl::SbatchTasksPerNode(shape, workers >= 0, nodes, tasks_per_node);
      if (!per_node.ok()) return ReportUsage(err, kName, per_node.status().message());
      hl::SbatchOptions o;
      o.job_name = job_name;
      o.nodes = nodes;
      o.tasks_per_node = *per_node;
      o.gpus_per_node = sbatch.gpus_per_node == kNotGiven ? 0 : sbatch.gpus_per_node;
      o.time = sbatch.time;
      o.partition = sbatch.partition;
      o.parameter_server = *strategy == hl::Strategy::kParameterServer;
      std::vector<std::string>& a = o.launch_arguments;
      a = {"--strategy", hl::StrategyName(*strategy), "--workers", std::to_string(shape.workers)};
      if (shape.strategy == hl::Strategy::kParameterServer) a.insert(a.end(), {"--ps", std::to_string(shape.ps)});
      if (evaluator) a.push_back("--evaluator");
      if (port > 0) a.insert(a.end(), {"--port", std::to_string(port)});
      if (xla) a.push_back("--xla");
      if (mixed_precision) a.push_back("--mixed-precision");
      if (no_tune) a.push_back("--no-tune");
      if (tune_gpu) a.push_back("--tune-gpu");
      for (const std::string& e : env_flags) a.insert(a.end(), {"--env", e});
      if (gpus_per_task > 0) a.insert(a.end(), {"--gpus-per-task", std::to_string(gpus_per_task)});
      a.insert(a.end(), {"--grace", grace});
      if (max_restarts > 0) a.insert(a.end(), {"--max-restarts", std::to_string(max_restarts)});
      if (!log_dir.empty()) a.insert(a.end(), {"--log-dir", log_dir});
      if (slurm_address != "nodename") a.insert(a.end(), {"--slurm-address", slurm_address});
      a.push_back("--");
      a.insert(a.end(), command.begin(), command.end());
      text = hl::EmitSbatch(o);
    } else if (emit == "k8s" || emit == "k8s-indexed") {
      std::string misuse = SbatchOnlyFlagsMisused(
          sbatch, "--emit " + emit, "Kubernetes places the pods, one per task (--gpus-per-task sets each pod's GPUs)");
      if (!misuse.empty()) return ReportUsage(err, kName, misuse);
      hl::K8sOptions o;
      o.name = job_name;
      o.image = image;
      o.shape = shape;
      o.port = port > 0 ? port : 2222;
      o.gpus_per_task = gpus_per_task;
      o.max_restarts = max_restarts;
      o.command = command;
      // Pods get TensorFlow tuning and --env; NCCL's interface is the pod's
      // own (eth0 in most CNIs), not this host's, so it is not guessed. The
      // GPU variables follow the pods' GPUs (--gpus-per-task), not this host's.
      for (const hl::EnvVar& v : hl::RecommendedEnv(hl::NetworkChoice{}, tuning, gpus_per_task > 0)) o.env.push_back(v);
      for (const hl::EnvVar& v : user_env) o.env.push_back(v);
      text = emit == "k8s" ? hl::EmitTfJob(o) : hl::EmitIndexedJobs(o);
    } else {
      return ReportUsage(err, kName, "--emit must be sbatch, k8s or k8s-indexed, got '" + emit + "'");
    }
    if (!text.ok()) return ReportUsage(err, kName, text.status().message());
    if (Status st = WriteOutput(output, *text, out); !st.ok()) return ReportFailure(err, kName, st);
    return kExitOk;
  }

  std::map<std::string, std::string> env = hl::CurrentEnvironment();
  hl::LaunchOptions o;
  if (engine_name == "auto") {
    o.engine = hl::DetectEngine(env);
  } else {
    auto e = hl::ParseEngine(engine_name);
    if (!e.ok()) return ReportUsage(err, kName, e.status().message());
    o.engine = *e;
  }
  std::string misuse = SbatchOnlyFlagsMisused(
      sbatch, "--engine " + std::string(hl::EngineName(o.engine)) + (engine_name == "auto" ? " (detected)" : ""),
      WhyIgnoredBy(o.engine));
  if (!misuse.empty()) return ReportUsage(err, kName, misuse);
  o.strategy = *strategy;
  o.workers = workers;
  o.ps = ps;
  o.evaluator = evaluator;
  o.port_base = port;
  if (!hosts_expr.empty()) {
    auto hosts = hl::ExpandHostlist(hosts_expr);
    if (!hosts.ok()) return ReportUsage(err, kName, "--hosts: " + hosts.status().message());
    o.hosts = *hosts;
  }
  o.ssh_command = ssh;
  o.rendezvous_dir = rendezvous;
  o.rendezvous_timeout = *rdv_s;
  o.advertise_host = advertise;
  if (slurm_address != "nodename" && slurm_address != "nodeaddr") {
    return ReportUsage(err, kName, "--slurm-address must be nodename or nodeaddr, got '" + slurm_address + "'");
  }
  o.slurm_use_nodeaddr = slurm_address == "nodeaddr";
  o.gpus_per_task = gpus_per_task;
  o.command = command;
  o.tuning = tuning;
  o.user_env = user_env;

  auto plan = hl::PlanLaunch(o, env, hl::LiveHooks());
  if (!plan.ok()) {
    bool usage = plan.status().code() == StatusCode::kInvalidArgument;
    err << "tfhost launch (" << hl::EngineName(o.engine) << "): " << plan.status().message() << "\n";
    return usage ? kExitUsage : kExitFailure;
  }
  auto cleanup = [&] {
    if (plan->engine == hl::Engine::kMpi && plan->instance == 0) {
      hl::CleanupRendezvous(plan->rendezvous_dir, plan->instances, 10);
    }
  };
  if (dry_run) {
    out << hl::FormatPlan(*plan);
    cleanup();
    return kExitOk;
  }
  // Under slurm/mpi many launchers share one output: say which one speaks.
  std::string who = plan->instances > 1 ? "launch " + std::to_string(plan->instance) + "/" + std::to_string(plan->instances)
                                        : std::string("launch");
  for (const hl::PlannedTask& t : plan->tasks) {
    for (const std::string& w : t.env.warnings) err << "[" << who << "] " << t.id.Label() << ": " << w << "\n";
  }
  err << "[" << who << "] " << hl::EngineName(plan->engine) << " engine, " << hl::StrategyName(plan->cluster.strategy)
      << ": starting " << plan->tasks.size() << " of " << plan->cluster.tasks.size() << " tasks; cluster "
      << hl::ClusterJson(plan->cluster) << "\n";
  err.flush();
  out.flush();

  std::vector<hl::ProcessSpec> specs;
  for (const hl::PlannedTask& t : plan->tasks) {
    specs.push_back({t.id.Label(), t.argv, t.env.entries, t.completes_job});
  }
  hl::SupervisorOptions so;
  so.grace_seconds = *grace_s;
  so.max_restarts = max_restarts;
  so.log_dir = log_dir;
  so.name = who;
  hl::SuperviseResult r = hl::Supervise(specs, so);
  cleanup();
  err << "[" << who << "] " << r.summary << (r.restarts > 0 ? " after " + std::to_string(r.restarts) + " restart(s)" : "")
      << "; exit status " << r.exit_code << "\n";
  return r.exit_code;
}

}  // namespace tfhost::cli
