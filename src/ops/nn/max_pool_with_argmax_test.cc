#include <cmath>
#include <limits>

#include <gtest/gtest.h>

#include "ops/run_single_op.h"
#include "base/test_status.h"

namespace tfhost::ops {
namespace {

ir::AttrMap PoolAttrs(const char* padding, bool include_batch = false, DType targmax = DType::kInt64) {
  return {{"T", MakeAttr(DType::kFloat)},
          {"ksize", MakeAttr(std::vector<int64_t>{1, 2, 2, 1})},
          {"strides", MakeAttr(std::vector<int64_t>{1, 2, 2, 1})},
          {"padding", MakeAttr(padding)},
          {"include_batch_in_index", MakeAttr(include_batch)},
          {"Targmax", MakeAttr(targmax)}};
}

// Two images of 2x2x2 (two channels); the second image's values are the
// first's plus 10.
Tensor TwoImages() {
  return Tensor::FromVector<float>({1, 8, 4, 7, 3, 6, 2, 5, 11, 18, 14, 17, 13, 16, 12, 15}, Shape({2, 2, 2, 2}));
}

TEST(MaxPoolWithArgmaxTest, ArgmaxIsFlatIndexWithinItsImage) {
  auto out = RunSingleOp("MaxPoolWithArgmax", {TwoImages()}, PoolAttrs("VALID"));
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_TRUE(TensorsEqual((*out)[0], Tensor::FromVector<float>({4, 8, 14, 18}, Shape({2, 1, 1, 2}))));
  // Channel 0's max is at (y=0, x=1) -> (0 * 2 + 1) * 2 + 0 = 2; channel 1's at (0, 0) -> 1.
  EXPECT_TRUE(TensorsEqual((*out)[1], Tensor::FromVector<int64_t>({2, 1, 2, 1}, Shape({2, 1, 1, 2}))));
}

TEST(MaxPoolWithArgmaxTest, IncludeBatchInIndexAddsTheImageOffset) {
  auto out = RunSingleOp("MaxPoolWithArgmax", {TwoImages()}, PoolAttrs("VALID", true, DType::kInt32));
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_TRUE(TensorsEqual((*out)[1], Tensor::FromVector<int32_t>({2, 1, 10, 9}, Shape({2, 1, 1, 2}))));
}

TEST(MaxPoolWithArgmaxTest, TiesKeepTheFirstMaximumAndSamePadsOutside) {
  Tensor x = Tensor::FromVector<float>({5, 5, 5}, Shape({1, 1, 3, 1}));
  auto out = RunSingleOp("MaxPoolWithArgmax", {x}, PoolAttrs("SAME"));
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  // SAME over width 3 with k=2, s=2: 2 outputs, windows {0,1} and {2, pad}.
  EXPECT_TRUE(TensorsEqual((*out)[0], Tensor::FromVector<float>({5, 5}, Shape({1, 1, 2, 1}))));
  EXPECT_TRUE(TensorsEqual((*out)[1], Tensor::FromVector<int64_t>({0, 2}, Shape({1, 1, 2, 1}))));
}

TEST(MaxPoolWithArgmaxTest, NanInTheFirstTapWinsAndLaterNansAreSkipped) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  Tensor x = Tensor::FromVector<float>({nan, 1, 2, 3, 0, nan, 4, 1}, Shape({1, 1, 8, 1}));
  ir::AttrMap attrs = PoolAttrs("VALID");
  attrs["ksize"] = MakeAttr(std::vector<int64_t>{1, 1, 4, 1});
  attrs["strides"] = MakeAttr(std::vector<int64_t>{1, 1, 4, 1});
  auto out = RunSingleOp("MaxPoolWithArgmax", {x}, attrs);
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_TRUE(std::isnan((*out)[0].data<float>()[0]));
  EXPECT_EQ((*out)[0].data<float>()[1], 4.0f);
  EXPECT_TRUE(TensorsEqual((*out)[1], Tensor::FromVector<int64_t>({0, 6}, Shape({1, 1, 2, 1}))));
}

TEST(MaxPoolWithArgmaxTest, PoolingOverDepthOrBadRankIsAnError) {
  ir::AttrMap attrs = PoolAttrs("VALID");
  attrs["ksize"] = MakeAttr(std::vector<int64_t>{1, 2, 2, 2});
  auto depth = RunSingleOp("MaxPoolWithArgmax", {TwoImages()}, attrs);
  TFHOST_ASSERT_ERROR(depth, StatusCode::kInvalidArgument,
                      "ksize must be [1, h, w, 1] (pooling over batch or depth is not supported), got [[1, 2, 2, 2]]");
  TFHOST_EXPECT_ERROR(RunSingleOp("MaxPoolWithArgmax", {Tensor(DType::kFloat, Shape({2, 2, 2}))}, PoolAttrs("VALID")), StatusCode::kInvalidArgument,
                      "input must be 4-D NHWC, got shape [2,2,2]");
}

}  // namespace
}  // namespace tfhost::ops
