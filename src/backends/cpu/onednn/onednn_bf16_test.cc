// bf16 compute (`_tfhost_precision` = "bf16"): Conv2D and matrix
// products marked bf16 match the float32 reference within 2e-2 of the
// output's largest magnitude, differ from the float32 oneDNN result (so the
// bf16 primitives really ran), and keep their converted weights across calls.
// Convolutions at the ends of a bf16 edge write and read bf16 activations.
// Skipped on CPUs without native bf16, where marked nodes run float32.
#include <gtest/gtest.h>

#include <cmath>

#include "backends/cpu/onednn/onednn_engine.h"
#include "backends/cpu/onednn/onednn_test_util.h"
#include "ops/nn/nn_util.h"

namespace tfhost::backends::onednn {
namespace {

using ops::MakeAttr;
using testing::MakeFast;
using testing::RandomTensor;

ir::AttrMap WithBf16(ir::AttrMap attrs) {
  attrs[kPrecisionAttr] = MakeAttr(std::string("bf16"));
  return attrs;
}

// The mark a bf16 edge's reader carries (passes/bf16_activation_chaining.cc):
// the kernel contract lets its input 0 be bf16 where the schema says float32.
ir::AttrMap AsBf16EdgeReader(ir::AttrMap attrs) {
  attrs[ir::kBf16InputAttr] = MakeAttr(true);
  return attrs;
}

// max |got - want| / max |want|.
double RelativeError(const Tensor& got, const Tensor& want) {
  double max_ref = 0, max_diff = 0;
  for (int64_t i = 0; i < want.NumElements(); ++i) {
    max_ref = std::max(max_ref, std::fabs(double(want.data<float>()[i])));
    const double d = std::fabs(double(got.data<float>()[i]) - double(want.data<float>()[i]));
    max_diff = std::isnan(d) ? INFINITY : std::max(max_diff, d);
  }
  return max_ref > 0 ? max_diff / max_ref : max_diff;
}

// Runs `op` as bf16 (inline and on a 2-worker pool, twice each so the second
// call uses the cached bf16 weights) and as float32 through oneDNN, and
// compares both with the reference kernel.
void ExpectBf16Close(const std::string& op, const ir::AttrMap& attrs, const std::vector<Tensor>& inputs,
                     const std::string& label) {
  SCOPED_TRACE(label);
  auto want = ops::RunSingleOp(op, inputs, attrs);
  ASSERT_TRUE(want.ok()) << want.status().ToString();
  auto fp32 = MakeFast(op, attrs);
  auto bf16 = MakeFast(op, WithBf16(attrs));
  ASSERT_TRUE(fp32.fast.kernel);
  ASSERT_TRUE(bf16.fast.kernel) << "the bf16 mark made the oneDNN kernel decline";
  auto fp32_out = ops::RunKernelOnNode(fp32.node, fp32.fast.kernel, inputs);
  ASSERT_TRUE(fp32_out.ok()) << fp32_out.status().ToString();
  ThreadPool pool(2);
  for (ThreadPool* intra : {static_cast<ThreadPool*>(nullptr), &pool}) {
    for (int call = 0; call < 2; ++call) {
      auto got = ops::RunKernelOnNode(bf16.node, bf16.fast.kernel, inputs, nullptr, intra);
      ASSERT_TRUE(got.ok()) << got.status().ToString();
      ASSERT_EQ((*got)[0].shape(), (*want)[0].shape());
      const double rel = RelativeError((*got)[0], (*want)[0]);
      EXPECT_LE(rel, 2e-2) << (intra ? "pool" : "inline") << " call " << call;
      // bf16 rounding of the operands must show; identical output means the
      // float32 primitive ran.
      EXPECT_GT(RelativeError((*got)[0], (*fp32_out)[0]), 0.0) << "bf16 output equals the float32 output";
    }
  }
  EXPECT_EQ(bf16.fallbacks->load(), 0) << "fell back to the reference kernel";
}

ir::AttrMap ConvAttrs(const std::string& padding, int64_t stride) {
  return {{"T", MakeAttr(DType::kFloat)},
          {"strides", MakeAttr(std::vector<int64_t>{1, stride, stride, 1})},
          {"padding", MakeAttr(padding)},
          {"data_format", MakeAttr(std::string("NHWC"))}};
}

class OneDnnBf16Test : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!CpuHasBf16()) GTEST_SKIP() << "this CPU has no native bf16 (avx512_bf16/AMX): bf16 nodes run float32";
  }
};

