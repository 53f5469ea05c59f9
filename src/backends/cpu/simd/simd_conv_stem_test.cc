#include <gtest/gtest.h>

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

// The stem kernel alone, against the reference kernel.
void ExpectStemMatchesReference(const std::string& op, const std::vector<Tensor>& inputs, const ir::AttrMap& attrs) {
  testing::ExpectKernelAloneMatchesReference(op, attrs, inputs, MakeStemConvKernel, kConvTol, kConvTol);
}

TEST(SimdConvStemTest, MatchesReferenceForEveryPaddingStrideAndChannelCount) {
  TFHOST_SKIP_WITHOUT_AVX512("stem convolution");
  struct Case {
    int64_t n, h, w, in_c, out_c;
    int stride;
  };
  // 1-4 input channels, 16-64 output channels, strides 1 and 2, even and odd
  // sizes, images narrower than a pixel group and than the filter, a batch.
  for (const Case& g : {Case{1, 13, 17, 3, 32, 2}, Case{2, 8, 9, 3, 16, 1}, Case{1, 11, 30, 1, 48, 2},
                        Case{1, 6, 7, 4, 64, 1}, Case{1, 2, 2, 3, 32, 2}, Case{1, 1, 5, 2, 16, 1},
                        Case{1, 20, 20, 3, 32, 1}}) {
    SCOPED_TRACE(Shape({g.n, g.h, g.w, g.in_c}).ToString() + " -> " + std::to_string(g.out_c) +
                 " stride " + std::to_string(g.stride));
    const Tensor x = RandomFloats(Shape({g.n, g.h, g.w, g.in_c}), -2, 2, false, 3);
    const Tensor f = RandomFloats(Shape({3, 3, g.in_c, g.out_c}), -1, 1, false, 4);
    for (const char* padding : {"SAME", "VALID"}) {
      if (std::string(padding) == "VALID" && (g.h < 3 || g.w < 3)) continue;  // no output
      SCOPED_TRACE(padding);
      ExpectStemMatchesReference("Conv2D", {x, f}, Attrs(g.stride, padding));
    }
    // Keras's ZeroPadding2D before a VALID stem, folded into the convolution
    // (rows 0 + 1 and columns 1 + 2 of padding; no output below 2 rows).
    if (g.h < 2) continue;
    SCOPED_TRACE("EXPLICIT");
    ExpectStemMatchesReference("Conv2D", {x, f}, Attrs(g.stride, "EXPLICIT", {}, {0, 0, 0, 1, 1, 2, 0, 0}));
  }
}

TEST(SimdConvStemTest, FusedBiasAndEveryActivationItTakesMatchReference) {
  TFHOST_SKIP_WITHOUT_AVX512("stem convolution");
  const Tensor x = RandomFloats(Shape({1, 15, 14, 3}), -2, 2, true, 5);
  const Tensor f = RandomFloats(Shape({3, 3, 3, 32}), -1, 1, false, 6);
  const Tensor b = RandomFloats(Shape({32}), -1, 1, false, 7);
  for (const auto& fused : std::vector<std::vector<std::string>>{
           {"BiasAdd"}, {"BiasAdd", "Relu"}, {"BiasAdd", "Relu6"}, {"BiasAdd", "Sigmoid"}, {"BiasAdd", "_MklSwish"}}) {
    SCOPED_TRACE(fused.back());
    ExpectStemMatchesReference("_FusedConv2D", {x, f, b}, Attrs(2, "SAME", fused));
  }
}

TEST(SimdConvStemTest, OtherShapesAreHandedOnAndOtherFormsAreNotTaken) {
  TFHOST_SKIP_WITHOUT_AVX512("stem convolution");
  auto node = ops::MakeSingleOpNode("Conv2D", Attrs(2, "SAME"));
  ASSERT_TRUE(node.ok());
  int fallbacks = 0;
  ops::KernelFn kernel = MakeStemConvKernel(*node, [&](ops::KernelContext& ctx) {
    ++fallbacks;
    return ops::OpRegistry::Global().Find("Conv2D")->kernel(ctx);
  });
  ASSERT_TRUE(kernel);
  // 8 input channels, 24 output channels (not whole vectors), 80 (past 64),
  // a 5x5 filter: the reference's results.
  const std::vector<std::pair<Shape, Shape>> others = {{Shape({1, 9, 9, 8}), Shape({3, 3, 8, 32})},
                                                       {Shape({1, 9, 9, 3}), Shape({3, 3, 3, 24})},
                                                       {Shape({1, 9, 9, 3}), Shape({3, 3, 3, 80})},
                                                       {Shape({1, 9, 9, 3}), Shape({5, 5, 3, 32})}};
  for (const auto& [xs, fs] : others) {
    auto got = ops::RunKernelOnNode(*node, kernel, {RandomFloats(xs, -1, 1, false, 8), RandomFloats(fs, -1, 1, false, 9)},
                                    nullptr, nullptr);
    ASSERT_TRUE(got.ok()) << got.status().ToString();
  }
  EXPECT_EQ(fallbacks, 4);
  auto bad = ops::RunKernelOnNode(*node, kernel, {RandomFloats(Shape({1, 9, 9, 3}), -1, 1, false, 8),
                                                  RandomFloats(Shape({3, 3, 2, 32}), -1, 1, false, 9)},
                                  nullptr, nullptr);
  EXPECT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), StatusCode::kInvalidArgument) << bad.status().ToString();
  // Not taken: stride 3, dilation, NCHW, a bf16 node, batch norm; nor on AVX2.
  ir::AttrMap dilated = Attrs(1, "SAME");
  dilated["dilations"] = ops::MakeAttr(std::vector<int64_t>{1, 2, 2, 1});
  ir::AttrMap nchw = Attrs(1, "SAME");
  nchw["data_format"] = ops::MakeAttr("NCHW");
  ir::AttrMap bf16 = Attrs(2, "SAME");
  bf16[ir::kPrecisionAttr] = ops::MakeAttr("bf16");
  ir::AttrMap batch_norm = Attrs(2, "SAME", {"FusedBatchNorm", "Relu"});
  batch_norm["num_args"] = ops::MakeAttr(int64_t{4});
  for (const auto& [name, op, attrs] : std::vector<std::tuple<std::string, std::string, ir::AttrMap>>{
           {"stride 3", "Conv2D", Attrs(3, "SAME")},
           {"dilations", "Conv2D", dilated},
           {"NCHW", "Conv2D", nchw},
           {"bf16", "Conv2D", bf16},
           {"batch norm", "_FusedConv2D", batch_norm}}) {
    auto n = ops::MakeSingleOpNode(op, attrs);
    ASSERT_TRUE(n.ok()) << name;
    EXPECT_FALSE(MakeStemConvKernel(*n, {})) << name;
  }
  EXPECT_TRUE(StemConvTakes(3, 32));
  EXPECT_FALSE(StemConvTakes(5, 32));
  EXPECT_FALSE(StemConvTakes(3, 40));
  ScopedIsaLevel avx2(IsaLevel::kAvx2);
  EXPECT_FALSE(MakeStemConvKernel(*node, {}));
}

}  // namespace
}  // namespace tfhost::backends::simd
