#include <gtest/gtest.h>

#include <limits>

#include "backends/cpu/simd/simd_kernels.h"
#include "backends/cpu/simd/simd_test_util.h"
#include "base/test_status.h"
#include "ir/precision_attrs.h"

namespace tfhost::backends::simd {
namespace {

using testing::kConvTol;
using testing::RandomFloats;

ir::AttrMap Attrs(int stride, const std::string& padding, std::vector<std::string> fused_ops = {},
                  std::vector<int64_t> explicit_paddings = {}) {
  ir::AttrMap a = {{"T", ops::MakeAttr(DType::kFloat)},
                   {"strides", ops::MakeAttr(std::vector<int64_t>{1, stride, stride, 1})},
                   {"padding", ops::MakeAttr(padding)}};
  if (!explicit_paddings.empty()) a["explicit_paddings"] = ops::MakeAttr(explicit_paddings);
  if (!fused_ops.empty()) {
    a["fused_ops"] = ops::MakeAttr(fused_ops);
    a["num_args"] = ops::MakeAttr(int64_t{fused_ops[0] == "BiasAdd" ? 1 : 0});
  }
  return a;
}

// The pixel kernel alone, against the reference kernel.
void ExpectPixelKernelMatchesReference(const std::string& op, const std::vector<Tensor>& inputs,
                                       const ir::AttrMap& attrs) {
  testing::ExpectKernelAloneMatchesReference(op, attrs, inputs, MakeDepthwisePixelKernel, kConvTol, kConvTol);
}

struct Case {
  int64_t n, h, w, c, k;
  int stride;
};

// 3x3 at strides 1 and 2, 5x5 at stride 2, channels on and off the 16-lane
// vectors (1, 24, 96, 144, 300: a masked last vector, exact multiples, wider
// than the flat kernel takes), images narrower than the filter (every pixel
// at a row's ends), odd and even sizes, a batch.
std::vector<Case> Cases() {
  return {{1, 7, 9, 1, 3, 2},   {1, 8, 8, 24, 3, 2},   {2, 9, 11, 96, 3, 2},  {1, 6, 5, 144, 5, 2},
          {1, 11, 12, 40, 5, 2}, {1, 2, 3, 17, 5, 2},   {1, 3, 2, 16, 3, 2},   {1, 7, 7, 300, 3, 1},
          {1, 1, 1, 8, 5, 2},    {2, 13, 10, 33, 5, 2}, {1, 5, 20, 48, 3, 1},  {1, 14, 14, 1152, 5, 2}};
}

TEST(SimdDepthwisePixelsTest, MatchesReferenceForEveryPaddingStrideAndFilterSize) {
  TFHOST_SKIP_WITHOUT_AVX512("depthwise convolution");
  for (const Case& g : Cases()) {
    SCOPED_TRACE(Shape({g.n, g.h, g.w, g.c}).ToString() + " k=" + std::to_string(g.k) +
                 " stride=" + std::to_string(g.stride));
    const Tensor x = RandomFloats(Shape({g.n, g.h, g.w, g.c}), -2, 2, false, 3);
    const Tensor f = RandomFloats(Shape({g.k, g.k, g.c, 1}), -1, 1, false, 4);
    for (const char* padding : {"SAME", "VALID"}) {
      if (std::string(padding) == "VALID" && (g.h < g.k || g.w < g.k)) continue;  // no output
      SCOPED_TRACE(padding);
      ExpectPixelKernelMatchesReference("DepthwiseConv2dNative", {x, f}, Attrs(g.stride, padding));
    }
    if (g.h + 3 < g.k || g.w + 3 < g.k) continue;  // no output: handed on, as empty calls are
    SCOPED_TRACE("EXPLICIT");
    ExpectPixelKernelMatchesReference("DepthwiseConv2dNative", {x, f},
                                      Attrs(g.stride, "EXPLICIT", {}, {0, 0, 2, 1, 0, 3, 0, 0}));
  }
}

TEST(SimdDepthwisePixelsTest, FusedBiasAndEveryActivationItTakesMatchReference) {
  TFHOST_SKIP_WITHOUT_AVX512("depthwise convolution");
  const std::vector<std::vector<std::string>> epilogues = {
      {}, {"BiasAdd"}, {"BiasAdd", "Relu"}, {"BiasAdd", "Relu6"}, {"BiasAdd", "Sigmoid"}, {"BiasAdd", "_MklSwish"},
      {"_MklSwish"}};
  for (const Case& g : {Case{1, 9, 9, 24, 3, 2}, Case{1, 7, 8, 40, 5, 2}, Case{1, 7, 8, 40, 3, 1}}) {
    const Tensor x = RandomFloats(Shape({g.n, g.h, g.w, g.c}), -4, 4, false, 5);
    const Tensor f = RandomFloats(Shape({g.k, g.k, g.c, 1}), -1, 1, false, 6);
    const Tensor b = RandomFloats(Shape({g.c}), -3, 3, false, 7);
    for (const auto& fused : epilogues) {
      SCOPED_TRACE("k=" + std::to_string(g.k) + " fused_ops of " + std::to_string(fused.size()) +
                   (fused.empty() ? "" : " ending " + fused.back()));
      std::vector<Tensor> inputs = {x, f};
      if (!fused.empty() && fused[0] == "BiasAdd") inputs.push_back(b);
      ExpectPixelKernelMatchesReference(fused.empty() ? "DepthwiseConv2dNative" : "FusedDepthwiseConv2dNative",
                                        inputs, Attrs(g.stride, "SAME", fused));
    }
  }
}

TEST(SimdDepthwisePixelsTest, InfinitiesAndNanPropagateAsInTheReference) {
  TFHOST_SKIP_WITHOUT_AVX512("depthwise convolution");
  const Tensor x = RandomFloats(Shape({1, 9, 10, 24}), -1, 1, true, 8);
  const Tensor f = RandomFloats(Shape({3, 3, 24, 1}), 0.5f, 1, false, 9);
  ExpectPixelKernelMatchesReference("DepthwiseConv2dNative", {x, f}, Attrs(2, "SAME"));
  ExpectPixelKernelMatchesReference("FusedDepthwiseConv2dNative", {x, f}, Attrs(2, "SAME", {"_MklSwish"}));
}

TEST(SimdDepthwisePixelsTest, OtherFiltersHandTheCallOnAndOtherFormsAreNotTaken) {
  TFHOST_SKIP_WITHOUT_AVX512("depthwise convolution");
  // Taken by the node, handed on per call: a 7x7 filter, a depth multiplier
  // of 2, a filter that does not match the channels (the reference's error).
  auto node = ops::MakeSingleOpNode("DepthwiseConv2dNative", Attrs(2, "SAME"));
  ASSERT_TRUE(node.ok());
  int fallbacks = 0;
  ops::KernelFn kernel = MakeDepthwisePixelKernel(*node, [&](ops::KernelContext& ctx) {
    ++fallbacks;
    return ops::OpRegistry::Global().Find("DepthwiseConv2dNative")->kernel(ctx);
  });
  ASSERT_TRUE(kernel);
  const Tensor x = RandomFloats(Shape({1, 9, 9, 8}), -1, 1, false, 10);
  for (const Shape& filter : {Shape({7, 7, 8, 1}), Shape({3, 3, 8, 2})}) {
    auto got = ops::RunKernelOnNode(*node, kernel, {x, RandomFloats(filter, -1, 1, false, 11)}, nullptr, nullptr);
    ASSERT_TRUE(got.ok()) << got.status().ToString();
  }
  EXPECT_EQ(fallbacks, 2);
  // Nor, by its shape rule, inputs over 1 MiB or 5x5 filters at stride 1.
  auto big = ops::RunKernelOnNode(*node, kernel,
                                  {RandomFloats(Shape({1, 64, 64, 65}), -1, 1, false, 12),
                                   RandomFloats(Shape({3, 3, 65, 1}), -1, 1, false, 12)},
                                  nullptr, nullptr);
  ASSERT_TRUE(big.ok()) << big.status().ToString();
  EXPECT_EQ(fallbacks, 3);
  EXPECT_TRUE(DepthwisePixelsTake(3, 1, size_t{1} << 20));
  EXPECT_TRUE(DepthwisePixelsTake(5, 2, size_t{1} << 20));
  EXPECT_FALSE(DepthwisePixelsTake(5, 1, 1000));
  EXPECT_FALSE(DepthwisePixelsTake(3, 2, (size_t{1} << 20) + 4));
  auto bad = ops::RunKernelOnNode(*node, kernel, {x, RandomFloats(Shape({3, 3, 5, 1}), -1, 1, false, 13)}, nullptr,
                                  nullptr);
  TFHOST_ASSERT_ERROR(bad, StatusCode::kInvalidArgument,
                      "filter in_c 5 must equal the input's channels 8 (filter shape [3,3,5,1])");
  // Not taken: stride 3, unequal strides, dilation, NCHW, bf16 outputs,
  // batch norm; nor on AVX2.
  ir::AttrMap dilated = Attrs(1, "SAME");
  dilated["dilations"] = ops::MakeAttr(std::vector<int64_t>{1, 2, 2, 1});
  ir::AttrMap unequal = Attrs(1, "SAME");
  unequal["strides"] = ops::MakeAttr(std::vector<int64_t>{1, 1, 2, 1});
  ir::AttrMap nchw = Attrs(1, "SAME");
  nchw["data_format"] = ops::MakeAttr("NCHW");
  ir::AttrMap bf16_out = Attrs(2, "SAME");
  bf16_out[ir::kOutputDtypeAttr] = ops::MakeAttr(DType::kBFloat16);
  ir::AttrMap batch_norm = Attrs(2, "SAME", {"FusedBatchNorm", "Relu"});
  batch_norm["num_args"] = ops::MakeAttr(int64_t{4});
  for (const auto& [name, op, attrs] : std::vector<std::tuple<std::string, std::string, ir::AttrMap>>{
           {"stride 3", "DepthwiseConv2dNative", Attrs(3, "SAME")},
           {"unequal strides", "DepthwiseConv2dNative", unequal},
           {"dilations", "DepthwiseConv2dNative", dilated},
           {"NCHW", "DepthwiseConv2dNative", nchw},
           {"bf16 output", "DepthwiseConv2dNative", bf16_out},
           {"batch norm", "FusedDepthwiseConv2dNative", batch_norm}}) {
    auto n = ops::MakeSingleOpNode(op, attrs);
    ASSERT_TRUE(n.ok()) << name;
    EXPECT_FALSE(MakeDepthwisePixelKernel(*n, {})) << name;
  }
  ScopedIsaLevel avx2(IsaLevel::kAvx2);
  EXPECT_FALSE(MakeDepthwisePixelKernel(*node, {}));
}

}  // namespace
}  // namespace tfhost::backends::simd
