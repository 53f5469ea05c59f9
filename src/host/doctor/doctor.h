// `tfhost doctor`: checks a host (HostFacts from the probe) and the process
// environment (TF_*, NCCL_*) against what makes TensorFlow fast and correct.
// Every rule yields findings with a severity, the evidence it rests on, why
// it matters and the exact fix. Rules are pure functions of DoctorInput, so
// tests feed recorded machines and hand-made environments.
//
// Thread-safety: RunDoctor keeps no state.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "host/doctor/tf_build_matrix.h"
#include "host/probe/host_facts.h"

namespace tfhost::host {

enum class Severity { kInfo = 0, kWarning = 1, kError = 2 };
const char* SeverityName(Severity s);  // "info", "warning", "error"

enum class Purpose { kTrain, kServe };

struct Finding {
  std::string id;        // stable, snake_case: "host_ram_vs_gpu_memory"
  Severity severity = Severity::kWarning;
  std::string title;     // one line
  std::string evidence;  // the numbers / values the finding rests on
  std::string why;       // why it matters for TensorFlow
  std::string fix;       // what exactly to do
};

struct DoctorInput {
  HostFacts facts;
  std::map<std::string, std::string> env;  // the process environment (tests inject it)
  Purpose purpose = Purpose::kTrain;
  // --data PATH: its filesystem is in facts.paths (probe with options.paths).
  std::string data_path;
  // "multi_worker_mirrored", "parameter_server", "mirrored" or "" (unknown).
  std::string strategy;
  // TensorFlow version in use ("2.15.0"); "" when unknown. The CLI detects it.
  std::string tensorflow_version;
  // Tested builds; empty means the built-in table (tf_build_matrix.json).
  std::vector<TfBuild> build_matrix;
};

// Runs every rule. Findings come in rule order.
std::vector<Finding> RunDoctor(const DoctorInput& input);

// 0 when nothing worse than info, 1 with warnings, 2 with errors.
int DoctorExitStatus(const std::vector<Finding>& findings);

std::string FormatFindingsText(const std::vector<Finding>& findings);
std::string FormatFindingsJson(const std::vector<Finding>& findings);

// The ids of all rules (for docs and tests).
const std::vector<std::string>& DoctorRuleIds();

// Rule groups (doctor_*.cc); each appends to `out`.
void CheckHardware(const DoctorInput& in, std::vector<Finding>* out);
void CheckVersions(const DoctorInput& in, std::vector<Finding>* out);
void CheckTfConfig(const DoctorInput& in, std::vector<Finding>* out);
void CheckTfEnv(const DoctorInput& in, std::vector<Finding>* out);
void CheckNcclEnv(const DoctorInput& in, std::vector<Finding>* out);
void CheckOsSettings(const DoctorInput& in, std::vector<Finding>* out);

// Helpers shared by the rule files.
std::string GiB(uint64_t bytes);                 // "251.6 GiB"
std::string CudaVersionString(int v);            // 12020 -> "12.2"
const std::string* EnvValue(const DoctorInput& in, const std::string& name);  // null when unset

}  // namespace tfhost::host
