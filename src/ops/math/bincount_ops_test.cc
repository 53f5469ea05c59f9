#include <gtest/gtest.h>

#include "base/buffer_pool.h"
#include "base/test_status.h"
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
  TFHOST_EXPECT_ERROR(RunSingleOp("Bincount", {Tensor::FromVector<int32_t>({-1}), Tensor::Scalar<int32_t>(2),
                                               Tensor(DType::kInt32, Shape({0}))}, {{"T", MakeAttr(DType::kInt32)}}),
                      StatusCode::kInvalidArgument, "Input arr must be non-negative, got -1 at 0");
  TFHOST_EXPECT_ERROR(RunSingleOp("Bincount", {Tensor::FromVector<int32_t>({1, 0}), Tensor::Scalar<int32_t>(2),
                                               Tensor::FromVector<float>({1})}, {{"T", MakeAttr(DType::kFloat)}}),
                      StatusCode::kInvalidArgument, "weights must be empty or have the input's shape [2], got [1]");
}

TEST(BincountTest, BinsPastTheSessionsMemoryLimitAreResourceExhaustedNotAllocated) {
  // Found by fuzzing: size 2^31 took 16 GiB of scratch outside the session's buffers.
  auto pool = BufferPool::Create(BufferPool::kDefaultMaxRetainedBytes, 1 << 20);
  BufferPool::ScopedCurrent current(pool.get());
  TFHOST_EXPECT_ERROR(RunSingleOp("Bincount", {Tensor::FromVector<int32_t>({1}), Tensor::Scalar<int32_t>(1 << 30),
                                               Tensor(DType::kInt32, Shape({0}))}, {{"T", MakeAttr(DType::kInt32)}}),
                      StatusCode::kResourceExhausted, "out of memory while the kernel ran");
  auto fits = RunSingleOp("Bincount", {Tensor::FromVector<int32_t>({1}), Tensor::Scalar<int32_t>(1000),
                                       Tensor(DType::kInt32, Shape({0}))}, {{"T", MakeAttr(DType::kInt32)}});
  ASSERT_TRUE(fits.ok()) << fits.status().ToString();
  EXPECT_EQ((*fits)[0].data<int32_t>()[1], 1);
}

}  // namespace
}  // namespace tfhost::ops
