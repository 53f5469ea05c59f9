// Runs grpc_client_check.py against the built `tfhost serve` in the project's
// Python environment (scripts/py: TensorFlow and TF Serving's own client
// package, tensorflow-serving-api): TF Serving's generated stubs call every
// PredictionService and ModelService method, replay grpc_cases.json (where
// the shared fixtures are), check error codes and texts, the message size
// limit, a 2 s run of the 64-stream load generator with zero errors, and that
// SIGTERM drains and exits 0, on TF Serving's test models (the fixtures'
// copies, else the zoo's generated equivalents: test_tfserving_models.h); then
// a few zoo models ($TFHOST_ZOO_DIR, which the ctest sets from
// tests/zoo/zoo_dir.sh --ensure) answer TensorFlow's recorded inputs with
// TensorFlow's recorded outputs. The script bounds every wait; `timeout`
// bounds the whole run.
#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <string>

#include "base/test_tfserving_models.h"

namespace {

// Runs `command` (stderr folded in); returns its exit status and output.
int RunCommand(const std::string& command, std::string* output) {
  FILE* pipe = ::popen((command + " 2>&1").c_str(), "r");
  if (pipe == nullptr) return -1;
  std::array<char, 4096> buf;
  while (size_t n = std::fread(buf.data(), 1, buf.size(), pipe)) output->append(buf.data(), n);
  return ::pclose(pipe);
}

TEST(ServingGrpcClientTest, TfServingClientPackageExercisesEveryMethodOfTheRealServer) {
  std::string models = tfhost::testing::TfServingModelPath("saved_model_half_plus_two_cpu");
  TFHOST_REQUIRE_TFSERVING_MODEL(models);
  // scripts/py makes the environment on first use (pip, minutes); `make deps`
  // makes it ahead. A failure here is an environment problem, not tfhost's.
  std::string probe_output;
  int probe = RunCommand("timeout -k 5 600 " TFHOST_SCRIPTS_PY
                  " -c 'import grpc, tensorflow, tensorflow_serving.apis.prediction_service_pb2_grpc'",
                  &probe_output);
  ASSERT_EQ(probe, 0) << "the project's Python environment (" TFHOST_SCRIPTS_PY
                         ", made by `make deps` from requirements/test.txt) cannot import grpc, tensorflow and "
                         "tensorflow_serving.apis:\n"
                      << probe_output;
  std::string command = "timeout -k 5 560 " TFHOST_SCRIPTS_PY " " SERVING_GRPC_TEST_DIR "/grpc_client_check.py"
                        " --tfhost " TFHOST_BINARY " --load " TFHOST_GRPC_LOAD " --fixtures '" +
                        tfhost::testing::FixturesDir() + "'";
  std::string output;
  int status = RunCommand(command, &output);
  EXPECT_EQ(status, 0) << output;
  EXPECT_NE(output.find("0 failure(s)"), std::string::npos) << output;
  // Shown on success too: which zoo models were served, or why the pass was skipped.
  std::printf("%s", output.c_str());
}

}  // namespace
