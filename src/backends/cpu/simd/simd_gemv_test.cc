#include <gtest/gtest.h>

#include "backends/cpu/simd/simd_kernels.h"
#include "backends/cpu/simd/simd_test_util.h"

namespace tfhost::backends::simd {
namespace {

using testing::ExpectSimdMatchesReference;
using testing::RandomFloats;

ir::AttrMap MatMulAttrs(bool transpose_b) {
  return {{"T", ops::MakeAttr(DType::kFloat)},
          {"transpose_a", ops::MakeAttr(false)},
          {"transpose_b", ops::MakeAttr(transpose_b)}};
}

// Sums of up to 1031 products of values in [-1, 1], in another order than
// the reference's.
constexpr double kTol = 1e-4;

TEST(SimdGemvTest, OneRowProductsMatchReferenceOverShapes) {
  TFHOST_SKIP_WITHOUT_AVX512("matrix product");
  // Column counts around the 32-column panels and odd depths (the odd-k
  // tail); 1024 x 2049 (8 MiB) is large enough to be split over the pool.
  const std::vector<std::pair<int64_t, int64_t>> kn = {{256, 1024}, {64, 1024}, {1031, 65}, {129, 130},
                                                       {512, 33},   {16, 1025}, {1024, 17}, {257, 64},
                                                       {1024, 2049}};
  for (int64_t m = 1; m <= kGemvMaxRows; ++m) {
    for (auto [k, n] : kn) {
      for (bool transpose_b : {false, true}) {
        SCOPED_TRACE("m=" + std::to_string(m) + " k=" + std::to_string(k) + " n=" + std::to_string(n) +
                     (transpose_b ? " transpose_b" : ""));
        ASSERT_GE(k * n, kGemvMinWeightElements);
        Tensor a = RandomFloats(Shape({m, k}), -1, 1, false, static_cast<uint32_t>(m * 7 + k));
        Tensor b = RandomFloats(transpose_b ? Shape({n, k}) : Shape({k, n}), -1, 1, false, static_cast<uint32_t>(n));
        ExpectSimdMatchesReference("MatMul", {a, b}, MatMulAttrs(transpose_b), kTol, kTol, {IsaLevel::kAvx512});
      }
    }
  }
}

TEST(SimdGemvTest, NanAndInfinityPropagateLikeTheReference) {
  TFHOST_SKIP_WITHOUT_AVX512("matrix product");
  Tensor a = RandomFloats(Shape({2, 256}), -1, 1, false, 3);
  Tensor b = RandomFloats(Shape({256, 256}), -1, 1, false, 4);
  a.data<float>()[5] = std::numeric_limits<float>::infinity();
  b.data<float>()[7 * 256 + 100] = std::nanf("");
  ExpectSimdMatchesReference("MatMul", {a, b}, MatMulAttrs(false), kTol, kTol, {IsaLevel::kAvx512});
}

// A new weights buffer (a variable assigned between runs) is packed again,
// not read from the previous pack.
TEST(SimdGemvTest, ANewWeightsBufferIsRepacked) {
  TFHOST_SKIP_WITHOUT_AVX512("matrix product");
  auto node = ops::MakeSingleOpNode("MatMul", MatMulAttrs(false));
  ASSERT_TRUE(node.ok());
  ops::KernelFn kernel = testing::MakeSimdKernel(*node);
  ASSERT_TRUE(kernel);
  Tensor a = RandomFloats(Shape({1, 256}), -1, 1, false, 5);
  for (uint32_t seed : {6u, 7u, 6u}) {
    Tensor b = RandomFloats(Shape({256, 512}), -1, 1, false, seed);
    auto want = ops::RunSingleOp("MatMul", {a, b}, MatMulAttrs(false));
    ASSERT_TRUE(want.ok());
    auto got = ops::RunKernelOnNode(*node, kernel, {a, b}, nullptr, nullptr);
    ASSERT_TRUE(got.ok()) << got.status().ToString();
    EXPECT_TRUE(testing::Close((*got)[0], (*want)[0], kTol, kTol)) << "seed " << seed;
  }
}

// Shapes the kernel declines reach oneDNN's kernel (or the reference) and
// still give the reference's result, including its shape error.
TEST(SimdGemvTest, DeclinedShapesFallBackWithTheSameResults) {
  TFHOST_SKIP_WITHOUT_AVX512("matrix product");
  // More rows than the kernel takes; weights under the size floor; an empty product.
  ExpectSimdMatchesReference("MatMul", {RandomFloats(Shape({kGemvMaxRows + 1, 256}), -1, 1, false), RandomFloats(Shape({256, 512}), -1, 1, false)},
                             MatMulAttrs(false), kTol, kTol, {IsaLevel::kAvx512});
  ExpectSimdMatchesReference("MatMul", {RandomFloats(Shape({5, 256}), -1, 1, false), RandomFloats(Shape({256, 512}), -1, 1, false)},
                             MatMulAttrs(false), kTol, kTol, {IsaLevel::kAvx512});
  ExpectSimdMatchesReference("MatMul", {RandomFloats(Shape({1, 64}), -1, 1, false), RandomFloats(Shape({64, 64}), -1, 1, false)},
                             MatMulAttrs(false), kTol, kTol, {IsaLevel::kAvx512});
  ExpectSimdMatchesReference("MatMul", {RandomFloats(Shape({0, 256}), -1, 1, false), RandomFloats(Shape({256, 512}), -1, 1, false)},
                             MatMulAttrs(false), kTol, kTol, {IsaLevel::kAvx512});
  auto node = ops::MakeSingleOpNode("MatMul", MatMulAttrs(false));
  ASSERT_TRUE(node.ok());
  ops::KernelFn kernel = testing::MakeSimdKernel(*node);
  auto bad = ops::RunKernelOnNode(*node, kernel,
                                  {RandomFloats(Shape({1, 256}), -1, 1, false), RandomFloats(Shape({255, 512}), -1, 1, false)},
                                  nullptr, nullptr);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), StatusCode::kInvalidArgument) << bad.status().ToString();
  EXPECT_NE(bad.status().message().find("256"), std::string::npos) << bad.status().ToString();
}

}  // namespace
}  // namespace tfhost::backends::simd
