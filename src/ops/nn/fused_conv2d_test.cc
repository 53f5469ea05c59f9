#include <gtest/gtest.h>

#include <cmath>

#include "ops/run_single_op.h"
#include "ops/shape_fn_test_util.h"
#include "base/buffer_pool.h"
#include "base/test_status.h"

namespace tfhost::ops {
namespace {

Tensor F(const std::vector<float>& v, Shape s) { return Tensor::FromVector<float>(v, std::move(s)); }

ir::AttrMap ConvAttrs() {
  return {{"T", MakeAttr(DType::kFloat)},
          {"strides", MakeAttr(std::vector<int64_t>{1, 1, 1, 1})},
          {"padding", MakeAttr("SAME")}};
}

ir::AttrMap FusedAttrs(std::vector<std::string> ops, int num_args) {
  ir::AttrMap a = ConvAttrs();
  a["fused_ops"] = MakeAttr(ops);
  a["num_args"] = MakeAttr(num_args);
  return a;
}

// A 1x3x3x2 input with positive and negative values and a 2x2x2x3 filter.
Tensor Input() {
  std::vector<float> v(18);
  for (int i = 0; i < 18; ++i) v[i] = (i % 5) - 2.f + 0.25f * i;
  return F(v, Shape({1, 3, 3, 2}));
}
Tensor Filter() {
  std::vector<float> v(24);
  for (int i = 0; i < 24; ++i) v[i] = ((i * 7) % 11) / 5.f - 1.f;
  return F(v, Shape({2, 2, 2, 3}));
}

StatusOr<Tensor> Unary(const std::string& op, const Tensor& x) {
  TFHOST_ASSIGN_OR_RETURN(auto out, RunSingleOp(op, {x}, {{"T", MakeAttr(DType::kFloat)}}));
  return out[0];
}

TEST(FusedConv2DTest, BiasAddRelu6EqualsComposedOps) {
  const Tensor bias = F({0.5f, -1.f, 3.f}, Shape({3}));
  auto fused = RunSingleOp("_FusedConv2D", {Input(), Filter(), bias},
                           FusedAttrs({"BiasAdd", "Relu6"}, 1));
  ASSERT_TRUE(fused.ok()) << fused.status().ToString();
  auto conv = RunSingleOp("Conv2D", {Input(), Filter()}, ConvAttrs());
  ASSERT_TRUE(conv.ok());
  auto biased = RunSingleOp("BiasAdd", {(*conv)[0], bias}, {{"T", MakeAttr(DType::kFloat)}});
  ASSERT_TRUE(biased.ok());
  auto relu6 = Unary("Relu6", (*biased)[0]);
  ASSERT_TRUE(relu6.ok());
  EXPECT_TRUE(TensorsEqual((*fused)[0], *relu6))
      << (*fused)[0].DebugString(30) << "\n" << relu6->DebugString(30);
  // The composition must actually clip on both sides for this test to mean much.
  bool saw_zero = false, saw_six = false;
  for (int64_t i = 0; i < relu6->NumElements(); ++i) {
    saw_zero |= relu6->data<float>()[i] == 0.f;
    saw_six |= relu6->data<float>()[i] == 6.f;
  }
  EXPECT_TRUE(saw_zero && saw_six);
}

TEST(FusedConv2DTest, BiasAddAloneAddsPerChannel) {
  const Tensor bias = F({1.f, 2.f, 3.f}, Shape({3}));
  auto fused = RunSingleOp("_FusedConv2D", {Input(), Filter(), bias}, FusedAttrs({"BiasAdd"}, 1));
  auto conv = RunSingleOp("Conv2D", {Input(), Filter()}, ConvAttrs());
  ASSERT_TRUE(fused.ok() && conv.ok()) << fused.status().ToString();
  for (int64_t i = 0; i < (*conv)[0].NumElements(); ++i) {
    EXPECT_FLOAT_EQ((*fused)[0].data<float>()[i], (*conv)[0].data<float>()[i] + 1.f + (i % 3));
  }
}

TEST(FusedConv2DTest, FusedBatchNormThenReluFollowsTheFormula) {
  const Tensor scale = F({1.f, 2.f, 0.5f}, Shape({3})), offset = F({0.f, 1.f, -1.f}, Shape({3}));
  const Tensor mean = F({0.1f, -0.2f, 0.3f}, Shape({3})), var = F({1.f, 4.f, 0.25f}, Shape({3}));
  auto attrs = FusedAttrs({"FusedBatchNorm", "Relu"}, 4);
  attrs["epsilon"] = MakeAttr(0.001f);
  auto fused = RunSingleOp("_FusedConv2D", {Input(), Filter(), scale, offset, mean, var}, attrs);
  ASSERT_TRUE(fused.ok()) << fused.status().ToString();
  auto conv = RunSingleOp("Conv2D", {Input(), Filter()}, ConvAttrs());
  ASSERT_TRUE(conv.ok());
  const float s[3] = {1, 2, 0.5f}, o[3] = {0, 1, -1}, m[3] = {0.1f, -0.2f, 0.3f},
              v[3] = {1, 4, 0.25f};
  for (int64_t i = 0; i < (*conv)[0].NumElements(); ++i) {
    const int c = i % 3;
    const float y = s[c] * ((*conv)[0].data<float>()[i] - m[c]) / std::sqrt(v[c] + 0.001f) + o[c];
    EXPECT_NEAR((*fused)[0].data<float>()[i], std::max(y, 0.f), 1e-5) << i;
  }
}

TEST(FusedConv2DTest, PreluTakesAlphaAfterBias) {
  const Tensor bias = F({0.f, 0.f, 0.f}, Shape({3}));
  const Tensor alpha = F({0.1f, 0.2f, 0.3f}, Shape({1, 1, 3}));
  auto fused = RunSingleOp("_FusedConv2D", {Input(), Filter(), bias, alpha},
                           FusedAttrs({"BiasAdd", "Prelu"}, 2));
  ASSERT_TRUE(fused.ok()) << fused.status().ToString();
  auto conv = RunSingleOp("Conv2D", {Input(), Filter()}, ConvAttrs());
  ASSERT_TRUE(conv.ok());
  const float a[3] = {0.1f, 0.2f, 0.3f};
  bool saw_negative = false;
  for (int64_t i = 0; i < (*conv)[0].NumElements(); ++i) {
    const float x = (*conv)[0].data<float>()[i];
    saw_negative |= x < 0;
    EXPECT_FLOAT_EQ((*fused)[0].data<float>()[i], x < 0 ? a[i % 3] * x : x) << i;
  }
  EXPECT_TRUE(saw_negative);
}

TEST(FusedConv2DTest, LeakyReluUsesLeakyreluAlphaAttr) {
  const Tensor bias = F({-100.f, -100.f, -100.f}, Shape({3}));
  auto attrs = FusedAttrs({"BiasAdd", "LeakyRelu"}, 1);
  attrs["leakyrelu_alpha"] = MakeAttr(0.5f);
  auto fused = RunSingleOp("_FusedConv2D", {Input(), Filter(), bias}, attrs);
  auto conv = RunSingleOp("Conv2D", {Input(), Filter()}, ConvAttrs());
  ASSERT_TRUE(fused.ok() && conv.ok()) << fused.status().ToString();
  EXPECT_FLOAT_EQ((*fused)[0].data<float>()[0], 0.5f * ((*conv)[0].data<float>()[0] - 100.f));
}

TEST(FusedConv2DTest, RejectsTooFewArgsForFusedOps) {
  const Tensor bias = F({0.f, 0.f, 0.f}, Shape({3}));
  auto out = RunSingleOp("_FusedConv2D", {Input(), Filter(), bias},
                         FusedAttrs({"FusedBatchNorm"}, 1));
  TFHOST_ASSERT_ERROR(out, StatusCode::kInvalidArgument,
                      "fused_ops FusedBatchNorm needs fused arg 1 but num_args is 1 and the node has 1 fused args");
}

TEST(FusedConv2DTest, RejectsBiasOfWrongSize) {
  const Tensor bias = F({0.f, 0.f}, Shape({2}));
  auto out = RunSingleOp("_FusedConv2D", {Input(), Filter(), bias}, FusedAttrs({"BiasAdd"}, 1));
  TFHOST_ASSERT_ERROR(out, StatusCode::kInvalidArgument,
                      "BiasAdd bias must be a vector of 3 values (one per output channel), got shape [2]");
}

TEST(FusedConv2DTest, RejectsUnknownFusedOp) {
  const Tensor bias = F({0.f, 0.f, 0.f}, Shape({3}));
  auto out = RunSingleOp("_FusedConv2D", {Input(), Filter(), bias},
                         FusedAttrs({"BiasAdd", "Swish"}, 1));
  TFHOST_ASSERT_ERROR(out, StatusCode::kUnimplemented,
                      "fused_ops entry 1: fused activation 'Swish' is not supported (expected Relu, Relu6, Elu, LeakyRelu,");
}

TEST(FusedConv2DTest, SchemaAcceptsNewerTArgsForm) {
  const Tensor bias = F({0.f, 0.f, 0.f}, Shape({3}));
  auto attrs = FusedAttrs({"BiasAdd", "Relu"}, 1);
  attrs["TArgs"] = MakeAttr(std::vector<DType>{DType::kFloat});
  attrs["num_host_args"] = MakeAttr(0);
  auto out = RunSingleOp("_FusedConv2D", {Input(), Filter(), bias}, attrs);
  ASSERT_TRUE(out.ok()) << out.status().ToString();
}

// A residual for the 1x3x3x3 output of Input() * Filter(): large enough
// against the conv values that Relu after the Add zeroes some outputs it
// would not have zeroed before it (and the reverse).
Tensor Residual(Shape s = Shape({1, 3, 3, 3})) {
  std::vector<float> v(static_cast<size_t>(s.num_elements()));
  for (size_t i = 0; i < v.size(); ++i) v[i] = std::sin(1.7f * i) * 4.f;
  return F(v, std::move(s));
}

// conv (+ bias) then AddV2 with the residual, then the activation, as the
// unfused graph computes it.
StatusOr<Tensor> Composed(const std::string& conv_op, ir::AttrMap attrs, const Tensor& x, const Tensor& f,
                          const Tensor& bias, const Tensor& residual, const std::string& act) {
  TFHOST_ASSIGN_OR_RETURN(auto conv, RunSingleOp(conv_op, {x, f}, attrs));
  ir::AttrMap bias_attrs = {{"T", MakeAttr(DType::kFloat)}};
  if (auto it = attrs.find("data_format"); it != attrs.end()) bias_attrs["data_format"] = it->second;
  TFHOST_ASSIGN_OR_RETURN(auto biased, RunSingleOp("BiasAdd", {conv[0], bias}, bias_attrs));
  TFHOST_ASSIGN_OR_RETURN(auto sum, RunSingleOp("AddV2", {biased[0], residual}, {{"T", MakeAttr(DType::kFloat)}}));
  if (act.empty()) return sum[0];
  return Unary(act, sum[0]);
}

TEST(FusedConv2DTest, ResidualAddThenActivationEqualsComposedOpsBitForBit) {
  const Tensor bias = F({0.5f, -1.f, 3.f}, Shape({3}));
  for (const char* act : {"", "Relu", "Relu6"}) {
    std::vector<std::string> ops = {"BiasAdd", "Add"};
    if (*act) ops.push_back(act);
    auto fused = RunSingleOp("_FusedConv2D", {Input(), Filter(), bias, Residual()}, FusedAttrs(ops, 2));
    ASSERT_TRUE(fused.ok()) << act << ": " << fused.status().ToString();
    auto want = Composed("Conv2D", ConvAttrs(), Input(), Filter(), bias, Residual(), act);
    ASSERT_TRUE(want.ok()) << want.status().ToString();
    EXPECT_TRUE(TensorsEqual((*fused)[0], *want)) << act << "\n" << (*fused)[0].DebugString(30) << "\n"
                                                   << want->DebugString(30);
  }
}

TEST(FusedConv2DTest, ResidualAddOrderIsBiasThenAddThenActivation) {
  // With Relu applied before the Add (the wrong order) negative sums would
  // survive; after it none may.
  const Tensor bias = F({0.f, 0.f, 0.f}, Shape({3}));
  Tensor residual = Residual();
  auto fused = RunSingleOp("_FusedConv2D", {Input(), Filter(), bias, residual},
                           FusedAttrs({"BiasAdd", "Add", "Relu"}, 2));
  auto conv = RunSingleOp("Conv2D", {Input(), Filter()}, ConvAttrs());
  ASSERT_TRUE(fused.ok() && conv.ok()) << fused.status().ToString();
  int clipped = 0;
  for (int64_t i = 0; i < residual.NumElements(); ++i) {
    const float sum = (*conv)[0].data<float>()[i] + residual.data<float>()[i];
    EXPECT_FLOAT_EQ((*fused)[0].data<float>()[i], std::max(sum, 0.f)) << i;
    clipped += sum < 0 && (*conv)[0].data<float>()[i] > 0;
  }
  EXPECT_GT(clipped, 0) << "no output where the order matters";
}

TEST(FusedConv2DTest, ResidualAddWorksInNchwAndAfterFusedBatchNorm) {
  // NCHW: the residual comes in NCHW like the output.
  ir::AttrMap nchw = FusedAttrs({"BiasAdd", "Add", "Relu"}, 2);
  nchw["data_format"] = MakeAttr("NCHW");
  const Tensor nhwc = Input();
  const Tensor x = F(std::vector<float>(nhwc.data<float>(), nhwc.data<float>() + 18), Shape({1, 2, 3, 3}));
  const Tensor bias = F({0.5f, -1.f, 3.f}, Shape({3}));
  const Tensor residual = Residual(Shape({1, 3, 3, 3}));
  auto fused = RunSingleOp("_FusedConv2D", {x, Filter(), bias, residual}, nchw);
  ir::AttrMap conv_nchw = ConvAttrs();
  conv_nchw["data_format"] = MakeAttr("NCHW");
  auto want = Composed("Conv2D", conv_nchw, x, Filter(), bias, residual, "Relu");
  ASSERT_TRUE(want.ok()) << want.status().ToString();
  ASSERT_TRUE(fused.ok()) << fused.status().ToString();
  EXPECT_TRUE(TensorsEqual((*fused)[0], *want)) << (*fused)[0].DebugString(30) << "\n" << want->DebugString(30);

  const Tensor scale = F({1.f, 2.f, 0.5f}, Shape({3})), offset = F({0.f, 1.f, -1.f}, Shape({3}));
  const Tensor mean = F({0.1f, -0.2f, 0.3f}, Shape({3})), var = F({1.f, 4.f, 0.25f}, Shape({3}));
  auto bn = RunSingleOp("_FusedConv2D", {Input(), Filter(), scale, offset, mean, var, Residual()},
                        FusedAttrs({"FusedBatchNorm", "Add"}, 5));
  auto bn_only = RunSingleOp("_FusedConv2D", {Input(), Filter(), scale, offset, mean, var},
                             FusedAttrs({"FusedBatchNorm"}, 4));
  ASSERT_TRUE(bn.ok() && bn_only.ok()) << bn.status().ToString();
  for (int64_t i = 0; i < 27; ++i) {
    EXPECT_EQ((*bn)[0].data<float>()[i], (*bn_only)[0].data<float>()[i] + Residual().data<float>()[i]) << i;
  }
}

TEST(FusedDepthwiseConv2dNativeTest, ResidualAddEqualsComposedOps) {
  // Input() is 1x3x3x2; a 2x2x2x2 depthwise filter gives 1x3x3x4.
  std::vector<float> fv(16);
  for (int i = 0; i < 16; ++i) fv[i] = ((i * 5) % 7) / 3.f - 1.f;
  const Tensor filter = F(fv, Shape({2, 2, 2, 2}));
  const Tensor bias = F({0.5f, -1.f, 3.f, 0.f}, Shape({4}));
  const Tensor residual = Residual(Shape({1, 3, 3, 4}));
  ir::AttrMap attrs = FusedAttrs({"BiasAdd", "Add", "Relu"}, 2);
  auto fused = RunSingleOp("FusedDepthwiseConv2dNative", {Input(), filter, bias, residual}, attrs);
  ASSERT_TRUE(fused.ok()) << fused.status().ToString();
  auto want = Composed("DepthwiseConv2dNative", ConvAttrs(), Input(), filter, bias, residual, "Relu");
  ASSERT_TRUE(want.ok()) << want.status().ToString();
  EXPECT_TRUE(TensorsEqual((*fused)[0], *want)) << (*fused)[0].DebugString(40) << "\n" << want->DebugString(40);
}

TEST(FusedConv2DTest, RejectsResidualOfWrongShapeDtypeOrMissingArg) {
  const Tensor bias = F({0.f, 0.f, 0.f}, Shape({3}));
  const auto attrs = FusedAttrs({"BiasAdd", "Add", "Relu"}, 2);
  // Broadcastable to the output, but the fused Add does not broadcast.
  for (Shape s : {Shape({1, 1, 1, 3}), Shape({3}), Shape({1, 3, 3, 4}), Shape({2, 3, 3, 3})}) {
    auto out = RunSingleOp("_FusedConv2D", {Input(), Filter(), bias, Residual(s)}, attrs);
    TFHOST_ASSERT_ERROR(out, StatusCode::kInvalidArgument,
                        "node 'test__FusedConv2D' (_FusedConv2D): fused_ops Add: the residual must have the output's "
                        "shape [1,3,3,3] (no broadcasting), got [")
        << s.ToString();
    EXPECT_NE(out.status().message().find("residual must have the output's shape [1,3,3,3]"), std::string::npos)
        << out.status().message();
  }
  Tensor wrong_dtype(DType::kDouble, Shape({1, 3, 3, 3}));
  auto dtype = RunSingleOp("_FusedConv2D", {Input(), Filter(), bias, wrong_dtype}, attrs);
  TFHOST_ASSERT_ERROR(
      dtype, StatusCode::kInvalidArgument,
      "node 'test__FusedConv2D' (_FusedConv2D): input 3 'args' (dtype from attr T) is float64, expected float32");
  EXPECT_NE(dtype.status().message().find("input 3 'args' (dtype from attr T) is float64, expected float32"),
            std::string::npos)
      << dtype.status().message();

  auto missing = RunSingleOp("_FusedConv2D", {Input(), Filter(), bias}, FusedAttrs({"BiasAdd", "Add"}, 1));
  TFHOST_ASSERT_ERROR(missing, StatusCode::kInvalidArgument,
                      "fused_ops Add needs fused arg 1 but num_args is 1 and the node has 1 fused args");

  auto twice = RunSingleOp("_FusedConv2D", {Input(), Filter(), bias, Residual(), Residual()},
                           FusedAttrs({"BiasAdd", "Add", "Add"}, 3));
  TFHOST_ASSERT_ERROR(twice, StatusCode::kUnimplemented,
                      "node 'test__FusedConv2D' (_FusedConv2D): fused_ops entry 2: fused activation 'Add' is not "
                      "supported (expected Relu, Relu6, Elu, LeakyRelu,");
}

TEST(FusedConv2DShapeTest, ResidualRefinesTheOutputAndAConflictFails) {
  ir::AttrMap attrs = FusedAttrs({"BiasAdd", "Add"}, 2);
  // Unknown batch in the input; the residual knows it.
  auto out = testing::InferShape(
      "_FusedConv2D",
      {ir::PartialShape::Known({-1, 3, 3, 2}), ir::PartialShape::Known({2, 2, 2, 3}), ir::PartialShape::Known({3}),
       ir::PartialShape::Known({4, 3, 3, -1})},
      {}, 1, attrs);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0], ir::PartialShape::Known({4, 3, 3, 3}));