TEST_F(OneDnnBf16Test, Bf16ConvolutionsMatchFloat32WithinTwoPercent) {
  ExpectBf16Close("Conv2D", ConvAttrs("SAME", 1),
                  {RandomTensor(Shape({2, 14, 14, 32}), 1), RandomTensor(Shape({3, 3, 32, 64}), 2)}, "Conv2D 3x3");
  ExpectBf16Close("Conv2D", ConvAttrs("VALID", 2),
                  {RandomTensor(Shape({1, 15, 15, 3}), 3), RandomTensor(Shape({3, 3, 3, 32}), 4)}, "Conv2D stem");
  ir::AttrMap fused = ConvAttrs("SAME", 1);
  fused["fused_ops"] = MakeAttr(std::vector<std::string>{"BiasAdd", "Relu6"});
  fused["num_args"] = MakeAttr(int64_t{1});
  ExpectBf16Close("_FusedConv2D", fused,
                  {RandomTensor(Shape({2, 7, 7, 64}), 7), RandomTensor(Shape({1, 1, 64, 96}), 8),
                   RandomTensor(Shape({96}), 9)},
                  "_FusedConv2D 1x1 BiasAdd Relu6");
}

TEST_F(OneDnnBf16Test, Bf16MarkedDepthwiseConvolutionsRunFloat32) {
  // Memory-bound: bf16 conversion costs more than it saves, so the kernel
  // keeps float32 and the output equals the unmarked kernel's exactly.
  const ir::AttrMap attrs = ConvAttrs("SAME", 1);
  const std::vector<Tensor> inputs = {RandomTensor(Shape({2, 14, 14, 32}), 5), RandomTensor(Shape({3, 3, 32, 1}), 6)};
  auto fp32 = MakeFast("DepthwiseConv2dNative", attrs);
  auto marked = MakeFast("DepthwiseConv2dNative", WithBf16(attrs));
  ASSERT_TRUE(fp32.fast.kernel && marked.fast.kernel);
  auto want = ops::RunKernelOnNode(fp32.node, fp32.fast.kernel, inputs);
  auto got = ops::RunKernelOnNode(marked.node, marked.fast.kernel, inputs);
  ASSERT_TRUE(want.ok() && got.ok());
  EXPECT_EQ((*got)[0].ToDoubleVector(), (*want)[0].ToDoubleVector());
}

// A bf16 edge (passes/bf16_activation_chaining.cc): the writer stores what
// its float32 output rounds to, and a reader takes bf16 activations as a
// reader of float32 ones would have rounded them.
TEST_F(OneDnnBf16Test, Bf16EdgeWriterStoresItsFloat32OutputRoundedToNearestEven) {
  ir::AttrMap attrs = ConvAttrs("SAME", 1);
  attrs["fused_ops"] = MakeAttr(std::vector<std::string>{"BiasAdd", "Relu6"});
  attrs["num_args"] = MakeAttr(int64_t{1});
  const std::vector<Tensor> inputs = {RandomTensor(Shape({2, 7, 7, 64}), 40), RandomTensor(Shape({1, 1, 64, 160}), 41),
                                      RandomTensor(Shape({160}), 42)};
  ir::AttrMap writer_attrs = WithBf16(attrs);
  writer_attrs[ir::kOutputDtypeAttr] = MakeAttr(DType::kBFloat16);
  auto plain = MakeFast("_FusedConv2D", WithBf16(attrs));
  auto writer = MakeFast("_FusedConv2D", writer_attrs);
  ASSERT_TRUE(plain.fast.kernel && writer.fast.kernel);
  auto want = ops::RunKernelOnNode(plain.node, plain.fast.kernel, inputs);
  auto got = ops::RunKernelOnNode(writer.node, writer.fast.kernel, inputs);
  ASSERT_TRUE(want.ok() && got.ok());
  ASSERT_EQ((*got)[0].dtype(), DType::kBFloat16);
  const Tensor rounded = ops::nn::NarrowFromFloat((*want)[0], DType::kBFloat16);
  ASSERT_EQ((*got)[0].shape(), rounded.shape());
  for (int64_t i = 0; i < rounded.NumElements(); ++i) {
    ASSERT_EQ((*got)[0].data<uint16_t>()[i], rounded.data<uint16_t>()[i]) << "element " << i;
  }
  EXPECT_EQ(writer.fallbacks->load(), 0);
}

