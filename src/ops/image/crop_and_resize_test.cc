#include <gtest/gtest.h>

#include "ops/run_single_op.h"
#include "base/test_status.h"

namespace tfhost::ops {
namespace {

Tensor Image() { return Tensor::FromVector<float>({1, 2, 3, 4}, Shape({1, 2, 2, 1})); }
ir::AttrMap Attrs(const char* method = "bilinear") {
  return {{"T", MakeAttr(DType::kFloat)}, {"method", MakeAttr(method)}, {"extrapolation_value", MakeAttr(-1.0f)}};
}

TEST(CropAndResizeTest, BilinearGridHasCornersOnTheBoxCorners) {
  auto out = RunSingleOp("CropAndResize", {Image(), Tensor::FromVector<float>({0, 0, 1, 1}, Shape({1, 4})),
                                           Tensor::FromVector<int32_t>({0}), Tensor::FromVector<int32_t>({3, 3})},
                         Attrs());
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_TRUE(TensorsEqual((*out)[0], Tensor::FromVector<float>({1, 1.5f, 2, 2, 2.5f, 3, 3, 3.5f, 4}, Shape({1, 3, 3, 1}))));
}

TEST(CropAndResizeTest, PointsOutsideTheImageTakeExtrapolationValue) {
  // y in {0, 1, 2} image rows: the last row is outside [0, 1].
  auto out = RunSingleOp("CropAndResize", {Image(), Tensor::FromVector<float>({0, 0, 2, 1}, Shape({1, 4})),
                                           Tensor::FromVector<int32_t>({0}), Tensor::FromVector<int32_t>({3, 2})},
                         Attrs());
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_TRUE(TensorsEqual((*out)[0], Tensor::FromVector<float>({1, 2, 3, 4, -1, -1}, Shape({1, 3, 2, 1}))));
}

TEST(CropAndResizeTest, NearestRoundsAndSingleCellSamplesTheCentre) {
  auto nearest = RunSingleOp("CropAndResize", {Image(), Tensor::FromVector<float>({0, 0, 1, 1}, Shape({1, 4})),
                                               Tensor::FromVector<int32_t>({0}), Tensor::FromVector<int32_t>({3, 3})},
                             Attrs("nearest"));
  ASSERT_TRUE(nearest.ok()) << nearest.status().ToString();
  EXPECT_TRUE(TensorsEqual((*nearest)[0], Tensor::FromVector<float>({1, 2, 2, 3, 4, 4, 3, 4, 4}, Shape({1, 3, 3, 1}))));
  auto centre = RunSingleOp("CropAndResize", {Image(), Tensor::FromVector<float>({0, 0, 1, 1}, Shape({1, 4})),
                                              Tensor::FromVector<int32_t>({0}), Tensor::FromVector<int32_t>({1, 1})},
                            Attrs());
  ASSERT_TRUE(centre.ok());
  EXPECT_TRUE(TensorsEqual((*centre)[0], Tensor::FromVector<float>({2.5f}, Shape({1, 1, 1, 1}))));
}

TEST(CropAndResizeTest, BoxIndexOutOfRangeIsAnError) {
  auto out = RunSingleOp("CropAndResize", {Image(), Tensor::FromVector<float>({0, 0, 1, 1}, Shape({1, 4})),
                                           Tensor::FromVector<int32_t>({1}), Tensor::FromVector<int32_t>({2, 2})},
                         Attrs());
  TFHOST_EXPECT_ERROR(out, StatusCode::kInvalidArgument, "box_index[0] = 1 is outside [0, 1)");
}

}  // namespace
}  // namespace tfhost::ops
