#include "backends/cpu/onednn/onednn_conv.h"

#include <gtest/gtest.h>

#include <limits>
#include <thread>

#include "base/buffer_pool.h"
#include "ir/precision_attrs.h"

#include "backends/cpu/onednn/onednn_test_util.h"
#include "ops/nn/nn_util.h"
#include "base/test_status.h"

namespace tfhost::backends::onednn {
namespace {

using ops::MakeAttr;
using testing::ExpectClose;
using testing::ExpectMatchesReference;
using testing::MakeFast;
using testing::RandomTensor;

struct ConvCase {
  bool nchw = false;
  std::string padding = "SAME";
  int64_t batch = 1, h = 7, w = 5, in_c = 3;
  int64_t kh = 3, kw = 3, out_c = 5;  // out_c = multiplier for depthwise
  int64_t stride_h = 1, stride_w = 1, dil_h = 1, dil_w = 1;
  std::vector<int64_t> explicit_pads = {};  // top, bottom, left, right

  std::string Label() const {
    return std::string(nchw ? "NCHW" : "NHWC") + " " + padding + " n" + std::to_string(batch) + " " +
           std::to_string(h) + "x" + std::to_string(w) + "x" + std::to_string(in_c) + " k" + std::to_string(kh) +
           "x" + std::to_string(kw) + " oc" + std::to_string(out_c) + " s" + std::to_string(stride_h) +
           std::to_string(stride_w) + " d" + std::to_string(dil_h) + std::to_string(dil_w);
  }
  std::vector<int64_t> Quad(int64_t a, int64_t b) const {
    return nchw ? std::vector<int64_t>{1, 1, a, b} : std::vector<int64_t>{1, a, b, 1};
  }
  ir::AttrMap Attrs() const {
    ir::AttrMap attrs;
    attrs["T"] = MakeAttr(DType::kFloat);
    attrs["strides"] = MakeAttr(Quad(stride_h, stride_w));
    attrs["dilations"] = MakeAttr(Quad(dil_h, dil_w));
    attrs["padding"] = MakeAttr(padding);
    attrs["data_format"] = MakeAttr(nchw ? "NCHW" : "NHWC");
    if (padding == "EXPLICIT") {
      std::vector<int64_t> p = nchw ? std::vector<int64_t>{0, 0, 0, 0, explicit_pads[0], explicit_pads[1],
                                                           explicit_pads[2], explicit_pads[3]}
                                    : std::vector<int64_t>{0, 0, explicit_pads[0], explicit_pads[1],
                                                           explicit_pads[2], explicit_pads[3], 0, 0};
      attrs["explicit_paddings"] = MakeAttr(p);
    }
    return attrs;
  }
  Shape InputShape() const { return nchw ? Shape({batch, in_c, h, w}) : Shape({batch, h, w, in_c}); }
};

std::vector<ConvCase> Sweep() {
  std::vector<ConvCase> cases;
  for (bool nchw : {false, true}) {
    for (const char* padding : {"SAME", "VALID", "EXPLICIT"}) {
      for (int64_t stride : {1, 2}) {
        for (int64_t dil : {1, 2}) {
          for (auto [kh, kw] : {std::pair<int64_t, int64_t>{1, 1}, {3, 3}, {2, 3}}) {
            ConvCase c;
            c.nchw = nchw;
            c.padding = padding;
            c.kh = kh;
            c.kw = kw;
            c.stride_h = stride;
            c.stride_w = stride == 2 ? 1 : 1;
            if (stride == 2) c.stride_w = 2;
            c.dil_h = dil;
            c.dil_w = dil == 2 ? 1 : 1;
            c.batch = (stride + dil) % 2 == 0 ? 3 : 1;
            c.h = 9;
            c.w = 6;
            c.explicit_pads = {1, 2, 0, 1};
            if (stride == 2 && dil == 2) continue;  // TF rejects strides and dilations > 1 together
            cases.push_back(c);
          }
        }
      }
    }
  }
  return cases;
}

TEST(OneDnnConvTest, Conv2DMatchesReferenceOverLayoutsPaddingsStridesDilations) {
  uint32_t seed = 1;
  for (ConvCase c : Sweep()) {
    for (int64_t out_c : {5, 16}) {
      c.out_c = out_c;
      std::vector<Tensor> in = {RandomTensor(c.InputShape(), seed++), RandomTensor(Shape({c.kh, c.kw, c.in_c, c.out_c}), seed++)};
      ExpectMatchesReference("Conv2D", c.Attrs(), in, 1e-4, "Conv2D " + c.Label());
    }
  }
}

TEST(OneDnnConvTest, Bf16ActivationsRunOnOneDnnWhetherOrNotTheCpuHasBf16) {
  // A bf16 edge's activations (passes/bf16_activation_chaining.cc): with
  // native bf16 they compute in bf16; without it (ctest runs this binary
  // again under ONEDNN_MAX_CPU_ISA=AVX2) they are widened to float32 and
  // still run on oneDNN, and so do later float32 activations of that shape.
  ConvCase c;
  c.batch = 2;
  c.in_c = 16;
  c.out_c = 32;
  const Tensor x = ops::nn::NarrowFromFloat(RandomTensor(c.InputShape(), 70), DType::kBFloat16);
  const Tensor f = RandomTensor(Shape({c.kh, c.kw, c.in_c, c.out_c}), 71);
  auto want = ops::RunSingleOp("Conv2D", {ops::nn::WidenToFloat(x), f}, c.Attrs());
  ASSERT_TRUE(want.ok()) << want.status().ToString();
  ir::AttrMap reader = c.Attrs();  // the mark of a bf16 edge's reader (passes/bf16_activation_chaining.cc)
  reader[ir::kBf16InputAttr] = MakeAttr(true);
  auto conv = MakeFast("Conv2D", reader);
  ASSERT_TRUE(conv.fast.kernel);
  for (const Tensor& input : {x, ops::nn::WidenToFloat(x), x}) {
    auto got = ops::RunKernelOnNode(conv.node, conv.fast.kernel, {input, f});
    ASSERT_TRUE(got.ok()) << got.status().ToString();
    ExpectClose((*got)[0], (*want)[0], 2e-2, std::string("input ") + DTypeName(input.dtype()));
  }
  EXPECT_EQ(conv.fallbacks->load(), 0) << "fell back to the reference kernel";
}

TEST(OneDnnConvTest, AnInputWithoutChannelsGetsTheReferencesErrorForPlainAndDepthwise) {
  // Found by fuzzing: zero input channels made zero groups, then a division by zero.
  ConvCase c;
  const Tensor x(DType::kFloat, Shape({1, 5, 5, 0}));
  const Tensor f = RandomTensor(Shape({3, 3, 2, 4}), 72);
  auto conv = MakeFast("Conv2D", c.Attrs());
  ASSERT_TRUE(conv.fast.kernel);
  TFHOST_EXPECT_ERROR(ops::RunKernelOnNode(conv.node, conv.fast.kernel, {x, f}), StatusCode::kInvalidArgument,
                      "input has 0 channels; expected a positive multiple of the filter's in_c 2");
  auto depthwise = MakeFast("DepthwiseConv2dNative", c.Attrs());
  ASSERT_TRUE(depthwise.fast.kernel);
  TFHOST_EXPECT_ERROR(ops::RunKernelOnNode(depthwise.node, depthwise.fast.kernel, {x, f}),
                      StatusCode::kInvalidArgument, "filter in_c 2 must equal the input's channels 0");
}

TEST(OneDnnConvTest, Conv2DWithManyChannelsMatchesReference) {
  ConvCase c;
  c.batch = 2;
  c.h = 13;
  c.w = 11;
  c.in_c = 32;
  c.out_c = 48;
  c.stride_h = c.stride_w = 2;
  std::vector<Tensor> in = {RandomTensor(c.InputShape(), 7), RandomTensor(Shape({3, 3, 32, 48}), 8)};
  ExpectMatchesReference("Conv2D", c.Attrs(), in, 1e-4, "Conv2D " + c.Label());
}

TEST(OneDnnConvTest, GroupedConv2DMatchesReference) {
  ConvCase c;
  c.in_c = 8;
  c.out_c = 6;
  // filter in_c 4: two groups of 4 input and 3 output channels.
  std::vector<Tensor> in = {RandomTensor(c.InputShape(), 3), RandomTensor(Shape({3, 3, 4, 6}), 4)};
  ExpectMatchesReference("Conv2D", c.Attrs(), in, 1e-4, "grouped Conv2D");
}

TEST(OneDnnConvTest, DepthwiseMatchesReferenceOverLayoutsPaddingsStridesDilationsMultipliers) {
  uint32_t seed = 100;
  for (ConvCase c : Sweep()) {
    for (int64_t multiplier : {1, 2}) {
      c.out_c = multiplier;
      c.in_c = 4;
      std::vector<Tensor> in = {RandomTensor(c.InputShape(), seed++), RandomTensor(Shape({c.kh, c.kw, c.in_c, multiplier}), seed++)};
      ExpectMatchesReference("DepthwiseConv2dNative", c.Attrs(), in, 1e-4, "Depthwise " + c.Label());
    }
  }
}

// Every fused_ops list the oneDNN kernels fuse, for both fused convolutions.
std::vector<std::vector<std::string>> FusedOpLists(bool with_batch_norm) {
  std::vector<std::vector<std::string>> lists = {{"BiasAdd"}};
  for (const char* act : {"Relu", "Relu6", "Elu", "LeakyRelu", "Sigmoid", "Tanh", "GeluExact", "GeluApproximate", "_MklSwish"}) {
    lists.push_back({"BiasAdd", act});
    if (with_batch_norm) lists.push_back({"FusedBatchNorm", act});
  }
  if (with_batch_norm) lists.push_back({"FusedBatchNorm"});
  return lists;
}

std::vector<Tensor> FusedArgs(const std::vector<std::string>& fused_ops, int64_t channels, uint32_t seed) {
  if (fused_ops[0] == "BiasAdd") return {RandomTensor(Shape({channels}), seed)};
  return {RandomTensor(Shape({channels}), seed, 0.5f, 1.5f), RandomTensor(Shape({channels}), seed + 1),
          RandomTensor(Shape({channels}), seed + 2), RandomTensor(Shape({channels}), seed + 3, 0.1f, 2.f)};
}

TEST(OneDnnConvTest, FusedConvolutionsMatchReferenceForEveryFusedEpilogue) {
  uint32_t seed = 200;
  for (const char* op : {"_FusedConv2D", "FusedDepthwiseConv2dNative"}) {
    const bool depthwise = std::string(op) == "FusedDepthwiseConv2dNative";
    for (const auto& fused_ops : FusedOpLists(/*with_batch_norm=*/true)) {
      for (bool nchw : {false, true}) {
        ConvCase c;
        c.nchw = nchw;
        c.batch = 2;
        c.in_c = 4;
        c.out_c = depthwise ? 2 : 6;
        c.stride_h = c.stride_w = 2;
        const int64_t channels = depthwise ? c.in_c * c.out_c : c.out_c;
        ir::AttrMap attrs = c.Attrs();
        attrs["fused_ops"] = MakeAttr(fused_ops);
        std::vector<Tensor> args = FusedArgs(fused_ops, channels, seed);
        attrs["num_args"] = MakeAttr(static_cast<int64_t>(args.size()));
        attrs["leakyrelu_alpha"] = MakeAttr(0.3f);
        std::vector<Tensor> in = {RandomTensor(c.InputShape(), seed + 10), RandomTensor(Shape({3, 3, c.in_c, c.out_c}), seed + 11, -2, 2)};
        in.insert(in.end(), args.begin(), args.end());
        std::string label = std::string(op) + " [" + fused_ops[0] + (fused_ops.size() > 1 ? "," + fused_ops[1] : "") +
                            "] " + c.Label();
        ExpectMatchesReference(op, attrs, in, 1e-4, label);
        seed += 20;
      }
    }
  }
}

// A fused convolution with a residual Add (fused_ops `fused_ops`, which must
// contain "Add"): attrs and inputs, the residual last, of the output's shape.
struct ResidualCase {
  ir::AttrMap attrs;
  std::vector<Tensor> inputs;
};

ResidualCase MakeResidualCase(const std::string& op, const ConvCase& c, const std::vector<std::string>& fused_ops,
                              uint32_t seed) {
  const bool depthwise = op == "FusedDepthwiseConv2dNative";
  const int64_t channels = depthwise ? c.in_c * c.out_c : c.out_c;
  ResidualCase r;
  r.attrs = c.Attrs();
  r.attrs["fused_ops"] = MakeAttr(fused_ops);
  r.inputs = {RandomTensor(c.InputShape(), seed), RandomTensor(Shape({c.kh, c.kw, c.in_c, c.out_c}), seed + 1, -2, 2)};
  std::vector<Tensor> affine = FusedArgs(fused_ops, channels, seed + 2);
  r.inputs.insert(r.inputs.end(), affine.begin(), affine.end());
  // The output's shape, from the plain convolution.
  auto plain = ops::RunSingleOp(depthwise ? "DepthwiseConv2dNative" : "Conv2D", {r.inputs[0], r.inputs[1]}, c.Attrs());
  EXPECT_TRUE(plain.ok()) << plain.status().ToString();
  if (!plain.ok()) return r;
  // Residuals of about the conv's magnitude, so the activation after the sum
  // sees both signs.
  r.inputs.push_back(RandomTensor((*plain)[0].shape(), seed + 9, -3, 3));
  r.attrs["num_args"] = MakeAttr(static_cast<int64_t>(r.inputs.size() - 2));
  return r;
}

TEST(OneDnnConvTest, FusedConvolutionsWithResidualAddMatchReference) {
  uint32_t seed = 700;
  const std::vector<std::vector<std::string>> lists = {
      {"BiasAdd", "Add"}, {"BiasAdd", "Add", "Relu"}, {"BiasAdd", "Add", "Relu6"}, {"BiasAdd", "Add", "Sigmoid"}};
  for (const char* op : {"_FusedConv2D", "FusedDepthwiseConv2dNative"}) {
    const bool depthwise = std::string(op) == "FusedDepthwiseConv2dNative";
    for (const auto& fused_ops : lists) {
      for (bool nchw : {false, true}) {
        for (int64_t stride : {1, 2}) {
          ConvCase c;
          c.nchw = nchw;
          c.batch = 2;
          c.h = 9;
          c.w = 6;
          c.in_c = depthwise ? 8 : 16;
          c.out_c = depthwise ? 1 : 16;
          c.kh = c.kw = depthwise ? 3 : 1;  // the blocks' 1x1 projection and 3x3 depthwise
          c.stride_h = c.stride_w = stride;
          ResidualCase r = MakeResidualCase(op, c, fused_ops, seed);
          seed += 20;
          std::string label = std::string(op) + " [";
          for (const auto& f : fused_ops) label += f + ",";
          ExpectMatchesReference(op, r.attrs, r.inputs, 1e-4, label + "] " + c.Label());
        }
      }
    }
  }
}

// Batch norm's binary post-ops followed by sum have no jit kernel on some
// CPUs (AVX2 in oneDNN 2.6): whichever kernel runs, the result is the
// reference's, and it is never oneDNN's naive reference convolution.
TEST(OneDnnConvTest, BatchNormThenResidualAddMatchesReferenceWhicheverKernelRuns) {
  uint32_t seed = 900;
  for (const char* op : {"_FusedConv2D", "FusedDepthwiseConv2dNative"}) {
    ConvCase c;
    c.batch = 2;
    c.in_c = 8;
    c.out_c = std::string(op) == "_FusedConv2D" ? 8 : 1;
    ResidualCase r = MakeResidualCase(op, c, {"FusedBatchNorm", "Add", "Relu"}, seed);
    seed += 20;
    auto want = ops::RunSingleOp(op, r.inputs, r.attrs);
    ASSERT_TRUE(want.ok()) << want.status().ToString();
    auto f = MakeFast(op, r.attrs);
    ASSERT_TRUE(f.fast.kernel);
    auto got = ops::RunKernelOnNode(f.node, f.fast.kernel, r.inputs);
    ASSERT_TRUE(got.ok()) << got.status().ToString();
    ExpectClose((*got)[0], (*want)[0], 1e-4, std::string(op) + " [FusedBatchNorm, Add, Relu]");
  }
}

TEST(OneDnnConvTest, ResidualNobodyElseHoldsIsWrittenInPlaceAndOtherwiseCopied) {
  ConvCase c;
  c.batch = 1;
  c.h = 8;
  c.w = 8;
  c.in_c = 16;
  c.out_c = 16;
  c.kh = c.kw = 1;
  ResidualCase r = MakeResidualCase("_FusedConv2D", c, {"BiasAdd", "Add", "Relu"}, 31);
  auto want = ops::RunSingleOp("_FusedConv2D", r.inputs, r.attrs);
  ASSERT_TRUE(want.ok()) << want.status().ToString();
  auto f = MakeFast("_FusedConv2D", r.attrs);
  ASSERT_TRUE(f.fast.kernel);

  // Shared (the test keeps `r.inputs`): the residual must stay unchanged.
  const Tensor residual_before = r.inputs.back().Clone();
  auto shared = ops::RunKernelOnNode(f.node, f.fast.kernel, r.inputs);
  ASSERT_TRUE(shared.ok()) << shared.status().ToString();
  ExpectClose((*shared)[0], (*want)[0], 1e-4, "shared residual");
  EXPECT_FALSE((*shared)[0].SharesBufferWith(r.inputs.back()));
  EXPECT_TRUE(TensorsEqual(r.inputs.back(), residual_before)) << "a shared residual was written";

  // Sole owner: the output is the residual's buffer.
  std::vector<Tensor> owned = r.inputs;
  owned.back() = r.inputs.back().Clone();
  const void* residual_data = owned.back().raw_data();
  auto in_place = ops::RunKernelOnNode(f.node, f.fast.kernel, std::move(owned));
  ASSERT_TRUE(in_place.ok()) << in_place.status().ToString();
  EXPECT_EQ((*in_place)[0].raw_data(), residual_data) << "the residual's buffer was not reused";
  ExpectClose((*in_place)[0], (*want)[0], 1e-4, "owned residual");
  EXPECT_EQ(f.fallbacks->load(), 0);
}

TEST(OneDnnConvTest, ResidualOfAnotherShapeFallsBackToTheReferenceErrorAndOfAnotherDtypeReachesNoKernel) {
  ConvCase c;
  c.in_c = 4;
  c.out_c = 8;
  ResidualCase r = MakeResidualCase("_FusedConv2D", c, {"BiasAdd", "Add", "Relu"}, 41);
  auto f = MakeFast("_FusedConv2D", r.attrs);
  ASSERT_TRUE(f.fast.kernel);
  std::vector<Tensor> bad_shape = r.inputs;
  bad_shape.back() = RandomTensor(Shape({1, 1, 1, 8}), 42);  // broadcasts in AddV2, not in the fused op
  auto got = ops::RunKernelOnNode(f.node, f.fast.kernel, bad_shape);
  TFHOST_ASSERT_ERROR(got, StatusCode::kInvalidArgument,
                      "fused_ops Add: the residual must have the output's shape [1,7,5,8] (no broadcasting), got [1,1,1,8]");
  EXPECT_EQ(f.fallbacks->load(), 1);
  std::vector<Tensor> bad_dtype = r.inputs;
  bad_dtype.back() = Tensor(DType::kDouble, r.inputs.back().shape());
  // The kernel contract refuses a residual of another dtype than T before
  // the oneDNN kernel (or its fallback) is called.
  got = ops::RunKernelOnNode(f.node, f.fast.kernel, bad_dtype);
  TFHOST_ASSERT_ERROR(
      got, StatusCode::kInvalidArgument,
      "node 'test__FusedConv2D' (_FusedConv2D): input 3 'args' (dtype from attr T) is float64, expected float32");
  EXPECT_NE(got.status().message().find("'test__FusedConv2D'"), std::string::npos) << got.status().message();
  EXPECT_NE(got.status().message().find("input 3 'args' (dtype from attr T) is float64, expected float32"),
            std::string::npos)
      << got.status().message();
  EXPECT_EQ(f.fallbacks->load(), 1);
}

TEST(OneDnnConvTest, ChangedWeightsAreReorderedAgainAndTheSameBufferIsReused) {
  ConvCase c;
  c.in_c = 16;
  c.out_c = 32;
  const ir::AttrMap attrs = c.Attrs();
  auto f = MakeFast("Conv2D", attrs);
  ASSERT_TRUE(f.fast.kernel);
  const Tensor x = RandomTensor(c.InputShape(), 1);
  const Tensor w1 = RandomTensor(Shape({3, 3, 16, 32}), 2);
  const Tensor w2 = RandomTensor(Shape({3, 3, 16, 32}), 3);
  for (const Tensor* w : {&w1, &w2, &w1, &w1, &w2}) {
    auto want = ops::RunSingleOp("Conv2D", {x, *w}, attrs);
    auto got = ops::RunKernelOnNode(f.node, f.fast.kernel, {x, *w});
    ASSERT_TRUE(want.ok() && got.ok());
    ExpectClose((*got)[0], (*want)[0], 1e-4, w == &w1 ? "weights 1" : "weights 2");
  }
  // A different tensor with the same values at a different address is fine too.
  const Tensor w1_copy = w1.Clone();
  auto want = ops::RunSingleOp("Conv2D", {x, w1}, attrs);
  auto got = ops::RunKernelOnNode(f.node, f.fast.kernel, {x, w1_copy});
  ASSERT_TRUE(want.ok() && got.ok());
  ExpectClose((*got)[0], (*want)[0], 1e-4, "weights 1 copy");
  EXPECT_EQ(f.fallbacks->load(), 0);
}

TEST(OneDnnConvTest, ConcurrentCallsOnOneKernelWithSeveralShapesAgree) {
  ConvCase c;
  c.in_c = 8;
  c.out_c = 16;
  ir::AttrMap attrs = c.Attrs();
  attrs["fused_ops"] = MakeAttr(std::vector<std::string>{"BiasAdd", "Relu"});
  attrs["num_args"] = MakeAttr(int64_t{1});
  auto f = MakeFast("_FusedConv2D", attrs);
  ASSERT_TRUE(f.fast.kernel);
  const Tensor w = RandomTensor(Shape({3, 3, 8, 16}), 5);
  const Tensor bias = RandomTensor(Shape({16}), 6);
  std::vector<std::vector<Tensor>> inputs;
  std::vector<Tensor> wants;
  for (int s = 0; s < 4; ++s) {
    Tensor x = RandomTensor(Shape({1 + s % 2, 5 + s, 7 + 2 * s, 8}), 10 + s);
    inputs.push_back({x, w, bias});
    auto want = ops::RunSingleOp("_FusedConv2D", inputs.back(), attrs);
    ASSERT_TRUE(want.ok()) << want.status().ToString();
    wants.push_back((*want)[0]);
  }
  std::atomic<int> mismatches{0}, failures{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      ThreadPool pool(t % 2);
      for (int i = 0; i < 25; ++i) {
        const int s = (t + i) % 4;
        auto got = ops::RunKernelOnNode(f.node, f.fast.kernel, inputs[s], nullptr, &pool);
        if (!got.ok()) {
          ++failures;
          continue;
        }
        const float* g = (*got)[0].data<float>();
        const float* want = wants[s].data<float>();
        for (int64_t k = 0; k < wants[s].NumElements(); ++k) {
          if (std::fabs(g[k] - want[k]) > 1e-4f + 1e-4f * std::fabs(want[k])) {
            ++mismatches;
            break;
          }
        }
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(failures.load(), 0);
  EXPECT_EQ(mismatches.load(), 0);
  EXPECT_EQ(f.fallbacks->load(), 0);
}

TEST(OneDnnConvTest, DeclinesAttrsItDoesNotHandleSoTheReferenceRuns) {
  ConvCase c;
  ir::AttrMap attrs = c.Attrs();
  attrs["T"] = MakeAttr(DType::kDouble);
  EXPECT_FALSE(MakeFast("Conv2D", attrs).fast.kernel) << "float64";

  ir::AttrMap prelu = c.Attrs();
  prelu["fused_ops"] = MakeAttr(std::vector<std::string>{"BiasAdd", "Prelu"});
  prelu["num_args"] = MakeAttr(int64_t{2});
  EXPECT_FALSE(MakeFast("_FusedConv2D", prelu).fast.kernel) << "Prelu";

  ir::AttrMap oihw = c.Attrs();
  oihw["fused_ops"] = MakeAttr(std::vector<std::string>{"BiasAdd"});
  oihw["num_args"] = MakeAttr(int64_t{1});
  oihw["filter_format"] = MakeAttr("OIHW");
  EXPECT_FALSE(MakeFast("_FusedConv2D", oihw).fast.kernel) << "OIHW";

  ir::AttrMap wrong_args = c.Attrs();
  wrong_args["fused_ops"] = MakeAttr(std::vector<std::string>{"BiasAdd"});
  wrong_args["num_args"] = MakeAttr(int64_t{0});
  EXPECT_FALSE(MakeFast("_FusedConv2D", wrong_args).fast.kernel) << "num_args 0 with BiasAdd";
}

TEST(OneDnnConvTest, InputsItCannotTakeFallBackToTheReferenceKernel) {
  ConvCase c;
  auto f = MakeFast("Conv2D", c.Attrs());
  ASSERT_TRUE(f.fast.kernel);
  // Empty batch: the reference's empty output.
  auto got = ops::RunKernelOnNode(f.node, f.fast.kernel,
                                  {Tensor(DType::kFloat, Shape({0, 7, 5, 3})), RandomTensor(Shape({3, 3, 3, 5}), 1)});
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  EXPECT_EQ((*got)[0].shape(), Shape({0, 7, 5, 5}));
  EXPECT_EQ(f.fallbacks->load(), 1);
  // A bad filter rank: the reference's error.
  auto bad = ops::RunKernelOnNode(f.node, f.fast.kernel, {RandomTensor(c.InputShape(), 2), RandomTensor(Shape({3, 3, 3}), 3)});
  TFHOST_EXPECT_ERROR(bad, StatusCode::kInvalidArgument, "filter must be 4-D [kh, kw, in_c, out_c], got shape [3,3,3]");
  EXPECT_EQ(f.fallbacks->load(), 2);
}

// The kernels allocate their outputs without a zero fill (oneDNN writes every
// element). A stale block from the pool, full of NaN, must not show through:
// the output takes exactly that block (same size class, the only one cached).
TEST(OneDnnConvTest, OutputsOverwriteEveryElementOfAReusedPoolBlock) {
  uint32_t seed = 500;
  for (const char* op : {"Conv2D", "DepthwiseConv2dNative"}) {
    for (bool nchw : {false, true}) {
      for (const char* padding : {"SAME", "VALID"}) {
        ConvCase c;
        c.nchw = nchw;
        c.padding = padding;
        c.batch = 2;
        c.h = 9;
        c.w = 6;
        c.in_c = 5;
        c.out_c = std::string(op) == "Conv2D" ? 7 : 2;
        c.stride_h = c.stride_w = 2;
        const ir::AttrMap attrs = c.Attrs();
        const std::vector<Tensor> in = {RandomTensor(c.InputShape(), seed),
                                        RandomTensor(Shape({3, 3, c.in_c, c.out_c}), seed + 1)};
        seed += 2;
        auto want = ops::RunSingleOp(op, in, attrs);
        ASSERT_TRUE(want.ok()) << want.status().ToString();
        auto f = MakeFast(op, attrs);
        ASSERT_TRUE(f.fast.kernel);
        auto pool = BufferPool::Create();
        BufferPool::ScopedCurrent current(pool.get());
        {
          Tensor stale = Tensor::Uninitialized(DType::kFloat, (*want)[0].shape());
          for (int64_t i = 0; i < stale.NumElements(); ++i) {
            stale.data<float>()[i] = std::numeric_limits<float>::quiet_NaN();
          }
        }
        ASSERT_GT(pool->stats().retained_bytes, 0);  // the stale block, cached
        const int64_t reuses = pool->stats().reuses;
        auto got = ops::RunKernelOnNode(f.node, f.fast.kernel, in);
        ASSERT_TRUE(got.ok()) << got.status().ToString();
        EXPECT_GT(pool->stats().reuses, reuses) << "the output did not take the stale block";
        ExpectClose((*got)[0], (*want)[0], 1e-4, std::string(op) + " " + c.Label());
        EXPECT_EQ(f.fallbacks->load(), 0);
      }
    }
  }
}

// The same with a residual Add that others still hold: the output is a copy
// of the residual in a fresh block, which the sum post-op then adds to; a
// stale NaN block must be fully overwritten by that copy.
TEST(OneDnnConvTest, ResidualCopiesOverwriteEveryElementOfAReusedPoolBlock) {
  uint32_t seed = 800;
  for (const char* op : {"_FusedConv2D", "FusedDepthwiseConv2dNative"}) {
    for (bool nchw : {false, true}) {
      ConvCase c;
      c.nchw = nchw;
      c.batch = 2;
      c.h = 9;
      c.w = 6;
      c.in_c = 5;
      c.out_c = std::string(op) == "_FusedConv2D" ? 7 : 2;
      c.stride_h = c.stride_w = 2;
      ResidualCase r = MakeResidualCase(op, c, {"BiasAdd", "Add", "Relu"}, seed);
      seed += 20;
      auto want = ops::RunSingleOp(op, r.inputs, r.attrs);
      ASSERT_TRUE(want.ok()) << want.status().ToString();
      auto f = MakeFast(op, r.attrs);
      ASSERT_TRUE(f.fast.kernel);
      auto pool = BufferPool::Create();
      BufferPool::ScopedCurrent current(pool.get());
      {
        Tensor stale = Tensor::Uninitialized(DType::kFloat, (*want)[0].shape());
        for (int64_t i = 0; i < stale.NumElements(); ++i) {
          stale.data<float>()[i] = std::numeric_limits<float>::quiet_NaN();
        }
      }
      ASSERT_GT(pool->stats().retained_bytes, 0);
      const int64_t reuses = pool->stats().reuses;
      auto got = ops::RunKernelOnNode(f.node, f.fast.kernel, r.inputs);  // r.inputs keeps the residual shared
      ASSERT_TRUE(got.ok()) << got.status().ToString();
      EXPECT_GT(pool->stats().reuses, reuses) << "the output did not take the stale block";
      ExpectClose((*got)[0], (*want)[0], 1e-4, std::string(op) + " residual " + c.Label());
      EXPECT_EQ(f.fallbacks->load(), 0);
    }
  }
}

}  // namespace
}  // namespace tfhost::backends::onednn
