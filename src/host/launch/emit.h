// Files that hand a job to an engine instead of running it here:
//   sbatch       a Slurm batch script whose single `srun tfhost launch --engine
//                slurm ...` line starts one launcher per task slot; each builds
//                the cluster from SLURM_* variables (launch_plan.h).
//   k8s          a Kubeflow TFJob (kubeflow.org/v1); the training operator
//                sets TF_CONFIG itself.
//   k8s-indexed  for clusters without the operator: one Indexed Job per task
//                type plus a headless Service. Pod i of Job NAME-worker is
//                reachable as NAME-worker-i.NAME (the Service is the pods'
//                subdomain), so the cluster is known when the file is written;
//                a three-line sh entrypoint adds the task index from
//                JOB_COMPLETION_INDEX and execs the user's command.
// YAML scalars are written as double-quoted JSON strings, which YAML reads
// verbatim, so no value can break the document.
#pragma once

#include <string>
#include <vector>

#include "base/status.h"
#include "host/launch/cluster_spec.h"
#include "host/launch/launch_env.h"

namespace tfhost::host::launch {

struct SbatchOptions {
  std::string job_name = "tfhost-train";
  int nodes = 1;
  int tasks_per_node = 1;
  int gpus_per_node = 0;
  std::string time;       // --time, empty: the partition's default
  std::string partition;  // empty: the default partition
  bool parameter_server = false;              // ps never exit: srun --wait ends the step after the chief
  std::vector<std::string> launch_arguments;  // after `tfhost launch --engine slurm`, up to and including the command
};
StatusOr<std::string> EmitSbatch(const SbatchOptions& options);

// The srun tasks per node of an sbatch script for `shape` on `nodes` nodes:
// `tasks_per_node` when the user gave it (> 0), else ceil(tasks / nodes).
// Every srun task (launcher) runs an equal share of the cluster, so the tasks
// must divide evenly over nodes x tasks per node. The error says which
// numbers came from the user and which were derived, and names the nearest
// --workers, --nodes (and, when given, --tasks-per-node) that fit.
// `workers_given`: false when shape.workers is launch's default, which the
// message then says.
StatusOr<int> SbatchTasksPerNode(const ClusterShape& shape, bool workers_given, int nodes, int tasks_per_node);

struct K8sOptions {
  std::string name = "tfhost-train";  // a DNS-1035 label
  std::string image;
  ClusterShape shape;
  int port = 2222;
  int gpus_per_task = 0;       // nvidia.com/gpu limit for chief/worker/evaluator pods
  int max_restarts = 0;        // backoffLimit
  std::vector<std::string> command;
  std::vector<EnvVar> env;     // tuning and --env; TF_CONFIG is never in here
};
StatusOr<std::string> EmitTfJob(const K8sOptions& options);
StatusOr<std::string> EmitIndexedJobs(const K8sOptions& options);

// A YAML double-quoted scalar (JSON string escapes).
std::string YamlQuote(const std::string& s);

}  // namespace tfhost::host::launch