  ir::Node node;
  node.name = "n";
  node.op = "_FusedConv2D";
  node.attrs = attrs;
  ShapeContext ctx(node,
                   {ir::PartialShape::Known({1, 3, 3, 2}), ir::PartialShape::Known({2, 2, 2, 3}),
                    ir::PartialShape::Known({3}), ir::PartialShape::Known({1, 3, 3, 4})},
                   {nullptr, nullptr, nullptr, nullptr}, 1);
  Status st = (*ShapeFnRegistry::Global().Find("_FusedConv2D"))(ctx);
  TFHOST_ASSERT_ERROR(st, StatusCode::kInvalidArgument, "residual [1,3,3,4] must have the output's shape [1,3,3,3]");
}

TEST(FusedMatMulTest, BiasAddReluAndTransposes) {
  // a = [[1, 2, 3], [-4, -5, -6]], b = [[1, 0], [0, 1], [1, 1]] -> a*b = [[4, 5], [-10, -11]].
  const Tensor a = F({1, 2, 3, -4, -5, -6}, Shape({2, 3}));
  const Tensor b = F({1, 0, 0, 1, 1, 1}, Shape({3, 2}));
  const Tensor bias = F({1, 20}, Shape({2}));
  ir::AttrMap attrs = {{"T", MakeAttr(DType::kFloat)},
                       {"num_args", MakeAttr(1)},
                       {"fused_ops", MakeAttr(std::vector<std::string>{"BiasAdd", "Relu"})}};
  auto out = RunSingleOp("_FusedMatMul", {a, b, bias}, attrs);
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ((*out)[0].shape(), Shape({2, 2}));
  EXPECT_TRUE(TensorsEqual((*out)[0], F({5, 25, 0, 9}, Shape({2, 2}))))
      << (*out)[0].DebugString();
  // Same product with both operands given transposed.
  const Tensor at = F({1, -4, 2, -5, 3, -6}, Shape({3, 2}));
  const Tensor bt = F({1, 0, 1, 0, 1, 1}, Shape({2, 3}));
  attrs["transpose_a"] = MakeAttr(true);
  attrs["transpose_b"] = MakeAttr(true);
  auto out_t = RunSingleOp("_FusedMatMul", {at, bt, bias}, attrs);
  ASSERT_TRUE(out_t.ok()) << out_t.status().ToString();
  EXPECT_TRUE(TensorsEqual((*out)[0], (*out_t)[0]));
}

