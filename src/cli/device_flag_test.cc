// --device on `run` and `bench`, through the binary: spellings, a GPU that
// is not usable, auto falling back to the CPU, and a whole run on a GPU
// backend, made possible here by a stand-in CUDA plugin whose one "GPU"
// (cuda:0) is the fake device backend (src/backends/testing).
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

namespace tfhost::cli {
namespace {

namespace fs = std::filesystem;

struct Result {
  int code = -1;
  std::string output;  // stdout and stderr
};

Result Shell(const std::string& command) {
  Result r;
  FILE* p = ::popen((command + " 2>&1").c_str(), "r");
  if (p == nullptr) return r;
  char buffer[4096];
  size_t n;
  while ((n = std::fread(buffer, 1, sizeof(buffer), p)) > 0) r.output.append(buffer, n);
  const int status = ::pclose(p);
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

class DeviceFlagTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new std::string((fs::temp_directory_path() / ("tfhost_device_" + std::to_string(::getpid()))).string());
    ASSERT_EQ(Shell(std::string(TFHOST_BINARY) + " demo-models " + *dir_).code, 0);
    // Relu, Softmax, Relu: nothing the graph passes fuse, so the fake GPU
    // (which takes Relu) gets two nodes and the host the Softmax between.
    std::ofstream(*dir_ + "/relu_softmax.pbtxt")
        << "node { name: 'x' op: 'Placeholder' attr { key: 'dtype' value { type: DT_FLOAT } } "
           "attr { key: 'shape' value { shape { dim { size: -1 } dim { size: 4 } } } } }\n"
           "node { name: 'r1' op: 'Relu' input: 'x' attr { key: 'T' value { type: DT_FLOAT } } }\n"
           "node { name: 's' op: 'Softmax' input: 'r1' attr { key: 'T' value { type: DT_FLOAT } } }\n"
           "node { name: 'y' op: 'Relu' input: 's' attr { key: 'T' value { type: DT_FLOAT } } }\n";
  }
  static void TearDownTestSuite() {
    fs::remove_all(*dir_);
    delete dir_;
  }
  static std::string Mlp() { return *dir_ + "/mlp"; }
  static std::string Chain() { return *dir_ + "/relu_softmax.pbtxt"; }
  static std::string* dir_;
};
std::string* DeviceFlagTest::dir_ = nullptr;

const std::string kInput = " --input 'x=[[1.0, -2.0, 3.0, -4.0]]'";

TEST_F(DeviceFlagTest, UnknownDeviceIsAUsageErrorNamingTheSpellings) {
  Result r = Shell(std::string(TFHOST_BINARY) + " run " + Mlp() + kInput + " --device tpu");
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_NE(r.output.find("tfhost run: --device 'tpu' is not one of: cpu, gpu, gpu:N, auto"), std::string::npos)
      << r.output;
}

// Without a usable GPU (no driver here, or no CUDA plugin in this build),
// gpu fails saying why and auto runs on the CPU saying why; on a machine
// with a GPU both run.
TEST_F(DeviceFlagTest, GpuWithoutAUsableOneFailsSayingWhyAndAutoFallsBackToTheCpu) {
  Result gpu = Shell("env -u TFHOST_PLUGIN_PATH " + std::string(TFHOST_BINARY) + " run " + Mlp() + kInput +
                     " --device gpu");
  Result automatic = Shell("env -u TFHOST_PLUGIN_PATH " + std::string(TFHOST_BINARY) + " run " + Mlp() + kInput +
                           " --device auto");
  ASSERT_EQ(automatic.code, 0) << automatic.output;
  if (gpu.code != 0) {
    EXPECT_EQ(gpu.code, 1) << gpu.output;
    EXPECT_NE(gpu.output.find("tfhost run: --device gpu:0: "), std::string::npos) << gpu.output;
    EXPECT_NE(automatic.output.find("tfhost run: --device auto: no usable GPU ("), std::string::npos)
        << automatic.output;
    EXPECT_NE(automatic.output.find("); running on the CPU\n"), std::string::npos) << automatic.output;
  }
}

TEST_F(DeviceFlagTest, RunOnTheGpuBackendGivesTheCpusAnswer) {
  const std::string plugin = std::string("TFHOST_PLUGIN_PATH=") + TFHOST_FAKE_CUDA_PLUGIN_DIR + " ";
  const std::string run = " run " + Chain() + " --input 'x=[[1.0, -2.0, 3.0, -4.0]]' --fetch y:0";
  Result cpu = Shell(std::string(TFHOST_BINARY) + run);
  Result gpu = Shell(plugin + TFHOST_BINARY + run + " --device gpu");
  ASSERT_EQ(cpu.code, 0) << cpu.output;
  ASSERT_EQ(gpu.code, 0) << gpu.output;
  EXPECT_EQ(gpu.output, cpu.output);
  // Where the nodes ran: both Relus on the GPU, the Softmax on the host,
  // three copies between (x in, r1 out, s in; y comes back with the fetch).
  Result bench = Shell(plugin + TFHOST_BINARY + " bench " + Chain() +
                       " --device gpu:0 --shape x=1,4 --runs 2 --warmup 0 --profile");
  ASSERT_EQ(bench.code, 0) << bench.output;
  EXPECT_NE(bench.output.find("  placement: cuda:0 2, reference 1, simd 1; 3 copies\n"), std::string::npos)
      << bench.output;
  EXPECT_NE(bench.output.find("x/_copy_0_to_device:0"), std::string::npos) << bench.output;
  Result missing = Shell(plugin + TFHOST_BINARY + run + " --device gpu:1");
  EXPECT_EQ(missing.code, 1) << missing.output;
  EXPECT_NE(missing.output.find("tfhost run: --device gpu:1: no cuda:1 among the usable GPUs (cuda:0)"),
            std::string::npos)
      << missing.output;
}

}  // namespace
}  // namespace tfhost::cli
