#include <gtest/gtest.h>

#include "backends/cpu/simd/simd_test_util.h"
#include "ops/math/masked_softmax.h"

namespace tfhost::backends::simd {
namespace {

using testing::ExpectSimdMatchesReference;
using testing::RandomFloats;

ir::AttrMap FloatT() { return {{"T", ops::MakeAttr(DType::kFloat)}}; }

TEST(SimdSoftmaxTest, MatchesReferenceOverRowLengths) {
  for (const char* op : {"Softmax", "LogSoftmax"}) {
    for (int64_t depth : testing::SweepSizes()) {
      if (depth > 2000) continue;
      ExpectSimdMatchesReference(op, {RandomFloats(Shape({3, depth}), -30, 30, false, depth)}, FloatT());
    }
    ExpectSimdMatchesReference(op, {RandomFloats(Shape({2, 3, 1001}), -30, 30, false)}, FloatT());
    ExpectSimdMatchesReference(op, {RandomFloats(Shape({0, 5}), -30, 30, false)}, FloatT());
    ExpectSimdMatchesReference(op, {RandomFloats(Shape({17}), -30, 30, false)}, FloatT());
  }
}

TEST(SimdSoftmaxTest, LargeLogitsAndManyRowsMatchReference) {
  for (const char* op : {"Softmax", "LogSoftmax"}) {
    ExpectSimdMatchesReference(op, {RandomFloats(Shape({4, 1000}), 900, 1100, false)}, FloatT());
    ExpectSimdMatchesReference(op, {RandomFloats(Shape({5000, 21}), -10, 10, false)}, FloatT());
  }
}

TEST(SimdSoftmaxTest, RowsWithInfinitiesOrNanBehaveLikeTheReference) {
  const float inf = std::numeric_limits<float>::infinity();
  const std::vector<float> rows = {1, 2, 3, -inf, 5,  -inf, -inf, -inf, -inf, -inf, 1, inf, 2, 3, 4,
                                   1, std::nanf(""), 3, 4, 5,  -inf, 0, 0, 0, 1};
  for (const char* op : {"Softmax", "LogSoftmax"}) {
    ExpectSimdMatchesReference(op, {Tensor::FromVector<float>(rows, Shape({5, 5}))}, FloatT());
  }
}

TEST(SimdSoftmaxTest, WideRowsWithInfinitiesOrNanBehaveLikeTheReference) {
  // Rows of 40 (the AVX-512 kernel's wide path, with a tail of 8): -inf
  // entries give 0, a +inf or a NaN makes the row NaN, a row of only -inf is
  // NaN, and logits far below the row's maximum underflow to 0.
  const float inf = std::numeric_limits<float>::infinity();
  Tensor x = RandomFloats(Shape({6, 40}), -20, 20, false, 5);
  float* p = x.data<float>();
  p[3] = -inf;
  p[39] = -inf;
  p[40 + 17] = inf;
  p[80 + 38] = std::nanf("");
  for (int i = 0; i < 40; ++i) p[120 + i] = -inf;
  p[160] = 200.0f;  // the rest of row 4 is e^-180 and below
  for (int i = 0; i < 40; ++i) p[200 + i] = 80.0f + 0.5f * static_cast<float>(i);
  for (const char* op : {"Softmax", "LogSoftmax"}) ExpectSimdMatchesReference(op, {x}, FloatT());
}

// The masked softmax kernel is AVX-512 only (other CPUs run the reference);
// each case runs without and with zero_masked.
void ExpectMaskedMatches(const std::vector<Tensor>& inputs) {
  for (bool zero_masked : {false, true}) {
    ir::AttrMap attrs = FloatT();
    attrs["zero_masked"] = ops::MakeAttr(zero_masked);
    ExpectSimdMatchesReference(ops::math::kMaskedSoftmaxOp, inputs, attrs, testing::kRtol, testing::kAtol,
                               {IsaLevel::kAvx512});
  }
}

Tensor MaskOf(const Shape& shape, int every) {
  Tensor t(DType::kBool, shape);
  for (int64_t i = 0; i < t.NumElements(); ++i) t.data<bool>()[i] = (i * 7) % every != 0;
  return t;
}

TEST(SimdMaskedSoftmaxTest, MatchesReferenceForAttentionMasks) {
  TFHOST_SKIP_WITHOUT_AVX512("masked softmax");
  const Tensor fill = Tensor::Scalar<float>(-1e9f);
  // [B, 1, T, T] and [B, 1, 1, T] masks on [B, H, T, T] scores, rows of 40
  // (a masked tail) and 128; a scalar mask; a row-wide mask ([.., 1]).
  for (int64_t t : {40, 128}) {
    const Tensor scores = RandomFloats(Shape({2, 3, 5, t}), -20, 20, false, static_cast<uint32_t>(t));
    ExpectMaskedMatches({scores, MaskOf(Shape({2, 1, 5, t}), 5), fill});
    ExpectMaskedMatches({scores, MaskOf(Shape({2, 1, 1, t}), 3), fill});
  }
  const Tensor scores = RandomFloats(Shape({6, 17}), -20, 20, false, 3);
  ExpectMaskedMatches({scores, MaskOf(Shape({}), 2), fill});
  ExpectMaskedMatches({scores, MaskOf(Shape({6, 1}), 4), fill});
}

TEST(SimdMaskedSoftmaxTest, FullyMaskedRowsAndEnlargingMasksBehaveLikeTheReference) {
  TFHOST_SKIP_WITHOUT_AVX512("masked softmax");
  // Every position of the second row masked: uniform with a finite fill,
  // NaN with -inf (as SelectV2 then Softmax give).
  Tensor mask(DType::kBool, Shape({3, 20}));
  for (int64_t i = 0; i < 60; ++i) mask.data<bool>()[i] = i < 20 || i >= 40 ? i % 4 != 0 : false;
  const Tensor scores = RandomFloats(Shape({3, 20}), -5, 5, false, 4);
  for (float fill : {-1e9f, -std::numeric_limits<float>::infinity()}) {
    ExpectMaskedMatches({scores, mask, Tensor::Scalar<float>(fill)});
  }
  // A mask that enlarges the scores goes to the reference kernel.
  ExpectMaskedMatches({RandomFloats(Shape({1, 20}), -5, 5, false, 5), MaskOf(Shape({3, 20}), 3),
                       Tensor::Scalar<float>(-1e9f)});
}

}  // namespace
}  // namespace tfhost::backends::simd
