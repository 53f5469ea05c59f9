#include "cli/serve_emit.h"

#include <google/protobuf/text_format.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "backends/builtin/device_registry.h"
#include "base/file_util.h"
#include "cli/cli.h"
#include "cli/command_util.h"
#include "host/k8s/serving_manifests.h"
#include "serving/batching/batching_parameters.h"
#include "serving/grpc/grpc_server.h"
#include "serving/model_manager/model_config.h"

namespace tfhost::cli {

namespace {

namespace fs = std::filesystem;
namespace k8s = host::k8s;

constexpr char kCommand[] = "serve";

// Flags only --emit reads (kept out of the pod's serve command).
const std::set<std::string>& EmitOnlyFlags() {
  static const std::set<std::string> names = {"emit",
                                              "emit_dir",
                                              "image",
                                              "k8s_name",
                                              "k8s_namespace",
                                              "models_pvc",
                                              "models_mount_path",
                                              "hpa_metric",
                                              "cpu_request",
                                              "memory_request",
                                              "cpu_limit",
                                              "memory_limit",
                                              "min_replicas",
                                              "max_replicas",
                                              "hpa_target",
                                              "pdb_max_unavailable",
                                              "k8s_prestop_seconds",
                                              "k8s_startup_seconds"};
  return names;
}

// Serve flags that name local files or are rewritten for the pod.
const std::set<std::string>& RewrittenFlags() {
  static const std::set<std::string> names = {
      "model_name",      "model_base_path", "model_config_file", "batching_parameters_file", "monitoring_config_file",
      "demo_models_dir", "device"};
  return names;
}

// The flag name of an argument ("--a=b" -> "a"), "" for a non-flag.
std::string FlagName(const std::string& arg) {
  if (arg.size() < 2 || arg[0] != '-' || arg == "--") return "";
  std::string body = arg.substr(arg[1] == '-' ? 2 : 1);
  return body.substr(0, body.find('='));
}

// Serve's arguments as "--name=value" or "--name" (bools), less the flags in
// `dropped`, in the order given.
std::vector<std::string> PassThroughArgs(const ServeEmitContext& c, const std::set<std::string>& dropped) {
  std::vector<std::string> out;
  const std::vector<std::string>& args = *c.args;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string name = FlagName(args[i]);
    if (name.empty()) break;  // "--": serve takes no positional arguments
    const size_t eq = args[i].find('=');
    std::string token = "--" + name;
    if (eq != std::string::npos) {
      token += args[i].substr(eq);
    } else if (c.parser->TakesValue(name) && i + 1 < args.size()) {
      token += "=" + args[++i];
    }
    if (dropped.count(name) == 0 && EmitOnlyFlags().count(name) == 0) out.push_back(token);
  }
  return out;
}

StatusOr<std::string> ReadText(const std::string& path, const char* flag) {
  std::error_code ec;
  const auto size = fs::file_size(path, ec);
  if (ec) return NotFound(std::string(flag) + " '" + path + "' cannot be read: " + ec.message());
  if (size > (1u << 20)) {
    return InvalidArgument(std::string(flag) + " '" + path + "' is larger than 1 MiB, the most a ConfigMap holds");
  }
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  if (!in) return NotFound(std::string(flag) + " '" + path + "' cannot be read");
  return ss.str();
}

bool IsWildcard(const std::string& address) {
  return address.empty() || address == "0.0.0.0" || address == "::" || address == "[::]";
}

// The ConfigMap's texts and the model paths; a failure is a file problem.
Status FillConfigs(const ServeEmitContext& c, k8s::ServingManifestOptions& o) {
  serving::ModelServerConfig config;
  if (!c.model_config_file.empty()) {
    TFHOST_ASSIGN_OR_RETURN(o.model_config_text, ReadText(c.model_config_file, "--model_config_file"));
    TFHOST_ASSIGN_OR_RETURN(config, serving::ReadModelServerConfigFile(c.model_config_file));
  } else if (!c.model_base_path.empty()) {
    config = serving::SingleModelConfig(c.model_name, c.model_base_path);
    google::protobuf::TextFormat::PrintToString(config, &o.model_config_text);
  }
  if (!o.model_config_text.empty()) TFHOST_RETURN_IF_ERROR(serving::ValidateModelServerConfig(config));
  for (const auto& model : config.model_config_list().config()) o.model_base_paths.push_back(model.base_path());
  if (!c.batching_parameters_file.empty()) {
    TFHOST_RETURN_IF_ERROR(serving::batching::LoadBatchingParametersFile(c.batching_parameters_file).status());
    TFHOST_ASSIGN_OR_RETURN(o.batching_config_text, ReadText(c.batching_parameters_file, "--batching_parameters_file"));
  }
  if (!c.monitoring_config_file.empty()) {
    TFHOST_ASSIGN_OR_RETURN(o.monitoring_config_text, ReadText(c.monitoring_config_file, "--monitoring_config_file"));
  }
  return OkStatus();
}

// What serve checks only after --device is applied (so not yet when
// emitting): a bad value would otherwise stop every pod at its start.
Status CheckPodFlags(const ServeEmitContext& c, const k8s::ServingManifestOptions& o) {
  TFHOST_RETURN_IF_ERROR(serving::ParseGrpcChannelArguments(c.grpc_channel_arguments).status());
  if (!c.batching) return OkStatus();
  serving::batching::BatchingConfig config = serving::batching::DefaultBatchingConfig();
  if (!o.batching_config_text.empty()) {
    TFHOST_ASSIGN_OR_RETURN(
        config, serving::batching::ParseBatchingParameters(o.batching_config_text, c.batching_parameters_file));
  }
  if (!c.batching_mode.empty()) {
    auto mode = serving::batching::ParseBatchingMode(c.batching_mode);
    if (!mode.ok()) return InvalidArgument("--batching_mode: " + mode.status().message());
    config.mode = *mode;
  }
  config.target_latency_ms = c.target_latency_ms;
  return serving::batching::ValidateBatchingConfig(config, "batching flags");
}

Status WriteDir(const std::string& dir, const std::vector<k8s::Manifest>& manifests) {
  TFHOST_RETURN_IF_ERROR(CreateDirectories(dir));
  for (const k8s::Manifest& m : manifests) {
    const std::string path = (fs::path(dir) / m.file_name).string();
    std::ofstream f(path, std::ios::trunc);
    f << k8s::ToYaml(m.document);
    if (!f.good()) return Unavailable("--emit_dir: cannot write " + path);
  }
  return OkStatus();
}

}  // namespace

