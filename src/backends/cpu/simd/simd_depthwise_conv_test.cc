#include <gtest/gtest.h>

#include "backends/cpu/simd/simd_test_util.h"
#include "ir/precision_attrs.h"
#include "base/test_status.h"

namespace tfhost::backends::simd {
namespace {

using testing::ExpectConvMatchesReference;
using testing::MakeFastKernel;
using testing::RandomFloats;

ir::AttrMap DepthwiseAttrs(const std::string& padding, std::vector<int64_t> explicit_paddings = {}) {
  ir::AttrMap a = {{"T", ops::MakeAttr(DType::kFloat)},
                   {"strides", ops::MakeAttr(std::vector<int64_t>{1, 1, 1, 1})},
                   {"padding", ops::MakeAttr(padding)}};
  if (!explicit_paddings.empty()) a["explicit_paddings"] = ops::MakeAttr(explicit_paddings);
  return a;
}

ir::AttrMap FusedAttrs(const std::string& padding, std::vector<std::string> fused_ops) {
  ir::AttrMap a = DepthwiseAttrs(padding);
  const bool bias = !fused_ops.empty() && fused_ops[0] == "BiasAdd";
  a["fused_ops"] = ops::MakeAttr(fused_ops);
  a["num_args"] = ops::MakeAttr(int64_t{bias ? 1 : 0});
  return a;
}

struct Geometry {
  int64_t n, h, w, c;
};

// Channel counts on and off the vector widths (1, 3, 17: periods of 4-16
// vectors; 24 and 40: 1.5 and 2.5 AVX-512 vectors a pixel), images narrower
// than a vector and one row high, a batch, the widest the kernel takes (256)
// and wider, and an input over 8 MiB (those two run on oneDNN).
std::vector<Geometry> Geometries() {
  return {{1, 1, 1, 1},   {1, 1, 5, 3},    {1, 6, 1, 16},   {1, 5, 7, 24},  {2, 9, 17, 8},
          {1, 16, 16, 17}, {1, 7, 9, 40},   {1, 4, 4, 48},   {2, 8, 6, 96},  {1, 3, 2, 130},
          {1, 13, 11, 24}, {1, 6, 7, 256},  {1, 7, 7, 272},  {40, 66, 66, 16}};
}

TEST(SimdDepthwiseConvTest, MatchesReferenceForSameValidAndExplicitPaddingAtEveryWidth) {
  TFHOST_SKIP_WITHOUT_AVX512("depthwise convolution");
  for (const Geometry& g : Geometries()) {
    SCOPED_TRACE(Shape({g.n, g.h, g.w, g.c}).ToString());
    const Tensor x = RandomFloats(Shape({g.n, g.h, g.w, g.c}), -2, 2, false, 3);
    const Tensor f = RandomFloats(Shape({3, 3, g.c, 1}), -1, 1, false, 4);
    ExpectConvMatchesReference("DepthwiseConv2dNative", {x, f}, DepthwiseAttrs("SAME"));
    if (g.h >= 3 && g.w >= 3) {
      ExpectConvMatchesReference("DepthwiseConv2dNative", {x, f}, DepthwiseAttrs("VALID"));
    }
    // Asymmetric explicit pads: 2 above, none below, none left, 1 right; and
    // pads wider than the filter, so whole output rows and columns see only
    // padding.
    ExpectConvMatchesReference("DepthwiseConv2dNative", {x, f},
                               DepthwiseAttrs("EXPLICIT", {0, 0, 2, 0, 0, 1, 0, 0}));
    ExpectConvMatchesReference("DepthwiseConv2dNative", {x, f},
                               DepthwiseAttrs("EXPLICIT", {0, 0, 4, 5, 6, 3, 0, 0}));
  }
}

TEST(SimdDepthwiseConvTest, FusedBiasAndEveryActivationItTakesMatchReference) {
  TFHOST_SKIP_WITHOUT_AVX512("depthwise convolution");
  const std::vector<std::vector<std::string>> epilogues = {
      {}, {"BiasAdd"}, {"BiasAdd", "Relu"}, {"BiasAdd", "Relu6"}, {"Relu6"}, {"BiasAdd", "Sigmoid"},
      {"BiasAdd", "_MklSwish"}, {"_MklSwish"}};
  for (const Geometry& g : {Geometry{1, 10, 12, 24}, Geometry{2, 5, 5, 32}, Geometry{1, 4, 9, 7}}) {
    const Tensor x = RandomFloats(Shape({g.n, g.h, g.w, g.c}), -8, 8, false, 5);
    const Tensor f = RandomFloats(Shape({3, 3, g.c, 1}), -1, 1, false, 6);
    const Tensor b = RandomFloats(Shape({g.c}), -3, 3, false, 7);
    for (const auto& fused : epilogues) {
      std::vector<Tensor> inputs = {x, f};
      if (!fused.empty() && fused[0] == "BiasAdd") inputs.push_back(b);
      for (const char* padding : {"SAME", "VALID"}) {
        SCOPED_TRACE(std::string(padding) + " fused_ops of " + std::to_string(fused.size()));
        ExpectConvMatchesReference("FusedDepthwiseConv2dNative", inputs, FusedAttrs(padding, fused));
      }
    }
  }
}

TEST(SimdDepthwiseConvTest, InfinitiesAndNanPropagateAsInTheReference) {
  TFHOST_SKIP_WITHOUT_AVX512("depthwise convolution");
  // Special values in the input reach every output whose window holds them;
  // a window holding both infinities gives NaN, whatever the summing order.
  Tensor x = RandomFloats(Shape({1, 6, 7, 24}), -1, 1, true, 8);
  const Tensor f = RandomFloats(Shape({3, 3, 24, 1}), 0.5f, 1, false, 9);
  ExpectConvMatchesReference("DepthwiseConv2dNative", {x, f}, DepthwiseAttrs("SAME"));
  ExpectConvMatchesReference("FusedDepthwiseConv2dNative", {x, f}, FusedAttrs("SAME", {"_MklSwish"}));
}

TEST(SimdDepthwiseConvTest, OtherShapesRunOnTheFallbackWithTheSameResults) {
  TFHOST_SKIP_WITHOUT_AVX512("depthwise convolution");
  // Taken by the SIMD kernel's node, handed on per call: a 5x5 filter, a depth
  // multiplier of 2, a filter that does not match the channels.
  const ir::AttrMap attrs = DepthwiseAttrs("SAME");
  EXPECT_EQ(MakeFastKernel("DepthwiseConv2dNative", attrs).backend, "simd");
  const Tensor x = RandomFloats(Shape({1, 9, 9, 8}), -1, 1, false, 10);
  ExpectConvMatchesReference("DepthwiseConv2dNative", {x, RandomFloats(Shape({5, 5, 8, 1}), -1, 1, false, 11)},
                             attrs);
  ExpectConvMatchesReference("DepthwiseConv2dNative", {x, RandomFloats(Shape({3, 3, 8, 2}), -1, 1, false, 12)},
                             attrs);
  auto bad = ops::RunKernelOnNode(*ops::MakeSingleOpNode("DepthwiseConv2dNative", attrs),
                                  MakeFastKernel("DepthwiseConv2dNative", attrs).kernel,
                                  {x, RandomFloats(Shape({3, 3, 5, 1}), -1, 1, false, 13)}, nullptr, nullptr);
  TFHOST_ASSERT_ERROR(bad, StatusCode::kInvalidArgument,
                      "filter in_c 5 must equal the input's channels 8 (filter shape [3,3,5,1])");  // the reference's error, naming the mismatch
  EXPECT_NE(bad.status().message().find("5"), std::string::npos) << bad.status().ToString();
}

// (Strided layers go to the simd backend's other depthwise kernel,
// simd_depthwise_pixels_test.)
TEST(SimdDepthwiseConvTest, DilationsNchwBf16OutputsAndBatchNormAreLeftToOtherKernels) {
  ir::AttrMap dilated = DepthwiseAttrs("SAME");
  dilated["dilations"] = ops::MakeAttr(std::vector<int64_t>{1, 2, 2, 1});
  ir::AttrMap nchw = DepthwiseAttrs("SAME");
  nchw["data_format"] = ops::MakeAttr("NCHW");
  ir::AttrMap bf16_out = DepthwiseAttrs("SAME");
  bf16_out[ir::kOutputDtypeAttr] = ops::MakeAttr(DType::kBFloat16);
  ir::AttrMap batch_norm = FusedAttrs("SAME", {"FusedBatchNorm", "Relu"});
  batch_norm["num_args"] = ops::MakeAttr(int64_t{4});
  for (const auto& [name, attrs] : std::vector<std::pair<std::string, ir::AttrMap>>{
           {"dilations", dilated}, {"NCHW", nchw}, {"bf16 output", bf16_out}}) {
    EXPECT_NE(MakeFastKernel("DepthwiseConv2dNative", attrs).backend, "simd") << name;
  }
  EXPECT_NE(MakeFastKernel("FusedDepthwiseConv2dNative", batch_norm).backend, "simd");
  // Nor on AVX2 (or less), whatever this CPU has.
  ScopedIsaLevel avx2(IsaLevel::kAvx2);
  EXPECT_NE(MakeFastKernel("DepthwiseConv2dNative", DepthwiseAttrs("SAME")).backend, "simd");
}

}  // namespace
}  // namespace tfhost::backends::simd
