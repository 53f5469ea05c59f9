// `tfhost doctor [--json] [--for train|serve]`: probes the host, reads the
// environment (TF_CONFIG, TF_*, NCCL_*), runs the doctor's rules and prints
// each finding with its evidence, why it matters and the fix. Exit status:
// 0 nothing to fix, 1 warnings, 2 errors (bad command lines also exit 2).
#include <cstdlib>
#include <fstream>
#include <map>

#include "cli/cli.h"
#include "cli/command_util.h"
#include "host/doctor/doctor.h"
#include "host/probe/probe.h"

extern char** environ;

namespace tfhost::cli {

namespace {

std::map<std::string, std::string> ProcessEnvironment() {
  std::map<std::string, std::string> env;
  for (char** e = environ; e != nullptr && *e != nullptr; ++e) {
    std::string kv = *e;
    size_t eq = kv.find('=');
    if (eq != std::string::npos) env[kv.substr(0, eq)] = kv.substr(eq + 1);
  }
  return env;
}

// KEY=VALUE lines (a job's environment); '#' comments, optional "export ",
// optional matching quotes around the value.
StatusOr<std::map<std::string, std::string>> ReadEnvFile(const std::string& path) {
  std::ifstream in(path);
  if (!in) return NotFound("cannot open --env-file " + path);
  std::map<std::string, std::string> env;
  std::string line;
  int n = 0;
  while (std::getline(in, line)) {
    ++n;
    std::string t = host::Trim(line);
    if (t.empty() || t[0] == '#') continue;
    if (t.rfind("export ", 0) == 0) t = host::Trim(t.substr(7));
    size_t eq = t.find('=');
    if (eq == std::string::npos || eq == 0) {
      return InvalidArgument(path + ":" + std::to_string(n) + ": expected KEY=VALUE");
    }
    std::string value = t.substr(eq + 1);
    if (value.size() >= 2 && (value.front() == '\'' || value.front() == '"') && value.back() == value.front()) {
      value = value.substr(1, value.size() - 2);
    }
    env[t.substr(0, eq)] = value;
  }
  return env;
}

}  // namespace

int DoctorCommand(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  bool json = false;
  std::string purpose = "train", data, strategy, tf_version, env_file, matrix_file;
  host::ProbeOptions options;
  FlagParser flags("tfhost doctor [flags]",
                   "Checks this host and the environment (TF_CONFIG, TF_*, NCCL_*) against what makes TensorFlow "
                   "fast and correct. Each finding gives evidence, why it matters and the fix. Exit status: 0 ok, "
                   "1 warnings, 2 errors.");
  flags.AddBool("json", &json, "print JSON instead of text");
  flags.AddString("for", &purpose, "train|serve", "what the host is for (default train)");
  flags.AddString("data", &data, "PATH", "the training data; checks whether it is on a network filesystem");
  flags.AddString("strategy", &strategy, "NAME",
                  "distribution strategy in use: multi_worker_mirrored, parameter_server or mirrored");
  flags.AddString("tf-version", &tf_version, "X.Y",
                  "TensorFlow version to check CUDA/cuDNN against (default: the pip-installed one, if any)");
  flags.AddString("env-file", &env_file, "FILE", "check KEY=VALUE lines from FILE instead of this environment");
  flags.AddString("build-matrix", &matrix_file, "FILE", "TensorFlow tested-build table (JSON) instead of the built-in");
  flags.AddString("root", &options.root, "DIR", "check a snapshot folder (sys/, proc/, recordings) instead of /");
  flags.AddString("nvml-xml", &options.nvml_xml, "FILE", "use an `nvidia-smi -q -x` recording instead of NVML");
  flags.AddString("nvml-topo", &options.nvml_topo, "FILE", "with --nvml-xml: an `nvidia-smi topo -m` recording");
  if (int code = ParseOrExit(flags, args, "doctor", out, err); code >= 0) return code;
  if (purpose != "train" && purpose != "serve") {
    return ReportUsage(err, "doctor", "--for must be 'train' or 'serve', got '" + purpose + "'");
  }
  static const char* const kStrategies[] = {"", "multi_worker_mirrored", "parameter_server", "mirrored"};
  bool strategy_ok = false;
  for (const char* s : kStrategies) strategy_ok |= strategy == s;
  if (!strategy_ok) {
    return ReportUsage(err, "doctor",
                       "--strategy must be multi_worker_mirrored, parameter_server or mirrored, got '" + strategy + "'");
  }
  host::DoctorInput input;
  if (!env_file.empty()) {
    StatusOr<std::map<std::string, std::string>> env = ReadEnvFile(env_file);
    if (!env.ok()) return ReportFailure(err, "doctor", env.status());
    input.env = std::move(*env);
  } else {
    input.env = ProcessEnvironment();
  }
  if (!matrix_file.empty()) {
    std::ifstream in(matrix_file);
    if (!in) return ReportFailure(err, "doctor", NotFound("cannot open --build-matrix " + matrix_file));
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    StatusOr<std::vector<host::TfBuild>> m = host::ParseTfBuildMatrix(text);
    if (!m.ok()) return ReportFailure(err, "doctor", m.status().WithContext(matrix_file));
    input.build_matrix = std::move(*m);
  }
  if (!data.empty()) options.paths.push_back(data);
  if (options.root == "/") {
    auto ld = input.env.find("LD_LIBRARY_PATH");
    if (ld != input.env.end()) options.ld_library_path = ld->second;
  }
  input.facts = host::ProbeHost(options);
  input.purpose = purpose == "serve" ? host::Purpose::kServe : host::Purpose::kTrain;
  input.data_path = data;
  input.strategy = strategy;
  input.tensorflow_version = tf_version;
  if (tf_version.empty()) {
    std::unique_ptr<host::FsReader> fs = host::NewRootedFsReader(options.root);
    host::LibraryFacts tf = host::ProbeTensorFlow(*fs, input.env);
    if (!tf.name.empty()) {
      input.tensorflow_version = tf.version;
      input.facts.libraries.push_back(tf);
    }
  }
  std::vector<host::Finding> findings = host::RunDoctor(input);
  if (json) {
    out << host::FormatFindingsJson(findings);
  } else {
    out << "tfhost doctor: " << (input.facts.nvidia.gpus.empty() ? "no GPU" : std::to_string(input.facts.nvidia.gpus.size()) + " GPU(s)")
        << ", " << input.facts.cpu.logical_cpus << " CPUs, checking for " << purpose
        << (input.tensorflow_version.empty() ? "" : ", TensorFlow " + input.tensorflow_version) << "\n\n"
        << host::FormatFindingsText(findings);
  }
  return host::DoctorExitStatus(findings);
}

}  // namespace tfhost::cli
