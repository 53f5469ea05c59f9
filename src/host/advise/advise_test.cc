// Advise rules, each on a synthetic recording that triggers it and one that
// does not; the recording round trip; the HTML report's self-containment.
#include "host/advise/advise.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <set>
#include <sstream>

#include "base/test_status.h"
#include "host/monitor/monitor.h"

namespace tfhost::host {
namespace {

constexpr uint64_t kGiB = 1ull << 30;

struct Shape {
  int gpu_util = 95;
  double cpu_busy = 60;
  double mem_pct = 50;
  double pcie_mbps = 500;  // tx + rx
  std::vector<std::string> throttle;
  int throttled_samples = 0;
  double disk_busy = 20;
  int gpus = 2;
  double nvlink_mbps = -1;  // tx + rx per GPU; -1: not measured
};

// 60 one-second samples (plus the priming sample, which has no rates).
std::vector<MonitorSample> Recording(const Shape& s) {
  std::vector<MonitorSample> out;
  for (int i = 0; i <= 60; ++i) {
    MonitorSample m;
    m.time_s = 1700000000.0 + i;
    m.hostname = "node<1>";
    m.host.interval_s = i == 0 ? 0 : 1;
    m.host.cpu_busy_pct = s.cpu_busy;
    m.host.core_busy_pct = {s.cpu_busy, s.cpu_busy};
    m.host.disks["nvme0n1"].busy_pct = s.disk_busy;
    m.host.disks["nvme0n1"].read_mbps = 1500;
    for (int g = 0; g < s.gpus; ++g) {
      GpuSample x;
      x.index = g;
      x.util_pct = s.gpu_util;
      x.mem_total_bytes = 80 * kGiB;
      x.mem_used_bytes = static_cast<uint64_t>(80.0 * kGiB * s.mem_pct / 100.0);
      x.power_w = 400;
      x.power_limit_w = 700;
      x.pcie_tx_mbps = s.pcie_mbps / 2;
      x.pcie_rx_mbps = s.pcie_mbps / 2;
      x.nvlink_tx_mbps = s.nvlink_mbps < 0 ? -1 : s.nvlink_mbps / 2;
      x.nvlink_rx_mbps = s.nvlink_mbps < 0 ? -1 : s.nvlink_mbps / 2;
      if (i >= 1 && i <= s.throttled_samples) x.throttle_reasons = s.throttle;
      m.gpus.push_back(x);
    }
    out.push_back(m);
  }
  return out;
}

struct Case {
  const char* name;
  std::function<void(Shape&)> change;
  const char* rule;
  bool fires;
};

const std::vector<Case>& Cases() {
  static const std::vector<Case> cases = {
      {"LowGpuBusyCpu", [](Shape& s) { s.gpu_util = 55, s.cpu_busy = 95; }, "input_bound", true},
      {"BusyGpuBusyCpu", [](Shape& s) { s.cpu_busy = 95; }, "input_bound", false},
      {"LowGpuFullMemory", [](Shape& s) { s.gpu_util = 50, s.mem_pct = 96; }, "memory_bound", true},
      {"LowGpuRoomyMemory", [](Shape& s) { s.gpu_util = 50, s.mem_pct = 60, s.cpu_busy = 60; }, "memory_bound", false},
      {"LowGpuIdleCpu", [](Shape& s) { s.gpu_util = 40, s.cpu_busy = 15; }, "launch_bound", true},
      {"LowGpuIdleCpuButMemoryFull", [](Shape& s) { s.gpu_util = 40, s.cpu_busy = 15, s.mem_pct = 97; }, "launch_bound",
       false},
      {"HeavyPcie", [](Shape& s) { s.pcie_mbps = 9000; }, "host_device_copies", true},
      {"LightPcie", [](Shape& s) { s.pcie_mbps = 2000; }, "host_device_copies", false},
      {"PowerCappedOften",
       [](Shape& s) {
         s.throttle = {"sw_power_cap"};
         s.throttled_samples = 20;
       },
       "gpu_throttled", true},
      {"ThermalSlowdownOften",
       [](Shape& s) {
         s.throttle = {"hw_thermal_slowdown"};
         s.throttled_samples = 10;
       },
       "gpu_throttled", true},
      {"PowerCappedRarely",
       [](Shape& s) {
         s.throttle = {"sw_power_cap"};
         s.throttled_samples = 3;
       },
       "gpu_throttled", false},
      {"ApplicationClocksAreNotThrottling",
       [](Shape& s) {
         s.throttle = {"applications_clocks_setting"};
         s.throttled_samples = 60;
       },
       "gpu_throttled", false},
      {"SaturatedDiskStarvesGpu", [](Shape& s) { s.disk_busy = 99, s.gpu_util = 45, s.cpu_busy = 30; }, "storage_bound",
       true},
      {"SaturatedDiskWithBusyGpu", [](Shape& s) { s.disk_busy = 99; }, "storage_bound", false},
      {"IdleNvLinkWhileGpusTrain", [](Shape& s) { s.nvlink_mbps = 0.4; }, "nvlink_idle", true},
      {"NvLinkCarriesGradients", [](Shape& s) { s.nvlink_mbps = 24000; }, "nvlink_idle", false},
      {"IdleNvLinkOnASingleGpu",
       [](Shape& s) {
         s.nvlink_mbps = 0.4;
         s.gpus = 1;
       },
       "nvlink_idle", false},
  };
  return cases;
}

class AdviseRuleTest : public ::testing::TestWithParam<size_t> {};

TEST_P(AdviseRuleTest, FiresOnlyWhenItShould) {
  const Case& c = Cases()[GetParam()];
  Shape s;
  c.change(s);
  std::vector<Finding> f = Advise(Recording(s));
  int hits = 0;
  for (const Finding& x : f) {
    if (x.id != c.rule) continue;
    ++hits;
    EXPECT_NE(x.evidence.find("%"), std::string::npos) << "evidence quotes numbers: " << x.evidence;
    EXPECT_FALSE(x.fix.empty());
  }
  EXPECT_EQ(hits, c.fires ? 1 : 0) << c.name << "\n" << FormatFindingsText(f);
}

INSTANTIATE_TEST_SUITE_P(Rules, AdviseRuleTest, ::testing::Range<size_t>(0, Cases().size()),
                         [](const ::testing::TestParamInfo<size_t>& info) { return Cases()[info.param].name; });

TEST(AdviseTest, EveryRuleHasBothCases) {
  std::set<std::string> fires, quiet;
  for (const Case& c : Cases()) (c.fires ? fires : quiet).insert(c.rule);
  for (const std::string& id : AdviseRuleIds()) {
    EXPECT_TRUE(fires.count(id)) << id;
    EXPECT_TRUE(quiet.count(id)) << id;
  }
}

TEST(AdviseTest, HealthyRunHasNoFindingsAndEvidenceQuotesMeans) {
  EXPECT_TRUE(Advise(Recording(Shape{})).empty());
  Shape s;
  s.gpu_util = 55;
  s.cpu_busy = 95;
  std::vector<Finding> f = Advise(Recording(s));
  ASSERT_FALSE(f.empty());
  EXPECT_NE(f[0].evidence.find("GPU utilisation mean 55% (GPU0 55%, GPU1 55%); CPU busy mean 95% over 60 samples (60 s)"),
            std::string::npos)
      << f[0].evidence;
}

TEST(AdviseTest, RecordingRoundTripsThroughJsonLines) {
  Shape s;
  s.throttle = {"sw_power_cap"};
  s.throttled_samples = 60;
  std::vector<MonitorSample> rec = Recording(s);
  std::string text;
  for (const MonitorSample& m : rec) text += FormatSampleJsonLine(m) + "\n\n";
  StatusOr<std::vector<MonitorSample>> back = ParseRecording(text);
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  ASSERT_EQ(back->size(), rec.size());
  const MonitorSample& m = (*back)[5];
  EXPECT_EQ(m.hostname, "node<1>");
  EXPECT_DOUBLE_EQ(m.host.cpu_busy_pct, 60);
  ASSERT_EQ(m.gpus.size(), 2u);
  EXPECT_EQ(m.gpus[1].util_pct, 95);
  EXPECT_EQ(m.gpus[1].mem_used_bytes, rec[5].gpus[1].mem_used_bytes);
  EXPECT_EQ(m.gpus[1].throttle_reasons, std::vector<std::string>{"sw_power_cap"});
  EXPECT_DOUBLE_EQ(m.host.disks.at("nvme0n1").busy_pct, 20);
  EXPECT_EQ(Advise(*back).size(), Advise(rec).size());
}

TEST(AdviseTest, BadRecordingLinesAreNamed) {
  StatusOr<std::vector<MonitorSample>> r = ParseRecording("{\"time\": 1}\nnot json\n");
  TFHOST_ASSERT_ERROR(r, StatusCode::kInvalidArgument, "recording line 2: not a JSON object");
  EXPECT_NE(r.status().message().find("recording line 2"), std::string::npos) << r.status().message();
  TFHOST_EXPECT_ERROR(ParseRecording("{\"gpus\": [1]}"), StatusCode::kInvalidArgument,
                      "recording line 1: gpus[] entries must be objects");
  EXPECT_TRUE(ParseRecording("").ok());
}

TEST(AdviseTest, HtmlIsSelfContainedWithChartsAndEscapedText) {
  Shape s;
  s.gpu_util = 55;
  s.cpu_busy = 95;
  std::vector<MonitorSample> rec = Recording(s);
  std::string html = AdviseHtml(rec, RunAdvise(rec));
  EXPECT_EQ(html.rfind("<!DOCTYPE html>", 0), 0u);
  EXPECT_NE(html.find("<svg"), std::string::npos);
  EXPECT_NE(html.find("<polyline"), std::string::npos);
  EXPECT_NE(html.find("GPU utilisation"), std::string::npos);
  EXPECT_NE(html.find("input_bound"), std::string::npos);
  EXPECT_NE(html.find("node&lt;1&gt;"), std::string::npos);  // the hostname, escaped
  EXPECT_EQ(html.find("node<1>"), std::string::npos);
  EXPECT_EQ(html.find("<script"), std::string::npos);
  EXPECT_EQ(html.find("http://"), html.find("http://www.w3.org/2000/svg"));  // only the SVG namespace
  EXPECT_EQ(html.find("https://"), std::string::npos);
}

// What `tfhost monitor --record` writes on a machine without GPUs: host
// counters only, an empty gpus array.
std::vector<MonitorSample> CpuOnlyRecording(double cpu_busy) {
  Shape s;
  s.gpus = 0;
  s.cpu_busy = cpu_busy;
  return Recording(s);
}

TEST(AdviseTest, RecordingWithoutGpusListsTheGpuRulesAsNotJudged) {
  AdviseReport r = RunAdvise(CpuOnlyRecording(65));
  EXPECT_EQ(r.samples, 60u);
  EXPECT_EQ(r.gpus, 0u);
  EXPECT_TRUE(r.findings.empty()) << FormatFindingsText(r.findings);
  std::string listed;
  for (const UnjudgedRule& u : r.not_judged) listed += u.id + ": " + u.reason + "\n";
  EXPECT_EQ(listed,
            "input_bound: no GPU samples in the recording\n"
            "memory_bound: no GPU samples in the recording\n"
            "launch_bound: no GPU samples in the recording\n"
            "host_device_copies: no GPU samples in the recording\n"
            "gpu_throttled: no GPU samples in the recording\n"
            "nvlink_idle: no GPU samples in the recording\n");
}

TEST(AdviseTest, RecordingWithoutGpusMakesNoClaimAboutGpusInTextJsonOrHtml) {
  std::vector<MonitorSample> rec = CpuOnlyRecording(65);
  AdviseReport r = RunAdvise(rec);
  const std::string text = FormatAdviseText(r);
  EXPECT_EQ(text,
            "No bottleneck found by the 1 of 7 rules that could be judged (storage_bound).\n"
            "\n"
            "Not judged (6 of 7 rules):\n"
            "  input_bound: no GPU samples in the recording\n"
            "  memory_bound: no GPU samples in the recording\n"
            "  launch_bound: no GPU samples in the recording\n"
            "  host_device_copies: no GPU samples in the recording\n"
            "  gpu_throttled: no GPU samples in the recording\n"
            "  nvlink_idle: no GPU samples in the recording\n");
  const std::string json = FormatAdviseJson(r);
  const std::string html = AdviseHtml(rec, r);
  for (const std::string* out : {&text, &json, &html}) {
    EXPECT_EQ(out->find("GPUs were busy"), std::string::npos) << *out;
    EXPECT_EQ(out->find("nothing throttled"), std::string::npos) << *out;
  }
  EXPECT_NE(json.find("\"not_judged\": [\n        {\n            \"id\": \"input_bound\",\n            \"reason\": \"no GPU "
                      "samples in the recording\""),
            std::string::npos)
      << json;
  EXPECT_NE(json.find("\"gpus\": 0"), std::string::npos) << json;
  EXPECT_NE(json.find("\"verdict\": \"No bottleneck found by the 1 of 7 rules that could be judged (storage_bound).\""),
            std::string::npos)
      << json;
  EXPECT_NE(html.find("<p>60 samples over 60.0 s; 0 GPU(s).</p>\n<h2>Findings</h2>\n<p>No bottleneck found by the 1 of "
                      "7 rules that could be judged (storage_bound).</p>"),
            std::string::npos)
      << html;
  EXPECT_NE(html.find("<h2>Not judged</h2>"), std::string::npos) << html;
  EXPECT_NE(html.find("<li><span class=\"id\">gpu_throttled</span>: no GPU samples in the recording</li>"),
            std::string::npos)
      << html;
  EXPECT_EQ(html.find("GPU utilisation"), std::string::npos) << "no GPU charts without GPU samples";
}

TEST(AdviseTest, HealthyRunWithEveryMetricSaysNoRuleFired) {
  Shape s;
  s.nvlink_mbps = 24000;
  AdviseReport r = RunAdvise(Recording(s));
  EXPECT_TRUE(r.findings.empty());
  EXPECT_TRUE(r.not_judged.empty());
  EXPECT_EQ(FormatAdviseText(r), "No bottleneck found: none of the 7 rules fired.\n");
}

TEST(AdviseTest, MissingNvLinkPcieAndMemoryCountersAreNotJudgedRatherThanClear) {
  std::vector<MonitorSample> rec = Recording(Shape{});  // nvlink not measured
  for (MonitorSample& m : rec) {
    for (GpuSample& g : m.gpus) g.pcie_tx_mbps = g.pcie_rx_mbps = -1, g.mem_total_bytes = 0;
  }
  AdviseReport r = RunAdvise(rec);
  std::string listed;
  for (const UnjudgedRule& u : r.not_judged) listed += u.id + ": " + u.reason + "\n";
  EXPECT_EQ(listed,
            "memory_bound: the GPU samples carry no memory total (mem_total_bytes)\n"
            "host_device_copies: the GPU samples carry no PCIe throughput (pcie_tx_mbps, pcie_rx_mbps)\n"
            "nvlink_idle: fewer than 2 GPUs carry NVLink counters (nvlink_tx_mbps, nvlink_rx_mbps): no NVLink, or "
            "the driver does not report it\n");
  Shape one;
  one.gpus = 1;
  AdviseReport single = RunAdvise(Recording(one));
  ASSERT_EQ(single.not_judged.size(), 1u);
  EXPECT_EQ(single.not_judged[0].reason, "it needs 2 or more GPUs; the recording has 1");
}

TEST(AdviseTest, LaunchBoundWithoutMemoryFiguresSaysMemoryBoundWasNotRuledOut) {
  Shape s;
  s.gpu_util = 40;
  s.cpu_busy = 15;
  std::vector<MonitorSample> rec = Recording(s);
  for (MonitorSample& m : rec) {
    for (GpuSample& g : m.gpus) g.mem_total_bytes = 0;
  }
  std::vector<Finding> f = Advise(rec);
  ASSERT_EQ(f.size(), 1u) << FormatFindingsText(f);
  EXPECT_EQ(f[0].id, "launch_bound");
  EXPECT_NE(f[0].evidence.find("; GPU memory was not recorded, so memory_bound could not be ruled out"),
            std::string::npos)
      << f[0].evidence;
}

TEST(AdviseTest, GpusWithoutUtilisationDoNotDragTheMeanDown) {
  Shape s;
  s.gpu_util = 50;
  s.cpu_busy = 95;
  std::vector<MonitorSample> rec = Recording(s);
  for (MonitorSample& m : rec) m.gpus[1].util_pct = -1;
  std::vector<Finding> f = Advise(rec);
  ASSERT_FALSE(f.empty());
  EXPECT_NE(f[0].evidence.find("GPU utilisation mean 50% (GPU0 50%, GPU1 not measured)"), std::string::npos)
      << f[0].evidence;
}

TEST(AdviseTest, RecordingLinesWithoutCpuBusyLeaveTheCpuRulesUnjudged) {
  std::string line = FormatSampleJsonLine(Recording(Shape{})[1]);
  size_t at = line.find("\"cpu_busy_pct\":");
  ASSERT_NE(at, std::string::npos);
  line.replace(at, 3, "\"x_");  // renames the key
  StatusOr<std::vector<MonitorSample>> back = ParseRecording(line + "\n");
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  AdviseReport r = RunAdvise(*back);
  std::string listed;
  for (const UnjudgedRule& u : r.not_judged) listed += u.id + ": " + u.reason + "\n";
  EXPECT_EQ(listed.substr(0, listed.find("nvlink_idle")),
            "input_bound: the samples carry no CPU busy figure (cpu_busy_pct)\n"
            "launch_bound: the samples carry no CPU busy figure (cpu_busy_pct)\n");
}

TEST(AdviseTest, EmptyRecordingJudgesNoRule) {
  AdviseReport r = RunAdvise({});
  EXPECT_EQ(r.not_judged.size(), AdviseRuleIds().size());
  EXPECT_EQ(FormatAdviseText(r).substr(0, 44), "No rule could be judged on this recording.\n\n");
}

int CountOf(const std::string& text, const std::string& needle) {
  int n = 0;
  for (size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1)) ++n;
  return n;
}

// The report as a browser shows it: headless Chromium parses the page (its
// DOM keeps every chart and finding) and paints it (a screenshot of the
// requested size, with far more than a blank page's bytes). Set
// TFHOST_ADVISE_SCREENSHOT=FILE.png to keep the screenshot (docs/images).
TEST(AdviseTest, HtmlReportRendersInHeadlessChromium) {
  if (std::system("command -v chromium >/dev/null 2>&1") != 0) {
    GTEST_SKIP() << "chromium is not installed (scripts/install_deps.sh installs it)";
  }
  Shape s;
  s.gpu_util = 55;
  s.cpu_busy = 95;
  std::vector<MonitorSample> rec = Recording(s);
  // Moving series, so that every chart draws a visible line.
  for (size_t i = 0; i < rec.size(); ++i) {
    rec[i].host.cpu_busy_pct = 85 + 10 * std::sin(i / 5.0);
    rec[i].host.disks["nvme0n1"].busy_pct = 30 + 20 * std::cos(i / 7.0);
    for (auto& g : rec[i].gpus) {
      g.util_pct = static_cast<int>(55 + 30 * std::sin(i / 4.0 + g.index));
      g.power_w = 300 + 150 * std::sin(i / 6.0 + g.index);
    }
  }
  std::string html = AdviseHtml(rec, RunAdvise(rec));
  std::string dir = ::testing::TempDir() + "/advise_html_" + std::to_string(::getpid());
  std::filesystem::create_directories(dir);
  std::string page = dir + "/report.html", png = dir + "/report.png", dom = dir + "/dom.html";
  std::ofstream(page) << html;
  const char* kWidth = "1200";
  const char* kHeight = "1800";
  std::string chromium = std::string("timeout 120 chromium --headless --no-sandbox --disable-gpu ") +
                         "--no-first-run --user-data-dir=" + dir + "/profile --window-size=" + kWidth + "," + kHeight;
  ASSERT_EQ(std::system((chromium + " --dump-dom file://" + page + " >" + dom + " 2>/dev/null").c_str()), 0);
  ASSERT_EQ(std::system((chromium + " --screenshot=" + png + " file://" + page + " >/dev/null 2>&1").c_str()), 0);

  std::stringstream parsed;
  parsed << std::ifstream(dom).rdbuf();
  EXPECT_EQ(CountOf(parsed.str(), "<svg"), CountOf(html, "<svg")) << "every chart survives parsing";
  EXPECT_EQ(CountOf(parsed.str(), "<polyline"), CountOf(html, "<polyline"));
  EXPECT_NE(parsed.str().find("input_bound"), std::string::npos);

  std::ifstream in(png, std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  ASSERT_GE(bytes.size(), 24u) << "no screenshot written";
  ASSERT_EQ(bytes.substr(1, 3), "PNG");
  auto be32 = [&](size_t at) {
    return (static_cast<uint32_t>(static_cast<uint8_t>(bytes[at])) << 24) |
           (static_cast<uint32_t>(static_cast<uint8_t>(bytes[at + 1])) << 16) |
           (static_cast<uint32_t>(static_cast<uint8_t>(bytes[at + 2])) << 8) | static_cast<uint8_t>(bytes[at + 3]);
  };
  EXPECT_EQ(be32(16), static_cast<uint32_t>(std::atoi(kWidth)));
  EXPECT_EQ(be32(20), static_cast<uint32_t>(std::atoi(kHeight)));
  // A blank page of this size compresses to a few KB; text and charts do not.
  EXPECT_GT(bytes.size(), 40000u) << "the screenshot looks blank";
  if (const char* keep = std::getenv("TFHOST_ADVISE_SCREENSHOT"); keep != nullptr && *keep != '\0') {
    std::filesystem::copy_file(png, keep, std::filesystem::copy_options::overwrite_existing);
  }
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace tfhost::host
