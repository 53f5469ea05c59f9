#include <cmath>

#include <gtest/gtest.h>

#include "base/test_status.h"
#include "ops/run_single_op.h"

namespace tfhost::ops {
namespace {

// Three clusters of boxes (TensorFlow's image_ops_test "SelectFromThreeClusters").
Tensor ClusterBoxes() {
  return Tensor::FromVector<float>({0, 0, 1, 1, 0, 0.1f, 1, 1.1f, 0, -0.1f, 1, 0.9f, 0, 10, 1, 11, 0, 10.1f, 1, 11.1f,
                                    0, 100, 1, 101},
                                   Shape({6, 4}));
}
Tensor ClusterScores() { return Tensor::FromVector<float>({0.9f, 0.75f, 0.6f, 0.95f, 0.5f, 0.3f}); }

TEST(NonMaxSuppressionTest, V3SelectsOneBoxPerCluster) {
  auto out = RunSingleOp("NonMaxSuppressionV3", {ClusterBoxes(), ClusterScores(), Tensor::Scalar<int32_t>(3),
                                                 Tensor::Scalar(0.5f), Tensor::Scalar(0.0f)});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_TRUE(TensorsEqual((*out)[0], Tensor::FromVector<int32_t>({3, 0, 5})));
}

TEST(NonMaxSuppressionTest, ScoreThresholdAndFlippedCornersAndV2) {
  Tensor boxes = ClusterBoxes();
  // Flip the corners of box 3: same box for TensorFlow.
  std::swap(boxes.data<float>()[12], boxes.data<float>()[14]);
  auto out = RunSingleOp("NonMaxSuppressionV3", {boxes, ClusterScores(), Tensor::Scalar<int32_t>(6),
                                                 Tensor::Scalar(0.5f), Tensor::Scalar(0.4f)});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_TRUE(TensorsEqual((*out)[0], Tensor::FromVector<int32_t>({3, 0})));
  auto v2 = RunSingleOp("NonMaxSuppressionV2", {boxes, ClusterScores(), Tensor::Scalar<int32_t>(2), Tensor::Scalar(0.5f)});
  ASSERT_TRUE(v2.ok());
  EXPECT_TRUE(TensorsEqual((*v2)[0], Tensor::FromVector<int32_t>({3, 0})));
}

TEST(NonMaxSuppressionTest, V1TakesIouThresholdFromAttr) {
  auto out = RunSingleOp("NonMaxSuppression", {ClusterBoxes(), ClusterScores(), Tensor::Scalar<int32_t>(3)},
                         {{"iou_threshold", MakeAttr(0.5f)}});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_TRUE(TensorsEqual((*out)[0], Tensor::FromVector<int32_t>({3, 0, 5})));
}

TEST(NonMaxSuppressionTest, V4PadsToMaxOutputSize) {
  auto out = RunSingleOp("NonMaxSuppressionV4", {ClusterBoxes(), ClusterScores(), Tensor::Scalar<int32_t>(5),
                                                 Tensor::Scalar(0.5f), Tensor::Scalar(0.0f)},
                         {{"pad_to_max_output_size", MakeAttr(true)}});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_TRUE(TensorsEqual((*out)[0], Tensor::FromVector<int32_t>({3, 0, 5, 0, 0})));
  EXPECT_TRUE(TensorsEqual((*out)[1], Tensor::Scalar<int32_t>(3)));
}

// TensorFlow's kernel drops a candidate only when IoU > iou_threshold, and
// soft-NMS never drops outright (it only decays scores). Box 1 covers half
// of box 0: IoU exactly 0.5.
TEST(NonMaxSuppressionTest, IouEqualToTheThresholdKeepsTheBoxAndSoftNmsNeverHardDrops) {
  Tensor boxes = Tensor::FromVector<float>({0, 0, 1, 1, 0, 0, 1, 0.5f}, Shape({2, 4}));
  Tensor scores = Tensor::FromVector<float>({0.9f, 0.8f});
  auto equal = RunSingleOp("NonMaxSuppressionV3", {boxes, scores, Tensor::Scalar<int32_t>(2), Tensor::Scalar(0.5f),
                                                   Tensor::Scalar(0.0f)});
  ASSERT_TRUE(equal.ok()) << equal.status().ToString();
  EXPECT_TRUE(TensorsEqual((*equal)[0], Tensor::FromVector<int32_t>({0, 1})));
  auto above = RunSingleOp("NonMaxSuppressionV3", {boxes, scores, Tensor::Scalar<int32_t>(2), Tensor::Scalar(0.49f),
                                                   Tensor::Scalar(0.0f)});
  ASSERT_TRUE(above.ok());
  EXPECT_TRUE(TensorsEqual((*above)[0], Tensor::FromVector<int32_t>({0})));
  // Soft-NMS with a threshold below the overlap: box 1 is kept, its score
  // decayed by exp(-0.5 * 0.25 / 0.5).
  auto soft = RunSingleOp("NonMaxSuppressionV5", {boxes, scores, Tensor::Scalar<int32_t>(2), Tensor::Scalar(0.3f),
                                                  Tensor::Scalar(0.0f), Tensor::Scalar(0.5f)});
  ASSERT_TRUE(soft.ok()) << soft.status().ToString();
  EXPECT_TRUE(TensorsEqual((*soft)[0], Tensor::FromVector<int32_t>({0, 1})));
  EXPECT_NEAR((*soft)[1].data<float>()[1], 0.8f * std::exp(-0.25f), 1e-6);
}

TEST(NonMaxSuppressionTest, V5SoftNmsDecaysOverlappingScores) {
  // Box 1 covers half of box 0 (IoU 0.5). With sigma 0.5 its score decays by
  // exp(-0.5 * 0.25 / 0.5) = exp(-0.25); iou_threshold 1 disables hard NMS.
  Tensor boxes = Tensor::FromVector<float>({0, 0, 1, 1, 0, 0, 1, 0.5f}, Shape({2, 4}));
  auto out = RunSingleOp("NonMaxSuppressionV5", {boxes, Tensor::FromVector<float>({0.9f, 0.8f}),
                                                 Tensor::Scalar<int32_t>(2), Tensor::Scalar(1.0f), Tensor::Scalar(0.0f),
                                                 Tensor::Scalar(0.5f)});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_TRUE(TensorsEqual((*out)[0], Tensor::FromVector<int32_t>({0, 1})));
  EXPECT_NEAR((*out)[1].data<float>()[0], 0.9f, 1e-6);
  EXPECT_NEAR((*out)[1].data<float>()[1], 0.8 * std::exp(-0.25), 1e-6);
  EXPECT_TRUE(TensorsEqual((*out)[2], Tensor::Scalar<int32_t>(2)));
}

TEST(NonMaxSuppressionTest, BadShapesAndThresholdAreErrors) {
  TFHOST_EXPECT_ERROR(RunSingleOp("NonMaxSuppressionV3", {Tensor(DType::kFloat, Shape({6, 3})), ClusterScores(),
                                                          Tensor::Scalar<int32_t>(3), Tensor::Scalar(0.5f),
                                                          Tensor::Scalar(0.f)}),
                      StatusCode::kInvalidArgument, "boxes must be 2-D [num_boxes, 4], got [6,3]");
  TFHOST_EXPECT_ERROR(RunSingleOp("NonMaxSuppressionV3", {ClusterBoxes(), ClusterScores(), Tensor::Scalar<int32_t>(3),
                                                          Tensor::Scalar(1.5f), Tensor::Scalar(0.f)}),
                      StatusCode::kInvalidArgument, "iou_threshold must be in [0, 1]");
}

TEST(CombinedNonMaxSuppressionTest, PerClassNmsThenTopByScoreClippedAndPadded) {
  // One image, 3 boxes shared by 2 classes (q = 1).
  Tensor boxes = Tensor::FromVector<float>({0, 0, 1, 1, 0, 0.05f, 1, 1.05f, 0.5f, 0.5f, 1.5f, 1.5f}, Shape({1, 3, 1, 4}));
  Tensor scores = Tensor::FromVector<float>({0.9f, 0.1f, 0.8f, 0.7f, 0.05f, 0.6f}, Shape({1, 3, 2}));
  auto out = RunSingleOp("CombinedNonMaxSuppression",
                         {boxes, scores, Tensor::Scalar<int32_t>(2), Tensor::Scalar<int32_t>(4), Tensor::Scalar(0.5f),
                          Tensor::Scalar(0.2f)});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  // Class 0: box 0 (0.9) suppresses box 1 (0.8); box 2 (0.05) is below the
  // threshold. Class 1: box 1 (0.7), box 2 (0.6); box 0 (0.1) below.
  EXPECT_TRUE(TensorsEqual((*out)[1], Tensor::FromVector<float>({0.9f, 0.7f, 0.6f, 0}, Shape({1, 4}))));
  EXPECT_TRUE(TensorsEqual((*out)[2], Tensor::FromVector<float>({0, 1, 1, 0}, Shape({1, 4}))));
  EXPECT_TRUE(TensorsEqual((*out)[0], Tensor::FromVector<float>({0, 0, 1, 1, 0, 0.05f, 1, 1, 0.5f, 0.5f, 1, 1, 0, 0, 0, 0},
                                                                  Shape({1, 4, 4}))));
  EXPECT_TRUE(TensorsEqual((*out)[3], Tensor::FromVector<int32_t>({3})));
}

TEST(BatchedNonMaxSuppressionTest, ListsBatchClassBoxRowsAndTreatsANegativeMaximumAsZero) {
  Tensor boxes = *ClusterBoxes().Reshaped(Shape({1, 6, 4}));
  Tensor scores = *ClusterScores().Reshaped(Shape({1, 1, 6}));
  auto out = RunSingleOp("_TfhostBatchedNonMaxSuppression", {boxes, scores, Tensor::Scalar<int64_t>(3),
                                                              Tensor::Scalar(0.5f), Tensor::Scalar(0.0f)});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_TRUE(TensorsEqual((*out)[0], Tensor::FromVector<int64_t>({0, 0, 3, 0, 0, 0, 0, 0, 5}, Shape({3, 3}))));
  auto none = RunSingleOp("_TfhostBatchedNonMaxSuppression", {boxes, scores, Tensor::Scalar<int64_t>(-1),
                                                               Tensor::Scalar(0.5f), Tensor::Scalar(0.0f)});
  ASSERT_TRUE(none.ok()) << none.status().ToString();
  EXPECT_EQ((*none)[0].shape(), Shape({0, 3}));
}

TEST(BatchedNonMaxSuppressionTest, MismatchedScoresAndBadAttrsAreErrorsNamingTheInput) {
  Tensor boxes = *ClusterBoxes().Reshaped(Shape({1, 6, 4}));
  Tensor scores = *ClusterScores().Reshaped(Shape({1, 6, 1}));
  TFHOST_EXPECT_ERROR(RunSingleOp("_TfhostBatchedNonMaxSuppression", {boxes, scores, Tensor::Scalar<int64_t>(3),
                                                                      Tensor::Scalar(0.5f), Tensor::Scalar(0.0f)}),
                      StatusCode::kInvalidArgument,
                      "scores must be [batches, classes, boxes] = [1, classes, 6] for boxes [1,6,4], got [1,6,1]");
  Tensor good_scores = *ClusterScores().Reshaped(Shape({1, 1, 6}));
  TFHOST_EXPECT_ERROR(RunSingleOp("_TfhostBatchedNonMaxSuppression",
                                  {boxes, good_scores, Tensor::Scalar<int64_t>(3), Tensor::Scalar(0.5f),
                                   Tensor::Scalar(0.0f)},
                                  {{"center_point_box", MakeAttr(int64_t{2})}}),
                      StatusCode::kInvalidArgument, "center_point_box must be 0 or 1, got 2");
  TFHOST_EXPECT_ERROR(RunSingleOp("_TfhostBatchedNonMaxSuppression",
                                  {Tensor::FromVector<float>({0, 0, 1}, Shape({1, 1, 3})), good_scores,
                                   Tensor::Scalar<int64_t>(3), Tensor::Scalar(0.5f), Tensor::Scalar(0.0f)}),
                      StatusCode::kInvalidArgument, "boxes must be 3-D [batches, boxes, 4], got [1,1,3]");
}

}  // namespace
}  // namespace tfhost::ops
