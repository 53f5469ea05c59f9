#include <cmath>
#include <limits>

#include <gtest/gtest.h>

#include "ops/run_single_op.h"

namespace tfhost::ops {
namespace {

Tensor Data() { return Tensor::FromVector<float>({1, 2, 3, 4, 5, 6, 7, 8}, Shape({4, 2})); }
ir::AttrMap Attrs() { return {{"T", MakeAttr(DType::kFloat)}}; }

TEST(SparseSegmentTest, SumMeanSqrtNOverSelectedRowsWithEmptySegment) {
  // Segment 0 = rows 0 + 2, segment 1 empty, segment 2 = row 3.
  std::vector<Tensor> in = {Data(), Tensor::FromVector<int32_t>({0, 2, 3}), Tensor::FromVector<int32_t>({0, 0, 2})};
  auto sum = RunSingleOp("SparseSegmentSum", in, Attrs());
  ASSERT_TRUE(sum.ok()) << sum.status().ToString();
  EXPECT_TRUE(TensorsEqual((*sum)[0], Tensor::FromVector<float>({6, 8, 0, 0, 7, 8}, Shape({3, 2}))));
  auto mean = RunSingleOp("SparseSegmentMean", in, Attrs());
  ASSERT_TRUE(mean.ok());
  EXPECT_TRUE(TensorsEqual((*mean)[0], Tensor::FromVector<float>({3, 4, 0, 0, 7, 8}, Shape({3, 2}))));
  auto sqrtn = RunSingleOp("SparseSegmentSqrtN", in, Attrs());
  ASSERT_TRUE(sqrtn.ok());
  const double want[] = {6 / std::sqrt(2.0), 8 / std::sqrt(2.0), 0, 0, 7, 8};
  ASSERT_EQ((*sqrtn)[0].shape(), Shape({3, 2}));
  for (int i = 0; i < 6; ++i) EXPECT_NEAR((*sqrtn)[0].data<float>()[i], want[i], 1e-6) << i;
}

TEST(SparseSegmentTest, EmptyRowsWithAHugeLastIdAreAnEmptyOutputWithoutScratch) {
  // Rows of no elements and a last segment id just under 2^40: the output is
  // [2^40, 0], and no count per segment (8 TiB) is allocated for it.
  const int64_t big = int64_t{1} << 40;
  for (const char* op : {"SparseSegmentSum", "SparseSegmentMean", "SparseSegmentSqrtN"}) {
    auto out = RunSingleOp(op,
                           {Tensor(DType::kFloat, Shape({2, 0})), Tensor::FromVector<int32_t>({0, 1}),
                            Tensor::FromVector<int64_t>({0, big - 1})},
                           {{"T", MakeAttr(DType::kFloat)}, {"Tsegmentids", MakeAttr(DType::kInt64)}});
    ASSERT_TRUE(out.ok()) << op << ": " << out.status().ToString();
    EXPECT_EQ((*out)[0].shape(), Shape({big, 0})) << op;
  }
}

TEST(SparseSegmentTest, WithNumSegmentsPadsTrailingSegments) {
  auto out = RunSingleOp("SparseSegmentSumWithNumSegments",
                         {Data(), Tensor::FromVector<int64_t>({1, 1}), Tensor::FromVector<int32_t>({0, 1}),
                          Tensor::Scalar<int32_t>(3)},
                         {{"T", MakeAttr(DType::kFloat)}, {"Tidx", MakeAttr(DType::kInt64)}});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_TRUE(TensorsEqual((*out)[0], Tensor::FromVector<float>({3, 4, 3, 4, 0, 0}, Shape({3, 2}))));
}

TEST(SparseSegmentTest, IntegerSumAndEmptyIndices) {
  auto out = RunSingleOp("SparseSegmentSum",
                         {Tensor::FromVector<int32_t>({5, 7}), Tensor::FromVector<int32_t>({1, 0, 1}),
                          Tensor::FromVector<int32_t>({0, 1, 1})},
                         {{"T", MakeAttr(DType::kInt32)}});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_TRUE(TensorsEqual((*out)[0], Tensor::FromVector<int32_t>({7, 12})));
  auto empty = RunSingleOp("SparseSegmentMean", {Data(), Tensor(DType::kInt32, Shape({0})), Tensor(DType::kInt32, Shape({0}))},
                           Attrs());
  ASSERT_TRUE(empty.ok());
  EXPECT_EQ((*empty)[0].shape(), Shape({0, 2}));
}

// Found by graph_kernel_fuzz: sums past int64 (kept in double) were cast
// back to int64 out of range (undefined). They saturate now.
TEST(SparseSegmentTest, AnInt64SumPastTheTypeSaturates) {
  const int64_t max = std::numeric_limits<int64_t>::max(), min = std::numeric_limits<int64_t>::min();
  auto out = RunSingleOp("SparseSegmentSum",
                         {Tensor::FromVector<int64_t>({max, min}), Tensor::FromVector<int32_t>({0, 0, 1, 1}),
                          Tensor::FromVector<int32_t>({0, 0, 1, 1})},
                         {{"T", MakeAttr(DType::kInt64)}});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ((*out)[0].data<int64_t>()[0], max);
  EXPECT_EQ((*out)[0].data<int64_t>()[1], min);
}

TEST(SparseSegmentTest, BadIndicesAndUnsortedIdsAreErrors) {
  EXPECT_FALSE(RunSingleOp("SparseSegmentSum", {Data(), Tensor::FromVector<int32_t>({4}), Tensor::FromVector<int32_t>({0})},
                           Attrs()).ok());
  EXPECT_FALSE(RunSingleOp("SparseSegmentSum", {Data(), Tensor::FromVector<int32_t>({0, 1}),
                                                Tensor::FromVector<int32_t>({1, 0})}, Attrs()).ok());
  EXPECT_FALSE(RunSingleOp("SparseSegmentSum", {Data(), Tensor::FromVector<int32_t>({0}),
                                                Tensor::FromVector<int32_t>({0, 1})}, Attrs()).ok());
}

}  // namespace
}  // namespace tfhost::ops
