// `tfhost doctor` in-process on the recorded snapshots, with the job
// environment given through --env-file, and for real on this machine.
#include <gtest/gtest.h>
#include <rapidjson/document.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "cli/cli.h"
#include "cli/cli_test_util.h"

namespace tfhost::cli {
namespace {

std::string TestData(const std::string& name) {
  const char* src = std::getenv("TFHOST_SOURCE_DIR");
  return std::string(src ? src : ".") + "/src/host/testdata/" + name;
}

// An env file unique to this process and test.
class EnvFile {
 public:
  explicit EnvFile(const std::string& text) {
    path_ = ::testing::TempDir() + "doctor_env_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name();
    std::ofstream(path_) << text;
  }
  ~EnvFile() { std::filesystem::remove(path_); }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

TEST(DoctorCommandTest, PcieWorkstationExitsTwoAndExplainsEachFinding) {
  EnvFile env("export NCCL_SOCKET_IFNAME=eth\nTF_CPP_MIN_LOG_LEVEL='3'\n# a comment\n");
  CliResult r = Cli({"doctor", "--root", TestData("pcie_4gpu"), "--env-file", env.path(), "--tf-version", "2.13",
                  "--data", "/mnt/ds/train"});
  EXPECT_EQ(r.code, 2) << r.out << r.err;
  for (const char* id : {"[ERROR] nccl_socket_ifname_no_match", "[WARNING] tf_cpp_min_log_level_hides_errors",
                         "[WARNING] host_ram_vs_gpu_memory", "[WARNING] multi_gpu_without_nvlink",
                         "[WARNING] data_on_network_filesystem", "[ERROR] memlock_limited_with_rdma"}) {
    EXPECT_NE(r.out.find(id), std::string::npos) << id << "\n" << r.out;
  }
  EXPECT_NE(r.out.find("  fix:      "), std::string::npos);
  EXPECT_NE(r.out.find("4 GPU(s)"), std::string::npos);
}

TEST(DoctorCommandTest, WarningsOnlyExitOne) {
  EnvFile env("TF_CPP_MIN_LOG_LEVEL=3\n");
  CliResult r = Cli({"doctor", "--root", TestData("dgx_a100"), "--env-file", env.path()});
  EXPECT_EQ(r.code, 1) << r.out << r.err;
}

TEST(DoctorCommandTest, CleanDgxExitsZeroAndJsonSaysSo) {
  EnvFile env("TF_CONFIG={\"cluster\": {\"worker\": [\"dgx-a100-01:2222\"]}, \"task\": {\"type\": \"worker\", \"index\": 0}}\n");
  CliResult r = Cli({"doctor", "--json", "--root", TestData("dgx_a100"), "--env-file", env.path(), "--data",
                  "/raid/cache"});
  EXPECT_EQ(r.code, 0) << r.out << r.err;
  rapidjson::Document doc;
  doc.Parse(r.out.c_str());
  ASSERT_FALSE(doc.HasParseError()) << r.out;
  EXPECT_EQ(doc["status"].GetInt(), 0);
  EXPECT_EQ(doc["findings"].Size(), 0u);
}

TEST(DoctorCommandTest, ServePurposeSkipsTrainingOnlyRules) {
  EnvFile env("");
  CliResult r = Cli({"doctor", "--for", "serve", "--root", TestData("pcie_4gpu"), "--env-file", env.path()});
  EXPECT_EQ(r.out.find("multi_gpu_without_nvlink"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("checking for serve"), std::string::npos);
}

TEST(DoctorCommandTest, RunsOnThisMachine) {
  CliResult r = Cli({"doctor"});
  EXPECT_GE(r.code, 0);
  EXPECT_LE(r.code, 2);
  EXPECT_NE(r.out.find("tfhost doctor: "), std::string::npos) << r.err;
  EXPECT_NE(r.out.find("error(s)"), std::string::npos);
}

TEST(DoctorCommandTest, BadFlagsAndFilesAreReported) {
  EXPECT_EQ(Cli({"doctor", "--for", "play"}).code, kExitUsage);
  EXPECT_EQ(Cli({"doctor", "--strategy", "horovod"}).code, kExitUsage);
  CliResult missing = Cli({"doctor", "--env-file", "/no/such/env"});
  EXPECT_EQ(missing.code, kExitFailure);
  EXPECT_NE(missing.err.find("/no/such/env"), std::string::npos);
  EnvFile bad("NOT A SETTING\n");
  CliResult r = Cli({"doctor", "--env-file", bad.path()});
  EXPECT_EQ(r.code, kExitFailure);
  EXPECT_NE(r.err.find(":1: expected KEY=VALUE"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace tfhost::cli
