#include <gtest/gtest.h>

#include "backends/cpu/simd/simd_test_util.h"
#include "ops/nn/layer_norm.h"

namespace tfhost::backends::simd {
namespace {

using testing::ExpectSimdMatchesReference;
using testing::RandomFloats;

ir::AttrMap Attrs(float epsilon) {
  return {{"T", ops::MakeAttr(DType::kFloat)}, {"epsilon", ops::MakeAttr(epsilon)}};
}

void ExpectMatches(const Shape& x, const Shape& params, float lo, float hi, bool specials, uint32_t seed) {
  SCOPED_TRACE(x.ToString());
  // Within a float ulp or two of the reference: only the order of the
  // double sums differs.
  const std::vector<Tensor> inputs = {RandomFloats(x, lo, hi, specials, seed),
                                      RandomFloats(params, 0.5f, 1.5f, false, seed + 1),
                                      RandomFloats(params, -1, 1, false, seed + 2)};
  ExpectSimdMatchesReference(ops::nn::kLayerNormOp, inputs, Attrs(1e-5f), 1e-6, 1e-6);
}

TEST(SimdLayerNormTest, MatchesReferenceOverRowLengths) {
  for (int64_t channels : testing::SweepSizes()) {
    if (channels == 0 || channels > 2000) continue;
    ExpectMatches(Shape({3, channels}), Shape({channels}), -4, 4, false, static_cast<uint32_t>(channels));
  }
  // BERT-base's rows, many of them (split over the pool), gamma as [1, 1, C].
  ExpectMatches(Shape({2, 128, 768}), Shape({1, 1, 768}), -6, 10, false, 7);
  ExpectMatches(Shape({0, 32}), Shape({32}), -1, 1, false, 8);
}

TEST(SimdLayerNormTest, RowsOfLargeOffsetsAndSpecialValuesBehaveLikeTheReference) {
  // A large common offset: the variance comes from the differences, not
  // from the squares' difference, so it keeps its digits.
  ExpectMatches(Shape({4, 300}), Shape({300}), 1000, 1001, false, 11);
  // NaN and infinities make their rows NaN in both.
  ExpectMatches(Shape({6, 40}), Shape({40}), -3, 3, true, 12);
}

TEST(SimdLayerNormTest, AddLayerNormMatchesReferenceAndHandsBroadcastsOn) {
  for (int64_t channels : {7, 16, 40, 768}) {
    SCOPED_TRACE(channels);
    const Shape x({3, 5, channels});
    ExpectSimdMatchesReference(ops::nn::kAddLayerNormOp,
                               {RandomFloats(x, -4, 4, false, 21), RandomFloats(x, -3, 5, false, 22),
                                RandomFloats(Shape({channels}), 0.5f, 1.5f, false, 23),
                                RandomFloats(Shape({channels}), -1, 1, false, 24)},
                               Attrs(1e-5f), 1e-6, 1e-6);
  }
  // b broadcasting along rows: the reference kernel's.
  const std::vector<Tensor> broadcast = {
      RandomFloats(Shape({3, 40}), -4, 4, false, 25), RandomFloats(Shape({1, 40}), -3, 5, false, 26),
      RandomFloats(Shape({40}), 0.5f, 1.5f, false, 27), RandomFloats(Shape({40}), -1, 1, false, 28)};
  ExpectSimdMatchesReference(ops::nn::kAddLayerNormOp, broadcast, Attrs(1e-5f), 1e-6, 1e-6);
}

TEST(SimdLayerNormTest, ParametersNotOnePerChannelAreErrorsNamingTheInput) {
  auto node = ops::MakeSingleOpNode(ops::nn::kLayerNormOp, Attrs(1e-5f));
  ASSERT_TRUE(node.ok()) << node.status().ToString();
  ops::KernelFn kernel = testing::MakeSimdKernel(*node);
  ASSERT_TRUE(kernel);
  auto out = ops::RunKernelOnNode(*node, kernel,
                                  {RandomFloats(Shape({2, 16}), -1, 1, false), RandomFloats(Shape({16}), -1, 1, false),
                                   RandomFloats(Shape({15}), -1, 1, false)});
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(out.status().message().find("input beta must hold one value per channel of x [2,16]"), std::string::npos)
      << out.status().ToString();
}

}  // namespace
}  // namespace tfhost::backends::simd
