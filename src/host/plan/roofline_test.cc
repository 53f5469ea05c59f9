#include "host/plan/roofline.h"

#include <gtest/gtest.h>

#include "base/test_status.h"

namespace tfhost::host::plan {
namespace {

ModelCost Cost(double flops_per_item, double traffic_per_item, double weights = 0) {
  ModelCost c;
  c.flops_per_item = flops_per_item;
  c.traffic_per_item = traffic_per_item;
  c.weight_bytes = weights;
  return c;
}

TEST(RooflineTest, ComputeBoundRunTakesFlopsOverPeakOverEfficiency) {
  DeviceRoof roof{1e12, 1e12, 0};
  Projection p = Project(Cost(1e9, 1e3), roof, Efficiency::Roofline(0.5), 0, 10, "fp32");
  EXPECT_FALSE(p.memory_bound);
  EXPECT_DOUBLE_EQ(p.compute_s, 1e-2);
  EXPECT_DOUBLE_EQ(p.batch_s, 2e-2);
  EXPECT_DOUBLE_EQ(p.items_per_s, 500);
}

TEST(RooflineTest, MemoryBoundWhenWeightsAndTwiceTheActivationsOutweighTheFlops) {
  DeviceRoof roof{1e15, 1e11, 0};
  Projection p = Project(Cost(1e6, 1e6, 1e8), roof, Efficiency::Roofline(1.0), 0, 1, "fp32");
  EXPECT_TRUE(p.memory_bound);
  EXPECT_DOUBLE_EQ(p.memory_s, (1e8 + 2e6) / 1e11);
  EXPECT_DOUBLE_EQ(p.batch_s, p.memory_s);
}

TEST(RooflineTest, LowerPrecisionScalesBytesButNotFlops) {
  DeviceRoof roof{1e12, 1e11, 0};
  ModelCost c = Cost(1e9, 1e8, 4e8);
  Projection fp32 = Project(c, roof, Efficiency::Roofline(1), 0, 1, "fp32");
  Projection bf16 = Project(c, roof, Efficiency::Roofline(1), 0, 1, "bf16");
  Projection int8 = Project(c, roof, Efficiency::Roofline(1), 0, 1, "int8");
  EXPECT_DOUBLE_EQ(bf16.memory_s, fp32.memory_s / 2);
  EXPECT_DOUBLE_EQ(int8.memory_s, fp32.memory_s / 4);
  EXPECT_DOUBLE_EQ(int8.compute_s, fp32.compute_s);
}

TEST(RooflineTest, HostLinkAddsTheInputsAsFedAndOverheadIsAdded) {
  DeviceRoof roof{1e12, 0, 1e9};
  ModelCost c = Cost(1e9, 0);
  c.input_bytes_per_item = 1e6;
  Projection p = Project(c, roof, Efficiency::Roofline(1), 0.002, 4, "int8");
  EXPECT_DOUBLE_EQ(p.transfer_s, 4e-3);  // inputs are not rescaled by the compute precision
  EXPECT_DOUBLE_EQ(p.batch_s, 0.002 + 4e-3 + 4e-3);
}

TEST(RooflineTest, UnknownBandwidthLeavesComputeAlone) {
  DeviceRoof roof{1e12, 0, 0};
  Projection p = Project(Cost(1e9, 1e12), roof, Efficiency::Roofline(1), 0, 1, "fp32");
  EXPECT_DOUBLE_EQ(p.memory_s, 0);
  EXPECT_DOUBLE_EQ(p.batch_s, 1e-3);
}

TEST(RooflineTest, BytesPerElementCoversEveryCatalogPrecision) {
  EXPECT_EQ(BytesPerElement("fp32"), 4);
  EXPECT_EQ(BytesPerElement("tf32"), 4);
  EXPECT_EQ(BytesPerElement("fp16"), 2);
  EXPECT_EQ(BytesPerElement("bf16"), 2);
  EXPECT_EQ(BytesPerElement("fp8"), 1);
  EXPECT_EQ(BytesPerElement("int8"), 1);
  EXPECT_EQ(BytesPerElement("fp4"), 0);
}

TEST(RooflineTest, LinearThroughSplitsFixedAndPerItemParts) {
  auto [fixed, per_item] = LinearThrough(1, 110, 11, 1010);
  EXPECT_DOUBLE_EQ(per_item, 90);
  EXPECT_DOUBLE_EQ(fixed, 20);
  // A count that shrinks per item (rounding) is not allowed to go negative.
  auto [f2, p2] = LinearThrough(1, 100, 10, 1200);
  EXPECT_DOUBLE_EQ(f2, 0);
  EXPECT_DOUBLE_EQ(p2, 120);
}

TEST(RooflineTest, AdditiveEfficiencyAddsTheTermsInsteadOfTakingTheLarger) {
  DeviceRoof roof{1e12, 1e11, 0};
  ModelCost c = Cost(1e9, 0, 1e8);  // 1 ms of FLOPs, 1 ms of weights
  Projection max = Project(c, roof, Efficiency{0.5, 0.5, false}, 0, 1, "fp32");
  Projection sum = Project(c, roof, Efficiency{0.5, 0.25, true}, 0, 1, "fp32");
  EXPECT_DOUBLE_EQ(max.batch_s, 2e-3);
  EXPECT_DOUBLE_EQ(sum.batch_s, 2e-3 + 4e-3);
  // Efficiency 0: the fit found no time for that term.
  Projection none = Project(c, roof, Efficiency{0.5, 0, true}, 0, 1, "fp32");
  EXPECT_DOUBLE_EQ(none.batch_s, 2e-3);
}

TEST(RooflineTest, CalibrateRecoversComputeEfficiencyAndOverheadBesideMeasuredMemoryTime) {
  DeviceRoof local{1e11, 1e10, 0};
  // 1 ms of FLOPs per item, 10 ms of weights per run, 0.1 ms of activations per item.
  ModelCost c = Cost(1e8, 0.5e6, 1e8);
  auto time = [&](int b) {
    double compute = b * 1e-3, memory = (1e8 + 2 * 0.5e6 * b) / 1e10;
    return 0.0005 + compute / 0.25 + memory;
  };
  std::vector<CalibrationPoint> points;
  for (int b : {1, 4, 16, 64}) points.push_back({b, time(b)});
  auto cal = Calibrate(c, local, "fp32", points);
  ASSERT_TRUE(cal.ok()) << cal.status().message();
  EXPECT_TRUE(cal->efficiency.additive);
  EXPECT_NEAR(cal->efficiency.compute, 0.25, 1e-9);
  EXPECT_DOUBLE_EQ(cal->efficiency.memory, 1);
  EXPECT_NEAR(cal->overhead_s, 0.0005, 1e-12);
  EXPECT_EQ(cal->note, "");
  // The calibrated projection reproduces a batch it was not fitted on.
  Projection p = Project(c, local, cal->efficiency, cal->overhead_s, 8, "fp32");
  EXPECT_NEAR(p.batch_s, time(8), 1e-12);
}

TEST(RooflineTest, CalibrateWithOnePointPutsAllTimeOnTheFlops) {
  DeviceRoof local{1e11, 0, 0};
  auto cal = Calibrate(Cost(1e8, 0), local, "fp32", {{2, 0.01}});
  ASSERT_TRUE(cal.ok());
  EXPECT_DOUBLE_EQ(cal->overhead_s, 0);
  EXPECT_NEAR(cal->efficiency.compute, 0.2, 1e-12);
  EXPECT_NE(cal->note.find("one batch size"), std::string::npos) << cal->note;
}

TEST(RooflineTest, CalibrateDropsTheOverheadWhenTimesShrinkAsTheBatchGrows) {
  DeviceRoof local{1e11, 0, 0};
  // Roofline 1 ms and 16 ms; measured 10 ms and 9 ms: noise, not work.
  auto cal = Calibrate(Cost(1e8, 0), local, "fp32", {{1, 0.010}, {16, 0.009}});
  ASSERT_TRUE(cal.ok()) << cal.status().message();
  EXPECT_DOUBLE_EQ(cal->overhead_s, 0);
  EXPECT_NE(cal->note.find("did not grow"), std::string::npos);
  // Least squares through zero: k = sum(x*y) / sum(x*x).
  double k = (0.001 * 0.010 + 0.016 * 0.009) / (0.001 * 0.001 + 0.016 * 0.016);
  EXPECT_NEAR(cal->efficiency.compute, 1 / k, 1e-9);
}

TEST(RooflineTest, CalibrateRejectsAModelWithNothingToProject) {
  DeviceRoof local{1e11, 1e10, 0};
  auto cal = Calibrate(Cost(0, 0), local, "fp32", {{1, 0.01}});
  TFHOST_ASSERT_ERROR(cal, StatusCode::kFailedPrecondition,
                      "calibration: the model's roofline time is 0 (no FLOPs counted and no bytes moved); nothing to "
                      "calibrate against");
  EXPECT_EQ(cal.status().code(), StatusCode::kFailedPrecondition);
}

}  // namespace
}  // namespace tfhost::host::plan
