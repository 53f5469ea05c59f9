// TF_CONFIG, the JSON TensorFlow's distribution strategies read to learn the
// cluster and this process's task:
//   {"cluster": {"chief": ["host0:2222"], "worker": ["host1:2222", ...],
//                "ps": [...], "evaluator": [...]},
//    "task": {"type": "worker", "index": 0}}
// Parsing is strict about shape (what TensorFlow's cluster resolver accepts)
// and bounded (the value is untrusted input).
#pragma once

#include <map>
#include <string>
#include <vector>

#include "base/status.h"

namespace tfhost::host {

struct TfConfig {
  std::map<std::string, std::vector<std::string>> cluster;  // job name -> "host:port" list
  std::string task_type;
  int task_index = -1;
  bool has_task = false;
};

// JSON syntax and types; InvalidArgument names the offending field.
StatusOr<TfConfig> ParseTfConfig(const std::string& json);

// Cluster/task consistency problems, each a sentence; empty when consistent.
// (Chief count and ps-vs-strategy are separate doctor rules.)
std::vector<std::string> TfConfigProblems(const TfConfig& config);

// "host:2222" -> "host"; "[fe80::1]:2222" -> "fe80::1"; "" on a malformed address.
std::string AddressHost(const std::string& address);
// The port, or -1 when missing or outside 1..65535.
int AddressPort(const std::string& address);

}  // namespace tfhost::host
