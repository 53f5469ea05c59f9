#include <gtest/gtest.h>

#include "host/k8s/serving_manifests.h"

namespace tfhost::host::k8s {
namespace {

ServingManifestOptions Valid() {
  ServingManifestOptions o;
  o.image = "tfhost:0.1.0";
  o.model_config_text = "model_config_list { config { name: \"m\" base_path: \"/models/m\" } }\n";
  o.model_base_paths = {"/models/m"};
  o.models_pvc = "models";
  return o;
}

// The error's code, and that its message holds every one of `parts`.
void ExpectInvalid(const ServingManifestOptions& o, const std::vector<std::string>& parts) {
  Status st = ValidateServingManifestOptions(o);
  ASSERT_EQ(st.code(), StatusCode::kInvalidArgument) << st.ToString();
  for (const std::string& p : parts) EXPECT_NE(st.message().find(p), std::string::npos) << st.message();
}

TEST(ServingManifestChecksTest, DefaultsWithImageAndModelsAreValid) {
  Status st = ValidateServingManifestOptions(Valid());
  EXPECT_TRUE(st.ok()) << st.ToString();
}

TEST(ServingManifestChecksTest, MinReplicasAboveMaxNamesBothFlags) {
  ServingManifestOptions o = Valid();
  o.min_replicas = 5;
  o.max_replicas = 3;
  ExpectInvalid(o, {"--min_replicas 5", "--max_replicas 3", "min <= max"});
  o.min_replicas = 0;
  ExpectInvalid(o, {"--min_replicas", "between 1 and"});
}

TEST(ServingManifestChecksTest, UnknownHpaMetricNamesTheFlagAndTheChoices) {
  auto m = ParseHpaMetric("latency");
  ASSERT_EQ(m.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(m.status().message().find("--hpa_metric"), std::string::npos);
  EXPECT_NE(m.status().message().find("cpu"), std::string::npos);
  EXPECT_NE(m.status().message().find("queue"), std::string::npos);
  EXPECT_NE(m.status().message().find("'latency'"), std::string::npos);
  EXPECT_EQ(*ParseHpaMetric("queue"), HpaMetric::kQueue);
}

TEST(ServingManifestChecksTest, QueueAutoscalingNeedsBatchingAndMetrics) {
  ServingManifestOptions o = Valid();
  o.hpa_metric = HpaMetric::kQueue;
  ExpectInvalid(o, {"--hpa_metric queue", "--enable_batching"});
  o.batching = true;
  EXPECT_TRUE(ValidateServingManifestOptions(o).ok());
  o.metrics_path.clear();
  ExpectInvalid(o, {"--hpa_metric queue", "--monitoring_config_file"});
}

TEST(ServingManifestChecksTest, QuantitiesMustParseAndRequestsStayWithinLimits) {
  ServingManifestOptions o = Valid();
  o.memory_request = "2GB";
  ExpectInvalid(o, {"--memory_request '2GB'", "Kubernetes quantity", "512Mi"});
  o.memory_request = "1.5Gi";
  o.memory_limit = "1024Mi";
  ExpectInvalid(o, {"--memory_limit 1024Mi", "--memory_request 1.5Gi"});
  o.memory_limit = "2Gi";
  o.cpu_request = "500m";
  o.cpu_limit = "1e0";
  EXPECT_TRUE(ValidateServingManifestOptions(o).ok());
  o.cpu_limit = "250m";
  ExpectInvalid(o, {"--cpu_limit 250m", "--cpu_request 500m"});
  o.cpu_limit = "1.2.3";
  ExpectInvalid(o, {"--cpu_limit '1.2.3'"});
}

TEST(ServingManifestChecksTest, NamesMustBeDnsLabels) {
  ServingManifestOptions o = Valid();
  o.name = "ResNet";
  ExpectInvalid(o, {"--k8s_name 'ResNet'", "lowercase"});
  o.name = "9lives";
  ExpectInvalid(o, {"--k8s_name", "starting with a letter"});
  o.name = std::string(57, 'a');
  ExpectInvalid(o, {"--k8s_name", "1-56"});
  o.name = "ok";
  o.namespace_name = "-ml";
  ExpectInvalid(o, {"--k8s_namespace '-ml'"});
  o.namespace_name = "ml";
  o.models_pvc = "Models_1";
  ExpectInvalid(o, {"--models_pvc 'Models_1'"});
}

TEST(ServingManifestChecksTest, ModelPathsMustBeAbsoluteAndUnderTheMountedClaim) {
  ServingManifestOptions o = Valid();
  o.model_base_paths = {"/srv/models/m"};
  ExpectInvalid(o, {"'/srv/models/m'", "--models_mount_path /models", "--models_pvc models"});
  o.models_pvc.clear();  // baked into the image: any absolute path
  EXPECT_TRUE(ValidateServingManifestOptions(o).ok());
  o.model_base_paths = {"models/m"};
  ExpectInvalid(o, {"'models/m'", "relative"});
  o.model_base_paths = {"/models/m"};
  o.models_mount_path = "/etc/tfhost/models";
  ExpectInvalid(o, {"--models_mount_path", "/etc/tfhost"});
  o.models_mount_path = "/models";
  o.model_config_text.clear();
  ExpectInvalid(o, {"--model_base_path", "--model_config_file"});
}

TEST(ServingManifestChecksTest, ProbesNeedTheRestPortAndPortsMustDiffer) {
  ServingManifestOptions o = Valid();
  o.rest_port = 0;
  ExpectInvalid(o, {"--rest_api_port", "probes"});
  o.rest_port = 8500;
  ExpectInvalid(o, {"--port and --rest_api_port", "8500"});
  o.rest_port = 8501;
  o.prestop_seconds = -1;
  ExpectInvalid(o, {"--k8s_prestop_seconds", "got -1"});
  o.prestop_seconds = 5;
  o.image = "";
  ExpectInvalid(o, {"--image"});
}

}  // namespace
}  // namespace tfhost::host::k8s
