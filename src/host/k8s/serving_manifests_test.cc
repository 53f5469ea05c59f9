#include "host/k8s/serving_manifests.h"

#include <gtest/gtest.h>

namespace tfhost::host::k8s {
namespace {

constexpr char kModelConfig[] =
    "model_config_list {\n  config {\n    name: \"resnet\"\n    base_path: \"/models/resnet\"\n"
    "    model_platform: \"tensorflow\"\n  }\n}\n";

ServingManifestOptions Options() {
  ServingManifestOptions o;
  o.name = "resnet";
  o.image = "registry.example.com/tfhost:0.1.0";
  o.serve_args = {"--port=8500", "--rest_api_port=8501", "--enable_batching"};
  o.model_config_text = kModelConfig;
  o.model_base_paths = {"/models/resnet"};
  o.models_pvc = "models";
  o.batching = true;
  return o;
}

const YamlNode& Doc(const std::vector<Manifest>& manifests, const std::string& kind) {
  for (const Manifest& m : manifests) {
    if (m.kind == kind) return m.document;
  }
  ADD_FAILURE() << "no " << kind;
  static const YamlNode empty = YamlNode::Map();
  return empty;
}

std::string Text(const YamlNode& doc, const std::vector<std::string>& path) {
  const YamlNode* n = doc.Path(path);
  return n ? n->text() : "<absent>";
}

TEST(ServingManifestsTest, BuildsTheFiveObjectsConfigMapFirst) {
  auto m = BuildServingManifests(Options());
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  std::vector<std::string> kinds;
  for (const Manifest& x : *m) kinds.push_back(x.kind);
  EXPECT_EQ(kinds, (std::vector<std::string>{"ConfigMap", "Deployment", "Service", "HorizontalPodAutoscaler",
                                             "PodDisruptionBudget"}));
  EXPECT_EQ(Text(Doc(*m, "HorizontalPodAutoscaler"), {"apiVersion"}), "autoscaling/v2");
  EXPECT_EQ(Text(Doc(*m, "PodDisruptionBudget"), {"apiVersion"}), "policy/v1");
  EXPECT_EQ(Text(Doc(*m, "ConfigMap"), {"data", "models.config"}), kModelConfig);
}

TEST(ServingManifestsTest, ContainerRunsServeOnTheMountedConfigWithProbesOnReadyzAndHealthz) {
  auto m = BuildServingManifests(Options());
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  const YamlNode& pod = *Doc(*m, "Deployment").Path({"spec", "template"});
  const YamlNode& c = *pod.Path({"spec", "containers", "0"});
  EXPECT_EQ(Text(c, {"image"}), "registry.example.com/tfhost:0.1.0");
  const YamlNode& args = *c.Find("args");
  ASSERT_EQ(args.size(), 5u);
  EXPECT_EQ(args.At(0)->text(), "serve");
  EXPECT_EQ(args.At(3)->text(), "--enable_batching");
  EXPECT_EQ(args.At(4)->text(), "--model_config_file=/etc/tfhost/models.config");
  EXPECT_EQ(Text(c, {"readinessProbe", "httpGet", "path"}), "/readyz");
  EXPECT_EQ(Text(c, {"livenessProbe", "httpGet", "path"}), "/healthz");
  EXPECT_EQ(Text(c, {"startupProbe", "failureThreshold"}), "120");  // 600 s at 5 s per probe
  EXPECT_EQ(Text(c, {"ports", "0", "containerPort"}), "8501");
  EXPECT_EQ(Text(c, {"ports", "1", "name"}), "grpc");
  EXPECT_EQ(Text(c, {"volumeMounts", "0", "mountPath"}), "/etc/tfhost");
  EXPECT_EQ(Text(c, {"volumeMounts", "1", "mountPath"}), "/models");
  EXPECT_EQ(Text(pod, {"spec", "volumes", "1", "persistentVolumeClaim", "claimName"}), "models");
  EXPECT_EQ(Text(pod, {"metadata", "annotations", "prometheus.io/scrape"}), "true");
  EXPECT_EQ(Text(pod, {"metadata", "annotations", "prometheus.io/port"}), "8501");
  EXPECT_EQ(Text(pod, {"metadata", "annotations", "prometheus.io/path"}), "/monitoring/prometheus/metrics");
  EXPECT_EQ(Doc(*m, "Deployment").Path({"spec", "replicas"}), nullptr);  // the HPA owns the count
}

TEST(ServingManifestsTest, GracePeriodCoversPreStopDrainAndServesOwnAllowance) {
  ServingManifestOptions o = Options();
  o.shutdown_timeout_ms = 12500;
  o.prestop_seconds = 7;
  o.stop_grace_seconds = 30;
  EXPECT_EQ(TerminationGraceSeconds(o), 7 + 13 + 30);
  auto m = BuildServingManifests(o);
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  const YamlNode& pod = *Doc(*m, "Deployment").Path({"spec", "template", "spec"});
  EXPECT_EQ(Text(pod, {"terminationGracePeriodSeconds"}), "50");
  EXPECT_EQ(Text(pod, {"containers", "0", "lifecycle", "preStop", "sleep", "seconds"}), "7");
}

TEST(ServingManifestsTest, GpuPodsLimitNvidiaGpuAndTolerateTheGpuTaint) {
  ServingManifestOptions o = Options();
  auto cpu = BuildServingManifests(o);
  ASSERT_TRUE(cpu.ok());
  const YamlNode& cpu_pod = *Doc(*cpu, "Deployment").Path({"spec", "template", "spec"});
  EXPECT_EQ(cpu_pod.Path({"containers", "0", "resources", "limits", "nvidia.com/gpu"}), nullptr);
  EXPECT_EQ(cpu_pod.Find("tolerations"), nullptr);
  EXPECT_EQ(Text(cpu_pod, {"containers", "0", "resources", "limits", "memory"}), "2Gi");  // = the request
  o.gpus = 1;
  o.cpu_limit = "4";
  auto gpu = BuildServingManifests(o);
  ASSERT_TRUE(gpu.ok());
  const YamlNode& pod = *Doc(*gpu, "Deployment").Path({"spec", "template", "spec"});
  EXPECT_EQ(Text(pod, {"containers", "0", "resources", "limits", "nvidia.com/gpu"}), "1");
  EXPECT_EQ(Text(pod, {"containers", "0", "resources", "limits", "cpu"}), "4");
  EXPECT_EQ(Text(pod, {"tolerations", "0", "key"}), "nvidia.com/gpu");
}

TEST(ServingManifestsTest, AutoscalerUsesCpuUtilizationByDefaultAndTheQueueMetricWhenAsked) {
  ServingManifestOptions o = Options();
  o.min_replicas = 3;
  o.max_replicas = 8;
  auto cpu = BuildServingManifests(o);
  ASSERT_TRUE(cpu.ok());
  const YamlNode& hpa = Doc(*cpu, "HorizontalPodAutoscaler");
  EXPECT_EQ(Text(hpa, {"spec", "minReplicas"}), "3");
  EXPECT_EQ(Text(hpa, {"spec", "maxReplicas"}), "8");
  EXPECT_EQ(Text(hpa, {"spec", "scaleTargetRef", "name"}), "resnet");
  EXPECT_EQ(Text(hpa, {"spec", "metrics", "0", "resource", "name"}), "cpu");
  EXPECT_EQ(Text(hpa, {"spec", "metrics", "0", "resource", "target", "averageUtilization"}), "70");
  o.hpa_metric = HpaMetric::kQueue;
  o.hpa_target = 6;
  auto queue = BuildServingManifests(o);
  ASSERT_TRUE(queue.ok());
  const YamlNode& q = Doc(*queue, "HorizontalPodAutoscaler");
  EXPECT_EQ(Text(q, {"spec", "metrics", "0", "type"}), "Pods");
  EXPECT_EQ(Text(q, {"spec", "metrics", "0", "pods", "metric", "name"}), "tfhost_serving_batch_queue_depth");
  EXPECT_EQ(Text(q, {"spec", "metrics", "0", "pods", "target", "averageValue"}), "6");
}

TEST(ServingManifestsTest, ServiceAndBudgetSelectTheDeploymentsPods) {
  ServingManifestOptions o = Options();
  o.namespace_name = "ml";
  auto m = BuildServingManifests(o);
  ASSERT_TRUE(m.ok());
  const YamlNode& svc = Doc(*m, "Service");
  EXPECT_EQ(Text(svc, {"metadata", "namespace"}), "ml");
  EXPECT_EQ(Text(svc, {"spec", "ports", "0", "port"}), "8501");
  EXPECT_EQ(Text(svc, {"spec", "ports", "1", "port"}), "8500");
  EXPECT_EQ(Text(svc, {"spec", "selector", "app.kubernetes.io/instance"}), "resnet");
  const YamlNode& pdb = Doc(*m, "PodDisruptionBudget");
  EXPECT_EQ(Text(pdb, {"spec", "maxUnavailable"}), "1");
  EXPECT_EQ(Text(pdb, {"spec", "selector", "matchLabels", "app.kubernetes.io/instance"}), "resnet");
  EXPECT_EQ(Text(Doc(*m, "Deployment"), {"spec", "template", "metadata", "labels", "app.kubernetes.io/instance"}),
            "resnet");
}

TEST(ServingManifestsTest, BatchingAndMonitoringConfigsTravelInTheConfigMap) {
  ServingManifestOptions o = Options();
  o.batching_config_text = "max_batch_size { value: 32 }\n";
  o.monitoring_config_text = "prometheus_config { enable: true path: \"/metrics\" }\n";
  o.metrics_path = "/metrics";
  o.grpc_port = 0;
  auto m = BuildServingManifests(o);
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  EXPECT_EQ(Text(Doc(*m, "ConfigMap"), {"data", "batching.config"}), o.batching_config_text);
  const YamlNode& c = *Doc(*m, "Deployment").Path({"spec", "template", "spec", "containers", "0"});
  const YamlNode& args = *c.Find("args");
  EXPECT_EQ(args.At(args.size() - 2)->text(), "--batching_parameters_file=/etc/tfhost/batching.config");
  EXPECT_EQ(args.At(args.size() - 1)->text(), "--monitoring_config_file=/etc/tfhost/monitoring.config");
  EXPECT_EQ(Text(c, {"ports", "1"}), "<absent>");  // no gRPC port
  EXPECT_EQ(Doc(*m, "Service").Path({"spec", "ports", "1"}), nullptr);
}

TEST(ServingManifestsTest, AChangedConfigChangesThePodTemplate) {
  ServingManifestOptions o = Options();
  auto before = BuildServingManifests(o);
  o.model_config_text += "# v2\n";
  auto after = BuildServingManifests(o);
  ASSERT_TRUE(before.ok() && after.ok());
  const std::vector<std::string> path = {"spec", "template", "metadata", "annotations", "tfhost.io/config-crc32c"};
  EXPECT_EQ(Text(Doc(*before, "Deployment"), path).size(), 8u);
  EXPECT_NE(Text(Doc(*before, "Deployment"), path), Text(Doc(*after, "Deployment"), path));
}

TEST(ServingManifestsTest, StreamSeparatesDocumentsForKubectl) {
  auto m = BuildServingManifests(Options());
  ASSERT_TRUE(m.ok());
  const std::string y = ToYamlStream(*m);
  EXPECT_EQ(y.rfind("---\napiVersion: v1\nkind: ConfigMap\n", 0), 0u) << y;
  EXPECT_NE(y.find("---\napiVersion: apps/v1\nkind: Deployment\n"), std::string::npos);
  EXPECT_NE(y.find("prometheus.io/scrape: \"true\"\n"), std::string::npos) << y;
  EXPECT_NE(y.find("  models.config: |\n    model_config_list {\n"), std::string::npos) << y;
}

}  // namespace
}  // namespace tfhost::host::k8s
