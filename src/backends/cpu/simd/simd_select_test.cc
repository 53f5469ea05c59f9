#include <gtest/gtest.h>

#include <random>

#include "backends/cpu/simd/simd_kernels.h"
#include "backends/cpu/simd/simd_test_util.h"
#include "base/test_status.h"

namespace tfhost::backends::simd {
namespace {

using testing::RandomFloats;

Tensor RandomBools(const Shape& shape, uint32_t seed) {
  Tensor t(DType::kBool, shape);
  std::mt19937 rng(seed);
  for (int64_t i = 0; i < t.NumElements(); ++i) t.data<bool>()[i] = rng() % 3 != 0;
  return t;
}

ir::AttrMap FloatAttrs() { return {{"T", ops::MakeAttr(DType::kFloat)}}; }

// The simd kernel alone, against the reference kernel, bit for bit, on
// shared inputs (a new output buffer) and sole-owner ones (the output may be
// t's or e's buffer).
void ExpectSelectMatchesReference(const Tensor& c, const Tensor& t, const Tensor& e) {
  const testing::KernelFactoryFn make = [](const ir::Node& node, const ops::KernelFn& fallback) {
    KernelTable table;
    RegisterSelectKernels(table);
    return table.Make(node, fallback);
  };
  testing::ExpectKernelAloneMatchesReference("SelectV2", FloatAttrs(), {c, t, e}, make, 0, 0, /*owned_inputs=*/true);
}

TEST(SimdSelectTest, AttentionMasksScalarFillsAndEqualShapesMatchReferenceBitForBit) {
  TFHOST_SKIP_WITHOUT_AVX512("SelectV2");
  const Tensor scores = RandomFloats(Shape({2, 3, 17, 40}), -4, 4, true, 1);
  const Tensor fill = Tensor::Scalar<float>(-1e9f);
  // A [B, 1, T, T] mask and a [B, 1, 1, T] one against [B, H, T, T] scores,
  // filled with a scalar, either way round.
  ExpectSelectMatchesReference(RandomBools(Shape({2, 1, 17, 40}), 2), scores, fill);
  ExpectSelectMatchesReference(RandomBools(Shape({2, 1, 1, 40}), 3), fill, scores);
  // Equal shapes; a scalar condition; a per-row condition [.., 1] (a step of
  // 0 along the row); rows of 16, 33 and 100 (a masked last vector).
  for (int64_t len : {16, 33, 100}) {
    SCOPED_TRACE(len);
    const Shape s({3, 5, len});
    const Tensor t = RandomFloats(s, -1, 1, true, 4), e = RandomFloats(s, -1, 1, false, 5);
    ExpectSelectMatchesReference(RandomBools(s, 6), t, e);
    ExpectSelectMatchesReference(Tensor::Scalar<bool>(true), t, e);
    ExpectSelectMatchesReference(Tensor::Scalar<bool>(false), t, e);
    ExpectSelectMatchesReference(RandomBools(Shape({3, 5, 1}), 7), t, RandomFloats(Shape({len}), -1, 1, false, 8));
  }
}

TEST(SimdSelectTest, ShortRowsOtherDtypesAndBadShapesGoToTheReference) {
  TFHOST_SKIP_WITHOUT_AVX512("SelectV2");
  auto node = ops::MakeSingleOpNode("SelectV2", FloatAttrs());
  ASSERT_TRUE(node.ok());
  KernelTable table;
  RegisterSelectKernels(table);
  int fallbacks = 0;
  ops::KernelFn kernel = table.Make(*node, [&](ops::KernelContext& ctx) {
    ++fallbacks;
    return ops::OpRegistry::Global().Find("SelectV2")->kernel(ctx);
  });
  ASSERT_TRUE(kernel);
  // Rows of 15.
  const Shape s({4, 15});
  auto short_rows = ops::RunKernelOnNode(*node, kernel, {RandomBools(s, 1), RandomFloats(s, -1, 1, false, 2),
                                                         RandomFloats(s, -1, 1, false, 3)}, nullptr, nullptr);
  ASSERT_TRUE(short_rows.ok()) << short_rows.status().ToString();
  EXPECT_EQ(fallbacks, 1);
  // Shapes that do not broadcast: the reference's error, naming both.
  auto bad = ops::RunKernelOnNode(*node, kernel, {RandomBools(Shape({2, 16}), 1), RandomFloats(Shape({3, 16}), -1, 1, false, 2),
                                                  Tensor::Scalar<float>(0)}, nullptr, nullptr);
  TFHOST_ASSERT_ERROR(bad, StatusCode::kInvalidArgument, "[2,16]");
  EXPECT_NE(bad.status().message().find("[3,16]"), std::string::npos) << bad.status().ToString();
  EXPECT_EQ(fallbacks, 2);
  // Not taken for other dtypes.
  auto int_node = ops::MakeSingleOpNode("SelectV2", {{"T", ops::MakeAttr(DType::kInt32)}});
  ASSERT_TRUE(int_node.ok());
  EXPECT_FALSE(table.Make(*int_node, {}));
}

}  // namespace
}  // namespace tfhost::backends::simd
