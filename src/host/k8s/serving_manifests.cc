// BuildServingManifests: the five objects as YAML trees. Choices that are
// not obvious from the fields:
//   * The Deployment has no `replicas`: the HPA owns the count, and a
//     re-apply of a file holding one would reset it.
//   * Rolling updates add a pod before removing one (maxUnavailable 0), so a
//     model rollout never lowers capacity; readiness (/readyz: every model
//     has an AVAILABLE version) gates each step.
//   * serve loads its models before it listens, so a startup probe gives the
//     load --k8s_startup_seconds before liveness may restart the pod.
//   * preStop pauses (a `sleep` action: nothing needed in the image) so that
//     endpoints stop sending before SIGTERM starts serve's drain.
#include "host/k8s/serving_manifests.h"

#include <cstdio>

#include "base/crc32c.h"

namespace tfhost::host::k8s {

namespace {

constexpr char kContainerName[] = "tfhost";
constexpr char kConfigVolume[] = "config";
constexpr char kModelsVolume[] = "models";
constexpr int kProbePeriodSeconds = 5;

YamlNode Labels(const ServingManifestOptions& o, bool with_component) {
  YamlNode labels = YamlNode::Map();
  labels.Set("app.kubernetes.io/name", "tfhost");
  labels.Set("app.kubernetes.io/instance", o.name);
  if (with_component) labels.Set("app.kubernetes.io/component", "serving");
  return labels;
}

YamlNode Header(const ServingManifestOptions& o, const char* api_version, const char* kind, const std::string& name) {
  YamlNode doc = YamlNode::Map();
  doc.Set("apiVersion", api_version);
  doc.Set("kind", kind);
  YamlNode& metadata = doc.Set("metadata", YamlNode::Map());
  metadata.Set("name", name);
  if (!o.namespace_name.empty()) metadata.Set("namespace", o.namespace_name);
  metadata.Set("labels", Labels(o, true));
  return doc;
}

YamlNode Selector(const ServingManifestOptions& o) {
  YamlNode selector = YamlNode::Map();
  selector.Set("matchLabels", Labels(o, false));
  return selector;
}

std::string ConfigMapName(const ServingManifestOptions& o) { return o.name + "-config"; }

// The ConfigMap's keys and texts, model config first.
std::vector<std::pair<std::string, std::string>> ConfigFiles(const ServingManifestOptions& o) {
  std::vector<std::pair<std::string, std::string>> files = {{kModelConfigKey, o.model_config_text}};
  if (!o.batching_config_text.empty()) files.emplace_back(kBatchingConfigKey, o.batching_config_text);
  if (!o.monitoring_config_text.empty()) files.emplace_back(kMonitoringConfigKey, o.monitoring_config_text);
  return files;
}

std::string ConfigChecksum(const ServingManifestOptions& o) {
  uint32_t crc = 0;
  for (const auto& [key, text] : ConfigFiles(o)) {
    crc = crc32c::Extend(crc, key.data(), key.size() + 1);  // the NUL parts key from text
    crc = crc32c::Extend(crc, text.data(), text.size() + 1);
  }
  char hex[9];
  std::snprintf(hex, sizeof(hex), "%08x", crc);
  return hex;
}

YamlNode HttpProbe(const char* path, int period, int failures) {
  YamlNode probe = YamlNode::Map();
  YamlNode& get = probe.Set("httpGet", YamlNode::Map());
  get.Set("path", path);
  get.Set("port", "http");
  probe.Set("periodSeconds", period);
  probe.Set("failureThreshold", failures);
  return probe;
}

YamlNode ServeArgs(const ServingManifestOptions& o) {
  YamlNode args = YamlNode::List();
  args.Add(YamlNode::Str("serve"));
  for (const std::string& a : o.serve_args) args.Add(YamlNode::Str(a));
  const std::string dir = kConfigDir;
  args.Add(YamlNode::Str("--model_config_file=" + dir + "/" + kModelConfigKey));
  if (!o.batching_config_text.empty()) {
    args.Add(YamlNode::Str("--batching_parameters_file=" + dir + "/" + kBatchingConfigKey));
  }
  if (!o.monitoring_config_text.empty()) {
    args.Add(YamlNode::Str("--monitoring_config_file=" + dir + "/" + kMonitoringConfigKey));
  }
  return args;
}

YamlNode Resources(const ServingManifestOptions& o) {
  YamlNode resources = YamlNode::Map();
  YamlNode& requests = resources.Set("requests", YamlNode::Map());
  requests.Set("cpu", o.cpu_request);
  requests.Set("memory", o.memory_request);
  YamlNode& limits = resources.Set("limits", YamlNode::Map());
  if (!o.cpu_limit.empty()) limits.Set("cpu", o.cpu_limit);
  limits.Set("memory", o.memory_limit.empty() ? o.memory_request : o.memory_limit);
  if (o.gpus > 0) limits.Set("nvidia.com/gpu", o.gpus);
  return resources;
}

YamlNode Container(const ServingManifestOptions& o) {
  YamlNode c = YamlNode::Map();
  c.Set("name", kContainerName);
  c.Set("image", o.image);
  c.Set("command", YamlNode::List()).Add(YamlNode::Str("tfhost"));
  c.Set("args", ServeArgs(o));
  YamlNode& ports = c.Set("ports", YamlNode::List());
  YamlNode& http = ports.Add(YamlNode::Map());
  http.Set("name", "http");
  http.Set("containerPort", o.rest_port);
  http.Set("protocol", "TCP");
  if (o.grpc_port > 0) {
    YamlNode& grpc = ports.Add(YamlNode::Map());
    grpc.Set("name", "grpc");
    grpc.Set("containerPort", o.grpc_port);
    grpc.Set("protocol", "TCP");
  }
  const int startup_failures = (o.startup_seconds + kProbePeriodSeconds - 1) / kProbePeriodSeconds;
  c.Set("startupProbe", HttpProbe("/healthz", kProbePeriodSeconds, startup_failures));
  c.Set("readinessProbe", HttpProbe("/readyz", kProbePeriodSeconds, 2));
  c.Set("livenessProbe", HttpProbe("/healthz", 10, 3));
  if (o.prestop_seconds > 0) {
    c.Set("lifecycle", YamlNode::Map())
        .Set("preStop", YamlNode::Map())
        .Set("sleep", YamlNode::Map())
        .Set("seconds", o.prestop_seconds);
  }
  c.Set("resources", Resources(o));
  YamlNode& mounts = c.Set("volumeMounts", YamlNode::List());
  YamlNode& config = mounts.Add(YamlNode::Map());
  config.Set("name", kConfigVolume);
  config.Set("mountPath", kConfigDir);
  config.Set("readOnly", YamlNode::Bool(true));
  if (!o.models_pvc.empty()) {
    YamlNode& models = mounts.Add(YamlNode::Map());
    models.Set("name", kModelsVolume);
    models.Set("mountPath", o.models_mount_path);
    models.Set("readOnly", YamlNode::Bool(true));
  }
  return c;
}

YamlNode ConfigMap(const ServingManifestOptions& o) {
  YamlNode doc = Header(o, "v1", "ConfigMap", ConfigMapName(o));
  YamlNode& data = doc.Set("data", YamlNode::Map());
  for (const auto& [key, text] : ConfigFiles(o)) data.Set(key, text);
  return doc;
}

YamlNode Deployment(const ServingManifestOptions& o) {
  YamlNode doc = Header(o, "apps/v1", "Deployment", o.name);
  YamlNode& spec = doc.Set("spec", YamlNode::Map());
  spec.Set("selector", Selector(o));
  YamlNode& strategy = spec.Set("strategy", YamlNode::Map());
  strategy.Set("type", "RollingUpdate");
  YamlNode& rolling = strategy.Set("rollingUpdate", YamlNode::Map());
  rolling.Set("maxSurge", 1);
  rolling.Set("maxUnavailable", 0);
  YamlNode& pod = spec.Set("template", YamlNode::Map());
  YamlNode& metadata = pod.Set("metadata", YamlNode::Map());
  metadata.Set("labels", Labels(o, true));
  YamlNode& annotations = metadata.Set("annotations", YamlNode::Map());
  if (!o.metrics_path.empty()) {
    annotations.Set("prometheus.io/scrape", "true");
    annotations.Set("prometheus.io/port", std::to_string(o.rest_port));
    annotations.Set("prometheus.io/path", o.metrics_path);
  }
  annotations.Set("tfhost.io/config-crc32c", ConfigChecksum(o));
  YamlNode& pod_spec = pod.Set("spec", YamlNode::Map());
  pod_spec.Set("terminationGracePeriodSeconds", TerminationGraceSeconds(o));
  pod_spec.Set("containers", YamlNode::List()).Add(Container(o));
  YamlNode& volumes = pod_spec.Set("volumes", YamlNode::List());
  YamlNode& config = volumes.Add(YamlNode::Map());
  config.Set("name", kConfigVolume);
  config.Set("configMap", YamlNode::Map()).Set("name", ConfigMapName(o));
  if (!o.models_pvc.empty()) {
    YamlNode& models = volumes.Add(YamlNode::Map());
    models.Set("name", kModelsVolume);
    YamlNode& claim = models.Set("persistentVolumeClaim", YamlNode::Map());
    claim.Set("claimName", o.models_pvc);
    claim.Set("readOnly", YamlNode::Bool(true));
  }
  if (o.gpus > 0) {
    // GPU nodes are commonly tainted so that only GPU pods land there.
    YamlNode& toleration = pod_spec.Set("tolerations", YamlNode::List()).Add(YamlNode::Map());
    toleration.Set("key", "nvidia.com/gpu");
    toleration.Set("operator", "Exists");
    toleration.Set("effect", "NoSchedule");
  }
  return doc;
}

YamlNode Service(const ServingManifestOptions& o) {
  YamlNode doc = Header(o, "v1", "Service", o.name);
  YamlNode& spec = doc.Set("spec", YamlNode::Map());
  spec.Set("type", "ClusterIP");
  spec.Set("selector", Labels(o, false));
  YamlNode& ports = spec.Set("ports", YamlNode::List());
  YamlNode& http = ports.Add(YamlNode::Map());
  http.Set("name", "http");
  http.Set("port", o.rest_port);
  http.Set("targetPort", "http");
  http.Set("protocol", "TCP");
  if (o.grpc_port > 0) {
    YamlNode& grpc = ports.Add(YamlNode::Map());
    grpc.Set("name", "grpc");
    grpc.Set("port", o.grpc_port);
    grpc.Set("targetPort", "grpc");
    grpc.Set("protocol", "TCP");
    grpc.Set("appProtocol", "grpc");
  }
  return doc;
}

YamlNode Autoscaler(const ServingManifestOptions& o) {
  YamlNode doc = Header(o, "autoscaling/v2", "HorizontalPodAutoscaler", o.name);
  YamlNode& spec = doc.Set("spec", YamlNode::Map());
  YamlNode& target = spec.Set("scaleTargetRef", YamlNode::Map());
  target.Set("apiVersion", "apps/v1");
  target.Set("kind", "Deployment");
  target.Set("name", o.name);
  spec.Set("minReplicas", o.min_replicas);
  spec.Set("maxReplicas", o.max_replicas);
  YamlNode& metric = spec.Set("metrics", YamlNode::List()).Add(YamlNode::Map());
  if (o.hpa_metric == HpaMetric::kCpu) {
    metric.Set("type", "Resource");
    YamlNode& resource = metric.Set("resource", YamlNode::Map());
    resource.Set("name", "cpu");
    YamlNode& goal = resource.Set("target", YamlNode::Map());
    goal.Set("type", "Utilization");
    goal.Set("averageUtilization", o.hpa_target > 0 ? o.hpa_target : 70);
  } else {
    metric.Set("type", "Pods");
    YamlNode& pods = metric.Set("pods", YamlNode::Map());
    pods.Set("metric", YamlNode::Map()).Set("name", kQueueMetricName);
    YamlNode& goal = pods.Set("target", YamlNode::Map());
    goal.Set("type", "AverageValue");
    goal.Set("averageValue", std::to_string(o.hpa_target > 0 ? o.hpa_target : 4));  // a quantity
  }
  return doc;
}

YamlNode DisruptionBudget(const ServingManifestOptions& o) {
  YamlNode doc = Header(o, "policy/v1", "PodDisruptionBudget", o.name);
  YamlNode& spec = doc.Set("spec", YamlNode::Map());
  spec.Set("maxUnavailable", o.pdb_max_unavailable);
  spec.Set("selector", Selector(o));
  return doc;
}

}  // namespace

StatusOr<std::vector<Manifest>> BuildServingManifests(const ServingManifestOptions& options) {
  TFHOST_RETURN_IF_ERROR(ValidateServingManifestOptions(options));
  std::vector<Manifest> out;
  out.push_back({"ConfigMap", "configmap.yaml", ConfigMap(options)});
  out.push_back({"Deployment", "deployment.yaml", Deployment(options)});
  out.push_back({"Service", "service.yaml", Service(options)});
  out.push_back({"HorizontalPodAutoscaler", "hpa.yaml", Autoscaler(options)});
  out.push_back({"PodDisruptionBudget", "pdb.yaml", DisruptionBudget(options)});
  return out;
}

std::string ToYamlStream(const std::vector<Manifest>& manifests) {
  std::string out;
  for (const Manifest& m : manifests) out += "---\n" + ToYaml(m.document);
  return out;
}

}  // namespace tfhost::host::k8s
