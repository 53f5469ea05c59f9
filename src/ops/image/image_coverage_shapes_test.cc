// Static shapes of the image ops added for model coverage (ResizeBicubic,
// ResizeArea, ExtractImagePatches, NonMaxSuppressionWithOverlaps, DecodeGif),
// as a model loader infers them.
#include <gtest/gtest.h>

#include "ir/tensor_proto.h"
#include "ops/run_single_op.h"
#include "ops/shape_fn_test_util.h"
#include "ops/shape_inference.h"

namespace tfhost::ops {
namespace {

using testing::GraphBuilder;
using testing::Out;


TEST(ImageCoverageShapeTest, ResizeTakesSizeFromAConstAndKeepsBatchAndChannels) {
  GraphBuilder b;
  int x = b.Placeholder("x", {-1, 10, 12, 3});
  int size = b.Const("size", Tensor::FromVector<int32_t>({20, 24}));
  int bicubic = b.Add("bicubic", "ResizeBicubic", {Out(x), Out(size)}, {{"T", MakeAttr(DType::kFloat)}});
  int area = b.Add("area", "ResizeArea", {Out(x), Out(size)}, {{"T", MakeAttr(DType::kFloat)}});
  ASSERT_TRUE(InferShapes(b.graph).ok());
  EXPECT_EQ(b.Shape(bicubic), "[?,20,24,3]");
  EXPECT_EQ(b.Shape(area), "[?,20,24,3]");
}

TEST(ImageCoverageShapeTest, ExtractImagePatchesFollowsTheWindowArithmetic) {
  GraphBuilder b;
  int x = b.Placeholder("x", {2, 7, 9, 3});
  ir::AttrMap attrs = {{"T", MakeAttr(DType::kFloat)},
                       {"ksizes", MakeAttr(std::vector<int64_t>{1, 3, 2, 1})},
                       {"strides", MakeAttr(std::vector<int64_t>{1, 2, 2, 1})},
                       {"rates", MakeAttr(std::vector<int64_t>{1, 2, 1, 1})},
                       {"padding", MakeAttr("VALID")}};
  int valid = b.Add("valid", "ExtractImagePatches", {Out(x)}, attrs);
  attrs["padding"] = MakeAttr("SAME");
  int same = b.Add("same", "ExtractImagePatches", {Out(x)}, attrs);
  ASSERT_TRUE(InferShapes(b.graph).ok());
  // Rows: effective window 5 -> (7 - 5) / 2 + 1 = 2 (VALID), ceil(7 / 2) = 4 (SAME);
  // cols: window 2 -> (9 - 2) / 2 + 1 = 4, ceil(9 / 2) = 5; depth 3 * 2 * 3.
  EXPECT_EQ(b.Shape(valid), "[2,2,4,18]");
  EXPECT_EQ(b.Shape(same), "[2,4,5,18]");
}

TEST(ImageCoverageShapeTest, NmsWithOverlapsAndDecodeGifHaveDataDependentSizes) {
  GraphBuilder b;
  int overlaps = b.Placeholder("overlaps", {5, 5});
  int scores = b.Placeholder("scores", {5});
  int max_out = b.Const("max_out", Tensor::Scalar<int32_t>(3));
  int t = b.Const("t", Tensor::Scalar(0.5f));
  int nms = b.Add("nms", "NonMaxSuppressionWithOverlaps", {Out(overlaps), Out(scores), Out(max_out), Out(t), Out(t)}, {},
                  1, DType::kInt32);
  int contents = b.Placeholder("contents", {});
  int gif = b.Add("gif", "DecodeGif", {Out(contents)}, {}, 1, DType::kUInt8);
  ASSERT_TRUE(InferShapes(b.graph).ok());
  EXPECT_EQ(b.Shape(nms), "[?]");
  EXPECT_EQ(b.Shape(gif), "[?,?,?,3]");
}

}  // namespace
}  // namespace tfhost::ops
