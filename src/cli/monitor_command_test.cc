// `tfhost monitor` in-process: one sample of this machine (which may have no
// GPU), recorded GPU metrics, the JSON-lines recording, and bad flags.
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

TEST(MonitorCommandTest, OnceJsonOnThisMachine) {
  CliResult r = Cli({"monitor", "--once", "--json", "--interval", "0.1"});
  ASSERT_EQ(r.code, kExitOk) << r.err;
  rapidjson::Document doc;
  doc.Parse(r.out.c_str());
  ASSERT_FALSE(doc.HasParseError()) << r.out;
  EXPECT_GT(doc["interval_s"].GetDouble(), 0.05);
  EXPECT_GE(doc["cpu_busy_pct"].GetDouble(), 0.0);
  EXPECT_NE(r.err.find("own cost"), std::string::npos) << r.err;
}

TEST(MonitorCommandTest, DashboardShowsRecordedGpus) {
  CliResult r = Cli({"monitor", "--once", "--interval", "0.1", "--nvml-xml", TestData("dgx_a100/nvidia-smi-q.xml")});
  ASSERT_EQ(r.code, kExitOk) << r.err;
  EXPECT_NE(r.out.find("GPU7 NVIDIA A100-SXM4-80GB"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("CPU ["), std::string::npos);
}

TEST(MonitorCommandTest, RecordAppendsOneJsonLinePerSample) {
  std::string path = ::testing::TempDir() + "monitor_record_" + std::to_string(::getpid()) + ".jsonl";
  std::filesystem::remove(path);
  CliResult r = Cli({"monitor", "--count", "3", "--interval", "0.05", "--no-gpu", "--json", "--record", path});
  ASSERT_EQ(r.code, kExitOk) << r.err;
  std::ifstream in(path);
  std::string line;
  int lines = 0;
  while (std::getline(in, line)) {
    rapidjson::Document doc;
    doc.Parse(line.c_str());
    EXPECT_FALSE(doc.HasParseError()) << line;
    ++lines;
  }
  EXPECT_EQ(lines, 3);
  std::filesystem::remove(path);
}

TEST(MonitorCommandTest, BadFlagsAreUsageErrors) {
  EXPECT_EQ(Cli({"monitor", "--interval", "0"}).code, kExitUsage);
  EXPECT_EQ(Cli({"monitor", "--interval", "fast"}).code, kExitUsage);
  EXPECT_EQ(Cli({"monitor", "--count", "-1"}).code, kExitUsage);
  EXPECT_EQ(Cli({"monitor", "--once", "--prometheus", "nonsense"}).code, kExitFailure);
}

}  // namespace
}  // namespace tfhost::cli
