#include "host/plan/sizing.h"

#include <gtest/gtest.h>

#include <cmath>

namespace tfhost::host::plan {
namespace {

constexpr double kGiB = 1024.0 * 1024 * 1024;

InstanceType Gpu(double memory_gib, double ram_gib, int count = 1) {
  InstanceType t;
  t.name = "gpu";
  t.vcpus = 8;
  t.ram_bytes = ram_gib * kGiB;
  t.compute.accelerator = true;
  t.compute.model = "G";
  t.compute.count = count;
  t.compute.memory_bytes = memory_gib * kGiB;
  t.compute.memory_bandwidth_bps = 1e12;
  t.compute.host_link_bps = 32e9;
  t.compute.peak_flops = {{"fp32", 1e13}, {"fp16", 1e14}};
  t.on_demand = PriceFigure{2.0, "s", "2026-01-01"};
  t.spot_note = "none";
  return t;
}

ModelCost OneGflop() {
  ModelCost c;
  c.flops_per_item = 1e9;
  c.peak_act_per_item = 1e6;
  c.traffic_per_item = 1e6;
  c.weight_bytes = 1e8;
  c.input_bytes_per_item = 1e5;
  return c;
}

TEST(SizingTest, InstancesNeededCoverTheQpsAtTargetUtilization) {
  ServingWorkload w;
  w.qps = 10000;
  w.batches = {64};
  Efficiencies eff;
  eff.accelerator = 0.5;
  ServingPlan p = PlanServing(Gpu(16, 64), OneGflop(), w, eff);
  ASSERT_GE(p.chosen, 0);
  double per_instance = p.instance_items_per_s;
  EXPECT_EQ(p.instances, static_cast<int>(std::ceil(10000 / (per_instance * kTargetUtilization))));
  ASSERT_TRUE(p.usd_per_hour.has_value());
  EXPECT_DOUBLE_EQ(*p.usd_per_hour, 2.0 * p.instances);
  EXPECT_NEAR(*p.usd_per_million, *p.usd_per_hour / (10000 * 3600.0) * 1e6, 1e-12);
}

TEST(SizingTest, BatchFillWaitCountsAgainstP99SoLowQpsGetsSmallBatches) {
  ServingWorkload w;
  w.batches = {1, 8, 512};
  w.p99_ms = 50;
  Efficiencies eff;
  eff.accelerator = 0.5;
  // 100 QPS on one GPU: a batch of 8 waits 70 ms to fill.
  w.qps = 100;
  ServingPlan low = PlanServing(Gpu(16, 64), OneGflop(), w, eff);
  ASSERT_GE(low.chosen, 0);
  EXPECT_EQ(low.options[low.chosen].batch, 1);
  EXPECT_NEAR(low.options[1].fill_ms, 70, 1e-9);
  EXPECT_FALSE(low.options[1].meets_p99);
  // 100k QPS over many GPUs: batch 8 fills in about 2 ms and runs faster per item.
  w.qps = 100000;
  ServingPlan high = PlanServing(Gpu(16, 64), OneGflop(), w, eff);
  ASSERT_GE(high.chosen, 0);
  EXPECT_EQ(high.options[high.chosen].batch, 8);
  // batch 512: 512 GFLOP at 5 TFLOP/s is 0.1 s a run, p99 over 0.2 s.
  EXPECT_FALSE(high.options[2].meets_p99);
  const BatchOption& b8 = high.options[1];
  EXPECT_NEAR(b8.p99_ms, b8.fill_ms + kP99BatchTimes * b8.projection.batch_s * 1e3, 1e-9);
}

TEST(SizingTest, ModelBiggerThanDeviceMemoryLessWorkspaceDoesNotFit) {
  ServingWorkload w;
  w.qps = 1;
  w.batches = {1};
  ModelCost c = OneGflop();
  c.weight_bytes = 15.0 * kGiB;  // more than 16 GiB less the 10% workspace
  ServingPlan p = PlanServing(Gpu(16, 64), c, w, Efficiencies{});
  ASSERT_EQ(p.options.size(), 1u);
  EXPECT_FALSE(p.options[0].fits);
  EXPECT_EQ(p.chosen, -1);
  // At fp16 the weights halve and fit.
  w.precision = "fp16";
  ServingPlan half = PlanServing(Gpu(16, 64), c, w, Efficiencies{});
  EXPECT_TRUE(half.options[0].fits);
}

TEST(SizingTest, HostRamBelowOneAndAHalfTimesGpuMemoryFailsTheRule) {
  ServingWorkload w;
  w.qps = 1;
  w.batches = {1};
  ServingPlan small = PlanServing(Gpu(16, 16), OneGflop(), w, Efficiencies{});
  ASSERT_TRUE(small.host.judged);
  EXPECT_DOUBLE_EQ(small.host.ram_ratio, 1.0);
  EXPECT_FALSE(small.host.ram_ok);
  ServingPlan big = PlanServing(Gpu(80, 2048, 8), OneGflop(), w, Efficiencies{});
  EXPECT_TRUE(big.host.ram_ok);
  EXPECT_DOUBLE_EQ(big.host.ram_ratio, 2048.0 / 640);
}

TEST(SizingTest, HostLinkTooSlowForTheInputsIsFlaggedAndFeedRateIsJudgedWhenGiven) {
  ServingWorkload w;
  w.qps = 1;
  w.batches = {64};
  ModelCost c = OneGflop();
  c.input_bytes_per_item = 1e9;  // 1 GB per item: no link carries that at the projected rate
  ServingPlan p = PlanServing(Gpu(16, 64), c, w, Efficiencies{});
  EXPECT_FALSE(p.host.link_ok);
  EXPECT_FALSE(p.host.feed_judged);
  w.feed_items_per_vcpu_s = 1;  // 8 vCPUs x 1 item/s: far below the GPU's rate
  ServingPlan fed = PlanServing(Gpu(16, 64), OneGflop(), w, Efficiencies{});
  EXPECT_TRUE(fed.host.feed_judged);
  EXPECT_FALSE(fed.host.feed_ok);
  EXPECT_DOUBLE_EQ(fed.host.feed_items_per_s, 8);
}

TEST(SizingTest, PrecisionWithoutAPublishedPeakIsNotProjected) {
  ServingWorkload w;
  w.qps = 1;
  w.batches = {1};
  w.precision = "int8";
  ServingPlan p = PlanServing(Gpu(16, 64), OneGflop(), w, Efficiencies{});
  EXPECT_EQ(p.skip_reason, "no published int8 peak for G");
  EXPECT_TRUE(p.options.empty());
}

TEST(SizingTest, CpuTypeNeedsACalibrationAndIsCappedAtItsPeak) {
  InstanceType cpu;
  cpu.name = "cpu";
  cpu.vcpus = 16;
  cpu.ram_bytes = 32 * kGiB;
  cpu.compute.model = "X";
  cpu.compute.peak_flops = {{"fp32", 1e12}};
  cpu.price_note = "n";
  cpu.spot = PriceFigure{0.5, "s", "2026-01-01"};
  cpu.on_demand = PriceFigure{1.0, "s", "2026-01-01"};
  ServingWorkload w;
  w.qps = 1;
  w.batches = {1};
  EXPECT_FALSE(PlanServing(cpu, OneGflop(), w, Efficiencies{}).skip_reason.empty());
  Efficiencies eff;
  eff.cpu_calibrated = true;
  eff.cpu = Efficiency{3.0, 0, true};  // a measured peak below the vendor's can calibrate above 1
  eff.cpu_overhead_s = 0.001;
  ServingPlan p = PlanServing(cpu, OneGflop(), w, eff);
  ASSERT_TRUE(p.skip_reason.empty());
  EXPECT_DOUBLE_EQ(p.efficiency.compute, 1.0);
  EXPECT_TRUE(p.efficiency.additive);
  EXPECT_DOUBLE_EQ(p.options[0].projection.batch_s, 0.001 + 1e-3);
  EXPECT_FALSE(p.host.judged);  // host rules are about GPUs
  ASSERT_TRUE(p.spot_savings.has_value());
  EXPECT_DOUBLE_EQ(*p.spot_savings, 0.5);
  EXPECT_DOUBLE_EQ(*p.spot_usd_per_hour, 0.5);
}

TEST(SizingTest, TrainingRunTakesThreeTimesTheForwardFlopsOverTheDataset) {
  TrainingWorkload w;
  w.records = 1e6;
  w.epochs = 2;
  w.step_batch = 32;
  Efficiencies eff;
  eff.accelerator = 0.5;
  ModelCost c = OneGflop();
  c.traffic_per_item = 0;
  c.weight_bytes = 0;
  c.input_bytes_per_item = 0;
  TrainingPlan p = PlanTraining(Gpu(16, 64, 2), c, w, eff);
  ASSERT_TRUE(p.skip_reason.empty());
  EXPECT_TRUE(p.fits);
  // 3 GFLOP per item at 5 TFLOP/s effective, 2 GPUs: 2e6 items take 3e9*2e6/1e13 s.
  double seconds = kTrainingFlopsFactor * 1e9 * 2e6 / (2 * 1e13 * 0.5);
  EXPECT_NEAR(p.run_hours, seconds / 3600, 1e-9);
  ASSERT_TRUE(p.usd_per_run.has_value());
  EXPECT_NEAR(*p.usd_per_run, p.run_hours * 2.0, 1e-9);
}

TEST(SizingTest, TrainingMemoryCountsWeightsGradientsAndAdamMoments) {
  TrainingWorkload w;
  w.records = 1;
  w.step_batch = 1;
  ModelCost c = OneGflop();
  c.weight_bytes = 4.0 * kGiB;  // x4 = 16 GiB: over 16 GiB less the workspace
  TrainingPlan p = PlanTraining(Gpu(16, 64), c, w, Efficiencies{});
  EXPECT_FALSE(p.fits);
  EXPECT_NEAR(p.memory_needed_bytes, kTrainingWeightCopies * 4.0 * kGiB + 1e6, 1);
}

}  // namespace
}  // namespace tfhost::host::plan
