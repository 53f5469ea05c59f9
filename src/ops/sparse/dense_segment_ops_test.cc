#include <limits>

#include <gtest/gtest.h>

#include "ops/run_single_op.h"
#include "base/test_status.h"

namespace tfhost::ops {
namespace {

ir::AttrMap Seg(DType t, DType idx = DType::kInt32, DType num = DType::kInt32) {
  return {{"T", MakeAttr(t)}, {"Tindices", MakeAttr(idx)}, {"Tnumsegments", MakeAttr(num)}};
}

TEST(SegmentOpsTest, SortedSegmentsReduceRowsAndEmptySegmentsAreZero) {
  // tf.math.segment_sum doc: c = [[1,2,3,4],[4,3,2,1],[5,6,7,8]], ids [0,0,1]
  // -> [[5,5,5,5],[5,6,7,8]].
  Tensor c = Tensor::FromVector<int32_t>({1, 2, 3, 4, 4, 3, 2, 1, 5, 6, 7, 8}, Shape({3, 4}));
  auto sum = RunSingleOp("SegmentSum", {c, Tensor::FromVector<int32_t>({0, 0, 1})}, Seg(DType::kInt32));
  ASSERT_TRUE(sum.ok()) << sum.status().ToString();
  EXPECT_TRUE(TensorsEqual((*sum)[0], Tensor::FromVector<int32_t>({5, 5, 5, 5, 5, 6, 7, 8}, Shape({2, 4}))));
  // ids [0, 2]: segment 1 is empty -> 0 for Max (sorted ops), 1 for Prod.
  Tensor x = Tensor::FromVector<float>({-3, 4});
  auto mx = RunSingleOp("SegmentMax", {x, Tensor::FromVector<int64_t>({0, 2})}, Seg(DType::kFloat, DType::kInt64));
  ASSERT_TRUE(mx.ok());
  EXPECT_TRUE(TensorsEqual((*mx)[0], Tensor::FromVector<float>({-3, 0, 4})));
  auto prod = RunSingleOp("SegmentProd", {x, Tensor::FromVector<int64_t>({0, 2})}, Seg(DType::kFloat, DType::kInt64));
  ASSERT_TRUE(prod.ok());
  EXPECT_TRUE(TensorsEqual((*prod)[0], Tensor::FromVector<float>({-3, 1, 4})));
  auto mean = RunSingleOp("SegmentMean", {Tensor::FromVector<float>({1, 2, 6}), Tensor::FromVector<int32_t>({0, 0, 0})}, Seg(DType::kFloat));
  ASSERT_TRUE(mean.ok());
  EXPECT_TRUE(TensorsEqual((*mean)[0], Tensor::FromVector<float>({3})));
  TFHOST_EXPECT_ERROR(RunSingleOp("SegmentSum", {x, Tensor::FromVector<int32_t>({1, 0})}, Seg(DType::kFloat)), StatusCode::kInvalidArgument,
                      "segment ids are not increasing at index 1");  // unsorted
  TFHOST_EXPECT_ERROR(RunSingleOp("SegmentSum", {x, Tensor::FromVector<int32_t>({-1, 0})}, Seg(DType::kFloat)), StatusCode::kInvalidArgument,
                      "segment id -1 at index 0 is negative");
}

// Found by graph_kernel_fuzz: the row count, last id + 1, overflowed int64.
TEST(SegmentOpsTest, ALastIdOfTheLargestInt64IsAnErrorNotAnOverflow) {
  const int64_t max = std::numeric_limits<int64_t>::max();
  TFHOST_EXPECT_ERROR(RunSingleOp("SegmentSum", {Tensor::FromVector<float>({1, 2}),
                                                 Tensor::FromVector<int64_t>({0, max})},
                                  Seg(DType::kFloat, DType::kInt64)),
                      StatusCode::kInvalidArgument,
                      "segment id 9223372036854775807 at index 1 is the largest int64");
}

// Fuzzer finding: rows of no elements with a last id of 2^40 - 1 sized a
// count per segment (8 TiB) before producing an empty [2^40, 0] output.
TEST(SegmentOpsTest, EmptyRowsWithAHugeLastIdAreAnEmptyOutputWithoutScratch) {
  const int64_t big = int64_t{1} << 40;
  for (DType dt : {DType::kFloat, DType::kInt32}) {
    auto out = RunSingleOp("SegmentMax", {Tensor(dt, Shape({2, 0})), Tensor::FromVector<int64_t>({0, big - 1})},
                           Seg(dt, DType::kInt64));
    ASSERT_TRUE(out.ok()) << out.status().ToString();
    EXPECT_EQ((*out)[0].shape(), Shape({big, 0}));
  }
  auto unsorted = RunSingleOp("UnsortedSegmentSum", {Tensor(DType::kFloat, Shape({1, 0})),
                                                     Tensor::FromVector<int32_t>({0}), Tensor::Scalar<int64_t>(big)},
                              {{"T", MakeAttr(DType::kFloat)}, {"Tindices", MakeAttr(DType::kInt32)},
                               {"Tnumsegments", MakeAttr(DType::kInt64)}});
  ASSERT_TRUE(unsorted.ok()) << unsorted.status().ToString();
  EXPECT_EQ((*unsorted)[0].shape(), Shape({big, 0}));
}

TEST(UnsortedSegmentOpsTest, AnyOrderDropsNegativeIdsAndFillsEmptyWithLimits) {
  // tf.math.unsorted_segment_sum doc: c = [[1,2,3,4],[5,6,7,8],[4,3,2,1]],
  // ids [0, 1, 0], 2 segments -> [[5,5,5,5],[5,6,7,8]].
  Tensor c = Tensor::FromVector<int32_t>({1, 2, 3, 4, 5, 6, 7, 8, 4, 3, 2, 1}, Shape({3, 4}));
  auto sum = RunSingleOp("UnsortedSegmentSum", {c, Tensor::FromVector<int32_t>({0, 1, 0}), Tensor::Scalar<int32_t>(2)},
                         Seg(DType::kInt32));
  ASSERT_TRUE(sum.ok()) << sum.status().ToString();
  EXPECT_TRUE(TensorsEqual((*sum)[0], Tensor::FromVector<int32_t>({5, 5, 5, 5, 5, 6, 7, 8}, Shape({2, 4}))));
  // Max with an empty segment 1 and a dropped id -1: lowest int32.
  auto mx = RunSingleOp("UnsortedSegmentMax", {Tensor::FromVector<int32_t>({7, 9, 100}), Tensor::FromVector<int32_t>({2, 0, -1}),
                                               Tensor::Scalar<int32_t>(3)}, Seg(DType::kInt32));
  ASSERT_TRUE(mx.ok()) << mx.status().ToString();
  EXPECT_TRUE(TensorsEqual((*mx)[0], Tensor::FromVector<int32_t>({9, std::numeric_limits<int32_t>::lowest(), 7})));
  auto mn = RunSingleOp("UnsortedSegmentMin", {Tensor::FromVector<float>({7}), Tensor::FromVector<int32_t>({1}),
                                               Tensor::Scalar<int32_t>(2)}, Seg(DType::kFloat));
  ASSERT_TRUE(mn.ok());
  EXPECT_EQ((*mn)[0].data<float>()[0], std::numeric_limits<float>::max());
  // 2-D ids over a [2, 2, 1] tensor.
  auto two = RunSingleOp("UnsortedSegmentProd", {Tensor::FromVector<float>({2, 3, 4, 5}, Shape({2, 2, 1})),
                                                 Tensor::FromVector<int32_t>({0, 1, 1, 0}, Shape({2, 2})),
                                                 Tensor::Scalar<int64_t>(2)},
                         Seg(DType::kFloat, DType::kInt32, DType::kInt64));
  ASSERT_TRUE(two.ok()) << two.status().ToString();
  EXPECT_TRUE(TensorsEqual((*two)[0], Tensor::FromVector<float>({10, 12}, Shape({2, 1}))));
  EXPECT_FALSE(RunSingleOp("UnsortedSegmentSum", {c, Tensor::FromVector<int32_t>({0, 2, 0}), Tensor::Scalar<int32_t>(2)},
                                       Seg(DType::kInt32)).ok());
  EXPECT_FALSE(RunSingleOp("UnsortedSegmentSum", {c, Tensor::FromVector<int32_t>({0, 1}), Tensor::Scalar<int32_t>(2)},
                                       Seg(DType::kInt32)).ok());
}

}  // namespace
}  // namespace tfhost::ops