void AddServeEmitFlags(FlagParser& flags, ServeEmitFlags* f) {
  flags.AddString("emit", &f->emit, "k8s",
                  "write Kubernetes manifests (ConfigMap, Deployment, Service, HPA, PodDisruptionBudget) running "
                  "this serve command instead of serving; see docs/kubernetes.md");
  flags.AddString("emit_dir", &f->emit_dir, "DIR",
                  "--emit: one file per object in DIR (default: one stream on stdout)");
  flags.AddString("image", &f->image, "IMAGE",
                  "--emit: container image with tfhost (default " + DefaultServeImage() + ")");
  flags.AddString("k8s_name", &f->k8s_name, "NAME", "--emit: name of every object (default tfhost)");
  flags.AddString("k8s_namespace", &f->k8s_namespace, "NS", "--emit: namespace (default: kubectl's current one)");
  flags.AddString("models_pvc", &f->models_pvc, "CLAIM",
                  "--emit: PersistentVolumeClaim with the model folders, mounted read-only at --models_mount_path "
                  "(default: none, the models are in the image)");
  flags.AddString("models_mount_path", &f->models_mount_path, "DIR",
                  "--emit: where --models_pvc is mounted; model base paths must be under it (default /models)");
  flags.AddString("hpa_metric", &f->hpa_metric, "cpu|queue",
                  "--emit: autoscale on CPU utilization (default) or on the batching queue depth (custom metric)");
  flags.AddInt("hpa_target", &f->hpa_target, "N",
               "--emit: target average CPU percent of the request (default 70) or requests waiting per pod (4)");
  flags.AddInt("min_replicas", &f->min_replicas, "N", "--emit: fewest pods the autoscaler keeps (default 2)");
  flags.AddInt("max_replicas", &f->max_replicas, "N", "--emit: most pods the autoscaler starts (default 10)");
  flags.AddInt("pdb_max_unavailable", &f->pdb_max_unavailable, "N",
               "--emit: pods a voluntary disruption (node drain) may take at once (default 1)");
  flags.AddString("cpu_request", &f->cpu_request, "Q", "--emit: CPU request per pod (default 1)");
  flags.AddString("memory_request", &f->memory_request, "Q", "--emit: memory request per pod (default 2Gi)");
  flags.AddString("cpu_limit", &f->cpu_limit, "Q", "--emit: CPU limit per pod (default: none)");
  flags.AddString("memory_limit", &f->memory_limit, "Q", "--emit: memory limit per pod (default: the request)");
  flags.AddInt("k8s_prestop_seconds", &f->prestop_seconds, "S",
               "--emit: pause before SIGTERM while endpoints stop sending (default 5; Kubernetes 1.30+)");
  flags.AddInt("k8s_startup_seconds", &f->startup_seconds, "S",
               "--emit: longest model load before the liveness probe counts (default 600)");
}

