// `tfhost advise` in-process on a recording written the way `tfhost monitor
// --record` writes it, with the HTML report, and live for a short window.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "cli/cli.h"
#include "cli/cli_test_util.h"
#include "host/monitor/monitor.h"

namespace tfhost::cli {
namespace {

std::string Temp(const std::string& name) {
  return ::testing::TempDir() + "advise_" + std::to_string(::getpid()) + "_" + name;
}

TEST(AdviseCommandTest, InputBoundRecordingWithHtmlReport) {
  std::string rec = Temp("rec.jsonl"), html = Temp("report.html");
  {
    std::ofstream o(rec);
    for (int i = 0; i <= 30; ++i) {
      host::MonitorSample s;
      s.time_s = 1700000000 + i;
      s.hostname = "trainer-3";
      s.host.interval_s = i ? 1 : 0;
      s.host.cpu_busy_pct = 97;
      host::GpuSample g;
      g.index = 0;
      g.util_pct = 38;
      g.mem_total_bytes = 16ull << 30;
      g.mem_used_bytes = 6ull << 30;
      s.gpus.push_back(g);
      o << host::FormatSampleJsonLine(s) << "\n";
    }
  }
  CliResult r = Cli({"advise", rec, "--html", html});
  EXPECT_EQ(r.code, kExitFailure) << r.err;
  EXPECT_NE(r.out.find("[WARNING] input_bound"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("GPU utilisation mean 38%"), std::string::npos);
  std::ifstream in(html);
  std::string page((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_NE(page.find("<svg"), std::string::npos);
  EXPECT_NE(page.find("trainer-3"), std::string::npos);
  std::filesystem::remove(rec);
  std::filesystem::remove(html);
}

// The first-user path on a machine without GPUs: monitor records host
// counters only; advise must not claim anything about GPUs in any output.
TEST(AdviseCommandTest, RecordingWithoutGpusListsUnjudgedRulesInTextJsonAndHtml) {
  std::string rec = Temp("nogpu.jsonl"), html = Temp("nogpu.html");
  std::filesystem::remove(rec);
  CliResult m = Cli({"monitor", "--no-gpu", "--record", rec, "--count", "2", "--interval", "0.05", "--json"});
  ASSERT_EQ(m.code, kExitOk) << m.err;
  CliResult text = Cli({"advise", rec, "--html", html});
  EXPECT_TRUE(text.code == kExitOk || text.code == kExitFailure) << text.err;
  EXPECT_NE(text.out.find("tfhost advise: 2 samples, 0 GPU(s)\n"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("  input_bound: no GPU samples in the recording\n"
                          "  memory_bound: no GPU samples in the recording\n"
                          "  launch_bound: no GPU samples in the recording\n"
                          "  host_device_copies: no GPU samples in the recording\n"
                          "  gpu_throttled: no GPU samples in the recording\n"),
            std::string::npos)
      << text.out;
  CliResult json = Cli({"advise", rec, "--json"});
  EXPECT_NE(json.out.find("\"id\": \"gpu_throttled\",\n            \"reason\": \"no GPU samples in the recording\""),
            std::string::npos)
      << json.out;
  std::ifstream in(html);
  std::string page((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_NE(page.find("<li><span class=\"id\">input_bound</span>: no GPU samples in the recording</li>"),
            std::string::npos)
      << page;
  for (const std::string* out : {&text.out, &json.out, &page}) {
    EXPECT_EQ(out->find("GPUs were busy"), std::string::npos) << *out;
    EXPECT_EQ(out->find("nothing throttled"), std::string::npos) << *out;
  }
  std::filesystem::remove(rec);
  std::filesystem::remove(html);
}

TEST(AdviseCommandTest, LiveWindowOnThisMachine) {
  CliResult r = Cli({"advise", "--live", "--duration", "0.3", "--interval", "0.1"});
  EXPECT_TRUE(r.code == kExitOk || r.code == kExitFailure) << r.err;
  EXPECT_NE(r.out.find("tfhost advise: 3 samples"), std::string::npos) << r.out;
}

TEST(AdviseCommandTest, UsageAndFileErrors) {
  EXPECT_EQ(Cli({"advise"}).code, kExitUsage);
  EXPECT_EQ(Cli({"advise", "x.jsonl", "--live"}).code, kExitUsage);
  CliResult missing = Cli({"advise", "/no/such/recording.jsonl"});
  EXPECT_EQ(missing.code, kExitFailure);
  EXPECT_NE(missing.err.find("/no/such/recording.jsonl"), std::string::npos);
  std::string bad = Temp("bad.jsonl");
  std::ofstream(bad) << "{\"time\": 1}\n{oops\n";
  CliResult r = Cli({"advise", bad});
  EXPECT_EQ(r.code, kExitFailure);
  EXPECT_NE(r.err.find("recording line 2"), std::string::npos) << r.err;
  std::filesystem::remove(bad);
}

}  // namespace
}  // namespace tfhost::cli
