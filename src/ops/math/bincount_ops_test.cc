#include <gtest/gtest.h>

#include "ops/run_single_op.h"

namespace tfhost::ops {
namespace {

TEST(BincountTest, CountsAndWeightSumsDroppingValuesPastSize) {
  Tensor arr = Tensor::FromVector<int32_t>({1, 1, 3, 0, 7});
  auto counts = RunSingleOp("Bincount", {arr, Tensor::Scalar<int32_t>(4), Tensor(DType::kInt32, Shape({0}))},
                            {{"T", MakeAttr(DType::kInt32)}});
  ASSERT_TRUE(counts.ok()) << counts.status().ToString();
  EXPECT_TRUE(TensorsEqual((*counts)[0], Tensor::FromVector<int32_t>({1, 2, 0, 1})));
  auto sums = RunSingleOp("Bincount", {arr, Tensor::Scalar<int32_t>(4), Tensor::FromVector<float>({0.5f, 1, 2, 3, 4})},
                          {{"T", MakeAttr(DType::kFloat)}});
  ASSERT_TRUE(sums.ok());
  EXPECT_TRUE(TensorsEqual((*sums)[0], Tensor::FromVector<float>({3, 1.5f, 0, 2})));
}

TEST(DenseBincountTest, PerRowBinaryOutput) {
  Tensor in = Tensor::FromVector<int64_t>({0, 2, 2, 1, 1, 1}, Shape({2, 3}));
  auto out = RunSingleOp("DenseBincount", {in, Tensor::Scalar<int64_t>(3), Tensor(DType::kFloat, Shape({0}))},
                         {{"T", MakeAttr(DType::kFloat)}, {"Tidx", MakeAttr(DType::kInt64)}, {"binary_output", MakeAttr(true)}});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_TRUE(TensorsEqual((*out)[0], Tensor::FromVector<float>({1, 0, 1, 0, 1, 0}, Shape({2, 3}))));
}

TEST(BincountTest, NegativeValuesAndMismatchedWeightsAreErrors) {
  EXPECT_FALSE(RunSingleOp("Bincount", {Tensor::FromVector<int32_t>({-1}), Tensor::Scalar<int32_t>(2),
                                        Tensor(DType::kInt32, Shape({0}))}, {{"T", MakeAttr(DType::kInt32)}}).ok());
  EXPECT_FALSE(RunSingleOp("Bincount", {Tensor::FromVector<int32_t>({1, 0}), Tensor::Scalar<int32_t>(2),
                                        Tensor::FromVector<float>({1})}, {{"T", MakeAttr(DType::kFloat)}}).ok());
}

}  // namespace
}  // namespace tfhost::ops
