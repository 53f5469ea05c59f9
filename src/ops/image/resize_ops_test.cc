#include <gtest/gtest.h>

#include "ops/run_single_op.h"
#include "base/test_status.h"

namespace tfhost::ops {
namespace {

Tensor Row(std::vector<float> v) {
  const int64_t n = static_cast<int64_t>(v.size());
  return Tensor::FromVector<float>(std::move(v), Shape({1, 1, n, 1}));
}

ir::AttrMap Attrs(bool align_corners, bool half_pixel_centers) {
  return {{"T", MakeAttr(DType::kFloat)},
          {"align_corners", MakeAttr(align_corners)},
          {"half_pixel_centers", MakeAttr(half_pixel_centers)}};
}

TEST(ResizeBicubicTest, LegacyModeUsesCoefficientMinus075AndClampsTaps) {
  // 4 -> 8, scale 0.5: output 1 samples x = 0.5, taps -1 (clamped to 0), 0, 1, 2
  // with w(1.5) = -0.09375, w(0.5) = 0.59375 for a = -0.75:
  // -0.09375 * 10 + 0.59375 * 10 + 0.59375 * 20 - 0.09375 * 40 = 13.125.
  auto out = RunSingleOp("ResizeBicubic", {Row({10, 20, 40, 80}), Tensor::FromVector<int32_t>({1, 8})},
                         Attrs(false, false));
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  ASSERT_EQ((*out)[0].shape(), Shape({1, 1, 8, 1}));
  EXPECT_FLOAT_EQ((*out)[0].data<float>()[0], 10.0f);  // x = 0 lands on pixel 0 (weights 0, 1, 0, 0)
  EXPECT_NEAR((*out)[0].data<float>()[1], 13.125f, 1e-5);
}

TEST(ResizeBicubicTest, HalfPixelCentersUseKeysAndRenormaliseAtBorders) {
  // Output 0 samples x = -0.25: taps -2 and -1 fall outside (weight 0); taps 0
  // and 1 keep w(0.25) = 0.8671875, w(1.25) = -0.0703125 (a = -0.5),
  // renormalised: (0.8671875 * 10 - 0.0703125 * 20) / 0.796875.
  auto out = RunSingleOp("ResizeBicubic", {Row({10, 20, 40, 80}), Tensor::FromVector<int32_t>({1, 8})},
                         Attrs(false, true));
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_NEAR((*out)[0].data<float>()[0], 7.265625 / 0.796875, 1e-5);
}

TEST(ResizeBicubicTest, ConstantImageStaysConstantInEveryMode) {
  Tensor image(DType::kUInt8, Shape({1, 3, 4, 2}));
  for (int64_t i = 0; i < image.NumElements(); ++i) image.data<uint8_t>()[i] = 7;
  for (auto [align, half] : {std::pair{false, false}, {true, false}, {false, true}}) {
    ir::AttrMap attrs = Attrs(align, half);
    attrs["T"] = MakeAttr(DType::kUInt8);
    auto out = RunSingleOp("ResizeBicubic", {image, Tensor::FromVector<int32_t>({5, 3})}, attrs);
    ASSERT_TRUE(out.ok()) << out.status().ToString();
    for (int64_t i = 0; i < (*out)[0].NumElements(); ++i) EXPECT_NEAR((*out)[0].data<float>()[i], 7.0f, 1e-5);
  }
}

TEST(ResizeBicubicTest, BadSizeAndConflictingAttrsAreErrors) {
  auto both = RunSingleOp("ResizeBicubic", {Row({1, 2}), Tensor::FromVector<int32_t>({2, 2})}, Attrs(true, true));
  TFHOST_ASSERT_ERROR(both, StatusCode::kInvalidArgument, "align_corners and half_pixel_centers cannot both be true");
  TFHOST_EXPECT_ERROR(RunSingleOp("ResizeBicubic", {Row({1, 2}), Tensor::FromVector<int32_t>({0, 2})}, Attrs(false, false)), StatusCode::kInvalidArgument,
                      "size must be positive, got [0, 2]");
  EXPECT_FALSE(RunSingleOp("ResizeBicubic", {Tensor(DType::kFloat, Shape({2, 2, 1})), Tensor::FromVector<int32_t>({2, 2})},
                           Attrs(false, false))
                   .ok());
}

TEST(ResizeAreaTest, DownsamplingByTwoAveragesPairs) {
  auto out = RunSingleOp("ResizeArea", {Row({1, 3, 5, 7}), Tensor::FromVector<int32_t>({1, 2})},
                         {{"T", MakeAttr(DType::kFloat)}});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_TRUE(TensorsEqual((*out)[0], Row({2, 6})));
}

TEST(ResizeAreaTest, FractionalCoverageWeightsPartialPixels) {
  // 4 -> 3 (scale 4/3): out0 = (in0 + in1 / 3) * 3/4, out1 = (in1 + in2) * 2/3 * 3/4,
  // out2 = (in2 / 3 + in3) * 3/4. For [0, 3, 6, 9]: 0.75, 4.5, 8.25.
  auto out = RunSingleOp("ResizeArea", {Row({0, 3, 6, 9}), Tensor::FromVector<int32_t>({1, 3})},
                         {{"T", MakeAttr(DType::kFloat)}});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  const float* y = (*out)[0].data<float>();
  EXPECT_NEAR(y[0], 0.75f, 1e-5);
  EXPECT_NEAR(y[1], 4.5f, 1e-5);
  EXPECT_NEAR(y[2], 8.25f, 1e-5);
}

TEST(ResizeAreaTest, UpsamplingRepeatsPixelsAndBadSizeIsAnError) {
  Tensor image = Tensor::FromVector<int32_t>({2, 4}, Shape({1, 1, 2, 1}));
  auto out = RunSingleOp("ResizeArea", {image, Tensor::FromVector<int32_t>({2, 4})}, {{"T", MakeAttr(DType::kInt32)}});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_TRUE(TensorsEqual((*out)[0], Tensor::FromVector<float>({2, 2, 4, 4, 2, 2, 4, 4}, Shape({1, 2, 4, 1}))));
  auto bad = RunSingleOp("ResizeArea", {image, Tensor::FromVector<int32_t>({2, 4, 1})}, {{"T", MakeAttr(DType::kInt32)}});
  TFHOST_ASSERT_ERROR(bad, StatusCode::kInvalidArgument,
                      "size must be a vector of 2 values [new_height, new_width], got shape [3]");
}

}  // namespace
}  // namespace tfhost::ops
