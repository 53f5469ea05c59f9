#include <gtest/gtest.h>

#include "ops/run_single_op.h"
#include "base/test_status.h"

namespace tfhost::ops {
namespace {

// 1x2x2x1 image [[0, 1], [2, 3]].
Tensor Image() { return Tensor::FromVector<float>({0, 1, 2, 3}, Shape({1, 2, 2, 1})); }
Tensor Size(int h, int w) { return Tensor::FromVector<int32_t>({h, w}); }

std::vector<float> Resize(const std::string& op, const Tensor& image, int h, int w,
                          bool align_corners, bool half_pixel) {
  auto out = RunSingleOp(op, {image, Size(h, w)},
                         {{"T", MakeAttr(image.dtype())},
                          {"align_corners", MakeAttr(align_corners)},
                          {"half_pixel_centers", MakeAttr(half_pixel)}});
  EXPECT_TRUE(out.ok()) << out.status().ToString();
  if (!out.ok()) return {};
  std::vector<double> d = (*out)[0].ToDoubleVector();
  return std::vector<float>(d.begin(), d.end());
}

void ExpectNear(const std::vector<float>& got, const std::vector<float>& want) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i) EXPECT_NEAR(got[i], want[i], 1e-6) << "element " << i;
}

TEST(ResizeBilinearTest, LegacyMappingClampsAtTheLastRow) {
  ExpectNear(Resize("ResizeBilinear", Image(), 4, 4, false, false),
             {0, 0.5f, 1, 1, 1, 1.5f, 2, 2, 2, 2.5f, 3, 3, 2, 2.5f, 3, 3});
}

TEST(ResizeBilinearTest, AlignCornersHitsBothCorners) {
  const float t = 1.f / 3, u = 2.f / 3;
  ExpectNear(Resize("ResizeBilinear", Image(), 4, 4, true, false),
             {0, t, u, 1, 2 * t, 1, 4 * t, 5 * t, 4 * t, 5 * t, 2, 7 * t, 2, 7 * t, 8 * t, 3});
}

TEST(ResizeBilinearTest, HalfPixelCentersShiftsByHalf) {
  ExpectNear(Resize("ResizeBilinear", Image(), 4, 4, false, true),
             {0, 0.25f, 0.75f, 1, 0.5f, 0.75f, 1.25f, 1.5f, 1.5f, 1.75f, 2.25f, 2.5f, 2, 2.25f,
              2.75f, 3});
}

TEST(ResizeBilinearTest, OutputIsFloatForIntegerImages) {
  const Tensor img = Tensor::FromVector<uint8_t>({0, 10, 20, 30}, Shape({1, 2, 2, 1}));
  auto out = RunSingleOp("ResizeBilinear", {img, Size(1, 3)}, {{"T", MakeAttr(DType::kUInt8)}});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ((*out)[0].dtype(), DType::kFloat);
  // scale 2/3: x = 0, 2/3, 4/3 -> 0, 6.67, 10.
  EXPECT_NEAR((*out)[0].data<float>()[1], 20.f / 3, 1e-5);
}

TEST(ResizeBilinearTest, RejectsAlignCornersWithHalfPixelCentersAndBadSize) {
  auto both = RunSingleOp("ResizeBilinear", {Image(), Size(4, 4)},
                          {{"T", MakeAttr(DType::kFloat)},
                           {"align_corners", MakeAttr(true)},
                           {"half_pixel_centers", MakeAttr(true)}});
  TFHOST_EXPECT_ERROR(both, StatusCode::kInvalidArgument, "align_corners and half_pixel_centers cannot both be true");
  EXPECT_FALSE(RunSingleOp("ResizeBilinear", {Image(), Size(0, 4)},
                           {{"T", MakeAttr(DType::kFloat)}}).ok());
  EXPECT_FALSE(RunSingleOp("ResizeBilinear", {Image(), Tensor::FromVector<int32_t>({4})},
                           {{"T", MakeAttr(DType::kFloat)}}).ok());
  EXPECT_FALSE(RunSingleOp("ResizeBilinear", {Image(), Size(1 << 20, 1 << 20)},
                           {{"T", MakeAttr(DType::kFloat)}}).ok());
}

// A 1x1x4x1 row 0..3 downsized to width 3 picks different columns per mode.
TEST(ResizeNearestNeighborTest, DownscaleIndexPerMode) {
  const Tensor row = Tensor::FromVector<float>({0, 1, 2, 3}, Shape({1, 1, 4, 1}));
  EXPECT_EQ(Resize("ResizeNearestNeighbor", row, 1, 3, false, false), (std::vector<float>{0, 1, 2}));
  EXPECT_EQ(Resize("ResizeNearestNeighbor", row, 1, 3, false, true), (std::vector<float>{0, 2, 3}));
  EXPECT_EQ(Resize("ResizeNearestNeighbor", row, 1, 3, true, false), (std::vector<float>{0, 2, 3}));
}

TEST(ResizeNearestNeighborTest, UpscaleKeepsDtype) {
  const Tensor img = Tensor::FromVector<int32_t>({0, 1, 2, 3}, Shape({1, 2, 2, 1}));
  auto out = RunSingleOp("ResizeNearestNeighbor", {img, Size(4, 4)},
                         {{"T", MakeAttr(DType::kInt32)}});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  ASSERT_EQ((*out)[0].dtype(), DType::kInt32);
  const std::vector<int32_t> want = {0, 0, 1, 1, 0, 0, 1, 1, 2, 2, 3, 3, 2, 2, 3, 3};
  for (int i = 0; i < 16; ++i) EXPECT_EQ((*out)[0].data<int32_t>()[i], want[i]) << i;
}

}  // namespace
}  // namespace tfhost::ops
