#include <cmath>

#include <gtest/gtest.h>

#include "ops/run_single_op.h"
#include "base/test_status.h"

namespace tfhost::ops {
namespace {

TEST(BucketizeTest, CountsBoundariesLessOrEqualToEachValue) {
  // tf.raw_ops.Bucketize docs: boundaries [0, 10, 100], input [[-5, 10000], [150, 10], [5, 100]]
  // -> [[0, 3], [3, 2], [1, 3]].
  auto out = RunSingleOp("Bucketize", {Tensor::FromVector<int32_t>({-5, 10000, 150, 10, 5, 100}, Shape({3, 2}))},
                         {{"T", MakeAttr(DType::kInt32)}, {"boundaries", MakeAttr(std::vector<float>{0, 10, 100})}});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_TRUE(TensorsEqual((*out)[0], Tensor::FromVector<int32_t>({0, 3, 3, 2, 1, 3}, Shape({3, 2}))));
}

TEST(BucketizeTest, FloatInputsEmptyBoundariesAndUnsortedBoundaries) {
  auto out = RunSingleOp("Bucketize", {Tensor::FromVector<float>({-0.5f, 0.5f, 1.0f})},
                         {{"T", MakeAttr(DType::kFloat)}, {"boundaries", MakeAttr(std::vector<float>{0, 1})}});
  ASSERT_TRUE(out.ok());
  EXPECT_TRUE(TensorsEqual((*out)[0], Tensor::FromVector<int32_t>({0, 1, 2})));
  auto none = RunSingleOp("Bucketize", {Tensor::FromVector<float>({3})},
                          {{"T", MakeAttr(DType::kFloat)}, {"boundaries", MakeAttr(std::vector<float>{})}});
  ASSERT_TRUE(none.ok());
  EXPECT_TRUE(TensorsEqual((*none)[0], Tensor::FromVector<int32_t>({0})));
  EXPECT_FALSE(RunSingleOp("Bucketize", {Tensor::FromVector<float>({3})},
                           {{"T", MakeAttr(DType::kFloat)}, {"boundaries", MakeAttr(std::vector<float>{2, 1})}}).ok());
}

TEST(SearchSortedTest, LowerAndUpperBoundPerRow) {
  // tf.searchsorted docs: sorted [[0, 3, 9, 9, 10], [1, 2, 3, 4, 5]],
  // values [[2, 4, 9], [0, 2, 6]] -> left [[1, 2, 2], [0, 1, 5]], right [[1, 2, 4], [0, 2, 5]].
  Tensor sorted = Tensor::FromVector<float>({0, 3, 9, 9, 10, 1, 2, 3, 4, 5}, Shape({2, 5}));
  Tensor values = Tensor::FromVector<float>({2, 4, 9, 0, 2, 6}, Shape({2, 3}));
  auto lower = RunSingleOp("LowerBound", {sorted, values}, {{"T", MakeAttr(DType::kFloat)}});
  auto upper = RunSingleOp("UpperBound", {sorted, values},
                           {{"T", MakeAttr(DType::kFloat)}, {"out_type", MakeAttr(DType::kInt64)}});
  ASSERT_TRUE(lower.ok() && upper.ok());
  EXPECT_TRUE(TensorsEqual((*lower)[0], Tensor::FromVector<int32_t>({1, 2, 2, 0, 1, 5}, Shape({2, 3}))));
  EXPECT_TRUE(TensorsEqual((*upper)[0], Tensor::FromVector<int64_t>({1, 2, 4, 0, 2, 5}, Shape({2, 3}))));
}

TEST(SearchSortedTest, MismatchedBatchIsAnError) {
  auto out = RunSingleOp("LowerBound", {Tensor(DType::kFloat, Shape({2, 3})), Tensor(DType::kFloat, Shape({3, 1}))},
                         {{"T", MakeAttr(DType::kFloat)}});
  TFHOST_EXPECT_ERROR(out, StatusCode::kInvalidArgument, "Leading dim_size of both tensors must match: 2 vs 3");
}

TEST(SearchSortedTest, ZeroValuesInAHugeBatchAnswerAtOnce) {
  // Found by fuzzing: [2^40, 0] inputs looped over 2^40 empty rows.
  const Shape empty({int64_t{1} << 40, 0});
  auto out = RunSingleOp("UpperBound", {Tensor(DType::kFloat, empty), Tensor(DType::kFloat, empty)},
                         {{"T", MakeAttr(DType::kFloat)}});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ((*out)[0].shape(), empty);
  EXPECT_EQ((*out)[0].dtype(), DType::kInt32);
}

}  // namespace
}  // namespace tfhost::ops
