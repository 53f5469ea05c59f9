// `tfhost serve --emit k8s` in-process: which serve flags reach the pod and
// how, where the output goes, and the usage errors that name a flag.
// tests/k8s validates the same output against Kubernetes' schemas.
#include "cli/serve_emit.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "cli/cli.h"

namespace tfhost::cli {
namespace {

namespace fs = std::filesystem;

struct ServeRun {
  int code;
  std::string out, err;
};

ServeRun Serve(std::vector<std::string> args) {
  std::ostringstream out, err;
  const int code = ServeCommand(args, out, err);
  return {code, out.str(), err.str()};
}

class ServeEmitTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("serve_emit_test_" + std::to_string(::getpid()));
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string Write(const std::string& name, const std::string& text) {
    const fs::path p = dir_ / name;
    std::ofstream(p) << text;
    return p.string();
  }
  fs::path dir_;
};

TEST_F(ServeEmitTest, ServeFlagsReachThePodAndLocalFilesBecomeTheConfigMap) {
  ServeRun r =
      Serve({"--model_name", "resnet", "--model_base_path=/models/resnet", "--rest_api_timeout_in_ms", "5000",
             "--enable_batching", "--emit", "k8s", "--models_pvc=models", "--image", "reg.example.com/tfhost:1"});
  ASSERT_EQ(r.code, kExitOk) << r.err;
  const std::string& y = r.out;
  EXPECT_EQ(y.rfind("---\napiVersion: v1\nkind: ConfigMap\n", 0), 0u) << y;
  // The equivalent config of --model_name/--model_base_path, in the ConfigMap.
  EXPECT_NE(y.find("    model_config_list {\n      config {\n        name: \"resnet\"\n"
                   "        base_path: \"/models/resnet\"\n"),
            std::string::npos)
      << y;
  // Given flags pass as --name=value; model and emit flags do not.
  EXPECT_NE(y.find("            - serve\n            - --rest_api_timeout_in_ms=5000\n            - --enable_batching\n"
                   "            - --model_config_file=/etc/tfhost/models.config\n"),
            std::string::npos)
      << y;
  EXPECT_EQ(y.find("--model_base_path"), std::string::npos);
  EXPECT_EQ(y.find("--emit"), std::string::npos);
  EXPECT_EQ(y.find("--models_pvc"), std::string::npos);
  EXPECT_NE(y.find("image: reg.example.com/tfhost:1\n"), std::string::npos);
  EXPECT_NE(y.find("claimName: models\n"), std::string::npos);
  // 5 s pause + 10 s default drain + serve's 30 s allowance.
  EXPECT_NE(y.find("terminationGracePeriodSeconds: 45\n"), std::string::npos) << y;
  EXPECT_EQ(r.err, "");
}

TEST_F(ServeEmitTest, SslConfigFileIsRefusedRatherThanPointedAtAPathOfThisHost) {
  const std::string ssl = Write("ssl.config", "server_key: \"k\"\nserver_cert: \"c\"\n");
  ServeRun r = Serve({"--model_name=m", "--model_base_path=/models/m", "--ssl_config_file", ssl, "--emit=k8s"});
  EXPECT_EQ(r.code, kExitUsage) << r.err;
  EXPECT_NE(r.err.find("--emit k8s does not carry --ssl_config_file"), std::string::npos) << r.err;
  EXPECT_EQ(r.out, "");
}

TEST_F(ServeEmitTest, ModelConfigFileIsCarriedVerbatimAndGpuBecomesTheGpuLimit) {
  const std::string config = Write("models.config",
                                   "model_config_list {\n  config {\n    name: \"a\"\n    base_path: \"/models/a\"\n"
                                   "    model_platform: \"tensorflow\"\n  }\n}\n");
  ServeRun r = Serve({"--model_config_file", config, "--device=gpu:3", "--emit=k8s", "--shutdown_timeout_ms=20000"});
  ASSERT_EQ(r.code, kExitOk) << r.err;
  EXPECT_NE(r.out.find("  models.config: |\n    model_config_list {\n      config {\n        name: \"a\"\n"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("nvidia.com/gpu: 1\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("- --device=gpu\n"), std::string::npos) << r.out;  // the pod's only GPU
  EXPECT_NE(r.out.find("image: " + DefaultServeImage() + "\n"), std::string::npos);
  EXPECT_NE(r.out.find("terminationGracePeriodSeconds: 55\n"), std::string::npos);
}

TEST_F(ServeEmitTest, EmitDirWritesOneFilePerObject) {
  const fs::path out = dir_ / "manifests";
  ServeRun r = Serve({"--model_base_path=/models/m", "--emit=k8s", "--emit_dir", out.string(), "--hpa_metric=queue",
                      "--enable_batching"});
  ASSERT_EQ(r.code, kExitOk) << r.err;
  EXPECT_EQ(r.out, "");
  for (const char* name : {"configmap.yaml", "deployment.yaml", "service.yaml", "hpa.yaml", "pdb.yaml"}) {
    EXPECT_TRUE(fs::exists(out / name)) << name;
  }
  std::ifstream hpa(out / "hpa.yaml");
  std::stringstream text;
  text << hpa.rdbuf();
  EXPECT_NE(text.str().find("name: tfhost_serving_batch_queue_depth\n"), std::string::npos) << text.str();
  EXPECT_NE(r.err.find("kubectl apply -f " + out.string()), std::string::npos);
}

TEST_F(ServeEmitTest, BadEmitOptionsAreUsageErrorsNamingTheFlag) {
  for (const auto& [args, message] : std::vector<std::pair<std::vector<std::string>, std::string>>{
           {{"--min_replicas=5", "--max_replicas=3"}, "--min_replicas 5 is above --max_replicas 3"},
           {{"--hpa_metric=latency"}, "--hpa_metric must be cpu (CPU utilization) or queue"},
           {{"--hpa_metric=queue"}, "--hpa_metric queue needs batching"},
           {{"--memory_request=2GB"}, "--memory_request '2GB' is not a Kubernetes quantity"},
           {{"--rest_api_address=127.0.0.1"},
            "--emit k8s: --rest_api_address and --grpc_address must listen on every address"},
           {{"--rest_api_port=0"}, "--emit k8s needs REST (--rest_api_port)"},
           {{"--batching_mode=sometimes"}, "--batching_mode: "},  // serve in the pod would refuse it
           {{"--models_pvc=models", "--models_mount_path=/data"},
            "model base path '/models/m' is not under --models_mount_path /data"},
       }) {
    std::vector<std::string> full = {"--model_base_path=/models/m", "--emit=k8s"};
    full.insert(full.end(), args.begin(), args.end());
    ServeRun r = Serve(full);
    EXPECT_EQ(r.code, kExitUsage) << args[0] << ": " << r.err;
    EXPECT_NE(r.err.find("tfhost serve: " + message), std::string::npos) << r.err;
    EXPECT_EQ(r.out, "");
  }
  ServeRun kind = Serve({"--model_base_path=/models/m", "--emit=helm"});
  EXPECT_EQ(kind.code, kExitUsage);
  EXPECT_NE(kind.err.find("--emit must be k8s, got 'helm'"), std::string::npos) << kind.err;
  ServeRun none = Serve({"--emit=k8s"});
  EXPECT_EQ(none.code, kExitUsage);
  EXPECT_NE(none.err.find("--emit k8s needs the models to serve"), std::string::npos) << none.err;
}

TEST_F(ServeEmitTest, EmitOnlyFlagsWithoutEmitAreUsageErrors) {
  ServeRun r = Serve({"--model_base_path=/models/m", "--image", "x:1"});
  EXPECT_EQ(r.code, kExitUsage);
  EXPECT_NE(r.err.find("--image is for --emit k8s only"), std::string::npos) << r.err;
}

// Every flag whose help says it is for --emit is kept out of the pod's serve
// command and refused without --emit, so a flag added to one list and not
// the other fails here.
TEST_F(ServeEmitTest, EveryFlagHelpMarksForEmitIsKnownAsEmitOnly) {
  ServeRun help = Serve({"--help"});
  ASSERT_EQ(help.code, kExitOk);
  std::istringstream lines(help.out);
  std::string line, flag;
  int checked = 0;
  while (std::getline(lines, line)) {
    if (line.rfind("  --", 0) == 0) flag = line.substr(4, line.find(' ', 4) - 4);
    if (flag.empty() || (line.find(" --emit: ") == std::string::npos && flag != "emit")) continue;
    ServeEmitFlags defaults;
    EXPECT_NE(EmitOnlyFlagsWithoutEmit({"--" + flag + "=1"}, defaults), "") << flag;
    ++checked;
    flag.clear();
  }
  EXPECT_GE(checked, 18) << help.out;
}

TEST_F(ServeEmitTest, UnreadableConfigFileIsAFailureNamingTheFlag) {
  ServeRun r = Serve({"--model_config_file", (dir_ / "missing.config").string(), "--emit=k8s"});
  EXPECT_EQ(r.code, kExitFailure);
  EXPECT_NE(r.err.find("--model_config_file '" + (dir_ / "missing.config").string() + "' cannot be read"),
            std::string::npos)
      << r.err;
}

}  // namespace
}  // namespace tfhost::cli
