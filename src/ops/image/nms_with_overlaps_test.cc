#include <gtest/gtest.h>

#include "ops/run_single_op.h"
#include "base/test_status.h"

namespace tfhost::ops {
namespace {

// Boxes 0 and 1 overlap by 0.7, boxes 1 and 2 by 0.5, 0 and 2 not at all.
Tensor Overlaps() { return Tensor::FromVector<float>({1, 0.7f, 0, 0.7f, 1, 0.5f, 0, 0.5f, 1}, Shape({3, 3})); }

StatusOr<std::vector<Tensor>> RunNms(const Tensor& scores, int max_out, float overlap, float score) {
  return RunSingleOp("NonMaxSuppressionWithOverlaps", {Overlaps(), scores, Tensor::Scalar<int32_t>(max_out),
                                                       Tensor::Scalar(overlap), Tensor::Scalar(score)});
}

TEST(NonMaxSuppressionWithOverlapsTest, DropsCandidatesOverlappingASelectedOne) {
  auto out = RunNms(Tensor::FromVector<float>({0.9f, 0.8f, 0.7f}), 3, 0.6f, 0.0f);
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_TRUE(TensorsEqual((*out)[0], Tensor::FromVector<int32_t>({0, 2})));
}

TEST(NonMaxSuppressionWithOverlapsTest, OverlapEqualToThresholdIsKept) {
  // overlaps[2][1] == 0.5 is not > 0.5: box 2 survives box 1; box 0 (0.7) does not.
  auto out = RunNms(Tensor::FromVector<float>({0.1f, 0.8f, 0.7f}), 3, 0.5f, 0.0f);
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_TRUE(TensorsEqual((*out)[0], Tensor::FromVector<int32_t>({1, 2})));
}

TEST(NonMaxSuppressionWithOverlapsTest, ScoreThresholdAndMaxOutputSizeLimit) {
  auto out = RunNms(Tensor::FromVector<float>({0.9f, 0.8f, 0.3f}), 1, 1.0f, 0.5f);
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_TRUE(TensorsEqual((*out)[0], Tensor::FromVector<int32_t>({0})));
}

TEST(NonMaxSuppressionWithOverlapsTest, NonSquareOverlapsOrBadScoresAreErrors) {
  auto bad = RunSingleOp("NonMaxSuppressionWithOverlaps",
                         {Tensor(DType::kFloat, Shape({3, 2})), Tensor::FromVector<float>({1, 2, 3}),
                          Tensor::Scalar<int32_t>(3), Tensor::Scalar(0.5f), Tensor::Scalar(0.0f)});
  TFHOST_ASSERT_ERROR(bad, StatusCode::kInvalidArgument,
                      "overlaps must be a square 2-D matrix [num_boxes, num_boxes], got shape [3,2]");
  TFHOST_EXPECT_ERROR(RunNms(Tensor::FromVector<float>({0.9f, 0.8f}), 3, 0.5f, 0.0f), StatusCode::kInvalidArgument,
                      "scores must be 1-D with 3 entries (one per overlaps row), got shape [2]");
  TFHOST_EXPECT_ERROR(RunNms(Tensor::FromVector<float>({0.9f, 0.8f, 0.1f}), -1, 0.5f, 0.0f), StatusCode::kInvalidArgument,
                      "max_output_size must be non-negative, got -1");
}

}  // namespace
}  // namespace tfhost::ops
