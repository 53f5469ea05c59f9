#include "host/plan/plan_report.h"

#include <rapidjson/document.h>

#include <gtest/gtest.h>

namespace tfhost::host::plan {
namespace {

constexpr double kGiB = 1024.0 * 1024 * 1024;

// A report on one GPU type with no price and one CPU type with on-demand and
// spot prices, sized for 1000 QPS.
PlanReport Report() {
  PlanReport r;
  r.model = "models/<resnet>";
  r.signature = "serving_default";
  r.cost.flops_per_item = 4e9;
  r.cost.weight_bytes = 1e8;
  r.cost.peak_act_per_item = 1e6;
  r.cost.traffic_per_item = 1e7;
  r.cost.input_bytes_per_item = 6e5;
  r.serving.qps = 1000;
  r.serving.p99_ms = 100;
  r.serving.batches = {1, 8};
  r.catalog_path = "cat.json";
  InstanceType gpu;
  gpu.name = "gpu-box";
  gpu.vcpus = 8;
  gpu.ram_bytes = 16 * kGiB;
  gpu.compute.accelerator = true;
  gpu.compute.model = "G100";
  gpu.compute.memory_bytes = 16 * kGiB;
  gpu.compute.memory_bandwidth_bps = 1e12;
  gpu.compute.host_link_bps = 16e9;
  gpu.compute.peak_flops = {{"fp32", 2e13}};
  gpu.price_note = "no price published";
  gpu.spot_note = "spot varies";
  InstanceType cpu;
  cpu.name = "cpu-box";
  cpu.vcpus = 16;
  cpu.ram_bytes = 32 * kGiB;
  cpu.compute.model = "X";
  cpu.compute.peak_flops = {{"fp32", 1e12}};
  cpu.on_demand = PriceFigure{1.0, "list", "2026-01-01"};
  cpu.spot = PriceFigure{0.4, "list", "2026-01-01"};
  r.instances = {gpu, cpu};
  r.efficiencies.cpu_calibrated = true;
  r.efficiencies.cpu = Efficiency{0.5, 1, true};
  r.efficiencies.cpu_basis = "calibrated here";
  for (const InstanceType& t : r.instances) r.serving_plans.push_back(PlanServing(t, r.cost, r.serving, r.efficiencies));
  return r;
}

TEST(PlanReportTest, TextSaysWhyAPriceIsMissingAndGivesSpotSavingsWithTheCaveat) {
  std::string text = FormatPlanText(Report());
  EXPECT_NE(text.find("price: no price published"), std::string::npos) << text;
  EXPECT_NE(text.find("spot: spot varies"), std::string::npos);
  EXPECT_NE(text.find("60% below on-demand; spot capacity can be reclaimed"), std::string::npos) << text;
  EXPECT_NE(text.find("(rule >= 1.5x): FAIL"), std::string::npos);  // 16 GiB RAM for a 16 GiB GPU
  EXPECT_NE(text.find("assumed"), std::string::npos);               // the accelerator efficiency's basis
}

TEST(PlanReportTest, JsonHasNullCostsWithoutAPriceAndTheChosenBatch) {
  rapidjson::Document d;
  std::string json = FormatPlanJson(Report());
  d.Parse(json.c_str());
  ASSERT_FALSE(d.HasParseError()) << json;
  const auto& gpu = d["instances"][0];
  EXPECT_EQ(std::string(gpu["name"].GetString()), "gpu-box");
  EXPECT_TRUE(gpu["on_demand_usd_per_hour"].IsNull());
  EXPECT_TRUE(gpu["usd_per_hour"].IsNull());
  EXPECT_EQ(std::string(gpu["price_note"].GetString()), "no price published");
  EXPECT_TRUE(gpu["chosen_batch"].IsInt());
  EXPECT_FALSE(gpu["host"]["ram_ok"].GetBool());
  const auto& cpu = d["instances"][1];
  EXPECT_DOUBLE_EQ(cpu["spot_savings"].GetDouble(), 0.6);
  EXPECT_TRUE(cpu["efficiency_additive"].GetBool());
  EXPECT_DOUBLE_EQ(cpu["compute_efficiency"].GetDouble(), 0.5);
}

TEST(PlanReportTest, HtmlEscapesTheModelNameAndDrawsOneLinePerProjectedType) {
  std::string html = PlanHtml(Report());
  EXPECT_NE(html.find("models/&lt;resnet&gt;"), std::string::npos);
  EXPECT_EQ(html.find("models/<resnet>"), std::string::npos);
  EXPECT_NE(html.find("Projected throughput per device"), std::string::npos);
  size_t lines = 0;
  for (size_t at = html.find("<polyline"); at != std::string::npos; at = html.find("<polyline", at + 1)) ++lines;
  EXPECT_EQ(lines, 4u);  // two types x two charts
  EXPECT_NE(html.find(">0 batch</text>"), std::string::npos);
}

TEST(PlanReportTest, HumanBytesPicksTheUnit) {
  EXPECT_EQ(HumanBytes(512), "512 B");
  EXPECT_EQ(HumanBytes(1536), "1.5 KiB");
  EXPECT_EQ(HumanBytes(12.0 * 1024 * 1024), "12.0 MiB");
  EXPECT_EQ(HumanBytes(1.5 * kGiB), "1.50 GiB");
}

}  // namespace
}  // namespace tfhost::host::plan