TEST(FusedMatMulTest, GeluExactAndApproximate) {
  const Tensor a = F({1.f}, Shape({1, 1}));
  const Tensor b = F({-0.5f}, Shape({1, 1}));
  const Tensor bias = F({0.f}, Shape({1}));
  for (const char* act : {"GeluExact", "GeluApproximate"}) {
    ir::AttrMap attrs = {{"T", MakeAttr(DType::kFloat)},
                         {"num_args", MakeAttr(1)},
                         {"fused_ops", MakeAttr(std::vector<std::string>{"BiasAdd", act})}};
    auto out = RunSingleOp("_FusedMatMul", {a, b, bias}, attrs);
    ASSERT_TRUE(out.ok()) << out.status().ToString();
    // gelu(-0.5) = -0.5 * Phi(-0.5) = -0.154269 (tanh form: -0.154286).
    EXPECT_NEAR((*out)[0].data<float>()[0], -0.15427f, 5e-5) << act;
  }
}

TEST(FusedMatMulTest, RejectsInnerDimensionMismatch) {
  const Tensor a(DType::kFloat, Shape({2, 3}));
  const Tensor b(DType::kFloat, Shape({2, 2}));
  auto out = RunSingleOp("_FusedMatMul", {a, b}, {{"T", MakeAttr(DType::kFloat)},
                                                  {"num_args", MakeAttr(0)}});
  TFHOST_ASSERT_ERROR(out, StatusCode::kInvalidArgument, "inner dimensions differ: a [2,3] and b [2,2]");
}

