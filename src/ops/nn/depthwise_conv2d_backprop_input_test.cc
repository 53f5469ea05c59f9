#include <cmath>

#include <gtest/gtest.h>

#include "ops/run_single_op.h"
#include "base/test_status.h"

namespace tfhost::ops {
namespace {

Tensor Ramp(const Shape& shape, float scale, float offset) {
  Tensor t(DType::kFloat, shape);
  for (int64_t i = 0; i < t.NumElements(); ++i) t.data<float>()[i] = std::sin(scale * i + offset);
  return t;
}

double Dot(const Tensor& a, const Tensor& b) {
  double s = 0;
  for (int64_t i = 0; i < a.NumElements(); ++i) s += double{a.data<float>()[i]} * b.data<float>()[i];
  return s;
}

ir::AttrMap Attrs(const char* padding, std::vector<int64_t> strides, std::vector<int64_t> dilations = {1, 1, 1, 1}) {
  return {{"T", MakeAttr(DType::kFloat)},
          {"strides", MakeAttr(strides)},
          {"padding", MakeAttr(padding)},
          {"dilations", MakeAttr(dilations)}};
}

// The transposed op is the adjoint of the forward one:
// <depthwise(x, f), dy> == <x, backprop_input(f, dy)> for every x and dy.
void ExpectAdjoint(const Shape& x_shape, const Shape& f_shape, const ir::AttrMap& attrs) {
  const Tensor x = Ramp(x_shape, 0.37f, 0.1f);
  const Tensor f = Ramp(f_shape, 0.71f, 0.3f);
  auto y = RunSingleOp("DepthwiseConv2dNative", {x, f}, attrs);
  ASSERT_TRUE(y.ok()) << y.status().ToString();
  const Tensor dy = Ramp((*y)[0].shape(), 0.53f, 0.7f);
  std::vector<int32_t> sizes(x_shape.dims().begin(), x_shape.dims().end());
  auto dx = RunSingleOp("DepthwiseConv2dNativeBackpropInput", {Tensor::FromVector<int32_t>(sizes), f, dy}, attrs);
  ASSERT_TRUE(dx.ok()) << dx.status().ToString();
  ASSERT_EQ((*dx)[0].shape(), x_shape);
  EXPECT_NEAR(Dot((*y)[0], dy), Dot(x, (*dx)[0]), 1e-4);
}

TEST(DepthwiseConv2dNativeBackpropInputTest, IsTheAdjointOfTheForwardConvSameStride2Multiplier2) {
  ExpectAdjoint(Shape({2, 5, 6, 3}), Shape({3, 3, 3, 2}), Attrs("SAME", {1, 2, 2, 1}));
}

TEST(DepthwiseConv2dNativeBackpropInputTest, IsTheAdjointOfTheForwardConvValidDilated) {
  ExpectAdjoint(Shape({1, 7, 6, 2}), Shape({2, 3, 2, 1}), Attrs("VALID", {1, 1, 2, 1}, {1, 2, 1, 1}));
}

TEST(DepthwiseConv2dNativeBackpropInputTest, OneByOneFilterScalesEachChannel) {
  // 1x1 filter, multiplier 2: dx[c] = dy[2c] * f[c][0] + dy[2c+1] * f[c][1].
  Tensor f = Tensor::FromVector<float>({1, 2, 3, 4}, Shape({1, 1, 2, 2}));
  Tensor dy = Tensor::FromVector<float>({1, 1, 1, 10}, Shape({1, 1, 1, 4}));
  auto dx = RunSingleOp("DepthwiseConv2dNativeBackpropInput", {Tensor::FromVector<int32_t>({1, 1, 1, 2}), f, dy},
                        Attrs("VALID", {1, 1, 1, 1}));
  ASSERT_TRUE(dx.ok()) << dx.status().ToString();
  EXPECT_TRUE(TensorsEqual((*dx)[0], Tensor::FromVector<float>({3, 43}, Shape({1, 1, 1, 2}))));
}

TEST(DepthwiseConv2dNativeBackpropInputTest, MismatchedOutBackpropIsAnError) {
  Tensor f(DType::kFloat, Shape({3, 3, 2, 1}));
  // VALID 3x3 over 5x5 gives 3x3, not 4x4.
  auto bad = RunSingleOp("DepthwiseConv2dNativeBackpropInput",
                         {Tensor::FromVector<int32_t>({1, 5, 5, 2}), f, Tensor(DType::kFloat, Shape({1, 4, 4, 2}))},
                         Attrs("VALID", {1, 1, 1, 1}));
  TFHOST_ASSERT_ERROR(bad, StatusCode::kInvalidArgument,
                      "out_backprop spatial size 4x4 does not match the forward depthwise conv output 3x3 for input_sizes");
  auto depth = RunSingleOp("DepthwiseConv2dNativeBackpropInput",
                           {Tensor::FromVector<int32_t>({1, 5, 5, 3}), f, Tensor(DType::kFloat, Shape({1, 3, 3, 2}))},
                           Attrs("VALID", {1, 1, 1, 1}));
  TFHOST_EXPECT_ERROR(depth, StatusCode::kInvalidArgument, "input_sizes depth 3 differs from the filter's in_c 2");
}

}  // namespace
}  // namespace tfhost::ops
