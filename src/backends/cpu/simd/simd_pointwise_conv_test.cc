#include <gtest/gtest.h>

#include <cstring>

#include "backends/cpu/simd/cpu_features.h"
#include "backends/cpu/simd/simd_kernels.h"
#include "backends/cpu/simd/simd_test_util.h"
#include "ir/precision_attrs.h"
#include "ops/nn/nn_util.h"
#include "base/test_status.h"

namespace tfhost::backends::simd {
namespace {

using testing::ExpectConvMatchesReference;
using testing::kConvTol;
using testing::MakeFastKernel;
using testing::RandomFloats;

ir::AttrMap ConvAttrs(const std::string& padding = "SAME") {
  return {{"T", ops::MakeAttr(DType::kFloat)},
          {"strides", ops::MakeAttr(std::vector<int64_t>{1, 1, 1, 1})},
          {"padding", ops::MakeAttr(padding)}};
}

ir::AttrMap FusedAttrs(std::vector<std::string> fused_ops) {
  ir::AttrMap a = ConvAttrs();
  int64_t args = 0;
  for (const std::string& op : fused_ops) args += op == "BiasAdd" || op == "Add" ? 1 : 0;
  a["fused_ops"] = ops::MakeAttr(fused_ops);
  a["num_args"] = ops::MakeAttr(args);
  return a;
}

struct Geometry {
  int64_t n, h, w, in_c, out_c;
};

// Pixel counts that split into uneven tiles (1, 5, 49, 15x17) and over
// blocks (a batch of 2 at 40x40; 600 input channels: blocks of 54 pixels);
// input channels from 1 to 600; output channels on and off the 16-lane
// vectors and the 4-vector panels (1, 8, 17, 24, 40, 65, 144, 200: masked
// last vectors; 5, 9 and 13 vectors in panels of 2-4); and an input larger
// than L2 (60x60x80: the tiles prefetch the next tile's inputs).
std::vector<Geometry> Geometries() {
  return {{1, 1, 1, 1, 1},     {1, 1, 5, 3, 8},     {1, 7, 7, 24, 144},  {1, 7, 7, 224, 65},
          {1, 15, 17, 48, 24}, {2, 40, 40, 24, 17}, {1, 4, 5, 300, 40},  {1, 6, 6, 136, 200},
          {1, 3, 3, 16, 64},   {1, 2, 9, 600, 16},  {1, 60, 60, 80, 24}};
}

TEST(SimdPointwiseConvTest, MatchesReferenceAtEveryChannelCountAndPixelCount) {
  TFHOST_SKIP_WITHOUT_AVX512("1x1 convolution");
  for (const Geometry& g : Geometries()) {
    SCOPED_TRACE(Shape({g.n, g.h, g.w, g.in_c}).ToString() + " -> " + std::to_string(g.out_c));
    const Tensor x = RandomFloats(Shape({g.n, g.h, g.w, g.in_c}), -2, 2, false, 3);
    const Tensor f = RandomFloats(Shape({1, 1, g.in_c, g.out_c}), -1, 1, false, 4);
    ExpectConvMatchesReference("Conv2D", {x, f}, ConvAttrs("SAME"));
    ExpectConvMatchesReference("Conv2D", {x, f}, ConvAttrs("VALID"));
  }
}

TEST(SimdPointwiseConvTest, FusedBiasResidualAndEveryActivationItTakesMatchReference) {
  TFHOST_SKIP_WITHOUT_AVX512("1x1 convolution");
  const std::vector<std::vector<std::string>> epilogues = {{},
                                                           {"BiasAdd"},
                                                           {"BiasAdd", "Relu"},
                                                           {"BiasAdd", "Relu6"},
                                                           {"Relu6"},
                                                           {"BiasAdd", "Sigmoid"},
                                                           {"BiasAdd", "_MklSwish"},
                                                           {"_MklSwish"},
                                                           {"BiasAdd", "Add"},
                                                           {"BiasAdd", "Add", "Relu"},
                                                           {"BiasAdd", "Add", "Relu6"},
                                                           {"BiasAdd", "Add", "_MklSwish"}};
  for (const Geometry& g : {Geometry{1, 10, 12, 24, 24}, Geometry{2, 5, 5, 32, 144}, Geometry{1, 4, 9, 300, 7}}) {
    SCOPED_TRACE(Shape({g.n, g.h, g.w, g.in_c}).ToString() + " -> " + std::to_string(g.out_c));
    const Tensor x = RandomFloats(Shape({g.n, g.h, g.w, g.in_c}), -4, 4, false, 5);
    const Tensor f = RandomFloats(Shape({1, 1, g.in_c, g.out_c}), -1, 1, false, 6);
    const Tensor b = RandomFloats(Shape({g.out_c}), -3, 3, false, 7);
    const Tensor r = RandomFloats(Shape({g.n, g.h, g.w, g.out_c}), -8, 8, false, 8);
    for (const auto& fused : epilogues) {
      SCOPED_TRACE("fused_ops of " + std::to_string(fused.size()));
      std::vector<Tensor> inputs = {x, f};
      for (const std::string& op : fused) {
        if (op == "BiasAdd") inputs.push_back(b);
        if (op == "Add") inputs.push_back(r);
      }
      // With shared inputs the output is a new buffer; with sole-owner ones
      // it is the residual's (ExpectConvMatchesReference runs both).
      ExpectConvMatchesReference("_FusedConv2D", inputs, FusedAttrs(fused));
    }
  }
}

// The SIMD 1x1 kernel for `node` with a fallback that fails the call and
// counts it: for paths the kernel must run itself.
ops::KernelFn KernelCountingFallbacks(const ir::Node& node, int* calls) {
  return MakePointwiseConvKernel(
      node,
      [calls](ops::KernelContext&) {
        ++*calls;
        return Internal("the SIMD 1x1 kernel handed the call on");
      },
      /*apply_shape_rule=*/true);
}

// Input 0 in bf16 (a bf16 edge's reader): the kernel reads it as it is and
// must give the reference's output on the widened activations, with float32
// weights. Odd channel counts and a single channel reach the row's ends.
TEST(SimdPointwiseConvTest, Bf16ActivationsGiveTheReferenceOnTheirFloat32Values) {
  TFHOST_SKIP_WITHOUT_AVX512("1x1 convolution");
  ThreadPool pool(2);
  for (const Geometry& g : Geometries()) {
    SCOPED_TRACE(Shape({g.n, g.h, g.w, g.in_c}).ToString() + " -> " + std::to_string(g.out_c));
    const Tensor x = ops::nn::NarrowFromFloat(RandomFloats(Shape({g.n, g.h, g.w, g.in_c}), -2, 2, false, 19),
                                              DType::kBFloat16);
    const Tensor f = RandomFloats(Shape({1, 1, g.in_c, g.out_c}), -1, 1, false, 20);
    const Tensor b = RandomFloats(Shape({g.out_c}), -1, 1, false, 21);
    const Tensor r = RandomFloats(Shape({g.n, g.h, g.w, g.out_c}), -2, 2, false, 22);
    const ir::AttrMap attrs = FusedAttrs({"BiasAdd", "Add", "Relu6"});
    auto want = ops::RunSingleOp("_FusedConv2D", {ops::nn::WidenToFloat(x), f, b, r}, attrs);
    ASSERT_TRUE(want.ok()) << want.status().ToString();
    ir::AttrMap reader_attrs = attrs;  // the mark of a bf16 edge's reader
    reader_attrs[ir::kBf16InputAttr] = ops::MakeAttr(true);
    auto node = ops::MakeSingleOpNode("_FusedConv2D", reader_attrs);
    ASSERT_TRUE(node.ok());
    int fallback_calls = 0;
    const ops::KernelFn kernel = KernelCountingFallbacks(*node, &fallback_calls);
    ASSERT_TRUE(kernel);
    for (ThreadPool* p : {static_cast<ThreadPool*>(nullptr), &pool}) {
      auto got = ops::RunKernelOnNode(*node, kernel, {x, f, b, r}, nullptr, p);
      ASSERT_TRUE(got.ok()) << got.status().ToString();
      EXPECT_TRUE(testing::Close((*got)[0], (*want)[0], kConvTol, kConvTol)) << (p ? "pool" : "inline");
    }
    EXPECT_EQ(fallback_calls, 0);
  }
}

ir::AttrMap WithBf16Output(ir::AttrMap attrs) {
  attrs[ir::kOutputDtypeAttr] = ops::MakeAttr(DType::kBFloat16);
  return attrs;
}

// A float32 node whose output is a bf16 edge stores exactly the bf16 its
// float32 output rounds to, with a residual read in float32.
TEST(SimdPointwiseConvTest, Bf16OutputIsTheFloat32OutputRounded) {
  TFHOST_SKIP_WITHOUT_AVX512("1x1 convolution");
  if (!ActiveIsaHasBf16()) GTEST_SKIP() << "this CPU has no avx512_bf16, where no node stores bf16";
  const ir::AttrMap attrs = FusedAttrs({"BiasAdd", "Add", "Relu6"});
  const NodeKernel fp32 = MakeFastKernel("_FusedConv2D", attrs);
  const NodeKernel bf16 = MakeFastKernel("_FusedConv2D", WithBf16Output(attrs));
  ASSERT_EQ(bf16.backend, "simd");
  auto node = ops::MakeSingleOpNode("_FusedConv2D", attrs);
  ASSERT_TRUE(node.ok());
  ThreadPool pool(2);
  for (const Geometry& g : Geometries()) {
    SCOPED_TRACE(Shape({g.n, g.h, g.w, g.in_c}).ToString() + " -> " + std::to_string(g.out_c));
    const std::vector<Tensor> inputs = {RandomFloats(Shape({g.n, g.h, g.w, g.in_c}), -2, 2, false, 23),
                                        RandomFloats(Shape({1, 1, g.in_c, g.out_c}), -1, 1, false, 24),
                                        RandomFloats(Shape({g.out_c}), -1, 1, false, 25),
                                        RandomFloats(Shape({g.n, g.h, g.w, g.out_c}), -2, 2, false, 26)};
    auto want = ops::RunKernelOnNode(*node, fp32.kernel, inputs, nullptr, nullptr);
    ASSERT_TRUE(want.ok()) << want.status().ToString();
    for (ThreadPool* p : {static_cast<ThreadPool*>(nullptr), &pool}) {
      auto got = ops::RunKernelOnNode(*node, bf16.kernel, inputs, nullptr, p);
      ASSERT_TRUE(got.ok()) << got.status().ToString();
      ASSERT_EQ((*got)[0].dtype(), DType::kBFloat16);
      const Tensor rounded = ops::nn::NarrowFromFloat((*want)[0], DType::kBFloat16);
      EXPECT_EQ(std::memcmp((*got)[0].raw_data(), rounded.raw_data(), rounded.ByteSize()), 0)
          << (p ? "pool" : "inline");
    }
  }
}

// The rounding bf16 readers apply (VCVTNEPS2BF16): nearest even, NaN made
// quiet, denormals flushed to a signed zero. The expected bits are that
// instruction's, recorded on an avx512_bf16 CPU. Zero weights and bias make
// each output its residual.
TEST(SimdPointwiseConvTest, Bf16OutputRoundsAsBf16ReadersRound) {
  TFHOST_SKIP_WITHOUT_AVX512("1x1 convolution");
  if (!ActiveIsaHasBf16()) GTEST_SKIP() << "this CPU has no avx512_bf16, where no node stores bf16";
  const std::vector<std::pair<uint32_t, uint16_t>> cases = {
      {0x3f808000u, 0x3f80}, {0x3f818000u, 0x3f82}, {0x3f80ffffu, 0x3f81}, {0x7f7fffffu, 0x7f80},
      {0x00000001u, 0x0000}, {0x007fffffu, 0x0000}, {0x80400000u, 0x8000}, {0x00800000u, 0x0080},
      {0x00808000u, 0x0080}, {0x7f800001u, 0x7fc0}, {0xffc00001u, 0xffc0}, {0x7fffffffu, 0x7fff},
      {0xff800000u, 0xff80}};
  const int64_t n = static_cast<int64_t>(cases.size());
  Tensor residual(DType::kFloat, Shape({1, 1, n, 1}));
  for (int64_t i = 0; i < n; ++i) std::memcpy(residual.data<float>() + i, &cases[i].first, 4);
  Tensor zeros_f(DType::kFloat, Shape({1, 1, 3, 1}));
  Tensor zeros_b(DType::kFloat, Shape({1}));
  std::memset(zeros_f.data<float>(), 0, 12);
  zeros_b.data<float>()[0] = 0;
  const ir::AttrMap attrs = WithBf16Output(FusedAttrs({"BiasAdd", "Add"}));
  auto node = ops::MakeSingleOpNode("_FusedConv2D", attrs);
  ASSERT_TRUE(node.ok());
  auto got = ops::RunKernelOnNode(*node, MakeFastKernel("_FusedConv2D", attrs).kernel,
                                  {RandomFloats(Shape({1, 1, n, 3}), -1, 1, false, 27), zeros_f, zeros_b, residual},
                                  nullptr, nullptr);
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  ASSERT_EQ((*got)[0].dtype(), DType::kBFloat16);
  for (int64_t i = 0; i < n; ++i) {
    EXPECT_EQ((*got)[0].data<uint16_t>()[i], cases[i].second) << std::hex << "input 0x" << cases[i].first;
  }
}

TEST(SimdPointwiseConvTest, InfinitiesAndNanPropagateAsInTheReference) {
  TFHOST_SKIP_WITHOUT_AVX512("1x1 convolution");
  const Tensor x = RandomFloats(Shape({1, 6, 7, 24}), -1, 1, true, 9);
  const Tensor f = RandomFloats(Shape({1, 1, 24, 40}), 0.5f, 1, false, 10);
  const Tensor b = RandomFloats(Shape({40}), -1, 1, false, 11);
  ExpectConvMatchesReference("Conv2D", {x, f}, ConvAttrs());
  ExpectConvMatchesReference("_FusedConv2D", {x, f, b}, FusedAttrs({"BiasAdd", "Relu6"}));
  // Swish of -inf is NaN (-inf * 0) in both; Sigmoid saturates to 0 and 1.
  ExpectConvMatchesReference("_FusedConv2D", {x, f, b}, FusedAttrs({"BiasAdd", "_MklSwish"}));
  ExpectConvMatchesReference("_FusedConv2D", {x, f, b}, FusedAttrs({"BiasAdd", "Sigmoid"}));
}

TEST(SimdPointwiseConvTest, OtherFiltersAndBadShapesRunOnTheFallback) {
  TFHOST_SKIP_WITHOUT_AVX512("1x1 convolution");
  // Taken by the SIMD kernel's node, handed on per call: a 3x3 filter, and a
  // filter whose input channels do not match (the reference's error).
  const ir::AttrMap attrs = ConvAttrs("SAME");
  EXPECT_EQ(MakeFastKernel("Conv2D", attrs).backend, "simd");
  const Tensor x = RandomFloats(Shape({1, 9, 9, 8}), -1, 1, false, 12);
  ExpectConvMatchesReference("Conv2D", {x, RandomFloats(Shape({3, 3, 8, 16}), -1, 1, false, 13)}, attrs);
  auto bad = ops::RunKernelOnNode(*ops::MakeSingleOpNode("Conv2D", attrs), MakeFastKernel("Conv2D", attrs).kernel,
                                  {x, RandomFloats(Shape({1, 1, 5, 16}), -1, 1, false, 14)}, nullptr, nullptr);
  TFHOST_ASSERT_ERROR(bad, StatusCode::kInvalidArgument,
                      "input has 8 channels, which is not a multiple of the filter's in_c 5 (filter shape [1,1,5,16])");
}

TEST(SimdPointwiseConvTest, AnEmptyBatchOrImageGivesTheReferencesEmptyOutput) {
  TFHOST_SKIP_WITHOUT_AVX512("1x1 convolution");
  // Zero pixels once divided by zero while the kernel split them into blocks.
  const Tensor f = RandomFloats(Shape({1, 1, 8, 16}), -1, 1, false, 15);
  for (const Shape& shape : {Shape({0, 4, 4, 8}), Shape({1, 0, 4, 8}), Shape({2, 3, 0, 8})}) {
    SCOPED_TRACE(shape.ToString());
    ExpectConvMatchesReference("Conv2D", {RandomFloats(shape, -1, 1, false, 16), f}, ConvAttrs("SAME"));
  }
}

TEST(SimdPointwiseConvTest, InputsWiderThan2048ChannelsGoToTheFallbackPerCall) {
  TFHOST_SKIP_WITHOUT_AVX512("1x1 convolution");
  auto node = ops::MakeSingleOpNode("Conv2D", ConvAttrs());
  ASSERT_TRUE(node.ok());
  int fallback_calls = 0;
  const ops::KernelFn reference = ops::OpRegistry::Global().Find("Conv2D")->kernel;
  const ops::KernelFn counting = [&](ops::KernelContext& ctx) {
    ++fallback_calls;
    return reference(ctx);
  };
  const ops::KernelFn kernel = MakePointwiseConvKernel(*node, counting, /*apply_shape_rule=*/true);
  ASSERT_TRUE(kernel);
  for (int64_t in_c : {2048, 2049}) {
    const Tensor x = RandomFloats(Shape({1, 2, 3, in_c}), -1, 1, false, 15);
    const Tensor f = RandomFloats(Shape({1, 1, in_c, 20}), -1, 1, false, 16);
    auto got = ops::RunKernelOnNode(*node, kernel, {x, f}, nullptr, nullptr);
    ASSERT_TRUE(got.ok()) << got.status().ToString();
    auto want = ops::RunSingleOp("Conv2D", {x, f}, ConvAttrs());
    ASSERT_TRUE(want.ok());
    EXPECT_TRUE(testing::Close((*got)[0], (*want)[0], kConvTol, kConvTol)) << in_c;
    EXPECT_EQ(fallback_calls, in_c > 2048 ? 1 : 0) << in_c;
  }
  // Without the rule (bench/pointwise_conv) the kernel runs them itself.
  const ops::KernelFn unconditional = MakePointwiseConvKernel(*node, counting, /*apply_shape_rule=*/false);
  const Tensor x = RandomFloats(Shape({1, 2, 3, 2049}), -1, 1, false, 17);
  ASSERT_TRUE(ops::RunKernelOnNode(*node, unconditional, {x, RandomFloats(Shape({1, 1, 2049, 20}), -1, 1, false, 18)},
                                   nullptr, nullptr)
                  .ok());
  EXPECT_EQ(fallback_calls, 1);
}

// A bf16 node (marked by the precision pass): VDPBF16PS products of bf16
// activations and weights, summed in float32. Its output is the reference's
// on the operands rounded to bf16 (as oneDNN's bf16 kernels round them),
// within float32 summation error, whether the activations arrive in float32
// or bf16 and the output leaves in either; odd channel counts end on a
// single-channel pair.
TEST(SimdPointwiseConvTest, Bf16NodesAreLeftToOneDnnOnCpusWithAmx) {
  TFHOST_SKIP_WITHOUT_AVX512("1x1 convolution");
  if (!CpuHasAmxBf16()) GTEST_SKIP() << "this CPU has no AMX bf16 tiles: the SIMD bf16 tiles run bf16 nodes";
  ir::AttrMap attrs = {{"T", ops::MakeAttr(DType::kFloat)},
                       {"strides", ops::MakeAttr(std::vector<int64_t>{1, 1, 1, 1})},
                       {"padding", ops::MakeAttr("VALID")},
                       {ir::kPrecisionAttr, ops::MakeAttr("bf16")}};
  ir::Node node;
  node.name = "bf16_conv";
  node.op = "Conv2D";
  node.attrs = attrs;
  EXPECT_FALSE(MakePointwiseConvKernel(node, nullptr, /*apply_shape_rule=*/false));
  ScopedHideAmx no_amx;
  EXPECT_TRUE(MakePointwiseConvKernel(node, nullptr, /*apply_shape_rule=*/false));
}

TEST(SimdPointwiseConvTest, Bf16NodesGiveTheReferenceOnBf16RoundedOperands) {
  TFHOST_SKIP_WITHOUT_AVX512("1x1 convolution");
  if (!ActiveIsaHasBf16()) GTEST_SKIP() << "this CPU has no avx512_bf16: oneDNN runs bf16 nodes in float32";
  ScopedHideAmx no_amx;  // AMX CPUs leave bf16 nodes to oneDNN; the tiles are tested all the same
  auto rounded = [](const Tensor& t) {
    return ops::nn::WidenToFloat(ops::nn::NarrowFromFloat(t, DType::kBFloat16));
  };
  ThreadPool pool(2);
  for (const Geometry& g : Geometries()) {
    SCOPED_TRACE(Shape({g.n, g.h, g.w, g.in_c}).ToString() + " -> " + std::to_string(g.out_c));
    const Tensor x = RandomFloats(Shape({g.n, g.h, g.w, g.in_c}), -2, 2, false, 28);
    const Tensor f = RandomFloats(Shape({1, 1, g.in_c, g.out_c}), -1, 1, false, 29);
    const Tensor b = RandomFloats(Shape({g.out_c}), -1, 1, false, 30);
    const Tensor r = RandomFloats(Shape({g.n, g.h, g.w, g.out_c}), -2, 2, false, 31);
    const ir::AttrMap float_attrs = FusedAttrs({"BiasAdd", "Add", "Relu6"});
    ir::AttrMap attrs = float_attrs;
    attrs[ir::kPrecisionAttr] = ops::MakeAttr("bf16");
    attrs[ir::kBf16InputAttr] = ops::MakeAttr(true);  // bf16 activations arrive on a bf16 edge
    auto want = ops::RunSingleOp("_FusedConv2D", {rounded(x), rounded(f), b, r}, float_attrs);
    ASSERT_TRUE(want.ok()) << want.status().ToString();
    for (bool bf16_out : {false, true}) {
      const ir::AttrMap node_attrs = bf16_out ? WithBf16Output(attrs) : attrs;
      auto node = ops::MakeSingleOpNode("_FusedConv2D", node_attrs);
      ASSERT_TRUE(node.ok());
      int fallback_calls = 0;
      const ops::KernelFn kernel = KernelCountingFallbacks(*node, &fallback_calls);
      ASSERT_TRUE(kernel);
      for (const Tensor& input : {x, ops::nn::NarrowFromFloat(x, DType::kBFloat16)}) {
        for (ThreadPool* p : {static_cast<ThreadPool*>(nullptr), &pool}) {
          SCOPED_TRACE(std::string(input.dtype() == DType::kFloat ? "float32" : "bf16") + " in, " +
                       (bf16_out ? "bf16" : "float32") + " out, " + (p ? "pool" : "inline"));
          auto got = ops::RunKernelOnNode(*node, kernel, {input, f, b, r}, nullptr, p);
          ASSERT_TRUE(got.ok()) << got.status().ToString();
          if (bf16_out) {
            ASSERT_EQ((*got)[0].dtype(), DType::kBFloat16);
            // Within one bf16 rounding of the float32 result.
            EXPECT_TRUE(testing::Close(ops::nn::WidenToFloat((*got)[0]), (*want)[0], 1e-2, 1e-2));
          } else {
            EXPECT_TRUE(testing::Close((*got)[0], (*want)[0], kConvTol, kConvTol));
          }
        }
      }
      EXPECT_EQ(fallback_calls, 0);
    }
  }
}

// Without avx512_bf16 a bf16-marked node is a float32 one: the float32
// tiles run it, with the reference's float32 result (not bf16-rounded
// operands'), and bf16 outputs are left to the kernels behind.
TEST(SimdPointwiseConvTest, Bf16NodesWithoutAvx512Bf16RunTheFloat32Tiles) {
  TFHOST_SKIP_WITHOUT_AVX512("1x1 convolution");
  ScopedHideBf16 no_bf16;
  ir::AttrMap attrs = FusedAttrs({"BiasAdd", "Relu6"});
  attrs[ir::kPrecisionAttr] = ops::MakeAttr("bf16");
  auto node = ops::MakeSingleOpNode("_FusedConv2D", attrs);
  ASSERT_TRUE(node.ok());
  int fallback_calls = 0;
  const ops::KernelFn kernel = KernelCountingFallbacks(*node, &fallback_calls);
  ASSERT_TRUE(kernel);
  const std::vector<Tensor> inputs = {RandomFloats(Shape({1, 7, 9, 40}), -2, 2, false, 32),
                                      RandomFloats(Shape({1, 1, 40, 72}), -1, 1, false, 33),
                                      RandomFloats(Shape({72}), -1, 1, false, 34)};
  auto got = ops::RunKernelOnNode(*node, kernel, inputs, nullptr, nullptr);
  auto want = ops::RunSingleOp("_FusedConv2D", inputs, FusedAttrs({"BiasAdd", "Relu6"}));
  ASSERT_TRUE(got.ok() && want.ok()) << got.status().ToString();
  EXPECT_TRUE(testing::Close((*got)[0], (*want)[0], kConvTol, kConvTol));
  EXPECT_EQ(fallback_calls, 0);
  EXPECT_FALSE(MakePointwiseConvKernel(*ops::MakeSingleOpNode("_FusedConv2D", WithBf16Output(attrs)), kernel,
                                       /*apply_shape_rule=*/true));
}

TEST(SimdPointwiseConvTest, StridesPaddingNchwAndBatchNormAreLeftToOtherKernels) {
  ir::AttrMap strided = ConvAttrs();
  strided["strides"] = ops::MakeAttr(std::vector<int64_t>{1, 2, 2, 1});
  ir::AttrMap padded = ConvAttrs("EXPLICIT");
  padded["explicit_paddings"] = ops::MakeAttr(std::vector<int64_t>{0, 0, 1, 0, 0, 1, 0, 0});
  ir::AttrMap nchw = ConvAttrs();
  nchw["data_format"] = ops::MakeAttr("NCHW");
  ir::AttrMap bf16 = ConvAttrs();
  bf16[ir::kPrecisionAttr] = ops::MakeAttr("bf16");
  ir::AttrMap batch_norm = FusedAttrs({"FusedBatchNorm", "Relu"});
  batch_norm["num_args"] = ops::MakeAttr(int64_t{4});
  ir::AttrMap elu = FusedAttrs({"BiasAdd", "Elu"});
  // (The simd backend's stem kernel takes strided and padded Conv2D nodes
  // too, for 3x3 filters on images, simd_conv_stem_test; this kernel does not.)
  for (const auto& [name, attrs] : std::vector<std::pair<std::string, ir::AttrMap>>{
           {"strides", strided}, {"explicit padding", padded}}) {
    EXPECT_FALSE(MakePointwiseConvKernel(*ops::MakeSingleOpNode("Conv2D", attrs), {}, /*apply_shape_rule=*/true))
        << name;
  }
  EXPECT_NE(MakeFastKernel("Conv2D", nchw).backend, "simd");
  EXPECT_NE(MakeFastKernel("_FusedConv2D", batch_norm).backend, "simd");
  EXPECT_NE(MakeFastKernel("_FusedConv2D", elu).backend, "simd");
  ScopedIsaLevel avx2(IsaLevel::kAvx2);
  EXPECT_NE(MakeFastKernel("Conv2D", ConvAttrs()).backend, "simd");
  EXPECT_NE(MakeFastKernel("Conv2D", bf16).backend, "simd");
}

}  // namespace
}  // namespace tfhost::backends::simd
