#include "host/doctor/tf_config.h"

#include <rapidjson/document.h>

#include <cctype>
#include <set>

namespace tfhost::host {

namespace {

constexpr size_t kMaxTasksPerJob = 100000;

}  // namespace

std::string AddressHost(const std::string& a) {
  if (!a.empty() && a[0] == '[') {
    size_t close = a.find(']');
    return close == std::string::npos ? "" : a.substr(1, close - 1);
  }
  size_t colon = a.rfind(':');
  if (colon == std::string::npos || colon == 0) return "";
  if (a.find(':') != colon) return "";  // bare IPv6 without brackets is ambiguous
  return a.substr(0, colon);
}

int AddressPort(const std::string& a) {
  size_t colon = a.rfind(':');
  if (colon == std::string::npos || colon + 1 >= a.size() || colon + 6 < a.size()) return -1;
  for (size_t i = colon + 1; i < a.size(); ++i) {
    if (!std::isdigit(static_cast<unsigned char>(a[i]))) return -1;
  }
  int port = std::atoi(a.c_str() + colon + 1);
  return port >= 1 && port <= 65535 ? port : -1;
}

StatusOr<TfConfig> ParseTfConfig(const std::string& json) {
  rapidjson::Document doc;
  doc.Parse(json.c_str(), json.size());
  if (doc.HasParseError()) {
    return InvalidArgument("TF_CONFIG is not valid JSON (parse error at offset " +
                           std::to_string(doc.GetErrorOffset()) + ")");
  }
  if (!doc.IsObject()) return InvalidArgument("TF_CONFIG must be a JSON object");
  TfConfig c;
  if (doc.HasMember("cluster")) {
    const auto& cluster = doc["cluster"];
    if (!cluster.IsObject()) return InvalidArgument("TF_CONFIG.cluster must be an object of job name -> address list");
    for (auto it = cluster.MemberBegin(); it != cluster.MemberEnd(); ++it) {
      std::string job = it->name.GetString();
      if (!it->value.IsArray()) {
        // TensorFlow also accepts {index: address} maps for sparse jobs.
        if (it->value.IsObject()) {
          std::vector<std::string>& list = c.cluster[job];
          for (auto m = it->value.MemberBegin(); m != it->value.MemberEnd() && list.size() < kMaxTasksPerJob; ++m) {
            if (!m->value.IsString()) return InvalidArgument("TF_CONFIG.cluster." + job + " entries must be strings");
            list.push_back(m->value.GetString());
          }
          continue;
        }
        return InvalidArgument("TF_CONFIG.cluster." + job + " must be a list of \"host:port\" strings");
      }
      std::vector<std::string>& list = c.cluster[job];
      for (const auto& v : it->value.GetArray()) {
        if (!v.IsString()) return InvalidArgument("TF_CONFIG.cluster." + job + " entries must be strings");
        if (list.size() >= kMaxTasksPerJob) return InvalidArgument("TF_CONFIG.cluster." + job + " is too long");
        list.push_back(v.GetString());
      }
    }
  }
  if (doc.HasMember("task")) {
    const auto& task = doc["task"];
    if (!task.IsObject()) return InvalidArgument("TF_CONFIG.task must be an object {\"type\", \"index\"}");
    c.has_task = true;
    if (task.HasMember("type")) {
      if (!task["type"].IsString()) return InvalidArgument("TF_CONFIG.task.type must be a string");
      c.task_type = task["type"].GetString();
    }
    if (task.HasMember("index")) {
      if (!task["index"].IsInt()) return InvalidArgument("TF_CONFIG.task.index must be an integer");
      c.task_index = task["index"].GetInt();
    }
  }
  return c;
}

std::vector<std::string> TfConfigProblems(const TfConfig& c) {
  std::vector<std::string> p;
  if (c.cluster.empty()) p.push_back("TF_CONFIG has no \"cluster\" (or it is empty)");
  static const std::set<std::string> kKnownJobs = {"chief", "worker", "ps", "evaluator", "master"};
  for (const auto& [job, list] : c.cluster) {
    if (!kKnownJobs.count(job)) {
      p.push_back("cluster job \"" + job + "\" is not one TensorFlow's strategies know (chief, worker, ps, evaluator)");
    }
    if (list.empty()) p.push_back("cluster." + job + " is empty");
  }
  if (!c.has_task) {
    p.push_back("TF_CONFIG has no \"task\": this process does not know which cluster member it is");
  } else {
    if (c.task_type.empty()) p.push_back("task.type is missing");
    if (c.task_index < 0) p.push_back("task.index is missing or negative");
    // The evaluator runs beside the cluster; it need not be listed in it.
    if (!c.task_type.empty() && c.task_type != "evaluator") {
      auto it = c.cluster.find(c.task_type);
      if (it == c.cluster.end()) {
        p.push_back("task.type \"" + c.task_type + "\" is not a job in cluster");
      } else if (c.task_index >= static_cast<int>(it->second.size())) {
        p.push_back("task.index " + std::to_string(c.task_index) + " is out of range: cluster." + c.task_type +
                    " has " + std::to_string(it->second.size()) + " task(s)");
      }
    }
  }
  std::map<std::string, std::string> seen;  // address -> "job[i]"
  for (const auto& [job, list] : c.cluster) {
    for (size_t i = 0; i < list.size(); ++i) {
      const std::string& a = list[i];
      std::string where = job + "[" + std::to_string(i) + "]";
      if (AddressHost(a).empty() || AddressPort(a) < 0) {
        p.push_back("cluster." + where + " = \"" + a + "\" is not \"host:port\"");
        continue;
      }
      auto [it, inserted] = seen.emplace(a, where);
      if (!inserted) p.push_back("cluster." + where + " and cluster." + it->second + " share the address " + a);
    }
  }
  return p;
}

}  // namespace tfhost::host