TEST(FusedMatMulTest, AnEmptyInnerDimUnderHugeBatchDimsMeetsTheTensorLimitBeforeAnyIndexTable) {
  // Found by fuzzing: x [2^38, 2, 0] and y [2^38, 0, 2] hold no values, yet
  // their product is 2^38 zero matrices (2^40 values, as many as a shape
  // may have), and the kernel sized two tables of 2^38 batch offsets (2 TiB
  // each) before allocating that output. The output now
  // comes first, so a session's tensor limit refuses it (under ASan the old
  // order aborts: allocation-size-too-big).
  auto pool = BufferPool::Create(BufferPool::kDefaultMaxRetainedBytes, 1 << 20);
  BufferPool::ScopedCurrent current(pool.get());
  const int64_t huge = int64_t{1} << 38;
  ir::AttrMap attrs = {{"T", MakeAttr(DType::kFloat)},
                       {"num_args", MakeAttr(1)},
                       {"fused_ops", MakeAttr(std::vector<std::string>{"BiasAdd"})}};
  TFHOST_EXPECT_ERROR(RunSingleOp("_TfhostFusedBatchMatMul",
                                  {Tensor(DType::kFloat, Shape({huge, 2, 0})), Tensor(DType::kFloat, Shape({huge, 0, 2})),
                                   F({1, 2}, Shape({2}))},
                                  attrs),
                      StatusCode::kResourceExhausted, "out of memory while the kernel ran");
  // Small enough, the same shapes give bias-only rows.
  auto fits = RunSingleOp("_TfhostFusedBatchMatMul",
                          {Tensor(DType::kFloat, Shape({2, 1, 0})), Tensor(DType::kFloat, Shape({2, 0, 4})),
                           F({1, 2, 3, 4}, Shape({4}))},
                          attrs);
  ASSERT_TRUE(fits.ok()) << fits.status().ToString();
  EXPECT_TRUE(TensorsEqual((*fits)[0], F({1, 2, 3, 4, 1, 2, 3, 4}, Shape({2, 1, 4})))) << (*fits)[0].DebugString();
}

}  // namespace
}  // namespace tfhost::ops
