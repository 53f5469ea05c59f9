// ValidateServingManifestOptions: what the API server would refuse (names,
// quantities, replica bounds, a request above its limit) and what would make
// a pod that never serves (the probes on an unserved port, model paths
// outside the mounted claim, a queue HPA on a metric serve does not export)
// are caught here, before anything is applied, with the flag to change.
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <optional>

#include "host/k8s/serving_manifests.h"

namespace tfhost::host::k8s {

namespace {

std::string Quoted(const std::string& s) { return "'" + s + "'"; }

// DNS-1123 label (lowercase letters, digits, '-'; alphanumeric at both ends),
// and for `dns1035` also starting with a letter, as Service names must.
bool IsDnsLabel(const std::string& s, size_t max_length, bool dns1035) {
  if (s.empty() || s.size() > max_length) return false;
  for (char c : s) {
    if (!(std::islower(static_cast<unsigned char>(c)) || std::isdigit(static_cast<unsigned char>(c)) || c == '-')) {
      return false;
    }
  }
  if (s.front() == '-' || s.back() == '-') return false;
  return !dns1035 || std::islower(static_cast<unsigned char>(s.front()));
}

// DNS-1123 subdomain: dot-separated labels, 253 characters at most.
bool IsDnsSubdomain(const std::string& s) {
  if (s.empty() || s.size() > 253) return false;
  size_t start = 0;
  for (;;) {
    const size_t dot = s.find('.', start);
    if (!IsDnsLabel(s.substr(start, dot == std::string::npos ? std::string::npos : dot - start), 63, false)) {
      return false;
    }
    if (dot == std::string::npos) return true;
    start = dot + 1;
  }
}

// A Kubernetes quantity ("500m", "2", "1.5", "512Mi", "4Gi", "1e3") as a
// number of units; nullopt when the text is not one. Negative amounts are
// not accepted: no resource here can be negative.
std::optional<double> ParseQuantity(const std::string& s) {
  size_t i = 0;
  while (i < s.size() && (std::isdigit(static_cast<unsigned char>(s[i])) || s[i] == '.')) ++i;
  const std::string number = s.substr(0, i), suffix = s.substr(i);
  if (number.empty() || number == "." || number.find('.') != number.rfind('.')) return std::nullopt;
  const double value = std::strtod(number.c_str(), nullptr);
  struct Suffix {
    const char* text;
    double factor;
  };
  static const Suffix kSuffixes[] = {{"", 1},        {"n", 1e-9},    {"u", 1e-6},    {"m", 1e-3},
                                     {"k", 1e3},     {"M", 1e6},     {"G", 1e9},     {"T", 1e12},
                                     {"P", 1e15},    {"E", 1e18},    {"Ki", 0x1p10}, {"Mi", 0x1p20},
                                     {"Gi", 0x1p30}, {"Ti", 0x1p40}, {"Pi", 0x1p50}, {"Ei", 0x1p60}};
  for (const Suffix& x : kSuffixes) {
    if (suffix == x.text) return value * x.factor;
  }
  if ((suffix[0] == 'e' || suffix[0] == 'E') && suffix.size() > 1) {
    size_t j = (suffix[1] == '+' || suffix[1] == '-') ? 2 : 1;
    if (j == suffix.size()) return std::nullopt;
    for (size_t k = j; k < suffix.size(); ++k) {
      if (!std::isdigit(static_cast<unsigned char>(suffix[k]))) return std::nullopt;
    }
    return value * std::pow(10.0, std::strtod(suffix.c_str() + 1, nullptr));
  }
  return std::nullopt;
}

Status CheckQuantity(const std::string& value, const char* flag, bool optional, std::optional<double>* parsed) {
  if (optional && value.empty()) return OkStatus();
  *parsed = ParseQuantity(value);
  if (!*parsed) {
    return InvalidArgument(std::string("--") + flag + " " + Quoted(value) +
                           " is not a Kubernetes quantity (expected a number with an optional suffix, e.g. 500m, "
                           "2, 512Mi, 4Gi)");
  }
  return OkStatus();
}

Status CheckRange(int value, int lo, int hi, const char* flag) {
  if (value < lo || value > hi) {
    return InvalidArgument(std::string("--") + flag + " must be between " + std::to_string(lo) + " and " +
                           std::to_string(hi) + ", got " + std::to_string(value));
  }
  return OkStatus();
}

bool IsUnder(const std::string& path, const std::string& dir) {
  std::string d = dir;
  while (d.size() > 1 && d.back() == '/') d.pop_back();
  return path == d || path.rfind(d + "/", 0) == 0;
}

Status CheckResources(const ServingManifestOptions& o) {
  std::optional<double> cpu_request, memory_request, cpu_limit, memory_limit;
  TFHOST_RETURN_IF_ERROR(CheckQuantity(o.cpu_request, "cpu_request", false, &cpu_request));
  TFHOST_RETURN_IF_ERROR(CheckQuantity(o.memory_request, "memory_request", false, &memory_request));
  TFHOST_RETURN_IF_ERROR(CheckQuantity(o.cpu_limit, "cpu_limit", true, &cpu_limit));
  TFHOST_RETURN_IF_ERROR(CheckQuantity(o.memory_limit, "memory_limit", true, &memory_limit));
  if (cpu_limit && *cpu_limit < *cpu_request) {
    return InvalidArgument("--cpu_limit " + o.cpu_limit + " is below --cpu_request " + o.cpu_request +
                           " (Kubernetes requires request <= limit)");
  }
  if (memory_limit && *memory_limit < *memory_request) {
    return InvalidArgument("--memory_limit " + o.memory_limit + " is below --memory_request " + o.memory_request +
                           " (Kubernetes requires request <= limit)");
  }
  return CheckRange(o.gpus, 0, 64, "device (GPUs per pod)");
}

Status CheckModels(const ServingManifestOptions& o) {
  if (o.model_config_text.empty()) {
    return InvalidArgument(
        "--emit k8s needs the models to serve: give --model_base_path (with --model_name) or --model_config_file");
  }
  if (o.models_mount_path.empty() || o.models_mount_path[0] != '/' || o.models_mount_path == "/") {
    return InvalidArgument("--models_mount_path must be an absolute folder other than '/', got " +
                           Quoted(o.models_mount_path));
  }
  if (IsUnder(o.models_mount_path, kConfigDir) || IsUnder(kConfigDir, o.models_mount_path)) {
    return InvalidArgument("--models_mount_path " + Quoted(o.models_mount_path) + " overlaps " + kConfigDir +
                           ", where the config files are mounted; choose another folder");
  }
  if (!o.models_pvc.empty() && !IsDnsSubdomain(o.models_pvc)) {
    return InvalidArgument("--models_pvc " + Quoted(o.models_pvc) +
                           " is not a PersistentVolumeClaim name (lowercase letters, digits, '-' and '.')");
  }
  for (const std::string& path : o.model_base_paths) {
    if (path.empty() || path[0] != '/') {
      return InvalidArgument("model base path " + Quoted(path) +
                             " is relative; in the pod it must be absolute (e.g. under --models_mount_path " +
                             o.models_mount_path + ")");
    }
    if (!o.models_pvc.empty() && !IsUnder(path, o.models_mount_path)) {
      return InvalidArgument("model base path " + Quoted(path) + " is not under --models_mount_path " +
                             o.models_mount_path + ", where --models_pvc " + o.models_pvc +
                             " is mounted; give paths as the pod sees them");
    }
  }
  return OkStatus();
}

Status CheckAutoscaling(const ServingManifestOptions& o) {
  TFHOST_RETURN_IF_ERROR(CheckRange(o.min_replicas, 1, 10000, "min_replicas"));
  TFHOST_RETURN_IF_ERROR(CheckRange(o.max_replicas, 1, 10000, "max_replicas"));
  if (o.min_replicas > o.max_replicas) {
    return InvalidArgument("--min_replicas " + std::to_string(o.min_replicas) + " is above --max_replicas " +
                           std::to_string(o.max_replicas) + " (expected min <= max)");
  }
  TFHOST_RETURN_IF_ERROR(CheckRange(o.pdb_max_unavailable, 1, 10000, "pdb_max_unavailable"));
  if (o.hpa_metric == HpaMetric::kCpu) return CheckRange(o.hpa_target, 0, 1000, "hpa_target (CPU percent)");
  TFHOST_RETURN_IF_ERROR(CheckRange(o.hpa_target, 0, 1000000, "hpa_target (requests waiting per pod)"));
  if (o.metrics_path.empty()) {
    return InvalidArgument("--hpa_metric queue needs Prometheus metrics, which --monitoring_config_file turns off");
  }
  if (!o.batching) {
    return InvalidArgument(
        "--hpa_metric queue needs batching (--enable_batching, --batching_parameters_file or --batching_mode): "
        "without it serve has no queue to measure");
  }
  return OkStatus();
}

}  // namespace

StatusOr<HpaMetric> ParseHpaMetric(const std::string& text) {
  if (text == "cpu") return HpaMetric::kCpu;
  if (text == "queue") return HpaMetric::kQueue;
  return InvalidArgument("--hpa_metric must be cpu (CPU utilization) or queue (batching queue depth), got " +
                         Quoted(text));
}

Status ValidateServingManifestOptions(const ServingManifestOptions& o) {
  // ConfigMap "<name>-config" must stay a 63-character label too.
  if (!IsDnsLabel(o.name, 56, true)) {
    return InvalidArgument("--k8s_name " + Quoted(o.name) +
                           " must be 1-56 lowercase letters, digits or '-', starting with a letter and not ending "
                           "with '-'");
  }
  if (!o.namespace_name.empty() && !IsDnsLabel(o.namespace_name, 63, false)) {
    return InvalidArgument("--k8s_namespace " + Quoted(o.namespace_name) +
                           " must be 1-63 lowercase letters, digits or '-', not starting or ending with '-'");
  }
  if (o.image.empty() || o.image.find_first_of(" \t\n") != std::string::npos) {
    return InvalidArgument("--image must name a container image without spaces, got " + Quoted(o.image));
  }
  for (const std::string& arg : o.serve_args) {
    if (arg.rfind("--", 0) != 0) return InvalidArgument("serve argument " + Quoted(arg) + " is not a --flag");
  }
  if (o.rest_port == 0) {
    return InvalidArgument(
        "--emit k8s needs REST (--rest_api_port): the readiness and liveness probes and the metrics use it");
  }
  TFHOST_RETURN_IF_ERROR(CheckRange(o.rest_port, 1, 65535, "rest_api_port"));
  TFHOST_RETURN_IF_ERROR(CheckRange(o.grpc_port, 0, 65535, "port"));
  if (o.grpc_port == o.rest_port) {
    return InvalidArgument("--port and --rest_api_port are both " + std::to_string(o.rest_port) +
                           "; the pod needs two ports");
  }
  if (!o.metrics_path.empty() && o.metrics_path[0] != '/') {
    return InvalidArgument("the metrics path from --monitoring_config_file must start with '/', got " +
                           Quoted(o.metrics_path));
  }
  TFHOST_RETURN_IF_ERROR(CheckModels(o));
  TFHOST_RETURN_IF_ERROR(CheckResources(o));
  TFHOST_RETURN_IF_ERROR(CheckAutoscaling(o));
  TFHOST_RETURN_IF_ERROR(CheckRange(o.shutdown_timeout_ms, 0, 3600 * 1000, "shutdown_timeout_ms"));
  if (o.stop_grace_seconds < 0 || o.stop_grace_seconds > 3600) {
    return InvalidArgument("stop_grace_seconds must be between 0 and 3600, got " +
                           std::to_string(o.stop_grace_seconds));
  }
  TFHOST_RETURN_IF_ERROR(CheckRange(o.prestop_seconds, 0, 3600, "k8s_prestop_seconds"));
  return CheckRange(o.startup_seconds, 5, 86400, "k8s_startup_seconds");
}

int TerminationGraceSeconds(const ServingManifestOptions& o) {
  return o.prestop_seconds + (o.shutdown_timeout_ms + 999) / 1000 + o.stop_grace_seconds;
}

}  // namespace tfhost::host::k8s
