#include <gtest/gtest.h>

#include "ops/run_single_op.h"
#include "base/test_status.h"

namespace tfhost::ops {
namespace {

Tensor Image3x3() { return Tensor::FromVector<float>({1, 2, 3, 4, 5, 6, 7, 8, 9}, Shape({1, 3, 3, 1})); }

ir::AttrMap Attrs(std::vector<int64_t> k, std::vector<int64_t> s, std::vector<int64_t> r, const char* padding) {
  return {{"T", MakeAttr(DType::kFloat)},
          {"ksizes", MakeAttr(k)},
          {"strides", MakeAttr(s)},
          {"rates", MakeAttr(r)},
          {"padding", MakeAttr(padding)}};
}

TEST(ExtractImagePatchesTest, ValidWindowsFlattenIntoDepth) {
  auto out = RunSingleOp("ExtractImagePatches", {Image3x3()}, Attrs({1, 2, 2, 1}, {1, 1, 1, 1}, {1, 1, 1, 1}, "VALID"));
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_TRUE(TensorsEqual((*out)[0], Tensor::FromVector<float>({1, 2, 4, 5, 2, 3, 5, 6, 4, 5, 7, 8, 5, 6, 8, 9},
                                                                Shape({1, 2, 2, 4}))));
}

TEST(ExtractImagePatchesTest, SamePaddingFillsZerosAfterTheImage) {
  // 3 with k 2, s 2: 2 outputs, total padding 1, all after.
  auto out = RunSingleOp("ExtractImagePatches", {Image3x3()}, Attrs({1, 2, 2, 1}, {1, 2, 2, 1}, {1, 1, 1, 1}, "SAME"));
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_TRUE(TensorsEqual((*out)[0], Tensor::FromVector<float>({1, 2, 4, 5, 3, 0, 6, 0, 7, 8, 0, 0, 9, 0, 0, 0},
                                                                Shape({1, 2, 2, 4}))));
}

TEST(ExtractImagePatchesTest, RatesSampleEveryOtherPixel) {
  auto out = RunSingleOp("ExtractImagePatches", {Image3x3()}, Attrs({1, 2, 2, 1}, {1, 1, 1, 1}, {1, 2, 2, 1}, "VALID"));
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_TRUE(TensorsEqual((*out)[0], Tensor::FromVector<float>({1, 3, 7, 9}, Shape({1, 1, 1, 4}))));
}

TEST(ExtractImagePatchesTest, WindowOverDepthOrBatchIsAnError) {
  auto out = RunSingleOp("ExtractImagePatches", {Image3x3()}, Attrs({1, 2, 2, 2}, {1, 1, 1, 1}, {1, 1, 1, 1}, "VALID"));
  TFHOST_ASSERT_ERROR(out, StatusCode::kInvalidArgument,
                      "ksizes must be [1, rows, cols, 1] with positive rows and cols, got [[1, 2, 2, 2]]");
  EXPECT_FALSE(RunSingleOp("ExtractImagePatches", {Tensor(DType::kFloat, Shape({3, 3}))},
                           Attrs({1, 2, 2, 1}, {1, 1, 1, 1}, {1, 1, 1, 1}, "VALID"))
                   .ok());
}

}  // namespace
}  // namespace tfhost::ops
