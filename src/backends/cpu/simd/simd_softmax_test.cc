#include <gtest/gtest.h>

#include "backends/cpu/simd/simd_test_util.h"

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

}  // namespace
}  // namespace tfhost::backends::simd
