#include <gtest/gtest.h>

#include <cmath>

#include "ops/run_single_op.h"

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
  ASSERT_FALSE(out.ok());
  EXPECT_NE(out.status().message().find("num_args"), std::string::npos) << out.status().message();
}

TEST(FusedConv2DTest, RejectsBiasOfWrongSize) {
  const Tensor bias = F({0.f, 0.f}, Shape({2}));
  auto out = RunSingleOp("_FusedConv2D", {Input(), Filter(), bias}, FusedAttrs({"BiasAdd"}, 1));
  ASSERT_FALSE(out.ok());
}

TEST(FusedConv2DTest, RejectsUnknownFusedOp) {
  const Tensor bias = F({0.f, 0.f, 0.f}, Shape({3}));
  auto out = RunSingleOp("_FusedConv2D", {Input(), Filter(), bias},
                         FusedAttrs({"BiasAdd", "Swish"}, 1));
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.status().code(), StatusCode::kUnimplemented);
}

TEST(FusedConv2DTest, SchemaAcceptsNewerTArgsForm) {
  const Tensor bias = F({0.f, 0.f, 0.f}, Shape({3}));
  auto attrs = FusedAttrs({"BiasAdd", "Relu"}, 1);
  attrs["TArgs"] = MakeAttr(std::vector<DType>{DType::kFloat});
  attrs["num_host_args"] = MakeAttr(0);
  auto out = RunSingleOp("_FusedConv2D", {Input(), Filter(), bias}, attrs);
  ASSERT_TRUE(out.ok()) << out.status().ToString();
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
  ASSERT_FALSE(out.ok());
}

}  // namespace
}  // namespace tfhost::ops
