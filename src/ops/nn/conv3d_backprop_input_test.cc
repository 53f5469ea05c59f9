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

ir::AttrMap Attrs(const char* padding, std::vector<int64_t> strides,
                  std::vector<int64_t> dilations = {1, 1, 1, 1, 1}) {
  return {{"T", MakeAttr(DType::kFloat)},
          {"strides", MakeAttr(strides)},
          {"padding", MakeAttr(padding)},
          {"dilations", MakeAttr(dilations)}};
}

// <conv3d(x, f), dy> == <x, conv3d_backprop_input(f, dy)>.
void ExpectAdjoint(const Shape& x_shape, const Shape& f_shape, const ir::AttrMap& attrs) {
  const Tensor x = Ramp(x_shape, 0.37f, 0.1f);
  const Tensor f = Ramp(f_shape, 0.71f, 0.3f);
  auto y = RunSingleOp("Conv3D", {x, f}, attrs);
  ASSERT_TRUE(y.ok()) << y.status().ToString();
  const Tensor dy = Ramp((*y)[0].shape(), 0.53f, 0.7f);
  std::vector<int64_t> sizes(x_shape.dims().begin(), x_shape.dims().end());
  ir::AttrMap with_tshape = attrs;
  with_tshape["Tshape"] = MakeAttr(DType::kInt64);
  auto dx = RunSingleOp("Conv3DBackpropInputV2", {Tensor::FromVector<int64_t>(sizes), f, dy}, with_tshape);
  ASSERT_TRUE(dx.ok()) << dx.status().ToString();
  ASSERT_EQ((*dx)[0].shape(), x_shape);
  EXPECT_NEAR(Dot((*y)[0], dy), Dot(x, (*dx)[0]), 1e-4);
}

TEST(Conv3DBackpropInputV2Test, IsTheAdjointOfConv3DSameStride2) {
  ExpectAdjoint(Shape({2, 3, 4, 5, 2}), Shape({2, 3, 3, 2, 3}), Attrs("SAME", {1, 2, 2, 2, 1}));
}

TEST(Conv3DBackpropInputV2Test, IsTheAdjointOfConv3DValidDilated) {
  ExpectAdjoint(Shape({1, 4, 5, 5, 1}), Shape({2, 2, 2, 1, 2}), Attrs("VALID", {1, 1, 2, 1, 1}, {1, 1, 1, 2, 1}));
}

TEST(Conv3DBackpropInputV2Test, SingleVoxelSpreadsTheFilter) {
  // One output voxel, 2x1x1 filter, VALID: dx[d] = f[d] * dy.
  Tensor f = Tensor::FromVector<float>({2, 3}, Shape({2, 1, 1, 1, 1}));
  Tensor dy = Tensor::FromVector<float>({5}, Shape({1, 1, 1, 1, 1}));
  auto dx = RunSingleOp("Conv3DBackpropInputV2", {Tensor::FromVector<int32_t>({1, 2, 1, 1, 1}), f, dy},
                        Attrs("VALID", {1, 1, 1, 1, 1}));
  ASSERT_TRUE(dx.ok()) << dx.status().ToString();
  EXPECT_TRUE(TensorsEqual((*dx)[0], Tensor::FromVector<float>({10, 15}, Shape({1, 2, 1, 1, 1}))));
}

TEST(Conv3DBackpropInputV2Test, BadSizesAndFormatAreErrors) {
  Tensor f(DType::kFloat, Shape({1, 1, 1, 1, 1}));
  Tensor dy(DType::kFloat, Shape({1, 2, 2, 2, 1}));
  auto four = RunSingleOp("Conv3DBackpropInputV2", {Tensor::FromVector<int32_t>({1, 2, 2, 2}), f, dy},
                          Attrs("VALID", {1, 1, 1, 1, 1}));
  TFHOST_ASSERT_ERROR(four, StatusCode::kInvalidArgument,
                      "input_sizes must be a vector of 5 sizes [N, D, H, W, C], got shape [4]");
  auto mismatch = RunSingleOp("Conv3DBackpropInputV2", {Tensor::FromVector<int32_t>({1, 3, 2, 2, 1}), f, dy},
                              Attrs("VALID", {1, 1, 1, 1, 1}));
  TFHOST_EXPECT_ERROR(mismatch, StatusCode::kInvalidArgument,
                      "out_backprop [1,2,2,2,1] does not match the forward Conv3D output for input_sizes [[1, 3, 2, 2, 1]]");
  ir::AttrMap ncdhw = Attrs("VALID", {1, 1, 1, 1, 1});
  ncdhw["data_format"] = MakeAttr("NCDHW");
  TFHOST_EXPECT_ERROR(RunSingleOp("Conv3DBackpropInputV2", {Tensor::FromVector<int32_t>({1, 2, 2, 2, 1}), f, dy}, ncdhw), StatusCode::kUnimplemented,
                      "data_format NCDHW is not supported (NDHWC only)");
}

}  // namespace
}  // namespace tfhost::ops