TEST_F(OneDnnBf16Test, Bf16EdgeReaderTakesBf16ActivationsAsFloat32OnesWouldRound) {
  const ir::AttrMap attrs = AsBf16EdgeReader(WithBf16(ConvAttrs("SAME", 1)));
  const Tensor x = ops::nn::NarrowFromFloat(RandomTensor(Shape({2, 9, 9, 64}), 43), DType::kBFloat16);
  const Tensor f = RandomTensor(Shape({1, 1, 64, 128}), 44);
  auto conv = MakeFast("Conv2D", attrs);
  ASSERT_TRUE(conv.fast.kernel);
  auto from_bf16 = ops::RunKernelOnNode(conv.node, conv.fast.kernel, {x, f});
  auto from_float = ops::RunKernelOnNode(conv.node, conv.fast.kernel, {ops::nn::WidenToFloat(x), f});
  ASSERT_TRUE(from_bf16.ok() && from_float.ok()) << from_bf16.status().ToString();
  EXPECT_EQ((*from_bf16)[0].dtype(), DType::kFloat);
  EXPECT_EQ((*from_bf16)[0].ToDoubleVector(), (*from_float)[0].ToDoubleVector());
  EXPECT_EQ(conv.fallbacks->load(), 0);
}

TEST_F(OneDnnBf16Test, UnmarkedReaderOfBf16ActivationsWidensThemAndKeepsFloat32Weights) {
  // A widening reader (passes/bf16_activation_chaining.cc): the precision
  // pass left the node float32, so only its input's rounding is new. Its
  // output is exactly the float32 primitive's on the widened activations,
  // and not the bf16 primitive's.
  const Tensor x = ops::nn::NarrowFromFloat(RandomTensor(Shape({2, 9, 9, 64}), 47), DType::kBFloat16);
  const Tensor f = RandomTensor(Shape({3, 3, 64, 24}), 48);
  auto conv = MakeFast("Conv2D", AsBf16EdgeReader(ConvAttrs("SAME", 1)));
  auto marked = MakeFast("Conv2D", AsBf16EdgeReader(WithBf16(ConvAttrs("SAME", 1))));
  ASSERT_TRUE(conv.fast.kernel && marked.fast.kernel);
  auto from_bf16 = ops::RunKernelOnNode(conv.node, conv.fast.kernel, {x, f});
  auto from_float = ops::RunKernelOnNode(conv.node, conv.fast.kernel, {ops::nn::WidenToFloat(x), f});
  auto bf16_weights = ops::RunKernelOnNode(marked.node, marked.fast.kernel, {x, f});
  ASSERT_TRUE(from_bf16.ok() && from_float.ok() && bf16_weights.ok()) << from_bf16.status().ToString();
  EXPECT_EQ((*from_bf16)[0].ToDoubleVector(), (*from_float)[0].ToDoubleVector());
  EXPECT_GT(RelativeError((*from_bf16)[0], (*bf16_weights)[0]), 0.0) << "the bf16 primitive ran";
  EXPECT_EQ(conv.fallbacks->load(), 0);
}

