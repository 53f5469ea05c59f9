// ArgMax/ArgMin, TopK and NonMaxSuppression on small models, against values
// worked out by hand from the ONNX operator definitions (NonMaxSuppression
// against the definition's own examples).
#include <gtest/gtest.h>

#include "base/test_status.h"
#include "base/test_temp_dir.h"
#include "loaders/onnx/onnx_loader.h"
#include "loaders/onnx/onnx_test_model.h"

namespace tfhost::loaders {
namespace {

using namespace onnx::testing;  // NOLINT: test model builders

StatusOr<std::map<std::string, Tensor>> RunOnX(const ::onnx::ModelProto& m) {
  tfhost::testing::TempDir dir("onnx_index");
  const std::string path = dir.Sub("m.onnx");
  WriteBytes(path, Serialize(m));
  TFHOST_ASSIGN_OR_RETURN(auto model, LoadOnnxModel(path, LoadOptions()));
  return model->RunSignature("serving_default", {{"x", Tensor::FromVector<float>({1, 5, 5, 7, -2, 3}, {2, 3})}});
}

TEST(OnnxIndexOpsTest, ArgMaxKeepsTheAxisAsOneAndPicksTheFirstOfEqualValues) {
  ::onnx::NodeProto n = Node("ArgMax", {"x"}, {"y"});
  SetInt(&n, "axis", 1);
  auto out = RunOnX(OneNode(n, {{"y", ::onnx::TensorProto::INT64}}));
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ(out->at("y").dtype(), DType::kInt64);
  EXPECT_EQ(out->at("y").shape(), Shape({2, 1}));
  EXPECT_EQ(out->at("y").ToDoubleVector(), (std::vector<double>{1, 0}));
  ::onnx::NodeProto arg_min = Node("ArgMin", {"x"}, {"y"});
  SetInt(&arg_min, "keepdims", 0);
  auto min = RunOnX(OneNode(arg_min, {{"y", ::onnx::TensorProto::INT64}}));
  ASSERT_TRUE(min.ok()) << min.status().ToString();
  EXPECT_EQ(min->at("y").shape(), Shape({3}));
  EXPECT_EQ(min->at("y").ToDoubleVector(), (std::vector<double>{0, 1, 1}));
}

TEST(OnnxIndexOpsTest, TopKGivesTheLargestValuesSortedAndTheirInt64Indices) {
  auto out = RunOnX(OneNode(Node("TopK", {"x", "k"}, {"values", "indices"}),
                         {{"values", ::onnx::TensorProto::FLOAT}, {"indices", ::onnx::TensorProto::INT64}},
                         {Int64Tensor("k", {2})}));
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ(out->at("values").ToDoubleVector(), (std::vector<double>{5, 5, 7, 3}));
  EXPECT_EQ(out->at("indices").dtype(), DType::kInt64);
  EXPECT_EQ(out->at("indices").ToDoubleVector(), (std::vector<double>{1, 2, 0, 2}));
}

TEST(OnnxIndexOpsTest, TopKOfTheSmallestValuesIsRefusedByName) {
  ::onnx::NodeProto n = Node("TopK", {"x", "k"}, {"values", "indices"});
  SetInt(&n, "largest", 0);
  TFHOST_EXPECT_ERROR(RunOnX(OneNode(n, {{"values", ::onnx::TensorProto::FLOAT}}, {Int64Tensor("k", {1})})).status(),
                      StatusCode::kUnimplemented, "op TopK, opset 17): largest = 0 (the smallest values)");
}

// The boxes and scores of the NonMaxSuppression definition's examples: two
// clusters of three overlapping unit boxes and one lone box.
Tensor NmsBoxes(bool center_point) {
  std::vector<float> corners = {0, 0, 1, 1, 0, 0.1f, 1, 1.1f, 0, -0.1f, 1, 0.9f,
                                0, 10, 1, 11, 0, 10.1f, 1, 11.1f, 0, 100, 1, 101};
  std::vector<float> centers = {0.5f, 0.5f, 1, 1, 0.5f, 0.6f, 1, 1, 0.5f, 0.4f, 1, 1,
                                0.5f, 10.5f, 1, 1, 0.5f, 10.6f, 1, 1, 0.5f, 100.5f, 1, 1};
  return Tensor::FromVector<float>(center_point ? centers : corners, Shape({1, 6, 4}));
}

std::vector<Feed> NmsFeeds(bool center_point, std::vector<float> scores, int64_t classes, int64_t max_out,
                           float iou = 0.5f) {
  return {{"boxes", NmsBoxes(center_point)},
          {"scores", Tensor::FromVector<float>(scores, Shape({1, classes, 6}))},
          {"max", Tensor::FromVector<int64_t>({max_out}, Shape({1}))},
          {"iou", Tensor::FromVector<float>({iou}, Shape({1}))},
          {"score", Tensor::FromVector<float>({0.0f}, Shape({1}))}};
}

const std::vector<float> kNmsScores = {0.9f, 0.75f, 0.6f, 0.95f, 0.5f, 0.3f};

TEST(OnnxIndexOpsTest, NonMaxSuppressionKeepsTheBestBoxOfEachOverlappingCluster) {
  ::onnx::NodeProto n = Node("NonMaxSuppression", {"boxes", "scores", "max", "iou", "score"}, {"y"});
  auto y = RunNode(n, NmsFeeds(false, kNmsScores, 1, 3), ::onnx::TensorProto::INT64);
  ASSERT_TRUE(y.ok()) << y.status().ToString();
  EXPECT_EQ(y->dtype(), DType::kInt64);
  EXPECT_EQ(y->shape(), Shape({3, 3}));
  EXPECT_EQ(y->ToDoubleVector(), (std::vector<double>{0, 0, 3, 0, 0, 0, 0, 0, 5}));
  // The same boxes as centres and sizes.
  ::onnx::NodeProto centered = n;
  SetInt(&centered, "center_point_box", 1);
  auto c = RunNode(centered, NmsFeeds(true, kNmsScores, 1, 3), ::onnx::TensorProto::INT64);
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(c->ToDoubleVector(), (std::vector<double>{0, 0, 3, 0, 0, 0, 0, 0, 5}));
  // max_output_boxes_per_class stops each class early.
  auto two = RunNode(n, NmsFeeds(false, kNmsScores, 1, 2), ::onnx::TensorProto::INT64);
  ASSERT_TRUE(two.ok()) << two.status().ToString();
  EXPECT_EQ(two->ToDoubleVector(), (std::vector<double>{0, 0, 3, 0, 0, 0}));
}

TEST(OnnxIndexOpsTest, NonMaxSuppressionListsClassesInOrderEachByScore) {
  std::vector<float> scores = kNmsScores;
  scores.insert(scores.end(), {0.1f, 0.2f, 0.3f, 0.4f, 0.5f, 0.6f});
  auto y = RunNode(Node("NonMaxSuppression", {"boxes", "scores", "max", "iou", "score"}, {"y"}),
                   NmsFeeds(false, scores, 2, 10), ::onnx::TensorProto::INT64);
  ASSERT_TRUE(y.ok()) << y.status().ToString();
  // Class 1: box 5 (0.6), then 4 (0.5, over box 3), then 2 (0.3, over box 0 and 1).
  EXPECT_EQ(y->ToDoubleVector(), (std::vector<double>{0, 0, 3, 0, 0, 0, 0, 0, 5, 0, 1, 5, 0, 1, 4, 0, 1, 2}));
}

TEST(OnnxIndexOpsTest, NonMaxSuppressionWithoutAMaximumSelectsNothing) {
  auto y = RunNode(Node("NonMaxSuppression", {"boxes", "scores"}, {"y"}),
                   {{"boxes", NmsBoxes(false)}, {"scores", Tensor::FromVector<float>(kNmsScores, Shape({1, 1, 6}))}},
                   ::onnx::TensorProto::INT64);
  ASSERT_TRUE(y.ok()) << y.status().ToString();
  EXPECT_EQ(y->shape(), Shape({0, 3}));
}

TEST(OnnxIndexOpsTest, NonMaxSuppressionRefusesAnIouThresholdOutsideZeroToOne) {
  TFHOST_EXPECT_ERROR(RunNode(Node("NonMaxSuppression", {"boxes", "scores", "max", "iou", "score"}, {"y"}),
                              NmsFeeds(false, kNmsScores, 1, 3, 1.5f), ::onnx::TensorProto::INT64)
                          .status(),
                      StatusCode::kInvalidArgument, "iou_threshold must be in [0, 1], got 1.5");
}

}  // namespace
}  // namespace tfhost::loaders
