// Runs grpc_client_check.py against the built `tfhost serve`: a Python grpcio
// client (Debian's python3-grpcio, message classes built from tfhost's own
// .proto files) calls every PredictionService and ModelService method,
// replays grpc_cases.json, checks error codes and texts, the message size
// limit, a 2 s run of the 64-stream load generator with zero errors, and that
// SIGTERM drains and exits 0. The script bounds every wait;
// `timeout` bounds the whole run.
#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "base/test_fixtures.h"

namespace {

// A python3 that has grpcio and protobuf (Debian's, even under pyenv), or "".
std::string PythonWithGrpc() {
  for (const char* python : {"/usr/bin/python3", "python3"}) {
    std::string probe = std::string(python) + " -c 'import grpc, google.protobuf' >/dev/null 2>&1";
    if (std::system(probe.c_str()) == 0) return python;
  }
  return "";
}

TEST(ServingGrpcClientTest, PythonGrpcioClientExercisesEveryMethodOfTheRealServer) {
  std::string models = tfhost::testing::FixturePath("models/tfserving/saved_model_half_plus_two_cpu");
  TFHOST_REQUIRE_FIXTURE(models);
  std::string python = PythonWithGrpc();
  ASSERT_FALSE(python.empty()) << "no python3 with grpcio and protobuf (Debian: python3-grpcio python3-protobuf)";
  std::string command = "timeout -k 5 280 " + python + " " SERVING_GRPC_TEST_DIR "/grpc_client_check.py" +
                        " --tfhost " TFHOST_BINARY " --protoc " TFHOST_PROTOC " --proto_dir " TFHOST_PROTO_DIR +
                        " --load " TFHOST_GRPC_LOAD " --fixtures '" + tfhost::testing::FixturesDir() + "' 2>&1";
  FILE* pipe = ::popen(command.c_str(), "r");
  ASSERT_NE(pipe, nullptr);
  std::string output;
  std::array<char, 4096> buf;
  while (size_t n = std::fread(buf.data(), 1, buf.size(), pipe)) output.append(buf.data(), n);
  int status = ::pclose(pipe);
  EXPECT_EQ(status, 0) << output;
  EXPECT_NE(output.find("0 failure(s)"), std::string::npos) << output;
}

}  // namespace
