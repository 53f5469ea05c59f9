// The SIMD _TfhostRequantize against the reference kernel, bit for bit, on
// accumulators across the int32 range (with NaN and values past it), for
// per-channel and per-tensor multipliers, left and right shifts, int8 and
// uint8, under every ISA level this CPU supports.
#include <gtest/gtest.h>

#include <random>

#include "backends/cpu/simd/simd_test_util.h"
#include "ops/math/requantize.h"

namespace tfhost::backends::simd {
namespace {

using testing::ExpectSimdMatchesReference;

Tensor Accumulators(int64_t rows, int64_t channels, uint32_t seed) {
  Tensor t(DType::kFloat, Shape({rows, channels}));
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int32_t> small(-70000, 70000);
  std::uniform_int_distribution<int32_t> any(std::numeric_limits<int32_t>::min(), std::numeric_limits<int32_t>::max());
  float* p = t.data<float>();
  for (int64_t i = 0; i < t.NumElements(); ++i) p[i] = static_cast<float>(i % 5 == 0 ? any(rng) : small(rng));
  p[0] = std::nanf("");
  p[1] = 3e9f;
  p[2] = -3e9f;
  p[3] = 2.5f;  // not an integer: rounds to even, as the reference does
  return t;
}

ir::AttrMap Attrs(const std::vector<double>& scales, DType out, int64_t zero_point, int64_t lo, int64_t hi,
                  DType in = DType::kFloat) {
  std::vector<int64_t> multipliers, shifts;
  for (double s : scales) {
    const ops::QuantizedMultiplier m = ops::QuantizeMultiplier(s);
    multipliers.push_back(m.multiplier);
    shifts.push_back(m.shift);
  }
  ir::AttrMap attrs;
  attrs["T"] = ops::MakeAttr(in);
  attrs["out_type"] = ops::MakeAttr(out);
  attrs["multipliers"] = ops::MakeAttr(multipliers);
  attrs["shifts"] = ops::MakeAttr(shifts);
  attrs["zero_point"] = ops::MakeAttr(zero_point);
  attrs["clamp_min"] = ops::MakeAttr(lo);
  attrs["clamp_max"] = ops::MakeAttr(hi);
  return attrs;
}

TEST(SimdRequantizeTest, PerChannelInt8MatchesTheReferenceBitForBit) {
  std::vector<double> scales;
  for (int c = 0; c < 37; ++c) scales.push_back(1e-5 * (c + 1) * (c % 3 == 0 ? 1000 : 1));
  scales[5] = 3.5;  // a left shift
  ExpectSimdMatchesReference("_TfhostRequantize", {Accumulators(29, 37, 1)},
                             Attrs(scales, DType::kInt8, -3, -128, 127), 0, 0);
}

TEST(SimdRequantizeTest, PerTensorUint8WithAFusedReluClampMatchesTheReference) {
  ExpectSimdMatchesReference("_TfhostRequantize", {Accumulators(1000, 1, 2)},
                             Attrs({0.000731}, DType::kUInt8, 128, 128, 255), 0, 0);
}

// ADD's steps: a float accumulator to int32, then an int32 sum to int8.
TEST(SimdRequantizeTest, AddsInt32StepsMatchTheReference) {
  const int64_t max32 = std::numeric_limits<int32_t>::max(), min32 = std::numeric_limits<int32_t>::min();
  ExpectSimdMatchesReference("_TfhostRequantize", {Accumulators(64, 8, 3)},
                             Attrs({0.47}, DType::kInt32, 0, min32, max32), 0, 0);
  Tensor sums(DType::kInt32, Shape({64, 8}));
  std::mt19937 rng(4);
  std::uniform_int_distribution<int32_t> any(min32, max32);
  for (int64_t i = 0; i < sums.NumElements(); ++i) sums.data<int32_t>()[i] = any(rng);
  ExpectSimdMatchesReference("_TfhostRequantize", {sums}, Attrs({1.0 / 3000000.0}, DType::kInt8, 5, -128, 127,
                                                                DType::kInt32), 0, 0);
}

}  // namespace
}  // namespace tfhost::backends::simd