TEST_F(OneDnnBf16Test, DepthwiseReaderOfBf16ActivationsComputesInBf16) {
  // Its float32 input is not converted (Bf16MarkedDepthwiseConvolutionsRunFloat32),
  // but bf16 activations are read as they come: within 2e-2 of the
  // reference, and not the float32 result.
  const ir::AttrMap attrs = AsBf16EdgeReader(WithBf16(ConvAttrs("SAME", 2)));
  const Tensor x = ops::nn::NarrowFromFloat(RandomTensor(Shape({2, 14, 14, 144}), 45), DType::kBFloat16);
  const Tensor f = RandomTensor(Shape({3, 3, 144, 1}), 46);
  auto dw = MakeFast("DepthwiseConv2dNative", attrs);
  ASSERT_TRUE(dw.fast.kernel);
  auto got = ops::RunKernelOnNode(dw.node, dw.fast.kernel, {x, f});
  auto fp32 = ops::RunKernelOnNode(dw.node, dw.fast.kernel, {ops::nn::WidenToFloat(x), f});
  auto want = ops::RunSingleOp("DepthwiseConv2dNative", {ops::nn::WidenToFloat(x), f}, ConvAttrs("SAME", 2));
  ASSERT_TRUE(got.ok() && fp32.ok() && want.ok()) << got.status().ToString();
  EXPECT_LE(RelativeError((*got)[0], (*want)[0]), 2e-2);
  EXPECT_GT(RelativeError((*got)[0], (*fp32)[0]), 0.0) << "the float32 primitive ran";
  EXPECT_EQ(dw.fallbacks->load(), 0);
}

TEST_F(OneDnnBf16Test, Bf16MatrixProductsMatchFloat32WithinTwoPercent) {
  for (bool ta : {false, true}) {
    for (bool tb : {false, true}) {
      ir::AttrMap attrs = {{"T", MakeAttr(DType::kFloat)}, {"transpose_a", MakeAttr(ta)}, {"transpose_b", MakeAttr(tb)}};
      ExpectBf16Close("MatMul", attrs,
                      {RandomTensor(ta ? Shape({300, 64}) : Shape({64, 300}), 20),
                       RandomTensor(tb ? Shape({65, 300}) : Shape({300, 65}), 21)},
                      "MatMul ta=" + std::to_string(ta) + " tb=" + std::to_string(tb));
    }
  }
  ir::AttrMap fused = {{"T", MakeAttr(DType::kFloat)}, {"transpose_a", MakeAttr(false)},
                       {"transpose_b", MakeAttr(false)}, {"fused_ops", MakeAttr(std::vector<std::string>{"BiasAdd", "Relu"})},
                       {"num_args", MakeAttr(int64_t{1})}};
  ExpectBf16Close("_FusedMatMul", fused,
                  {RandomTensor(Shape({32, 128}), 22), RandomTensor(Shape({128, 40}), 23), RandomTensor(Shape({40}), 24)},
                  "_FusedMatMul BiasAdd Relu");
  ExpectBf16Close("BatchMatMulV2", {{"T", MakeAttr(DType::kFloat)}, {"adj_x", MakeAttr(false)}, {"adj_y", MakeAttr(true)}},
                  {RandomTensor(Shape({2, 1, 16, 64}), 25), RandomTensor(Shape({3, 24, 64}), 26)},
                  "BatchMatMulV2 broadcast adj_y");
}

TEST_F(OneDnnBf16Test, ChangedWeightsAreConvertedAgain) {
  // The cached bf16 weights belong to one buffer: new weights of the same
  // shape must not reuse them.
  ir::AttrMap attrs = {{"T", MakeAttr(DType::kFloat)}, {"transpose_a", MakeAttr(false)}, {"transpose_b", MakeAttr(false)}};
  auto f = MakeFast("MatMul", WithBf16(attrs));
  ASSERT_TRUE(f.fast.kernel);
  const Tensor a = RandomTensor(Shape({8, 64}), 30);
  for (uint32_t seed : {31u, 32u}) {
    const Tensor b = RandomTensor(Shape({64, 16}), seed);
    auto want = ops::RunSingleOp("MatMul", {a, b}, attrs);
    auto got = ops::RunKernelOnNode(f.node, f.fast.kernel, {a, b});
    ASSERT_TRUE(want.ok() && got.ok());
    EXPECT_LE(RelativeError((*got)[0], (*want)[0]), 2e-2) << "weights seed " << seed;
  }
}

}  // namespace
}  // namespace tfhost::backends::onednn
