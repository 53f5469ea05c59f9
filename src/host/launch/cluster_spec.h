// The cluster a distributed TensorFlow job runs as, and the TF_CONFIG each
// task gets. TensorFlow reads TF_CONFIG as JSON:
//   {"cluster": {"worker": ["host:port", ...], "chief": [...], "ps": [...]},
//    "task": {"type": "worker", "index": 0}}
// What each strategy needs:
//   mirrored     one process on one host; no TF_CONFIG at all.
//   multiworker  MultiWorkerMirroredStrategy: workers only; worker 0 acts as
//                chief (saves checkpoints, writes summaries).
//   ps           ParameterServerStrategy: one chief (the coordinator that runs
//                the training loop), N workers and M>=1 parameter servers.
// An optional evaluator (sidecar evaluation) is never listed in "cluster":
// TensorFlow expects it outside the cluster; its own TF_CONFIG names
// type "evaluator", index 0.
//
// Thread-safety: plain values and pure functions.
#pragma once

#include <string>
#include <vector>

#include "base/status.h"

namespace tfhost::host::launch {

enum class Strategy { kMirrored, kMultiWorker, kParameterServer };

// "mirrored", "multiworker" (also "mwms", "multi_worker_mirrored"), "ps"
// (also "parameter_server").
StatusOr<Strategy> ParseStrategy(const std::string& name);
const char* StrategyName(Strategy s);

struct ClusterShape {
  Strategy strategy = Strategy::kMultiWorker;
  int workers = 1;         // worker tasks (multiworker, ps); must be 1 for mirrored
  int ps = 0;              // parameter servers (ps strategy only, >= 1 there)
  bool evaluator = false;  // add a sidecar evaluator (not in the cluster spec)
};

// Checks a shape against its strategy and bounds (at most kMaxTasks tasks).
Status ValidateShape(const ClusterShape& shape);
inline constexpr int kMaxTasks = 4096;

struct TaskId {
  std::string type;  // "chief", "worker", "ps", "evaluator"
  int index = 0;
  // "worker:1", the prefix of the task's output lines.
  std::string Label() const { return type + ":" + std::to_string(index); }
  bool operator==(const TaskId& o) const { return type == o.type && index == o.index; }
};

// Every task of `shape` in launch order: chief, workers, ps, evaluator.
// Engines hand out hosts in this order, so a host runs neighbouring tasks.
std::vector<TaskId> TaskList(const ClusterShape& shape);

struct TaskAddress {
  TaskId task;
  std::string host;
  int port = 0;
  std::string Address() const;  // "host:port" ("[v6]:port" for IPv6 literals)
};

// A cluster with an address for every task (evaluator included, although it
// does not appear in the JSON "cluster" object).
struct ClusterSpec {
  Strategy strategy = Strategy::kMultiWorker;
  std::vector<TaskAddress> tasks;

  const TaskAddress* Find(const TaskId& id) const;
};

// Pairs TaskList(shape) with hosts[i] and ports[i] (one per task, in that
// order). Errors when sizes differ, a port is outside 1..65535, a host name
// is empty, or two tasks on one host share a port.
StatusOr<ClusterSpec> BuildClusterSpec(const ClusterShape& shape, const std::vector<std::string>& hosts,
                                       const std::vector<int>& ports);

// The "cluster" object: {"chief": [...], "worker": [...], "ps": [...]} with
// only the types present, evaluator excluded.
std::string ClusterJson(const ClusterSpec& spec);

// The full TF_CONFIG for `task`. Empty for mirrored (no TF_CONFIG is set).
// NotFound when `task` is not part of `spec`.
StatusOr<std::string> TfConfigJson(const ClusterSpec& spec, const TaskId& task);

}  // namespace tfhost::host::launch
