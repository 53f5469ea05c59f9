#include <gtest/gtest.h>

#include <cmath>

#include "ops/run_single_op.h"
#include "base/test_status.h"

namespace tfhost::ops {
namespace {

Tensor F(const std::vector<float>& v, Shape s) { return Tensor::FromVector<float>(v, std::move(s)); }
Tensor V(const std::vector<float>& v) { return Tensor::FromVector<float>(v); }

TEST(FusedBatchNormV3Test, InferenceAppliesThePerChannelFormula) {
  // Two channels, two pixels.
  const Tensor x = F({1, 10, 3, 20}, Shape({1, 1, 2, 2}));
  ir::AttrMap attrs = {{"T", MakeAttr(DType::kFloat)},
                       {"U", MakeAttr(DType::kFloat)},
                       {"is_training", MakeAttr(false)},
                       {"epsilon", MakeAttr(0.01f)}};
  auto out = RunSingleOp("FusedBatchNormV3",
                         {x, V({2, 0.5f}), V({1, -1}), V({2, 15}), V({4, 25})}, attrs);
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  ASSERT_EQ(out->size(), 6u);
  const Tensor& y = (*out)[0];
  EXPECT_NEAR(y.data<float>()[0], 2 * (1 - 2) / std::sqrt(4.01) + 1, 1e-6);
  EXPECT_NEAR(y.data<float>()[1], 0.5 * (10 - 15) / std::sqrt(25.01) - 1, 1e-6);
  EXPECT_NEAR(y.data<float>()[2], 2 * (3 - 2) / std::sqrt(4.01) + 1, 1e-6);
  EXPECT_NEAR(y.data<float>()[3], 0.5 * (20 - 15) / std::sqrt(25.01) - 1, 1e-6);
  // Mean and variance pass through.
  EXPECT_TRUE(TensorsEqual((*out)[1], V({2, 15})));
  EXPECT_TRUE(TensorsEqual((*out)[2], V({4, 25})));
}

TEST(FusedBatchNormTest, NchwUsesDimOneAsChannels) {
  // Channel 0 = {1, 3}, channel 1 = {10, 20}; unit scale, zero offset.
  const Tensor x = F({1, 3, 10, 20}, Shape({1, 2, 1, 2}));
  ir::AttrMap attrs = {{"T", MakeAttr(DType::kFloat)},
                       {"is_training", MakeAttr(false)},
                       {"epsilon", MakeAttr(0.f)},
                       {"data_format", MakeAttr("NCHW")}};
  auto out = RunSingleOp("FusedBatchNorm", {x, V({1, 1}), V({0, 0}), V({1, 10}), V({1, 4})}, attrs);
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_TRUE(TensorsEqual((*out)[0], F({0, 2, 0, 5}, Shape({1, 2, 1, 2}))))
      << (*out)[0].DebugString();
}

TEST(FusedBatchNormV3Test, TrainingUsesBatchStatistics) {
  // One channel with values 1, 2, 3, 4: mean 2.5, biased var 1.25, unbiased 5/3.
  const Tensor x = F({1, 2, 3, 4}, Shape({1, 2, 2, 1}));
  ir::AttrMap attrs = {{"T", MakeAttr(DType::kFloat)},
                       {"U", MakeAttr(DType::kFloat)},
                       {"is_training", MakeAttr(true)},
                       {"epsilon", MakeAttr(0.f)}};
  auto out = RunSingleOp("FusedBatchNormV3", {x, V({1}), V({0}), V({}), V({})}, attrs);
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_NEAR((*out)[0].data<float>()[0], -1.5 / std::sqrt(1.25), 1e-6);
  EXPECT_NEAR((*out)[1].data<float>()[0], 2.5, 1e-6);
  EXPECT_NEAR((*out)[2].data<float>()[0], 5.0 / 3.0, 1e-6);
  EXPECT_NEAR((*out)[4].data<float>()[0], 1.25, 1e-6);
}

TEST(FusedBatchNormV3Test, HalfInputKeepsHalfY) {
  Tensor x(DType::kHalf, Shape({1, 1, 1, 1}));
  x.data<uint16_t>()[0] = FloatToHalf(3.f);
  ir::AttrMap attrs = {{"T", MakeAttr(DType::kHalf)},
                       {"U", MakeAttr(DType::kFloat)},
                       {"is_training", MakeAttr(false)},
                       {"epsilon", MakeAttr(0.f)}};
  auto out = RunSingleOp("FusedBatchNormV3", {x, V({2}), V({1}), V({1}), V({1})}, attrs);
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  ASSERT_EQ((*out)[0].dtype(), DType::kHalf);
  EXPECT_EQ(HalfToFloat((*out)[0].data<uint16_t>()[0]), 5.f);
  EXPECT_EQ((*out)[1].dtype(), DType::kFloat);
}

TEST(FusedBatchNormV3Test, RejectsScaleOfWrongLength) {
  const Tensor x(DType::kFloat, Shape({1, 2, 2, 3}));
  ir::AttrMap attrs = {{"T", MakeAttr(DType::kFloat)},
                       {"U", MakeAttr(DType::kFloat)},
                       {"is_training", MakeAttr(false)}};
  auto out = RunSingleOp("FusedBatchNormV3", {x, V({1, 1}), V({0, 0, 0}), V({0, 0, 0}),
                                              V({1, 1, 1})}, attrs);
  TFHOST_ASSERT_ERROR(out, StatusCode::kInvalidArgument,
                      "scale must be a vector of 3 values (one per channel), got shape [2]");
}

}  // namespace
}  // namespace tfhost::ops
