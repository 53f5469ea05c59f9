#include "backends/cpu/simd/simd_conv_epilogue.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "backends/cpu/simd/simd_test_util.h"
#include "ops/nn/nn_util.h"

namespace tfhost::backends::simd {
namespace {

using ops::nn::Activation;

// Distance in representable floats (same sign assumed by the callers).
int64_t UlpDistance(float a, float b) {
  int32_t ia, ib;
  std::memcpy(&ia, &a, sizeof(ia));
  std::memcpy(&ib, &b, sizeof(ib));
  return std::llabs(int64_t{ia} - int64_t{ib});
}

double ExactSigmoid(double x) { return x >= 0 ? 1 / (1 + std::exp(-x)) : std::exp(x) / (1 + std::exp(x)); }

std::vector<float> Applied(std::vector<float> v, Activation act) {
  ApplyLogisticActivationAvx512(v.data(), static_cast<int64_t>(v.size()), act);
  return v;
}

// Every 1/64 from -120 to 120 (the saturated ends, the reduction's
// boundaries at multiples of ln 2, zero) and 100,000 random values.
std::vector<float> Sweep() {
  std::vector<float> x;
  for (int i = -120 * 64; i <= 120 * 64; ++i) x.push_back(i / 64.0f);
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> wide(-30, 30);
  for (int i = 0; i < 100000; ++i) x.push_back(wide(rng));
  return x;
}

TEST(SimdConvEpilogueTest, SigmoidAndSwishAreWithinFourUlpsOfTheExactValues) {
  TFHOST_SKIP_WITHOUT_AVX512("fused activation");
  const std::vector<float> x = Sweep();
  const std::vector<float> sigmoid = Applied(x, Activation::kSigmoid);
  const std::vector<float> swish = Applied(x, Activation::kSwish);
  int64_t worst = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    const float want = static_cast<float>(ExactSigmoid(x[i]));
    const float want_swish = static_cast<float>(x[i] * ExactSigmoid(x[i]));
    // Below the smallest normal float the ulp is fixed: compare absolutely.
    if (std::fabs(want) < std::numeric_limits<float>::min()) {
      EXPECT_NEAR(sigmoid[i], want, 2 * std::numeric_limits<float>::denorm_min()) << "sigmoid(" << x[i] << ")";
      continue;
    }
    worst = std::max(worst, UlpDistance(sigmoid[i], want));
    ASSERT_LE(UlpDistance(sigmoid[i], want), 4) << "sigmoid(" << x[i] << ") = " << sigmoid[i] << ", want " << want;
    if (std::fabs(want_swish) >= std::numeric_limits<float>::min()) {
      ASSERT_LE(UlpDistance(swish[i], want_swish), 4)
          << "swish(" << x[i] << ") = " << swish[i] << ", want " << want_swish;
    }
  }
  RecordProperty("worst_sigmoid_ulps", static_cast<int>(worst));
}

TEST(SimdConvEpilogueTest, SpecialValuesGiveTheReferencesResults) {
  TFHOST_SKIP_WITHOUT_AVX512("fused activation");
  const float inf = std::numeric_limits<float>::infinity();
  const float nan = std::numeric_limits<float>::quiet_NaN();
  // 17 values: the last is the masked tail of the in-place loop.
  std::vector<float> x = {inf, -inf, nan, 0.0f, -0.0f, 1e-30f, -1e-30f, 1e30f, -1e30f, 88.0f, -88.0f,
                          104.0f, -104.0f, 200.0f, -200.0f, 3.0f, nan};
  const std::vector<float> sigmoid = Applied(x, Activation::kSigmoid);
  const std::vector<float> swish = Applied(x, Activation::kSwish);
  EXPECT_EQ(sigmoid[0], 1.0f);
  EXPECT_EQ(sigmoid[1], 0.0f);
  EXPECT_TRUE(std::isnan(sigmoid[2]));
  EXPECT_EQ(sigmoid[3], 0.5f);
  EXPECT_EQ(sigmoid[4], 0.5f);
  EXPECT_EQ(sigmoid[7], 1.0f);
  EXPECT_EQ(sigmoid[8], 0.0f);
  EXPECT_EQ(sigmoid[14], 0.0f);
  EXPECT_TRUE(std::isnan(sigmoid[16]));
  EXPECT_EQ(swish[0], inf);
  EXPECT_TRUE(std::isnan(swish[1])) << "swish(-inf) is -inf * 0, as in the reference";
  EXPECT_TRUE(std::isnan(swish[2]));
  EXPECT_EQ(swish[7], 1e30f);
  EXPECT_EQ(swish[8], -0.0f);
  EXPECT_EQ(swish[13], 200.0f);
  EXPECT_TRUE(std::isnan(swish[16]));
  // Other activations are left as they are.
  EXPECT_EQ(Applied({-2.0f, 7.0f}, Activation::kRelu), (std::vector<float>{-2.0f, 7.0f}));
}

TEST(SimdConvEpilogueTest, ParsesTheActivationsTheKernelsApplyAndRefusesOthers) {
  auto parse = [](std::vector<std::string> fused_ops, int64_t num_args, ConvEpilogue* e) {
    ir::Node node;
    node.op = "_FusedConv2D";
    node.attrs["fused_ops"] = ops::MakeAttr(fused_ops);
    node.attrs["num_args"] = ops::MakeAttr(num_args);
    return ParseConvEpilogue(node, /*allow_residual=*/true, e);
  };
  ConvEpilogue e;
  ASSERT_TRUE(parse({"BiasAdd", "_MklSwish"}, 1, &e));
  EXPECT_TRUE(e.bias);
  EXPECT_EQ(e.act, Activation::kSwish);
  ASSERT_TRUE(parse({"BiasAdd", "Add", "Sigmoid"}, 2, &e));
  EXPECT_TRUE(e.residual);
  EXPECT_EQ(e.act, Activation::kSigmoid);
  EXPECT_FALSE(parse({"BiasAdd", "Tanh"}, 1, &e));
  EXPECT_FALSE(parse({"BiasAdd", "_MklSwish", "Relu"}, 1, &e));
  EXPECT_FALSE(parse({"BiasAdd", "_MklSwish"}, 2, &e)) << "num_args must match the ops";
}

}  // namespace
}  // namespace tfhost::backends::simd