std::string DefaultServeImage() {
  const std::string version = VersionString();  // "tfhost 0.1.0"
  return "tfhost:" + version.substr(version.find(' ') + 1);
}

std::string EmitOnlyFlagsWithoutEmit(const std::vector<std::string>& args, const ServeEmitFlags& f) {
  if (!f.emit.empty()) return "";
  for (const std::string& arg : args) {
    if (arg == "--") break;
    const std::string name = FlagName(arg);
    if (EmitOnlyFlags().count(name)) return "--" + name + " is for --emit k8s only; without --emit, serve runs here";
  }
  return "";
}

int EmitServeManifests(const ServeEmitFlags& f, const ServeEmitContext& c, std::ostream& out, std::ostream& err) {
  if (f.emit != "k8s") return ReportUsage(err, kCommand, "--emit must be k8s, got '" + f.emit + "'");
  if (!IsWildcard(c.rest_address) || !IsWildcard(c.grpc_address)) {
    return ReportUsage(err, kCommand,
                       "--emit k8s: --rest_api_address and --grpc_address must listen on every address (0.0.0.0 or "
                       "::): the kubelet's probes and the Service reach the pod on its own address");
  }
  for (const std::string& arg : *c.args) {
    // The key and certificates would have to reach the pod as a Secret,
    // which the manifests do not write yet: refuse rather than emit a pod
    // that fails at start on a path of this host.
    if (FlagName(arg) == "ssl_config_file") {
      return ReportUsage(err, kCommand,
                         "--emit k8s does not carry --ssl_config_file (its key and certificates belong in a "
                         "Secret, which the manifests do not write): emit without it and terminate TLS at the "
                         "Service's ingress, or add the Secret and the flag to the Deployment yourself");
    }
  }
  auto device = backends::ParseDevice(c.device);
  if (!device.ok()) return ReportUsage(err, kCommand, device.status().message());
  auto metric = k8s::ParseHpaMetric(f.hpa_metric);
  if (!metric.ok()) return ReportUsage(err, kCommand, metric.status().message());

  k8s::ServingManifestOptions o;
  o.name = f.k8s_name;
  o.namespace_name = f.k8s_namespace;
  o.image = f.image.empty() ? DefaultServeImage() : f.image;
  o.serve_args = PassThroughArgs(c, RewrittenFlags());
  // The pod sees only the GPU it is given, as GPU 0: gpu:N names a GPU of
  // this host, not of the pod.
  if (device->kind == backends::DeviceChoice::Kind::kGpu) {
    o.gpus = 1;
    o.serve_args.push_back("--device=gpu");
  } else if (device->kind == backends::DeviceChoice::Kind::kAuto) {
    o.serve_args.push_back("--device=auto");
  }
  o.rest_port = c.rest_port;
  o.grpc_port = c.grpc_port;
  o.metrics_path = c.metrics_path;
  o.batching = c.batching;
  o.models_pvc = f.models_pvc;
  o.models_mount_path = f.models_mount_path;
  o.cpu_request = f.cpu_request;
  o.memory_request = f.memory_request;
  o.cpu_limit = f.cpu_limit;
  o.memory_limit = f.memory_limit;
  o.min_replicas = f.min_replicas;
  o.max_replicas = f.max_replicas;
  o.hpa_metric = *metric;
  o.hpa_target = f.hpa_target;
  o.pdb_max_unavailable = f.pdb_max_unavailable;
  o.shutdown_timeout_ms = c.shutdown_timeout_ms;
  o.stop_grace_seconds = c.stop_grace_seconds;
  o.prestop_seconds = f.prestop_seconds;
  o.startup_seconds = f.startup_seconds;
  if (Status st = FillConfigs(c, o); !st.ok()) return ReportFailure(err, kCommand, st);
  if (Status st = CheckPodFlags(c, o); !st.ok()) return ReportUsage(err, kCommand, st.message());

  auto manifests = k8s::BuildServingManifests(o);
  if (!manifests.ok()) return ReportUsage(err, kCommand, manifests.status().message());
  if (f.emit_dir.empty()) {
    out << k8s::ToYamlStream(*manifests);
    out.flush();
    return kExitOk;
  }
  if (Status st = WriteDir(f.emit_dir, *manifests); !st.ok()) return ReportFailure(err, kCommand, st);
  err << "tfhost serve: wrote " << manifests->size() << " manifests to " << f.emit_dir << " (kubectl apply -f "
      << f.emit_dir << ")\n";
  return kExitOk;
}

}  // namespace tfhost::cli
