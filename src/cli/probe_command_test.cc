// `tfhost probe` in-process: for real on this machine (which may have no
// GPU) and on the recorded snapshots in src/host/testdata.
#include <gtest/gtest.h>
#include <rapidjson/document.h>

#include <cstdlib>
#include <sstream>

#include "cli/cli.h"

namespace tfhost::cli {
namespace {

struct Result {
  int code;
  std::string out, err;
};

Result Cli(const std::vector<std::string>& args) {
  std::ostringstream out, err;
  int code = RunCli(args, out, err);
  return {code, out.str(), err.str()};
}

std::string TestData(const std::string& name) {
  const char* src = std::getenv("TFHOST_SOURCE_DIR");
  return std::string(src ? src : ".") + "/src/host/testdata/" + name;
}

TEST(ProbeCommandTest, JsonOnThisMachineParsesAndExplainsAMissingGpu) {
  Result r = Cli({"probe", "--json"});
  ASSERT_EQ(r.code, kExitOk) << r.err;
  rapidjson::Document doc;
  doc.Parse(r.out.c_str());
  ASSERT_FALSE(doc.HasParseError()) << r.out.substr(0, 400);
  ASSERT_TRUE(doc.HasMember("cpu") && doc["cpu"]["logical_cpus"].GetInt() > 0);
  const auto& nv = doc["nvidia"];
  if (!nv["nvml_loaded"].GetBool()) {
    EXPECT_GT(nv["nvml_error"].GetStringLength(), 0u);
    EXPECT_EQ(nv["gpus"].Size(), 0u);
  }
}

TEST(ProbeCommandTest, TextOnThisMachineHasEverySection) {
  Result r = Cli({"probe"});
  ASSERT_EQ(r.code, kExitOk) << r.err;
  for (const char* section : {"CPU\n", "NUMA\n", "Memory\n", "Disks\n", "Network\n", "RDMA\n", "GPUs\n",
                              "CUDA libraries\n", "Environment\n", "Limits\n"}) {
    EXPECT_NE(r.out.find(section), std::string::npos) << section << "\n" << r.out;
  }
}

TEST(ProbeCommandTest, ReplaysTheDgxSnapshot) {
  Result r = Cli({"probe", "--root", TestData("dgx_a100"), "--path", "/mnt/datasets/imagenet"});
  ASSERT_EQ(r.code, kExitOk) << r.err;
  EXPECT_NE(r.out.find("GPU7: NVIDIA A100-SXM4-80GB, 80.0 GiB, sm_80"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("mlx5_0 port 1: InfiniBand, ACTIVE, 200 Gb/sec (4X HDR)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("path /mnt/datasets/imagenet: on /mnt/datasets (nfs4, network filesystem)"), std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("NV12"), std::string::npos);
}

TEST(ProbeCommandTest, NvmlRecordingFlagsOverrideTheLiveGpus) {
  Result r = Cli({"probe", "--json", "--nvml-xml", TestData("pcie_4gpu/nvidia-smi-q.xml")});
  ASSERT_EQ(r.code, kExitOk) << r.err;
  EXPECT_NE(r.out.find("\"name\": \"NVIDIA RTX A6000\""), std::string::npos);
}

TEST(ProbeCommandTest, UnknownFlagIsAUsageError) {
  Result r = Cli({"probe", "--jsn"});
  EXPECT_EQ(r.code, kExitUsage);
  EXPECT_NE(r.err.find("--json"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace tfhost::cli
