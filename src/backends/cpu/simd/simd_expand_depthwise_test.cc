#include <gtest/gtest.h>

#include "backends/cpu/simd/simd_kernels.h"
#include "backends/cpu/simd/simd_test_util.h"
#include "base/test_status.h"
#include "ops/nn/expand_depthwise.h"

namespace tfhost::backends::simd {
namespace {

using testing::kConvTol;
using testing::RandomFloats;

ir::AttrMap Attrs(std::vector<std::string> expand_ops, std::vector<std::string> depthwise_ops, int stride,
                  const std::string& padding, std::vector<int64_t> explicit_paddings = {}) {
  ir::AttrMap a = {{"T", ops::MakeAttr(DType::kFloat)},
                   {"expand_fused_ops", ops::MakeAttr(expand_ops)},
                   {"depthwise_fused_ops", ops::MakeAttr(depthwise_ops)},
                   {"strides", ops::MakeAttr(std::vector<int64_t>{1, stride, stride, 1})},
                   {"padding", ops::MakeAttr(padding)}};
  if (!explicit_paddings.empty()) a["explicit_paddings"] = ops::MakeAttr(explicit_paddings);
  return a;
}

// The simd kernel itself (its fallback fails the call), inline and on a pool
// of 2 (each thread its own ring, rows at the shares' edges expanded twice),
// against the reference kernel (the two layers' reference kernels).
void ExpectFusedMatchesReference(const ir::AttrMap& attrs, int64_t n, int64_t h, int64_t w, int64_t c, int64_t e) {
  const std::vector<Tensor> inputs = {RandomFloats(Shape({n, h, w, c}), -2, 2, false, 1),
                                      RandomFloats(Shape({1, 1, c, e}), -1, 1, false, 2),
                                      RandomFloats(Shape({e}), -1, 1, false, 3),
                                      RandomFloats(Shape({3, 3, e, 1}), -1, 1, false, 4),
                                      RandomFloats(Shape({e}), -1, 1, false, 5)};
  testing::ExpectKernelAloneMatchesReference(ops::nn::kExpandDepthwiseOp, attrs, inputs, MakeExpandDepthwiseKernel,
                                             kConvTol, kConvTol);
}

TEST(SimdExpandDepthwiseTest, MatchesTheTwoLayersForEveryPaddingAndWidth) {
  TFHOST_SKIP_WITHOUT_AVX512("expansion and depthwise convolution");
  struct Case {
    int64_t n, h, w, c, e;
  };
  // Expanded widths on and off the vectors (18: a masked last vector; 96
  // and 144 as in MobileNetV2), images of one row and narrower than the
  // filter, odd sizes, a batch (each image restarts the ring).
  for (const Case& g : {Case{1, 9, 11, 3, 18}, Case{2, 8, 8, 16, 96}, Case{1, 5, 7, 24, 144}, Case{1, 1, 4, 8, 32},
                        Case{1, 2, 2, 4, 16}, Case{3, 13, 6, 5, 40}}) {
    SCOPED_TRACE(Shape({g.n, g.h, g.w, g.c}).ToString() + " x" + std::to_string(g.e));
    const int stride = 2;  // the only one taken (simd_expand_depthwise.cc says why)
    ExpectFusedMatchesReference(Attrs({"BiasAdd", "Relu6"}, {"BiasAdd", "Relu6"}, stride, "SAME"), g.n, g.h, g.w, g.c,
                                g.e);
    if (g.h >= 3 && g.w >= 3) {
      ExpectFusedMatchesReference(Attrs({"BiasAdd", "_MklSwish"}, {"BiasAdd", "_MklSwish"}, stride, "VALID"), g.n,
                                  g.h, g.w, g.c, g.e);
    }
    // Keras's ZeroPadding2D before a stride-2 depthwise layer, folded (no
    // output below 2 rows: such calls are handed on).
    if (g.h < 2) continue;
    ExpectFusedMatchesReference(Attrs({"BiasAdd"}, {"BiasAdd", "Relu"}, stride, "EXPLICIT", {0, 0, 0, 1, 0, 1, 0, 0}),
                                g.n, g.h, g.w, g.c, g.e);
  }
}

TEST(SimdExpandDepthwiseTest, OtherOperandsGoToTheReferenceAndOtherFormsAreNotTaken) {
  TFHOST_SKIP_WITHOUT_AVX512("expansion and depthwise convolution");
  const ir::AttrMap attrs = Attrs({"BiasAdd", "Relu6"}, {"BiasAdd", "Relu6"}, 2, "SAME");
  auto node = ops::MakeSingleOpNode(ops::nn::kExpandDepthwiseOp, attrs);
  ASSERT_TRUE(node.ok());
  int fallbacks = 0;
  ops::KernelFn kernel = MakeExpandDepthwiseKernel(*node, [&](ops::KernelContext& ctx) {
    ++fallbacks;
    return ops::OpRegistry::Global().Find(ops::nn::kExpandDepthwiseOp)->kernel(ctx);
  });
  ASSERT_TRUE(kernel);
  // A depthwise filter of the wrong depth: the reference's error, naming the
  // depthwise part and the filter.
  auto bad = ops::RunKernelOnNode(*node, kernel,
                                  {RandomFloats(Shape({1, 4, 4, 2}), -1, 1, false, 1),
                                   RandomFloats(Shape({1, 1, 2, 16}), -1, 1, false, 2),
                                   RandomFloats(Shape({16}), -1, 1, false, 3),
                                   RandomFloats(Shape({3, 3, 8, 1}), -1, 1, false, 4),
                                   RandomFloats(Shape({16}), -1, 1, false, 5)},
                                  nullptr, nullptr);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), StatusCode::kInvalidArgument) << bad.status().ToString();
  EXPECT_NE(bad.status().message().find("/depthwise"), std::string::npos) << bad.status().ToString();
  EXPECT_EQ(fallbacks, 1);
  // Not taken: an Elu epilogue, stride 1 (the separate kernels were faster)
  // or 3, dilation; nor on AVX2.
  ir::AttrMap elu = Attrs({"BiasAdd", "Elu"}, {"BiasAdd"}, 2, "SAME");
  ir::AttrMap stride1 = Attrs({"BiasAdd"}, {"BiasAdd"}, 1, "SAME");
  ir::AttrMap stride3 = Attrs({"BiasAdd"}, {"BiasAdd"}, 3, "SAME");
  ir::AttrMap dilated = Attrs({"BiasAdd"}, {"BiasAdd"}, 2, "SAME");
  dilated["dilations"] = ops::MakeAttr(std::vector<int64_t>{1, 2, 2, 1});
  for (const auto& [name, a] : std::vector<std::pair<std::string, ir::AttrMap>>{
           {"Elu", elu}, {"stride 1", stride1}, {"stride 3", stride3}, {"dilations", dilated}}) {
    auto n = ops::MakeSingleOpNode(ops::nn::kExpandDepthwiseOp, a);
    ASSERT_TRUE(n.ok()) << name;
    EXPECT_FALSE(MakeExpandDepthwiseKernel(*n, {})) << name;
  }
  ScopedIsaLevel avx2(IsaLevel::kAvx2);
  EXPECT_FALSE(MakeExpandDepthwiseKernel(*node, {}));
}

}  // namespace
}  // namespace tfhost::backends::simd
