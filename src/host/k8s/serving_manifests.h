// The Kubernetes objects that run `tfhost serve` as a service, from a plain
// options struct (`tfhost serve ... --emit k8s` fills it from its flags):
//   ConfigMap                the model config (and batching / monitoring
//                            configs when given), mounted at kConfigDir and
//                            passed to serve as files;
//   Deployment               one container running `tfhost serve`: readiness
//                            on /readyz, liveness on /healthz, a startup probe
//                            for model loading, a preStop pause and a grace
//                            period covering serve's drain, resources,
//                            Prometheus scrape annotations;
//   Service                  the REST and gRPC ports;
//   HorizontalPodAutoscaler  autoscaling/v2, on CPU utilization or on
//                            tfhost's batching queue depth (a Pods metric);
//   PodDisruptionBudget      policy/v1.
// Why the pod template carries a checksum of the ConfigMap: a changed config
// then rolls the Deployment on `kubectl apply`, as a changed image does.
//
// Errors (InvalidArgument) name the `tfhost serve` flag the bad field came
// from (each field below says which) and what was expected.
// Thread-safety: pure functions of their arguments.
#pragma once

#include <string>
#include <vector>

#include "base/status.h"
#include "host/k8s/yaml_node.h"

namespace tfhost::host::k8s {

// Where the ConfigMap is mounted in the pod, and its keys.
inline constexpr char kConfigDir[] = "/etc/tfhost";
inline constexpr char kModelConfigKey[] = "models.config";
inline constexpr char kBatchingConfigKey[] = "batching.config";
inline constexpr char kMonitoringConfigKey[] = "monitoring.config";

// The queue metric as the HPA asks the custom metrics API for it. tfhost
// exports ":tfhost:serving:batch_queue_depth"; a leading colon cannot name a
// custom metric, so the metrics adapter renames it (docs/kubernetes.md).
inline constexpr char kQueueMetricName[] = "tfhost_serving_batch_queue_depth";

enum class HpaMetric { kCpu, kQueue };
// "cpu" or "queue"; the error names --hpa_metric and both values.
StatusOr<HpaMetric> ParseHpaMetric(const std::string& text);

struct ServingManifestOptions {
  std::string name = "tfhost";  // --k8s_name: every object's name; a DNS-1035 label
  std::string namespace_name;   // --k8s_namespace; empty: kubectl's current namespace
  std::string image;            // --image
  // `tfhost serve` flags for the container, each one "--flag=value" or
  // "--flag"; the --model_config_file (and batching / monitoring) flags
  // naming the mounted files are added here, not given.
  std::vector<std::string> serve_args;

  int rest_port = 8501;  // --rest_api_port; must be served: the probes use it
  int grpc_port = 8500;  // --port; 0: REST only
  // Where serve answers Prometheus (--monitoring_config_file); empty:
  // metrics are off, so no scrape annotations and no queue HPA.
  std::string metrics_path = "/monitoring/prometheus/metrics";
  bool batching = false;  // --enable_batching et al.: the queue metric exists only then

  // ConfigMap contents (protobuf text); model config required, others
  // optional (empty: not given).
  std::string model_config_text;
  std::string batching_config_text;
  std::string monitoring_config_text;
  // Each model's base_path from the config, for the --models_pvc check.
  std::vector<std::string> model_base_paths;
  std::string models_pvc;                     // --models_pvc: a claim mounted read-only; empty: none
  std::string models_mount_path = "/models";  // --models_mount_path

  int gpus = 0;                        // from --device gpu[:N]: nvidia.com/gpu limit
  std::string cpu_request = "1";       // --cpu_request (a Kubernetes quantity)
  std::string memory_request = "2Gi";  // --memory_request
  std::string cpu_limit;               // --cpu_limit; empty: none (no throttling)
  std::string memory_limit;            // --memory_limit; empty: the request

  int min_replicas = 2;   // --min_replicas
  int max_replicas = 10;  // --max_replicas
  HpaMetric hpa_metric = HpaMetric::kCpu;
  // --hpa_target: average CPU utilization in percent of the request (cpu),
  // or average requests waiting per pod (queue); 0: 70 or 4.
  int hpa_target = 0;
  int pdb_max_unavailable = 1;  // --pdb_max_unavailable

  int shutdown_timeout_ms = 10000;  // --shutdown_timeout_ms: serve's drain deadline
  int stop_grace_seconds = 30;      // serve's allowance past the drain (in-flight runs, unloading)
  int prestop_seconds = 5;          // --k8s_prestop_seconds: endpoints removed before SIGTERM
  int startup_seconds = 600;        // --k8s_startup_seconds: longest model load before liveness counts
};

// Checks every field; the first problem, naming its flag.
Status ValidateServingManifestOptions(const ServingManifestOptions& options);

// terminationGracePeriodSeconds: the kubelet counts it from the start of the
// preStop pause to SIGKILL, so it is the pause + serve's drain deadline
// (rounded up) + serve's allowance past it; serve then always ends by itself.
int TerminationGraceSeconds(const ServingManifestOptions& options);

struct Manifest {
  std::string kind;       // "Deployment", ...
  std::string file_name;  // "deployment.yaml", ... (for --emit_dir)
  YamlNode document;
};

// Validates, then builds the objects in the order `kubectl apply` should
// create them (the ConfigMap before the pods that mount it).
StatusOr<std::vector<Manifest>> BuildServingManifests(const ServingManifestOptions& options);

// The documents as one stream ("---" between them) for `kubectl apply -f -`.
std::string ToYamlStream(const std::vector<Manifest>& manifests);

}  // namespace tfhost::host::k8s
