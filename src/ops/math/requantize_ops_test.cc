// TFLite's fixed-point rescaling, on values worked out by hand from its
// definition (QuantizeMultiplier, SaturatingRoundingDoublingHighMul,
// RoundingDivideByPOT), and _TfhostRequantize's channels, clamp and errors.
// tests/tflite holds it to LiteRT's integer kernels on whole models.
#include "ops/math/requantize.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <vector>

#include "base/test_status.h"
#include "ops/run_single_op.h"

namespace tfhost::ops {
namespace {

TEST(RequantizeTest, QuantizeMultiplierSplitsAMantissaInQ31AndAPowerOfTwo) {
  EXPECT_EQ(QuantizeMultiplier(0.5).multiplier, 1 << 30);
  EXPECT_EQ(QuantizeMultiplier(0.5).shift, 0);
  EXPECT_EQ(QuantizeMultiplier(1.0).multiplier, 1 << 30);
  EXPECT_EQ(QuantizeMultiplier(1.0).shift, 1);
  EXPECT_EQ(QuantizeMultiplier(0.75).multiplier, 1610612736);
  EXPECT_EQ(QuantizeMultiplier(0.001).shift, -9);  // 0.001 = 0.512 * 2^-9
  // A mantissa that rounds up to 2^31 halves and raises the shift.
  const QuantizedMultiplier up = QuantizeMultiplier(0.99999999999);
  EXPECT_EQ(up.multiplier, 1 << 30);
  EXPECT_EQ(up.shift, 1);
  EXPECT_EQ(QuantizeMultiplier(0.0).multiplier, 0);
  EXPECT_EQ(QuantizeMultiplier(1e-12).multiplier, 0);
}

// 0.25 = 2^30 / 2^31 * 2^-1. 100 -> 25; 3 * 0.5 = 1.5 rounds up to 2, while
// -1.5 gives -1 (the doubling high multiply's nudge for negatives is one
// short of a half); 0.25 * 6 = 1.5 rounds away from zero in the final shift.
TEST(RequantizeTest, MultiplyByQuantizedMultiplierRoundsAsGemmlowp) {
  EXPECT_EQ(MultiplyByQuantizedMultiplier(100, 1 << 30, -1), 25);
  EXPECT_EQ(MultiplyByQuantizedMultiplier(3, 1 << 30, 0), 2);
  EXPECT_EQ(MultiplyByQuantizedMultiplier(-3, 1 << 30, 0), -1);
  EXPECT_EQ(MultiplyByQuantizedMultiplier(6, 1 << 30, -1), 2);
  EXPECT_EQ(MultiplyByQuantizedMultiplier(-6, 1 << 30, -1), -2);
  EXPECT_EQ(MultiplyByQuantizedMultiplier(7, 1 << 30, 2), 14);  // a left shift first
}

ir::AttrMap Attrs(std::vector<int64_t> multipliers, std::vector<int64_t> shifts, int64_t zero_point,
                  int64_t lo = -128, int64_t hi = 127) {
  ir::AttrMap attrs;
  attrs["out_type"] = MakeAttr(DType::kInt8);
  attrs["multipliers"] = MakeAttr(multipliers);
  attrs["shifts"] = MakeAttr(shifts);
  attrs["zero_point"] = MakeAttr(zero_point);
  attrs["clamp_min"] = MakeAttr(lo);
  attrs["clamp_max"] = MakeAttr(hi);
  return attrs;
}

std::vector<int64_t> Ints(const Tensor& t) {
  std::vector<int64_t> out;
  for (int64_t i = 0; i < t.NumElements(); ++i) out.push_back(t.data<int8_t>()[i]);
  return out;
}

// Channel 0 scales by 0.5, channel 1 by 0.25; zero point 3; the clamp
// [3, 20] is a fused RELU and a cap.
TEST(RequantizeTest, ChannelsAreTheLastDimensionAndTheClampComesAfterTheZeroPoint) {
  const Tensor acc = Tensor::FromVector<int32_t>({10, 10, -40, 100, 7, 9}, Shape({3, 2}));
  auto out = RunSingleOp("_TfhostRequantize", {acc}, Attrs({1 << 30, 1 << 30}, {0, -1}, 3, 3, 20));
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  // 10*0.5+3 = 8, 10*0.25+3 = 5.5 -> 6 (2.5 rounds up), -20+3 -> clamp 3,
  // 25+3 -> clamp 20, 3.5 -> 4 + 3 = 7; 9*0.25 = 2.25 gives 3 + 3 = 6, not
  // 5: TFLite rounds twice (the high multiply makes 4.5 into 5, the shift
  // halves that to 2.5 and rounds again).
  EXPECT_EQ(Ints((*out)[0]), (std::vector<int64_t>{8, 6, 3, 20, 7, 6}));
  // A float accumulator holding the same integers gives the same answer.
  const Tensor acc_f = Tensor::FromVector<float>({10, 10, -40, 100, 7, 9}, Shape({3, 2}));
  auto out_f = RunSingleOp("_TfhostRequantize", {acc_f}, Attrs({1 << 30, 1 << 30}, {0, -1}, 3, 3, 20));
  ASSERT_TRUE(out_f.ok()) << out_f.status().ToString();
  EXPECT_EQ(Ints((*out_f)[0]), Ints((*out)[0]));
}

TEST(RequantizeTest, BadAttrsAreRefusedNamingWhatIsWrong) {
  const Tensor acc = Tensor::FromVector<int32_t>({1, 2, 3}, Shape({1, 3}));
  TFHOST_EXPECT_ERROR(RunSingleOp("_TfhostRequantize", {acc}, Attrs({1 << 30, 1 << 30}, {0, 0}, 0)).status(),
                      StatusCode::kInvalidArgument,
                      "has 2 per-channel multipliers for an input of shape [1,3]; expected that many channels");
  TFHOST_EXPECT_ERROR(RunSingleOp("_TfhostRequantize", {acc}, Attrs({1 << 30}, {40}, 0)).status(),
                      StatusCode::kInvalidArgument, "channel 0 has multiplier 1073741824 and shift 40");
  TFHOST_EXPECT_ERROR(RunSingleOp("_TfhostRequantize", {acc}, Attrs({1 << 30}, {0}, 0, 5, 4)).status(),
                      StatusCode::kInvalidArgument, "clamp [5, 4] must lie in [-128, 127] and not be empty");
}

// The double form (TFLite's reference FULLY_CONNECTED): one rounding of
// acc x input_scale x weight_scale / output_scale, in double. From a
// convnext layer: -3574 x 0.038352653 x 0.0030438385 / 0.049096275 =
// -8.4981 rounds to -8, where the fixed-point form rounds twice
// (-2175.6 -> -2176 before the 2^-8 shift, then -8.5 -> -9).
TEST(RequantizeTest, WeightScalesRescaleInDoubleWithOneRounding) {
  ir::AttrMap attrs = Attrs({}, {}, -2);
  attrs["weight_scales"] = MakeAttr(std::vector<float>{0.0030438385f});
  attrs["input_scale"] = MakeAttr(0.038352653f);
  attrs["output_scale"] = MakeAttr(0.049096275f);
  auto out = RunSingleOp("_TfhostRequantize", {Tensor::FromVector<int32_t>({-3574, 1000})}, attrs);
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  // 1000 -> 2.3778 -> 2, + the zero point.
  EXPECT_EQ(Ints((*out)[0]), (std::vector<int64_t>{-10, 0}));
  const double real = 0.038352653 * 0.0030438385 / 0.049096275;
  const QuantizedMultiplier m = QuantizeMultiplier(real);
  EXPECT_EQ(MultiplyByQuantizedMultiplier(-3574, m.multiplier, m.shift) - 2, -11);
}

TEST(RequantizeTest, RoundingDivideByPotRoundsHalvesAwayFromZeroForAnyExponent) {
  EXPECT_EQ(RoundingDivideByPot(5, 1), 3);    // 2.5
  EXPECT_EQ(RoundingDivideByPot(-5, 1), -3);  // -2.5
  EXPECT_EQ(RoundingDivideByPot(7, 2), 2);    // 1.75
  EXPECT_EQ(RoundingDivideByPot(1 << 30, 31), 1);  // 0.5
  EXPECT_EQ(RoundingDivideByPot(std::numeric_limits<int32_t>::max(), 40), 0);
  EXPECT_EQ(RoundingDivideByPot(std::numeric_limits<int32_t>::min(), 32), -1);  // -0.5
  EXPECT_EQ(RoundingDivideByPot(-7, 0), -7);
}

TEST(RequantizeTest, BothFormsOfRescalingAtOnceAreRefused) {
  ir::AttrMap attrs = Attrs({1 << 30}, {0}, 0);
  attrs["weight_scales"] = MakeAttr(std::vector<float>{0.5f});
  attrs["input_scale"] = MakeAttr(1.0f);
  attrs["output_scale"] = MakeAttr(1.0f);
  TFHOST_EXPECT_ERROR(RunSingleOp("_TfhostRequantize", {Tensor::FromVector<int32_t>({1})}, attrs).status(),
                      StatusCode::kInvalidArgument,
                      "has both weight_scales and multipliers/shifts; expected one form of rescaling");
  ir::AttrMap no_scale = Attrs({}, {}, 0);
  no_scale["weight_scales"] = MakeAttr(std::vector<float>{0.5f});
  TFHOST_EXPECT_ERROR(RunSingleOp("_TfhostRequantize", {Tensor::FromVector<int32_t>({1})}, no_scale).status(),
                      StatusCode::kInvalidArgument,
                      "input_scale 0.000000 and output_scale 0.000000 must be positive and finite with weight_scales");
}

// Fuzzer finding: a NaN weight scale made every accumulator NaN before the
// int conversion (UBSan). Factors that are not finite and non-negative are
// refused, naming the channel.
TEST(RequantizeTest, AWeightScaleGivingANanOrInfiniteFactorIsRefused) {
  ir::AttrMap attrs = Attrs({}, {}, 0);
  attrs["weight_scales"] = MakeAttr(std::vector<float>{0.5f, std::numeric_limits<float>::quiet_NaN()});
  attrs["input_scale"] = MakeAttr(1.0f);
  attrs["output_scale"] = MakeAttr(1.0f);
  TFHOST_EXPECT_ERROR(RunSingleOp("_TfhostRequantize", {Tensor::FromVector<int32_t>({1, 2})}, attrs).status(),
                      StatusCode::kInvalidArgument,
                      "weight_scales[1] = nan gives the rescale factor nan (input_scale x weight scale / "
                      "output_scale); expected a finite, non-negative one");
  // An infinite scale, and a negative one.
  attrs["weight_scales"] = MakeAttr(std::vector<float>{std::numeric_limits<float>::infinity()});
  TFHOST_EXPECT_ERROR(RunSingleOp("_TfhostRequantize", {Tensor::FromVector<int32_t>({1})}, attrs).status(),
                      StatusCode::kInvalidArgument, "weight_scales[0] = inf gives the rescale factor inf");
  attrs["weight_scales"] = MakeAttr(std::vector<float>{-0.5f});
  TFHOST_EXPECT_ERROR(RunSingleOp("_TfhostRequantize", {Tensor::FromVector<int32_t>({1})}, attrs).status(),
                      StatusCode::kInvalidArgument, "weight_scales[0] = -0.500000 gives the rescale factor -0.500000");
}

}  // namespace
}  // namespace tfhost::ops
