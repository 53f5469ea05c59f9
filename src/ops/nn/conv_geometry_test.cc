#include "ops/nn/conv_geometry.h"
#include "base/test_status.h"

#include <gtest/gtest.h>

namespace tfhost::ops::nn {
namespace {

TEST(ComputeWindowDimTest, SamePutsTheOddPadAfter) {
  // in 5, k 4, s 1: out 5, pad_total 3 -> 1 before, 2 after.
  auto d = ComputeWindowDim(5, 4, 1, 1, Padding::kSame, 0, 0);
  ASSERT_TRUE(d.ok());
  EXPECT_EQ(d->out, 5);
  EXPECT_EQ(d->pad_before, 1);
  EXPECT_EQ(d->pad_after, 2);
}

TEST(ComputeWindowDimTest, SameNeverPadsNegatively) {
  // in 7, k 1, s 3: out ceil(7/3) = 3, (3-1)*3 + 1 - 7 = 0.
  auto d = ComputeWindowDim(7, 1, 3, 1, Padding::kSame, 0, 0);
  ASSERT_TRUE(d.ok());
  EXPECT_EQ(d->out, 3);
  EXPECT_EQ(d->pad_before, 0);
  EXPECT_EQ(d->pad_after, 0);
  // in 8, k 1, s 3: pad total would be -1, clamps to 0.
  d = ComputeWindowDim(8, 1, 3, 1, Padding::kSame, 0, 0);
  ASSERT_TRUE(d.ok());
  EXPECT_EQ(d->pad_before + d->pad_after, 0);
}

TEST(ComputeWindowDimTest, ValidUsesTheDilatedKernel) {
  // ke = (3-1)*2+1 = 5; (9 - 5 + 2) / 2 = 3.
  auto d = ComputeWindowDim(9, 3, 2, 2, Padding::kValid, 0, 0);
  ASSERT_TRUE(d.ok());
  EXPECT_EQ(d->out, 3);
  EXPECT_EQ(d->pad_before, 0);
}

TEST(ComputeWindowDimTest, ExplicitAddsBothPads) {
  auto d = ComputeWindowDim(4, 3, 2, 1, Padding::kExplicit, 2, 1);
  ASSERT_TRUE(d.ok());
  EXPECT_EQ(d->out, (4 + 3 - 3) / 2 + 1);
  EXPECT_EQ(d->pad_before, 2);
  EXPECT_EQ(d->pad_after, 1);
}

TEST(ComputeWindowDimTest, RejectsNegativeOutputAndBadValues) {
  TFHOST_EXPECT_ERROR(ComputeWindowDim(2, 5, 1, 1, Padding::kValid, 0, 0), StatusCode::kInvalidArgument,
                      "window of effective size 5 does not fit input size 2 (computed output size would be negative)");
  TFHOST_EXPECT_ERROR(ComputeWindowDim(5, 2, 0, 1, Padding::kSame, 0, 0), StatusCode::kInvalidArgument,
                      "stride must be in [1, 2^24], got 0");
  TFHOST_EXPECT_ERROR(ComputeWindowDim(5, 2, 1, 0, Padding::kSame, 0, 0), StatusCode::kInvalidArgument,
                      "dilation must be in [1, 2^24], got 0");
  TFHOST_EXPECT_ERROR(ComputeWindowDim(5, 0, 1, 1, Padding::kSame, 0, 0), StatusCode::kInvalidArgument,
                      "window size must be in [1, 2^24], got 0");
}

TEST(MakeWindow2DTest, ReadsNchwOrderAndRejectsBatchStrides) {
  auto w = MakeWindow2D({1, 1, 2, 3}, "EXPLICIT", {0, 0, 0, 0, 1, 2, 3, 4}, "NCHW", {1, 1, 4, 5},
                        true);
  ASSERT_TRUE(w.ok()) << w.status().ToString();
  EXPECT_EQ(w->stride_h, 2);
  EXPECT_EQ(w->stride_w, 3);
  EXPECT_EQ(w->dilation_h, 4);
  EXPECT_EQ(w->dilation_w, 5);
  EXPECT_EQ(w->pad_top, 1);
  EXPECT_EQ(w->pad_bottom, 2);
  EXPECT_EQ(w->pad_left, 3);
  EXPECT_EQ(w->pad_right, 4);
  TFHOST_EXPECT_ERROR(MakeWindow2D({2, 1, 1, 1}, "SAME", {}, "NHWC", {}, true), StatusCode::kUnimplemented,
                      "strides in the batch and channel dimensions must be 1, got [2, 1, 1, 1]");
  TFHOST_EXPECT_ERROR(MakeWindow2D({1, 1, 1, 1}, "EXPLICIT", {}, "NHWC", {}, false), StatusCode::kInvalidArgument,
                      "padding must be SAME or VALID, got 'EXPLICIT'");
  EXPECT_EQ(MakeWindow2D({1, 1, 1, 1}, "SAME", {}, "NCHW_VECT_C", {}, true).status().code(),
            StatusCode::kUnimplemented);
}

}  // namespace
}  // namespace tfhost::ops::nn
