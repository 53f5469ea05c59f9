// TensorFlow environment rules: TF_CONFIG (cluster/task consistency, chiefs,
// ps vs collective strategies, this host in the cluster), TF_XLA_FLAGS,
// TF_CPP_MIN_LOG_LEVEL, TF_FORCE_GPU_ALLOW_GROWTH and TF_GPU_ALLOCATOR.
#include <algorithm>
#include <set>

#include "host/doctor/doctor.h"
#include "host/doctor/tf_config.h"
#include "host/probe/fs_reader.h"

namespace tfhost::host {

namespace {

std::string Lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// Names this host answers to: hostname (short and full), its IPv4 addresses, loopback.
bool IsThisHost(const HostFacts& f, const std::string& host_in) {
  std::string host = Lower(host_in);
  if (host == "localhost" || host == "127.0.0.1" || host == "::1" || host == "0.0.0.0") return true;
  std::string name = Lower(f.env.hostname);
  if (!name.empty()) {
    if (host == name) return true;
    // "node1.cluster.local" vs "node1" either way round.
    auto short_of = [](const std::string& s) { return s.substr(0, s.find('.')); };
    if (short_of(host) == short_of(name) && (host.find('.') != std::string::npos || name.find('.') != std::string::npos)) {
      return true;
    }
  }
  for (const NetInterface& n : f.net) {
    for (const std::string& ip : n.ipv4) if (ip == host) return true;
  }
  return false;
}

// Flags TensorFlow's XLA JIT parses from TF_XLA_FLAGS
// (tensorflow/compiler/jit/flags.cc); anything else makes TensorFlow abort
// with "Unknown flags in TF_XLA_FLAGS".
const std::set<std::string>& KnownXlaFlags() {
  static const std::set<std::string> flags = {
      "tf_xla_auto_jit", "tf_xla_min_cluster_size", "tf_xla_max_cluster_size", "tf_xla_cluster_exclude_ops",
      "tf_xla_clustering_debug", "tf_xla_cpu_global_jit", "tf_xla_clustering_fuel",
      "tf_xla_disable_deadness_safety_checks_for_debugging",
      "tf_xla_disable_resource_variable_safety_checks_for_debugging", "tf_xla_deterministic_cluster_names",
      "tf_xla_persistent_cache_directory", "tf_xla_persistent_cache_device_types",
      "tf_xla_persistent_cache_read_only", "tf_xla_persistent_cache_prefix", "tf_xla_disable_strict_signature_checks",
      "tf_xla_enable_lazy_compilation", "tf_xla_compile_on_demand", "tf_xla_always_defer_compilation",
      "tf_xla_async_compilation", "tf_xla_enable_xla_devices", "tf_xla_check_cluster_input_numerics",
      "tf_xla_check_cluster_output_numerics", "tf_xla_disable_constant_folding", "tf_xla_disable_full_embedding_pipelining",
      "tf_xla_embedding_parallel_iterations", "tf_mlir_enable_mlir_bridge", "tf_mlir_enable_merge_control_flow_pass",
      "tf_mlir_enable_convert_control_to_data_outputs_pass", "tf_mlir_enable_strict_clusters",
      "tf_mlir_enable_multiple_local_cpu_devices", "tf_mlir_enable_tpu_variable_runtime_reformatting_pass",
      "tf_dump_graphs_in_tfg", "tf_mlir_enable_generic_outside_compilation", "tf_mlir_enable_composite_tpuexecute_side_effects",
      "tf_xla_use_device_api", "tf_xla_enable_device_api_for_gpu", "tf_xla_use_device_api_for_xla_launch",
      "tf_xla_use_device_api_for_compile_on_demand", "tf_xla_use_device_api_for_auto_jit",
      "tf_xla_sparse_core_disable_table_stacking", "tf_xla_sparse_core_minibatch_max_division_level",
      "tf_xla_sparse_core_stacking_mem_limit_bytes", "tf_xla_sparse_core_stacking_table_shard_limit_bytes"};
  return flags;
}

void CheckXlaFlags(const DoctorInput& in, std::vector<Finding>* out) {
  const std::string* v = EnvValue(in, "TF_XLA_FLAGS");
  if (v == nullptr) return;
  std::vector<std::string> unknown, xla_level, bad_values;
  for (const std::string& tok : SplitNonEmpty(*v, " \t\n")) {
    std::string name = tok;
    while (!name.empty() && name[0] == '-') name.erase(0, 1);
    std::string value;
    size_t eq = name.find('=');
    if (eq != std::string::npos) {
      value = name.substr(eq + 1);
      name = name.substr(0, eq);
    }
    if (name.empty()) continue;
    if (!KnownXlaFlags().count(name)) {
      (name.rfind("xla_", 0) == 0 ? xla_level : unknown).push_back(tok);
      continue;
    }
    if (name == "tf_xla_auto_jit" && !value.empty()) {
      static const std::set<std::string> kAutoJit = {"-1", "0", "1", "2", "fusible"};
      bool single_gpu = value.rfind("single-gpu(", 0) == 0 && value.back() == ')';
      if (!kAutoJit.count(value) && !single_gpu) bad_values.push_back(tok);
    }
  }
  if (unknown.empty() && xla_level.empty() && bad_values.empty()) return;
  std::string evidence = "TF_XLA_FLAGS=\"" + *v + "\":";
  auto join = [](const std::vector<std::string>& l) {
    std::string s;
    for (const std::string& x : l) s += (s.empty() ? "" : " ") + x;
    return s;
  };
  if (!unknown.empty()) evidence += " unknown " + join(unknown) + ";";
  if (!xla_level.empty()) evidence += " compiler flags " + join(xla_level) + " belong in XLA_FLAGS;";
  if (!bad_values.empty()) evidence += " bad value " + join(bad_values) + " (tf_xla_auto_jit takes -1, 0, 1, 2, fusible or single-gpu(N));";
  evidence.pop_back();
  out->push_back({"tf_xla_flags_unknown", Severity::kError, "TF_XLA_FLAGS holds flags TensorFlow does not know",
                  evidence,
                  "TensorFlow parses TF_XLA_FLAGS when its JIT initialises and aborts the process on an unknown "
                  "flag, so the job dies at startup with 'Unknown flags in TF_XLA_FLAGS'.",
                  "Keep only tf_xla_*/tf_mlir_* flags in TF_XLA_FLAGS (e.g. TF_XLA_FLAGS=--tf_xla_auto_jit=2); move "
                  "--xla_* compiler flags to XLA_FLAGS; delete misspelled ones."});
}

void CheckTfConfigRules(const DoctorInput& in, std::vector<Finding>* out) {
  const std::string* raw = EnvValue(in, "TF_CONFIG");
  if (raw == nullptr || Trim(*raw).empty()) return;
  const std::string shown = raw->size() > 300 ? raw->substr(0, 300) + "..." : *raw;
  StatusOr<TfConfig> parsed = ParseTfConfig(*raw);
  if (!parsed.ok()) {
    out->push_back({"tf_config_invalid_json", Severity::kError, "TF_CONFIG cannot be parsed",
                    parsed.status().message() + "; TF_CONFIG=" + shown,
                    "Every distribution strategy reads TF_CONFIG at startup; a malformed value makes TensorFlow raise "
                    "in the cluster resolver, so no worker starts.",
                    "Write it as JSON with double quotes, e.g. TF_CONFIG='{\"cluster\": {\"worker\": [\"host1:2222\", "
                    "\"host2:2222\"]}, \"task\": {\"type\": \"worker\", \"index\": 0}}' (json.dumps in Python)."});
    return;
  }
  const TfConfig& c = *parsed;
  std::vector<std::string> problems = TfConfigProblems(c);
  if (!problems.empty()) {
    std::string ev;
    for (const std::string& p : problems) ev += (ev.empty() ? "" : "; ") + p;
    out->push_back({"tf_config_inconsistent", Severity::kError, "TF_CONFIG's cluster and task do not agree", ev,
                    "Each process finds its own address as cluster[task.type][task.index]; when that entry does not "
                    "exist or addresses collide, workers wait for peers that never come or bind the wrong port.",
                    "Make task.type one of the cluster's jobs and task.index < the length of that job's list; give "
                    "every task a distinct \"host:port\"; generate TF_CONFIG per process from one cluster spec (e.g. "
                    "with `tfhost launch`)."});
  }
  size_t chiefs = 0;
  for (const char* job : {"chief", "master"}) {
    auto it = c.cluster.find(job);
    if (it != c.cluster.end()) chiefs += it->second.size();
  }
  if (chiefs > 1) {
    out->push_back({"tf_config_multiple_chiefs", Severity::kError, "TF_CONFIG names more than one chief",
                    std::to_string(chiefs) + " entries under cluster.chief/master",
                    "Exactly one chief writes checkpoints and summaries and coordinates; TensorFlow's cluster resolver "
                    "rejects a chief job with more than one task.",
                    "Keep one address under \"chief\" and move the others to \"worker\"."});
  }
  auto ps = c.cluster.find("ps");
  if (ps != c.cluster.end() && !ps->second.empty()) {
    bool collective = in.strategy == "multi_worker_mirrored" || in.strategy == "mirrored" ||
                      in.strategy == "collective";
    bool no_chief = c.cluster.find("chief") == c.cluster.end();
    if (collective || (in.strategy.empty() && no_chief)) {
      out->push_back(
          {"tf_config_ps_with_collective", collective ? Severity::kError : Severity::kWarning,
           collective ? "parameter servers in a cluster for a collective (all-reduce) strategy"
                      : "parameter servers without a chief",
           std::to_string(ps->second.size()) + " ps task(s)" +
               (collective ? ", strategy " + in.strategy : std::string(", no chief job")),
           "MultiWorkerMirroredStrategy all-reduces among chief and workers and refuses clusters with ps jobs; "
           "ParameterServerStrategy needs a chief as its coordinator. A ps job without a chief fits neither.",
           collective ? "Remove \"ps\" from the cluster (MultiWorkerMirroredStrategy uses only chief and worker)."
                      : "For ParameterServerStrategy add a \"chief\" (coordinator); for MultiWorkerMirroredStrategy "
                        "remove \"ps\". Pass --strategy to say which one you use."});
    }
  }
  if (c.has_task && !c.task_type.empty() && c.task_index >= 0) {
    auto it = c.cluster.find(c.task_type);
    if (it != c.cluster.end() && c.task_index < static_cast<int>(it->second.size())) {
      const std::string& addr = it->second[static_cast<size_t>(c.task_index)];
      std::string host = AddressHost(addr);
      if (!host.empty() && !IsThisHost(in.facts, host)) {
        std::string names = in.facts.env.hostname;
        for (const NetInterface& n : in.facts.net) {
          for (const std::string& ip : n.ipv4) if (!n.is_loopback) names += ", " + ip;
        }
        out->push_back(
            {"tf_config_host_not_in_cluster", Severity::kError, "this host is not the task TF_CONFIG says it is",
             "task " + c.task_type + "[" + std::to_string(c.task_index) + "] is " + addr + ", but this host is " + names,
             "The process binds its server at its own cluster address; if that names another machine it fails to "
             "bind, or two processes claim the same task and the cluster hangs at startup.",
             "Set task.index (or the cluster entry) so cluster." + c.task_type + "[" + std::to_string(c.task_index) +
                 "] is this host's name or address."});
      }
    }
  }
}

}  // namespace

void CheckTfConfig(const DoctorInput& in, std::vector<Finding>* out) { CheckTfConfigRules(in, out); }

void CheckTfEnv(const DoctorInput& in, std::vector<Finding>* out) {
  CheckXlaFlags(in, out);
  if (const std::string* v = EnvValue(in, "TF_CPP_MIN_LOG_LEVEL"); v != nullptr && Trim(*v) == "3") {
    out->push_back({"tf_cpp_min_log_level_hides_errors", Severity::kWarning,
                    "TF_CPP_MIN_LOG_LEVEL=3 hides TensorFlow's error messages", "TF_CPP_MIN_LOG_LEVEL=3",
                    "Level 3 suppresses ERROR logs too, including 'Could not load dynamic library libcudnn...' and "
                    "'Cannot dlopen some GPU libraries': TensorFlow then silently falls back to the CPU and nobody "
                    "sees why.",
                    "Use TF_CPP_MIN_LOG_LEVEL=2 to hide INFO and WARNING but keep errors (or unset it)."});
  }
  if (const std::string* v = EnvValue(in, "TF_FORCE_GPU_ALLOW_GROWTH"); v != nullptr) {
    std::string val = Lower(Trim(*v));
    if (val != "true" && val != "false") {
      out->push_back({"tf_force_gpu_allow_growth_invalid", Severity::kError,
                      "TF_FORCE_GPU_ALLOW_GROWTH has a value TensorFlow ignores",
                      "TF_FORCE_GPU_ALLOW_GROWTH=\"" + *v + "\"",
                      "TensorFlow accepts only 'true' or 'false'; anything else (1, yes) logs an error and is ignored, "
                      "so the process still grabs nearly all GPU memory at startup.",
                      "Set TF_FORCE_GPU_ALLOW_GROWTH=true (or false)."});
    }
  }
  if (const std::string* v = EnvValue(in, "TF_GPU_ALLOCATOR"); v != nullptr && !Trim(*v).empty()) {
    // TensorFlow knows cuda_malloc_async (the production alternative to its
    // BFC allocator) and two debugging allocators, cuda_malloc and memory_guard.
    std::string val = Trim(*v);
    const int driver = in.facts.nvidia.cuda_driver_version;
    bool old_driver = val == "cuda_malloc_async" && driver > 0 && driver < 11020;
    bool debug = val == "cuda_malloc" || val == "memory_guard";
    if (old_driver) {
      out->push_back({"tf_gpu_allocator_invalid", Severity::kError,
                      "TF_GPU_ALLOCATOR=cuda_malloc_async needs a newer driver",
                      "TF_GPU_ALLOCATOR=cuda_malloc_async with a driver for CUDA " + CudaVersionString(driver),
                      "cudaMallocAsync needs a CUDA 11.2+ driver; TensorFlow fails to create the GPU device.",
                      "Upgrade the NVIDIA driver (>= 460.27.03) or unset TF_GPU_ALLOCATOR."});
    } else if (debug) {
      out->push_back({"tf_gpu_allocator_invalid", Severity::kWarning,
                      "TF_GPU_ALLOCATOR selects a debugging allocator", "TF_GPU_ALLOCATOR=" + val,
                      "cuda_malloc and memory_guard call cudaMalloc/cudaFree for every tensor (memory_guard also "
                      "adds guard bands): made for finding memory bugs, they make training and serving much slower.",
                      "Unset TF_GPU_ALLOCATOR (BFC allocator) or use TF_GPU_ALLOCATOR=cuda_malloc_async."});
    } else if (val != "cuda_malloc_async") {
      out->push_back({"tf_gpu_allocator_invalid", Severity::kError, "TF_GPU_ALLOCATOR has an unknown value",
                      "TF_GPU_ALLOCATOR=\"" + val + "\"",
                      "TensorFlow only recognises cuda_malloc_async (and the debugging cuda_malloc, memory_guard); "
                      "another value is ignored, so whatever it was meant to change does not happen.",
                      "Set TF_GPU_ALLOCATOR=cuda_malloc_async, or unset it for the default BFC allocator."});
    }
  }
}

}  // namespace tfhost::host
