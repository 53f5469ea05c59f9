#include <gtest/gtest.h>

#include "ops/run_single_op.h"
#include "base/test_status.h"

namespace tfhost::ops {
namespace {

ir::AttrMap TypeAttr(DType t) { return {{"T", MakeAttr(t)}}; }

Tensor Pixels(std::vector<float> v) {
  const int64_t n = static_cast<int64_t>(v.size()) / 3;
  return Tensor::FromVector<float>(std::move(v), Shape({n, 3}));
}

// A half (or, via float, bfloat16) tensor of the given values, each rounded
// to half first as the TensorFlow reference inputs were.
Tensor Narrow(const std::vector<float>& v, DType type) {
  const int64_t n = static_cast<int64_t>(v.size()) / 3;
  Tensor t(type, Shape({n, 3}));
  for (size_t i = 0; i < v.size(); ++i) {
    const float h = HalfToFloat(FloatToHalf(v[i]));
    t.data<uint16_t>()[i] = type == DType::kHalf ? FloatToHalf(h) : FloatToBFloat16(h);
  }
  return t;
}

void ExpectBits(const Tensor& t, const std::vector<uint16_t>& bits) {
  ASSERT_EQ(t.NumElements(), static_cast<int64_t>(bits.size()));
  for (size_t i = 0; i < bits.size(); ++i) EXPECT_EQ(t.data<uint16_t>()[i], bits[i]) << "element " << i;
}

TEST(RgbToHsvTest, HandCheckedPixels) {
  // (0.2, 0.4, 0.6): v = 0.6, range = 0.4, s = 2/3, blue is the max so
  // h = (r - g) / (6 range) + 4/6 = 7/12. (1, 0, 0.5): red max, g < b gives
  // h = -1/12, wrapped to 11/12. Grey and black have h = s = 0.
  auto out = RunSingleOp("RGBToHSV", {Pixels({0.2f, 0.4f, 0.6f, 1, 0, 0.5f, 0.5f, 0.5f, 0.5f, 0, 0, 0})},
                         TypeAttr(DType::kFloat));
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  const float* y = (*out)[0].data<float>();
  const float want[] = {7.0f / 12, 2.0f / 3, 0.6f, 11.0f / 12, 1, 1, 0, 0, 0.5f, 0, 0, 0};
  for (int i = 0; i < 12; ++i) EXPECT_NEAR(y[i], want[i], 1e-6) << i;
}

TEST(HsvToRgbTest, HandCheckedPixelAndRoundTrip) {
  // h = 0.2 -> dh = 1.2: dr = 0.8, dg = 1, db = 0; with s = 0.4, v = 0.6:
  // r = (0.6 + 0.4 * 0.8) * 0.6 = 0.552, g = 0.6, b = 0.36.
  auto out = RunSingleOp("HSVToRGB", {Pixels({0.2f, 0.4f, 0.6f})}, TypeAttr(DType::kFloat));
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_NEAR((*out)[0].data<float>()[0], 0.552f, 1e-6);
  EXPECT_NEAR((*out)[0].data<float>()[1], 0.6f, 1e-6);
  EXPECT_NEAR((*out)[0].data<float>()[2], 0.36f, 1e-6);
  // Double precision, [2, 1, 3] images: HSV and back is the identity.
  Tensor rgb = Tensor::FromVector<double>({0.1, 0.9, 0.3, 0.7, 0.2, 0.2}, Shape({2, 1, 3}));
  auto hsv = RunSingleOp("RGBToHSV", {rgb}, TypeAttr(DType::kDouble));
  ASSERT_TRUE(hsv.ok()) << hsv.status().ToString();
  auto back = RunSingleOp("HSVToRGB", {(*hsv)[0]}, TypeAttr(DType::kDouble));
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  for (int i = 0; i < 6; ++i) EXPECT_NEAR((*back)[0].data<double>()[i], rgb.data<double>()[i], 1e-12) << i;
}

TEST(ColorSpaceTest, HalfAndBfloat16RoundEveryStepAsTensorFlow) {
  // Bit patterns from TensorFlow 2.21's CPU kernels for these pixels.
  const std::vector<float> px = {0.2f, 0.4f, 0.6f, 1, 0, 0.5f, 0.1f, 0.9f, 0.3f};
  auto hsv = RunSingleOp("RGBToHSV", {Narrow(px, DType::kHalf)}, TypeAttr(DType::kHalf));
  ASSERT_TRUE(hsv.ok()) << hsv.status().ToString();
  ExpectBits((*hsv)[0], {14506, 14678, 14541, 15189, 15360, 15360, 13824, 15132, 15155});
  auto rgb = RunSingleOp("HSVToRGB", {Narrow(px, DType::kHalf)}, TypeAttr(DType::kHalf));
  ASSERT_TRUE(rgb.ok()) << rgb.status().ToString();
  ExpectBits((*rgb)[0], {14443, 14541, 13763, 14336, 14336, 14336, 13517, 12836, 10160});
  auto bf_hsv = RunSingleOp("RGBToHSV", {Narrow(px, DType::kBFloat16)}, TypeAttr(DType::kBFloat16));
  ASSERT_TRUE(bf_hsv.ok()) << bf_hsv.status().ToString();
  ExpectBits((*bf_hsv)[0], {0x3f16, 0x3f2b, 0x3f1a, 0x3f6b, 0x3f80, 0x3f80, 0x3ec1, 0x3f63, 0x3f66});
  auto bf_rgb = RunSingleOp("HSVToRGB", {Narrow(px, DType::kBFloat16)}, TypeAttr(DType::kBFloat16));
  ASSERT_TRUE(bf_rgb.ok()) << bf_rgb.status().ToString();
  ExpectBits((*bf_rgb)[0], {0x3f0e, 0x3f1a, 0x3eb9, 0x3f00, 0x3f00, 0x3f00, 0x3e9a, 0x3e45, 0x3cfa});
}

TEST(ColorSpaceTest, EmptyImagesAndBadShapes) {
  auto empty = RunSingleOp("RGBToHSV", {Tensor(DType::kFloat, Shape({0, 4, 3}))}, TypeAttr(DType::kFloat));
  ASSERT_TRUE(empty.ok()) << empty.status().ToString();
  EXPECT_EQ((*empty)[0].shape(), Shape({0, 4, 3}));
  auto two = RunSingleOp("HSVToRGB", {Tensor(DType::kFloat, Shape({2, 2}))}, TypeAttr(DType::kFloat));
  TFHOST_ASSERT_ERROR(
      two, StatusCode::kFailedPrecondition,
      "node 'test_HSVToRGB' (HSVToRGB): images must have 3 channels in the last dimension, got shape [2,2]");
  EXPECT_NE(two.status().message().find("HSVToRGB"), std::string::npos) << two.status().message();
  EXPECT_NE(two.status().message().find("3 channels"), std::string::npos) << two.status().message();
  TFHOST_EXPECT_ERROR(RunSingleOp("RGBToHSV", {Tensor::Scalar(1.0f)}, TypeAttr(DType::kFloat)), StatusCode::kInvalidArgument,
                      "images must be at least 1-D, got a scalar");
  TFHOST_EXPECT_ERROR(RunSingleOp("RGBToHSV", {Tensor(DType::kInt32, Shape({1, 3}))}, TypeAttr(DType::kInt32)), StatusCode::kInvalidArgument,
                      "node 'test_RGBToHSV' (RGBToHSV): attr 'T' is DT_INT32, which is not one of its allowed types");
}

TEST(AdjustContrastv2Test, ScalesAroundThePerChannelMean) {
  // [1, 2, 2, 3] image 0..11: channel means 4.5, 5.5, 6.5; factor 2 gives
  // mean + 2 (x - mean), so 0 -> -4.5 and 11 -> 15.5.
  std::vector<float> v(12);
  for (int i = 0; i < 12; ++i) v[i] = static_cast<float>(i);
  auto out = RunSingleOp("AdjustContrastv2", {Tensor::FromVector<float>(v, Shape({1, 2, 2, 3})), Tensor::Scalar(2.0f)},
                         TypeAttr(DType::kFloat));
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  const float want[] = {-4.5f, -3.5f, -2.5f, 1.5f, 2.5f, 3.5f, 7.5f, 8.5f, 9.5f, 13.5f, 14.5f, 15.5f};
  for (int i = 0; i < 12; ++i) EXPECT_FLOAT_EQ((*out)[0].data<float>()[i], want[i]) << i;
}

TEST(AdjustContrastv2Test, SumsByFoldingHalvesAsTensorFlow) {
  // Three rows 1e8, 1, -1e8: TensorFlow folds row 2 onto row 0 (giving 0),
  // then adds row 1: the mean is 1/3, where a front-to-back float sum would
  // lose the 1 and give 0. Factor 0 outputs the mean everywhere.
  Tensor img = Tensor::FromVector<float>({1e8f, 1, -1e8f}, Shape({1, 3, 1, 1}));
  auto out = RunSingleOp("AdjustContrastv2", {img, Tensor::Scalar(0.0f)}, TypeAttr(DType::kFloat));
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  for (int i = 0; i < 3; ++i) EXPECT_FLOAT_EQ((*out)[0].data<float>()[i], 1.0f / 3) << i;
}

TEST(AdjustContrastv2Test, LeadingDimsHalfAndErrors) {
  // [2, 1, 1, 2, 1]: two images of 1x2 pixels, one channel; half in and out.
  Tensor img(DType::kHalf, Shape({2, 1, 1, 2, 1}));
  const float vals[] = {1, 3, 10, 20};
  for (int i = 0; i < 4; ++i) img.data<uint16_t>()[i] = FloatToHalf(vals[i]);
  auto out = RunSingleOp("AdjustContrastv2", {img, Tensor::Scalar(0.5f)}, TypeAttr(DType::kHalf));
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  const float want[] = {1.5f, 2.5f, 12.5f, 17.5f};
  for (int i = 0; i < 4; ++i) EXPECT_EQ(HalfToFloat((*out)[0].data<uint16_t>()[i]), want[i]) << i;

  auto flat = RunSingleOp("AdjustContrastv2", {Tensor(DType::kFloat, Shape({2, 3})), Tensor::Scalar(1.0f)},
                          TypeAttr(DType::kFloat));
  TFHOST_ASSERT_ERROR(flat, StatusCode::kInvalidArgument,
                      "images must be at least 3-D [..., height, width, channels], got shape [2,3]");
  auto vec = RunSingleOp("AdjustContrastv2", {Tensor(DType::kFloat, Shape({1, 2, 3})), Tensor::FromVector<float>({1, 2})},
                         TypeAttr(DType::kFloat));
  TFHOST_ASSERT_ERROR(vec, StatusCode::kInvalidArgument, "contrast_factor must be a scalar, got shape [2]");
  auto empty = RunSingleOp("AdjustContrastv2", {Tensor(DType::kFloat, Shape({0, 2, 3})), Tensor::Scalar(1.0f)},
                           TypeAttr(DType::kFloat));
  ASSERT_TRUE(empty.ok()) << empty.status().ToString();
  EXPECT_EQ((*empty)[0].shape(), Shape({0, 2, 3}));
}

}  // namespace
}  // namespace tfhost::ops
