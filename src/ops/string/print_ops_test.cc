#include <gtest/gtest.h>

#include <limits>

#include "ops/run_single_op.h"
#include "ops/string/string_ops.h"
#include "base/test_status.h"

namespace tfhost::ops {
namespace {

TEST(StringFormatTest, RendersTensorsIntoTheTemplateLikeTfPrint) {
  ir::AttrMap attrs = {{"T", MakeAttr(std::vector<DType>{DType::kInt32, DType::kString})},
                       {"template", MakeAttr("x={} s={}")}, {"placeholder", MakeAttr("{}")}};
  auto out = RunSingleOp("StringFormat", {Tensor::FromVector<int32_t>({1, 2, 3, 4}, Shape({2, 2})), Tensor::StringScalar("hi")},
                         attrs);
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ((*out)[0].strings()[0], "x=[[1 2]\n [3 4]] s=\"hi\"");
  // summarize 2 over 6 entries: first 2, "...", last 2.
  EXPECT_EQ(SummarizeTensor(Tensor::FromVector<float>({0, 1, 2, 3, 4, 5.5f}), 2), "[0 1 ... 4 5.5]");
  attrs["template"] = MakeAttr("{} {} {}");
  TFHOST_EXPECT_ERROR(RunSingleOp("StringFormat", {Tensor::Scalar<int32_t>(1), Tensor::StringScalar("a")}, attrs), StatusCode::kInvalidArgument,
                      "template has more placeholders than the 2 inputs");
}

// Iota of `dims` as int32 (0, 1, 2, ...).
Tensor Iota(std::vector<int64_t> dims) {
  Tensor t(DType::kInt32, Shape(dims));
  for (int64_t i = 0; i < t.NumElements(); ++i) t.data<int32_t>()[i] = static_cast<int32_t>(i);
  return t;
}

// Expected strings: tf.strings.format("{}", tf.reshape(tf.range(n), dims),
// summarize=k) in TensorFlow 2.21.
TEST(StringFormatTest, SummariesMatchTensorFlowForHigherRanksEmptyTensorsAndSummarizeZero) {
  EXPECT_EQ(SummarizeTensor(Iota({2, 2, 2}), -1), "[[[0 1]\n  [2 3]]\n\n [[4 5]\n  [6 7]]]");
  EXPECT_EQ(SummarizeTensor(Iota({3, 2, 2}), 1), "[[[0 1]\n  [2 3]]\n\n ...\n\n [[8 9]\n  [10 11]]]");
  EXPECT_EQ(SummarizeTensor(Iota({2, 0}), -1), "[\n ...]");
  EXPECT_EQ(SummarizeTensor(Iota({5}), 0), "[ ...]");
  EXPECT_EQ(SummarizeTensor(Iota({2, 3}), 0), "[\n ...]");
  EXPECT_EQ(SummarizeTensor(Iota({0, 3}), -1), "[]");
  EXPECT_EQ(SummarizeTensor(Iota({3, 0, 2}), 2), "[\n\n ...]");
}

// Fuzzer finding: summarize 2^63 - 1 overflowed computing 2 * summarize
// (UBSan). An empty tensor with a huge first dim, printed whole, would also
// have rendered 2^40 empty rows.
TEST(StringFormatTest, AHugeSummarizeOrAHugeEmptyTensorIsRenderedAtOnce) {
  const int64_t max = std::numeric_limits<int64_t>::max();
  EXPECT_EQ(SummarizeTensor(Iota({4}), max), "[0 1 2 3]");
  EXPECT_EQ(SummarizeTensor(Tensor(DType::kFloat, Shape({int64_t{1} << 40, 0})), -1), "[\n ...]");
  auto out = RunSingleOp("StringFormat", {Iota({3})},
                         {{"T", MakeAttr(std::vector<DType>{DType::kInt32})}, {"summarize", MakeAttr(max)}});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ((*out)[0].strings()[0], "[0 1 2]");
}

TEST(PrintOpsTest, PrintPassesItsInputThroughAndPrintV2Runs) {
  auto out = RunSingleOp("Print", {Tensor::FromVector<float>({1, 2}), Tensor::Scalar<int32_t>(7)},
                         {{"T", MakeAttr(DType::kFloat)}, {"U", MakeAttr(std::vector<DType>{DType::kInt32})},
                          {"message", MakeAttr("value: ")}});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_TRUE(TensorsEqual((*out)[0], Tensor::FromVector<float>({1, 2})));
  EXPECT_TRUE(RunSingleOp("PrintV2", {Tensor::StringScalar("logged")}).ok());
  TFHOST_EXPECT_ERROR(RunSingleOp("PrintV2", {Tensor::FromVector<std::string>({"a", "b"})}), StatusCode::kInvalidArgument,
                      "input must be a string scalar, got [2]");
}

}  // namespace
}  // namespace tfhost::ops
