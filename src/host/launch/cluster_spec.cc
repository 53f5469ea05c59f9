#include "host/launch/cluster_spec.h"

#include <map>
#include <set>

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

namespace tfhost::host::launch {

StatusOr<Strategy> ParseStrategy(const std::string& name) {
  if (name == "mirrored") return Strategy::kMirrored;
  if (name == "multiworker" || name == "mwms" || name == "multi_worker_mirrored") return Strategy::kMultiWorker;
  if (name == "ps" || name == "parameter_server") return Strategy::kParameterServer;
  return InvalidArgument("unknown strategy '" + name + "': expected multiworker, ps or mirrored");
}

const char* StrategyName(Strategy s) {
  switch (s) {
    case Strategy::kMirrored: return "mirrored";
    case Strategy::kMultiWorker: return "multiworker";
    case Strategy::kParameterServer: return "ps";
  }
  return "?";
}

Status ValidateShape(const ClusterShape& shape) {
  if (shape.workers < 0 || shape.ps < 0) return InvalidArgument("task counts cannot be negative");
  switch (shape.strategy) {
    case Strategy::kMirrored:
      if (shape.workers != 1 || shape.ps != 0 || shape.evaluator) {
        return InvalidArgument(
            "mirrored strategy runs one process on one host (it uses every local GPU itself): "
            "--workers must be 1, no --ps, no --evaluator; use --strategy multiworker for several processes");
      }
      break;
    case Strategy::kMultiWorker:
      if (shape.workers < 1) return InvalidArgument("multiworker strategy needs --workers >= 1");
      if (shape.ps != 0) {
        return InvalidArgument(
            "MultiWorkerMirroredStrategy has no parameter servers: drop --ps or use --strategy ps");
      }
      break;
    case Strategy::kParameterServer:
      if (shape.workers < 1) return InvalidArgument("ps strategy needs --workers >= 1");
      if (shape.ps < 1) return InvalidArgument("ps strategy needs --ps >= 1 parameter servers");
      break;
  }
  int total = TaskList(shape).size();
  if (shape.workers > kMaxTasks || shape.ps > kMaxTasks || total > kMaxTasks) {
    return InvalidArgument("at most " + std::to_string(kMaxTasks) + " tasks per job");
  }
  return OkStatus();
}

std::vector<TaskId> TaskList(const ClusterShape& shape) {
  std::vector<TaskId> out;
  int workers = shape.workers > kMaxTasks ? kMaxTasks : shape.workers;
  int ps = shape.ps > kMaxTasks ? kMaxTasks : shape.ps;
  switch (shape.strategy) {
    case Strategy::kMirrored:
      out.push_back({"worker", 0});
      return out;
    case Strategy::kParameterServer:
      out.push_back({"chief", 0});
      break;
    case Strategy::kMultiWorker:
      break;
  }
  for (int i = 0; i < workers; ++i) out.push_back({"worker", i});
  if (shape.strategy == Strategy::kParameterServer) {
    for (int i = 0; i < ps; ++i) out.push_back({"ps", i});
  }
  if (shape.evaluator) out.push_back({"evaluator", 0});
  return out;
}

std::string TaskAddress::Address() const {
  bool v6 = host.find(':') != std::string::npos;
  return (v6 ? "[" + host + "]" : host) + ":" + std::to_string(port);
}

const TaskAddress* ClusterSpec::Find(const TaskId& id) const {
  for (const TaskAddress& t : tasks) {
    if (t.task == id) return &t;
  }
  return nullptr;
}

StatusOr<ClusterSpec> BuildClusterSpec(const ClusterShape& shape, const std::vector<std::string>& hosts,
                                       const std::vector<int>& ports) {
  TFHOST_RETURN_IF_ERROR(ValidateShape(shape));
  std::vector<TaskId> ids = TaskList(shape);
  if (hosts.size() != ids.size() || ports.size() != ids.size()) {
    return InvalidArgument("cluster of " + std::to_string(ids.size()) + " tasks got " +
                           std::to_string(hosts.size()) + " hosts and " + std::to_string(ports.size()) + " ports");
  }
  ClusterSpec spec;
  spec.strategy = shape.strategy;
  std::set<std::pair<std::string, int>> used;
  for (size_t i = 0; i < ids.size(); ++i) {
    if (hosts[i].empty()) return InvalidArgument("task " + ids[i].Label() + " has no host");
    if (ports[i] < 1 || ports[i] > 65535) {
      return InvalidArgument("task " + ids[i].Label() + " has port " + std::to_string(ports[i]) +
                             ", expected 1..65535");
    }
    if (!used.insert({hosts[i], ports[i]}).second) {
      return InvalidArgument("task " + ids[i].Label() + " would share " + hosts[i] + ":" + std::to_string(ports[i]) +
                             " with another task");
    }
    spec.tasks.push_back({ids[i], hosts[i], ports[i]});
  }
  return spec;
}

namespace {

void WriteCluster(const ClusterSpec& spec, rapidjson::Writer<rapidjson::StringBuffer>* w) {
  w->StartObject();
  // TensorFlow does not care about key order; chief, worker, ps reads best.
  for (const char* type : {"chief", "worker", "ps"}) {
    bool any = false;
    for (const TaskAddress& t : spec.tasks) {
      if (t.task.type != type) continue;
      if (!any) {
        w->Key(type);
        w->StartArray();
        any = true;
      }
      std::string a = t.Address();
      w->String(a.c_str(), a.size());
    }
    if (any) w->EndArray();
  }
  w->EndObject();
}

}  // namespace

std::string ClusterJson(const ClusterSpec& spec) {
  rapidjson::StringBuffer buf;
  rapidjson::Writer<rapidjson::StringBuffer> w(buf);
  WriteCluster(spec, &w);
  return buf.GetString();
}

StatusOr<std::string> TfConfigJson(const ClusterSpec& spec, const TaskId& task) {
  if (spec.Find(task) == nullptr) return NotFound("task " + task.Label() + " is not part of the cluster");
  if (spec.strategy == Strategy::kMirrored) return std::string();
  rapidjson::StringBuffer buf;
  rapidjson::Writer<rapidjson::StringBuffer> w(buf);
  w.StartObject();
  w.Key("cluster");
  WriteCluster(spec, &w);
  w.Key("task");
  w.StartObject();
  w.Key("type");
  w.String(task.type.c_str(), task.type.size());
  w.Key("index");
  w.Int(task.index);
  w.EndObject();
  w.EndObject();
  return std::string(buf.GetString());
}

}  // namespace tfhost::host::launch
