// `tfhost probe` in-process: for real on this machine (which may have no
// GPU) and on the recorded snapshots in src/host/testdata.
#include <gtest/gtest.h>
#include <rapidjson/document.h>

#include <cstdio>
#include <cstdlib>

#include "cli/cli.h"
#include "cli/cli_test_util.h"

namespace tfhost::cli {
namespace {

std::string TestData(const std::string& name) {
  const char* src = std::getenv("TFHOST_SOURCE_DIR");
  return std::string(src ? src : ".") + "/src/host/testdata/" + name;
}

TEST(ProbeCommandTest, JsonOnThisMachineParsesAndExplainsAMissingGpu) {
  CliResult r = Cli({"probe", "--json"});
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
  CliResult r = Cli({"probe"});
  ASSERT_EQ(r.code, kExitOk) << r.err;
  for (const char* section : {"CPU\n", "NUMA\n", "Memory\n", "Disks\n", "Network\n", "RDMA\n", "GPUs\n",
                              "CUDA libraries\n", "Environment\n", "Limits\n"}) {
    EXPECT_NE(r.out.find(section), std::string::npos) << section << "\n" << r.out;
  }
}

// Runs `command` in a shell and returns what it printed.
std::string Shell(const std::string& command) {
  std::string text;
  if (FILE* p = ::popen(command.c_str(), "r")) {
    char buffer[4096];
    size_t n;
    while ((n = std::fread(buffer, 1, sizeof(buffer), p)) > 0) text.append(buffer, n);
    ::pclose(p);
  }
  return text;
}

// The binary links no CUDA library (the CUDA backend is a plugin it loads at
// run time), so it starts on machines with no driver and no toolkit.
TEST(ProbeCommandTest, TheBinaryLinksNoCudaLibrary) {
  const std::string libs = Shell(std::string("ldd ") + TFHOST_BINARY);
  ASSERT_NE(libs.find("libc.so"), std::string::npos) << libs;
  for (const char* cuda : {"libcuda.", "libcudart", "libcudnn", "libcublas", "libnccl", "libnvrtc"}) {
    EXPECT_EQ(libs.find(cuda), std::string::npos) << cuda << "\n" << libs;
  }
}

// probe lists the backends, and says what the CUDA plugin beside the binary
// gave: GPU backends, or why none (no driver, no device), or that this build
// has none.
TEST(ProbeCommandTest, BackendsSectionSaysWhatTheCudaPluginGave) {
  const std::string json = Shell(std::string(TFHOST_BINARY) + " probe --json 2>/dev/null");
  rapidjson::Document doc;
  doc.Parse(json.c_str());
  ASSERT_FALSE(doc.HasParseError()) << json.substr(0, 400);
  ASSERT_TRUE(doc.HasMember("backends")) << json.substr(0, 400);
  const auto& available = doc["backends"]["available"];
  ASSERT_GE(available.Size(), 1u);
  EXPECT_STREQ(available[available.Size() - 1]["name"].GetString(), "reference");
  const auto& cuda = doc["backends"]["cuda_plugin"];
  const std::string detail = cuda["detail"].GetString();
  if (!cuda["loaded"].GetBool()) {
    EXPECT_EQ(detail.rfind("no libtfhost_cuda.so in ", 0), 0u) << detail;
  } else if (cuda["backends"].GetInt() == 0) {
    EXPECT_EQ(detail.rfind("no usable GPU: ", 0), 0u) << detail;
  } else {
    EXPECT_EQ(detail.rfind("added cuda:0 (", 0), 0u) << detail;
  }
  const std::string text = Shell(std::string(TFHOST_BINARY) + " probe 2>/dev/null");
  EXPECT_NE(text.find("\nBackends:\n  "), std::string::npos) << text;
  EXPECT_NE(text.find("  reference (host, priority 0)\n"), std::string::npos) << text;
  EXPECT_NE(text.find("  cuda plugin: "), std::string::npos) << text;
}

TEST(ProbeCommandTest, ReplaysTheDgxSnapshot) {
  CliResult r = Cli({"probe", "--root", TestData("dgx_a100"), "--path", "/mnt/datasets/imagenet"});
  ASSERT_EQ(r.code, kExitOk) << r.err;
  EXPECT_NE(r.out.find("GPU7: NVIDIA A100-SXM4-80GB, 80.0 GiB, sm_80"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("mlx5_0 port 1: InfiniBand, ACTIVE, 200 Gb/sec (4X HDR)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("path /mnt/datasets/imagenet: on /mnt/datasets (nfs4, network filesystem)"), std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("NV12"), std::string::npos);
}

TEST(ProbeCommandTest, NvmlRecordingFlagsOverrideTheLiveGpus) {
  CliResult r = Cli({"probe", "--json", "--nvml-xml", TestData("pcie_4gpu/nvidia-smi-q.xml")});
  ASSERT_EQ(r.code, kExitOk) << r.err;
  EXPECT_NE(r.out.find("\"name\": \"NVIDIA RTX A6000\""), std::string::npos);
}

TEST(ProbeCommandTest, UnknownFlagIsAUsageError) {
  CliResult r = Cli({"probe", "--jsn"});
  EXPECT_EQ(r.code, kExitUsage);
  EXPECT_NE(r.err.find("--json"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace tfhost::cli
