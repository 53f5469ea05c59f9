// `tfhost plan` in-process: its projection for this machine against what
// `bench` measures here on a generated demo model, the zoo's ResNet-50 count
// behind the MLPerf check, workloads, reports and catalog errors.
#include <rapidjson/document.h>

#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "base/test_tfserving_models.h"
#include "cli/cli.h"
#include "cli/cli_test_util.h"
#include "loaders/savedmodel/demo_models.h"

namespace tfhost::cli {
namespace {

std::string Temp(const std::string& name) {
  return ::testing::TempDir() + "plan_" + std::to_string(::getpid()) + "_" + name;
}

std::string SourceDir() {
  const char* src = std::getenv("TFHOST_SOURCE_DIR");
  return src ? src : ".";
}

std::string Catalog() { return SourceDir() + "/src/host/data/instance_catalog.json"; }

// The demo models, written once per process.
std::string DemoModel(const std::string& name) {
  static const std::string dir = [] {
    std::string d = Temp("demo");
    auto written = loaders::WriteDemoModels(d);
    EXPECT_TRUE(written.ok()) << written.status().message();
    return d;
  }();
  return dir + "/" + name + "/1";
}

rapidjson::Document Json(const std::string& text) {
  rapidjson::Document d;
  d.Parse(text.c_str());
  EXPECT_FALSE(d.HasParseError()) << text;
  return d;
}

TEST(PlanCommandTest, ProjectionForThisMachineIsWithinAQuarterOfWhatBenchMeasures) {
  const std::string model = DemoModel("cnn");
  // Calibrate at batch 1 and 64, project 16: a batch plan never timed.
  CliResult plan = Cli({"plan", model, "--qps", "100", "--batch", "16", "--calibration-batches", "1,64",
                     "--calibration-runs", "200", "--catalog", Catalog(), "--instances", "aws-c5.4xlarge", "--json"});
  ASSERT_EQ(plan.code, 0) << plan.err;
  rapidjson::Document p = Json(plan.out);
  ASSERT_TRUE(p["this_machine"]["measured"].GetBool());
  const auto& projections = p["this_machine"]["projections"].GetArray();
  ASSERT_EQ(projections.Size(), 1u);
  ASSERT_EQ(projections[0]["batch"].GetInt(), 16);
  double projected = projections[0]["items_per_s"].GetDouble();

  CliResult bench = Cli({"bench", model, "--batch", "16", "--runs", "200", "--warmup", "40", "--json"});
  ASSERT_EQ(bench.code, 0) << bench.err;
  rapidjson::Document b = Json(bench.out);
  double measured = 16 / (b["results"][0]["p50_ms"].GetDouble() / 1e3);
  std::printf("this machine, demo cnn at batch 16: projected %.0f items/s, bench measured %.0f, ratio %.3f\n",
              projected, measured, projected / measured);
  EXPECT_NEAR(projected / measured, 1.0, 0.25);
}

TEST(PlanCommandTest, ZooResNet50CountMatchesTheMlperfCheckData) {
  std::string zoo = testing::ZooDir();
  if (zoo.empty() || !std::filesystem::exists(zoo + "/resnet50/1")) {
    GTEST_SKIP() << "no generated zoo with resnet50 (tests/zoo/zoo_dir.sh --ensure makes one)";
  }
  CliResult r = Cli({"plan", zoo + "/resnet50/1", "--shape", "image=-1,224,224,3", "--qps", "1", "--batch", "1",
                  "--no-measure", "--catalog", Catalog(), "--instances", "aws-p5.48xlarge", "--json"});
  ASSERT_EQ(r.code, 0) << r.err;
  rapidjson::Document d = Json(r.out);
  std::ifstream in(SourceDir() + "/src/host/plan/testdata/mlperf_inference.json");
  std::stringstream s;
  s << in.rdbuf();
  rapidjson::Document m = Json(s.str());
  const auto& resnet = m["results"][0];
  ASSERT_EQ(std::string(resnet["benchmark"].GetString()), "resnet50");
  EXPECT_NEAR(d["model_cost"]["flops_per_item"].GetDouble() / resnet["flops_per_item"].GetDouble(), 1.0, 0.01);
  EXPECT_NEAR(d["model_cost"]["activation_bytes_written_per_item"].GetDouble() /
                  resnet["activation_bytes_written_per_item"].GetDouble(),
              1.0, 0.01);
}

TEST(PlanCommandTest, ServingTextReportSizesEveryCatalogTypeAndSaysWhatIsMissing) {
  CliResult r = Cli({"plan", DemoModel("cnn"), "--qps", "5000", "--p99-ms", "10", "--batch", "1,8",
                  "--calibration-runs", "30", "--catalog", Catalog()});
  ASSERT_EQ(r.code, 0) << r.err;
  for (const char* name : {"aws-g4dn.xlarge", "aws-g6.xlarge", "aws-g5.xlarge", "aws-p4d.24xlarge",
                           "aws-p4de.24xlarge", "aws-p5.48xlarge", "aws-p5en.48xlarge", "aws-c5.4xlarge"}) {
    EXPECT_NE(r.out.find(name), std::string::npos) << name;
  }
  EXPECT_NE(r.out.find("calibrated from bench here"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("No on-demand price recorded"), std::string::npos);
  EXPECT_NE(r.out.find("(rule >= 1.5x): FAIL"), std::string::npos);  // g4dn.xlarge: 16 GiB RAM for a 16 GB T4
  EXPECT_NE(r.out.find("below on-demand; spot capacity can be reclaimed"), std::string::npos);
}

TEST(PlanCommandTest, LowerPrecisionSkipsTypesWithoutThatPeak) {
  CliResult r = Cli({"plan", DemoModel("mlp"), "--qps", "10", "--precision", "bf16", "--no-measure", "--catalog",
                  Catalog(), "--json"});
  ASSERT_EQ(r.code, 0) << r.err;
  rapidjson::Document d = Json(r.out);
  bool t4_skipped = false;
  for (const auto& i : d["instances"].GetArray()) {
    if (std::string(i["name"].GetString()) == "aws-g4dn.xlarge") {
      t4_skipped = i.HasMember("not_projected") &&
                   std::string(i["not_projected"].GetString()) == "no published bf16 peak for NVIDIA T4 16 GB";
    }
  }
  EXPECT_TRUE(t4_skipped) << r.out;
}

TEST(PlanCommandTest, TrainingWorkloadReportsRunHoursAndCostPerRun) {
  CliResult r = Cli({"plan", DemoModel("cnn"), "--records", "1000000", "--epochs", "3", "--step-batch", "64",
                  "--no-measure", "--catalog", Catalog(), "--instances", "aws-p4d.24xlarge", "--json"});
  ASSERT_EQ(r.code, 0) << r.err;
  rapidjson::Document d = Json(r.out);
  EXPECT_EQ(std::string(d["mode"].GetString()), "training");
  const auto& p4d = d["instances"][0];
  EXPECT_GT(p4d["run_hours"].GetDouble(), 0);
  ASSERT_TRUE(p4d["usd_per_run"].IsNumber());
  EXPECT_NEAR(p4d["usd_per_run"].GetDouble(), p4d["run_hours"].GetDouble() * 32.7726, 1e-9);
}

TEST(PlanCommandTest, DatasetBytesAreTurnedIntoRecordsByTheInputSize) {
  // The cnn takes 8x8x1 floats: 256 bytes an item.
  CliResult r = Cli({"plan", DemoModel("cnn"), "--dataset-bytes", "2560000", "--no-measure", "--catalog", Catalog(),
                  "--instances", "aws-g5.xlarge", "--json"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_DOUBLE_EQ(Json(r.out)["workload"]["records"].GetDouble(), 10000);
}

TEST(PlanCommandTest, HtmlReportCarriesTheTableAndTheCharts) {
  std::string html = Temp("plan.html");
  CliResult r = Cli({"plan", DemoModel("mlp"), "--qps", "100", "--batch", "1,4,16", "--calibration-runs", "30",
                  "--catalog", Catalog(), "--html", html});
  ASSERT_EQ(r.code, 0) << r.err;
  std::ifstream in(html);
  std::stringstream s;
  s << in.rdbuf();
  EXPECT_NE(s.str().find("<svg"), std::string::npos);
  EXPECT_NE(s.str().find("Projected throughput per device"), std::string::npos);
  EXPECT_NE(s.str().find("aws-p5.48xlarge"), std::string::npos);
  EXPECT_NE(r.out.find("report: " + html), std::string::npos);
}

TEST(PlanCommandTest, MalformedCatalogFailsNamingFileEntryAndField) {
  std::string bad = Temp("bad_catalog.json");
  {
    std::ofstream o(bad);
    o << R"({"instances": [{"name": "box", "provider": "p", "instance_type": "t", "vcpus": 4, "ram_gib": 16,
      "accelerator": {"model": "G", "count": 1, "memory_gib": 16, "memory_bandwidth_gbps": -3, "host_link_gbps": 16,
      "interconnect": "PCIe", "peak_tflops": {"fp32": 8}, "source": "s", "source_date": "2026-01-01"},
      "price_note": "n", "spot_note": "n"}]})";
  }
  CliResult r = Cli({"plan", DemoModel("mlp"), "--qps", "1", "--catalog", bad});
  EXPECT_EQ(r.code, kExitFailure);
  EXPECT_EQ(r.err, "tfhost plan: " + bad +
                       ": entry 1 (box): field 'accelerator.memory_bandwidth_gbps': expected a number > 0\n");
}

TEST(PlanCommandTest, WorkloadFlagsAreCheckedBeforeAnythingRuns) {
  EXPECT_EQ(Cli({"plan", DemoModel("mlp")}).code, kExitUsage);
  EXPECT_EQ(Cli({"plan", DemoModel("mlp"), "--qps", "1", "--records", "10"}).code, kExitUsage);
  CliResult bad_qps = Cli({"plan", DemoModel("mlp"), "--qps", "-5"});
  EXPECT_EQ(bad_qps.code, kExitUsage);
  EXPECT_NE(bad_qps.err.find("--qps must be a number > 0, not '-5'"), std::string::npos) << bad_qps.err;
  CliResult bad_precision = Cli({"plan", DemoModel("mlp"), "--qps", "1", "--precision", "fp4"});
  EXPECT_EQ(bad_precision.code, kExitUsage);
  CliResult unknown = Cli({"plan", DemoModel("mlp"), "--qps", "1", "--catalog", Catalog(), "--instances", "nope"});
  EXPECT_EQ(unknown.code, kExitUsage);
  EXPECT_NE(unknown.err.find("--instances names 'nope'"), std::string::npos) << unknown.err;
}

}  // namespace
}  // namespace tfhost::cli
