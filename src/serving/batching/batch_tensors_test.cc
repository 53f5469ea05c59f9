#include "serving/batching/batch_tensors.h"

#include <gtest/gtest.h>

#include "base/test_status.h"

namespace tfhost::serving::batching {
namespace {

std::vector<float> Values(const Tensor& t) {
  return std::vector<float>(t.data<float>(), t.data<float>() + t.NumElements());
}

TEST(BatchTensorsTest, TaskRowsIsSharedDimZero) {
  TensorMap ok = {{"a", Tensor(DType::kFloat, Shape({3, 2}))}, {"b", Tensor(DType::kInt32, Shape({3}))}};
  EXPECT_EQ(TaskRows(ok).value(), 3);
  TensorMap disagree = {{"a", Tensor(DType::kFloat, Shape({3, 2}))}, {"b", Tensor(DType::kInt32, Shape({2}))}};
  TFHOST_EXPECT_ERROR(TaskRows(disagree), StatusCode::kInvalidArgument,
                      "inputs 'a' and 'b' disagree on dim 0 (3 vs 2); batching needs one batch size per request");
  TensorMap scalar = {{"a", Tensor::Scalar<float>(1)}};
  auto r = TaskRows(scalar);
  TFHOST_ASSERT_ERROR(
      r, StatusCode::kInvalidArgument,
      "input 'a' is a scalar; batching joins requests along dim 0, so every input needs at least one dimension");
  EXPECT_NE(r.status().message().find("scalar"), std::string::npos);
  TFHOST_EXPECT_ERROR(TaskRows({}), StatusCode::kInvalidArgument, "a batched request needs at least one input tensor");
}

TEST(BatchTensorsTest, CompatibilityKeyIgnoresInnerDimsOnlyWithPadding) {
  TensorMap a = {{"x", Tensor(DType::kFloat, Shape({1, 3}))}};
  TensorMap b = {{"x", Tensor(DType::kFloat, Shape({2, 5}))}};
  TensorMap c = {{"x", Tensor(DType::kInt32, Shape({1, 3}))}};
  TensorMap d = {{"y", Tensor(DType::kFloat, Shape({1, 3}))}};
  EXPECT_NE(BatchCompatibilityKey(a, false), BatchCompatibilityKey(b, false));
  EXPECT_EQ(BatchCompatibilityKey(a, true), BatchCompatibilityKey(b, true));
  EXPECT_NE(BatchCompatibilityKey(a, true), BatchCompatibilityKey(c, true));
  EXPECT_NE(BatchCompatibilityKey(a, true), BatchCompatibilityKey(d, true));
  // Rows differ, inner dims equal: same batch.
  TensorMap e = {{"x", Tensor(DType::kFloat, Shape({7, 3}))}};
  EXPECT_EQ(BatchCompatibilityKey(a, false), BatchCompatibilityKey(e, false));
}

TEST(BatchTensorsTest, ConcatenatesAndPadsToAllowedSizeWithFirstRow) {
  TensorMap a = {{"x", Tensor::FromVector<float>({1, 2, 3, 4}, Shape({2, 2}))}};
  TensorMap b = {{"x", Tensor::FromVector<float>({5, 6}, Shape({1, 2}))}};
  auto batch = ConcatenateBatch({{&a, 0, 2}, {&b, 0, 1}}, 4, false);
  ASSERT_TRUE(batch.ok()) << batch.status().ToString();
  const Tensor& x = batch->at("x");
  EXPECT_EQ(x.shape(), Shape({4, 2}));
  EXPECT_EQ(Values(x), (std::vector<float>{1, 2, 3, 4, 5, 6, 1, 2}));
}

TEST(BatchTensorsTest, ConcatenatesRowRangesOfSplitTasks) {
  TensorMap a = {{"x", Tensor::FromVector<float>({1, 2, 3, 4, 5}, Shape({5}))}};
  auto batch = ConcatenateBatch({{&a, 3, 5}, {&a, 0, 1}}, 3, false);
  ASSERT_TRUE(batch.ok());
  EXPECT_EQ(Values(batch->at("x")), (std::vector<float>{4, 5, 1}));
}

TEST(BatchTensorsTest, PadsVariableLengthInputsWithEachTensorsFirstElement) {
  TensorMap a = {{"x", Tensor::FromVector<float>({7, 8}, Shape({1, 2}))}};
  TensorMap b = {{"x", Tensor::FromVector<float>({1, 2, 3, 4, 5, 6, 9, 9}, Shape({2, 4}))}};
  auto batch = ConcatenateBatch({{&a, 0, 1}, {&b, 0, 2}}, 3, true);
  ASSERT_TRUE(batch.ok()) << batch.status().ToString();
  const Tensor& x = batch->at("x");
  EXPECT_EQ(x.shape(), Shape({3, 4}));
  EXPECT_EQ(Values(x), (std::vector<float>{7, 8, 7, 7, 1, 2, 3, 4, 5, 6, 9, 9}));
}

TEST(BatchTensorsTest, PadsRank3VariableLengthStrings) {
  Tensor s(DType::kString, Shape({1, 1, 2}));
  s.strings()[0] = "a";
  s.strings()[1] = "b";
  Tensor t(DType::kString, Shape({1, 2, 1}));
  t.strings()[0] = "c";
  t.strings()[1] = "d";
  TensorMap a = {{"s", s}}, b = {{"s", t}};
  auto batch = ConcatenateBatch({{&a, 0, 1}, {&b, 0, 1}}, 2, true);
  ASSERT_TRUE(batch.ok()) << batch.status().ToString();
  const Tensor& out = batch->at("s");
  EXPECT_EQ(out.shape(), Shape({2, 2, 2}));
  std::vector<std::string> got(out.strings(), out.strings() + 8);
  EXPECT_EQ(got, (std::vector<std::string>{"a", "b", "a", "a", "c", "c", "d", "c"}));
}

TEST(BatchTensorsTest, RefusesPaddingThatWouldBalloonMemory) {
  TensorMap a = {{"x", Tensor(DType::kUInt8, Shape({1, 100000, 1}))}};
  TensorMap b = {{"x", Tensor(DType::kUInt8, Shape({1, 1, 100000}))}};
  auto batch = ConcatenateBatch({{&a, 0, 1}, {&b, 0, 1}}, 2, true);
  TFHOST_EXPECT_ERROR(batch, StatusCode::kInvalidArgument, "batched input 'x': shape [2,100000,100000] has more than");
}

TEST(BatchTensorsTest, SliceAndConcatRowsRoundTrip) {
  Tensor t = Tensor::FromVector<int32_t>({0, 1, 2, 3, 4, 5}, Shape({3, 2}));
  Tensor a = SliceRows(t, 0, 1), b = SliceRows(t, 1, 3);
  EXPECT_EQ(a.shape(), Shape({1, 2}));
  EXPECT_EQ(b.shape(), Shape({2, 2}));
  auto joined = ConcatRows({a, b}, "y");
  ASSERT_TRUE(joined.ok());
  EXPECT_TRUE(TensorsEqual(*joined, t));
  TFHOST_EXPECT_ERROR(
      ConcatRows({a, Tensor(DType::kInt32, Shape({1, 3}))}, "y"), StatusCode::kInvalidArgument,
      "y: the pieces of a split request came back with different shapes ([1,2] vs [1,3]); cannot reassemble them");
}

TEST(BatchTensorsTest, OutputsWithoutBatchDimensionAreAClearError) {
  TensorMap good = {{"y", Tensor(DType::kFloat, Shape({4, 2}))}};
  EXPECT_TRUE(CheckBatchedOutputs(good, 4).ok());
  TensorMap wrong = {{"y", Tensor(DType::kFloat, Shape({2}))}};
  Status s = CheckBatchedOutputs(wrong, 4);
  TFHOST_ASSERT_ERROR(s, StatusCode::kInvalidArgument,
                      "output 'y' of the batched run has shape [2], but batching needs dim 0 to equal the batch size 4 "
                      "so that each request gets its own rows");
  EXPECT_NE(s.message().find("output 'y'"), std::string::npos);
  EXPECT_NE(s.message().find("batch size 4"), std::string::npos);
  TensorMap scalar = {{"loss", Tensor::Scalar<float>(1)}};
  TFHOST_EXPECT_ERROR(CheckBatchedOutputs(scalar, 4), StatusCode::kInvalidArgument,
                      "output 'loss' of the batched run has shape [], but batching needs dim 0 to equal the batch size "
                      "4 so that each request gets its own rows");
}

}  // namespace
}  // namespace tfhost::serving::batching
