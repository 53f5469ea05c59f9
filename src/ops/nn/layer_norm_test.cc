#include "ops/nn/layer_norm.h"

#include <gtest/gtest.h>

#include <cmath>

#include "ops/run_single_op.h"

namespace tfhost::ops::nn {
namespace {

Tensor Wave(const Shape& shape, float scale, float shift) {
  Tensor t(DType::kFloat, shape);
  for (int64_t i = 0; i < t.NumElements(); ++i) t.data<float>()[i] = std::sin(0.37f * i + shift) * scale + shift;
  return t;
}

Tensor One(const std::string& op, std::vector<Tensor> in, ir::AttrMap attrs = {}) {
  attrs["T"] = MakeAttr(DType::kFloat);
  auto out = RunSingleOp(op, std::move(in), attrs);
  EXPECT_TRUE(out.ok()) << op << ": " << out.status().ToString();
  return out.ok() ? (*out)[0] : Tensor();
}

// keras.ops.layer_norm's ops, each on its reference kernel.
Tensor ByOps(const Tensor& x, const Tensor& gamma, const Tensor& beta, float epsilon) {
  const ir::AttrMap keep = {{"keep_dims", MakeAttr(true)}};
  const Tensor last = Tensor::FromVector<int32_t>({-1});
  Tensor mean = One("Mean", {x, last}, keep);
  Tensor var = One("Mean", {One("SquaredDifference", {x, mean}), last}, keep);
  Tensor m = One("Mul", {One("Rsqrt", {One("AddV2", {var, Tensor::Scalar<float>(epsilon)})}), gamma});
  Tensor shift = One("AddV2", {One("Mul", {One("Neg", {mean}), m}), beta});
  return One("AddV2", {One("Mul", {x, m}), shift});
}

StatusOr<std::vector<Tensor>> Fused(const Tensor& x, const Tensor& gamma, const Tensor& beta, float epsilon) {
  return RunSingleOp(kLayerNormOp, {x, gamma, beta},
                     {{"T", MakeAttr(DType::kFloat)}, {"epsilon", MakeAttr(epsilon)}});
}

TEST(LayerNormTest, ReferenceKernelGivesTheSeparateOpsValuesBitForBit) {
  struct Case {
    Shape x, params;
    float epsilon;
  };
  for (const Case& c : std::vector<Case>{{Shape({2, 5, 37}), Shape({37}), 1e-3f},
                                         {Shape({4, 768}), Shape({1, 768}), 1e-12f},
                                         {Shape({3, 1}), Shape({1}), 1e-6f},
                                         {Shape({19}), Shape({19}), 0.5f}}) {
    SCOPED_TRACE(c.x.ToString());
    const int64_t channels = c.x.dim(c.x.rank() - 1);
    Tensor x = Wave(c.x, 4.f, 1.f);
    Tensor gamma = Wave(c.params, 1.5f, 0.5f), beta = Wave(c.params, 0.7f, -2.f);
    auto fused = Fused(x, gamma, beta, c.epsilon);
    ASSERT_TRUE(fused.ok()) << fused.status().ToString();
    Tensor want = ByOps(x, gamma, beta, c.epsilon);
    ASSERT_EQ((*fused)[0].shape(), want.shape());
    for (int64_t i = 0; i < want.NumElements(); ++i) {
      EXPECT_EQ((*fused)[0].data<float>()[i], want.data<float>()[i]) << i << " of " << channels << " channels";
    }
  }
}

TEST(LayerNormTest, AddLayerNormIsTheNormOfAddV2BitForBitBroadcastingAsItDoes) {
  // A residual sum of equal shapes, and a b that broadcasts along rows.
  for (const Shape& b_shape : {Shape({2, 5, 37}), Shape({1, 5, 37})}) {
    SCOPED_TRACE(b_shape.ToString());
    const Tensor a = Wave(Shape({2, 5, 37}), 4.f, 1.f), b = Wave(b_shape, 2.f, -0.5f);
    const Tensor gamma = Wave(Shape({37}), 1.5f, 0.5f), beta = Wave(Shape({37}), 0.7f, -2.f);
    auto fused = RunSingleOp(kAddLayerNormOp, {a, b, gamma, beta},
                             {{"T", MakeAttr(DType::kFloat)}, {"epsilon", MakeAttr(1e-3f)}});
    ASSERT_TRUE(fused.ok()) << fused.status().ToString();
    const Tensor want = ByOps(One("AddV2", {a, b}), gamma, beta, 1e-3f);
    ASSERT_EQ((*fused)[0].shape(), want.shape());
    for (int64_t i = 0; i < want.NumElements(); ++i) {
      EXPECT_EQ((*fused)[0].data<float>()[i], want.data<float>()[i]) << i;
    }
  }
  auto bad = RunSingleOp(kAddLayerNormOp, {Wave(Shape({2, 8}), 1, 0), Wave(Shape({3, 8}), 1, 0), Wave(Shape({8}), 1, 0),
                                           Wave(Shape({8}), 1, 0)},
                         {{"T", MakeAttr(DType::kFloat)}, {"epsilon", MakeAttr(1e-3f)}});
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(bad.status().message().find(std::string(kAddLayerNormOp) + "/add"), std::string::npos)
      << bad.status().ToString();
}

TEST(LayerNormTest, ARowOfOneValueRepeatedNormalizesToBeta) {
  Tensor x(DType::kFloat, Shape({2, 4}));
  for (int64_t i = 0; i < 8; ++i) x.data<float>()[i] = 3.25f;
  auto out = Fused(x, Wave(Shape({4}), 1.f, 0.f), Tensor::FromVector<float>({1, 2, 3, 4}), 1e-5f);
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  for (int64_t i = 0; i < 8; ++i) EXPECT_EQ((*out)[0].data<float>()[i], static_cast<float>(i % 4 + 1)) << i;
}

TEST(LayerNormTest, EmptyInputGivesAnEmptyOutput) {
  auto out = Fused(Tensor(DType::kFloat, Shape({0, 8})), Wave(Shape({8}), 1, 0), Wave(Shape({8}), 1, 0), 1e-5f);
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ((*out)[0].shape(), Shape({0, 8}));
}

TEST(LayerNormTest, ParametersNotOnePerChannelAreErrorsNamingTheInput) {
  auto wrong_size = Fused(Wave(Shape({2, 8}), 1, 0), Wave(Shape({7}), 1, 0), Wave(Shape({8}), 1, 0), 1e-5f);
  ASSERT_FALSE(wrong_size.ok());
  EXPECT_EQ(wrong_size.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(wrong_size.status().message().find("input gamma must hold one value per channel of x [2,8]"),
            std::string::npos) << wrong_size.status().ToString();
  EXPECT_NE(wrong_size.status().message().find("got [7]"), std::string::npos) << wrong_size.status().ToString();

  auto not_leading_ones = Fused(Wave(Shape({2, 8}), 1, 0), Wave(Shape({8}), 1, 0), Wave(Shape({2, 8}), 1, 0), 1e-5f);
  ASSERT_FALSE(not_leading_ones.ok());
  EXPECT_NE(not_leading_ones.status().message().find("input beta must hold one value per channel"),
            std::string::npos) << not_leading_ones.status().ToString();
  EXPECT_NE(not_leading_ones.status().message().find(kLayerNormOp), std::string::npos)
      << not_leading_ones.status().ToString();

  auto scalar = Fused(Tensor::Scalar<float>(1.f), Wave(Shape({1}), 1, 0), Wave(Shape({1}), 1, 0), 1e-5f);
  ASSERT_FALSE(scalar.ok());
  EXPECT_EQ(scalar.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(scalar.status().message().find("input x must have at least one dim"), std::string::npos)
      << scalar.status().ToString();
}

}  // namespace
}  // namespace tfhost::ops::nn
