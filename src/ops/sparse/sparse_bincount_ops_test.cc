#include <gtest/gtest.h>

#include "ops/run_single_op.h"
#include "base/test_status.h"

namespace tfhost::ops {
namespace {

Tensor I64(std::vector<int64_t> v, Shape s) { return Tensor::FromVector<int64_t>(v, s); }
Tensor I64(std::vector<int64_t> v) { return Tensor::FromVector<int64_t>(v); }
Tensor I32(std::vector<int32_t> v) { return Tensor::FromVector<int32_t>(v); }
Tensor F(std::vector<float> v) { return Tensor::FromVector<float>(v); }

ir::AttrMap Attrs(DType t, bool binary = false) {
  return {{"T", MakeAttr(t)}, {"Tidx", MakeAttr(DType::kInt32)}, {"binary_output", MakeAttr(binary)}};
}

TEST(SparseBincountTest, TwoDimInputCountsPerRowAndIgnoresImplicitZeros) {
  // Rows [[?, 3, 1], [2, 7, ?]] with size 4: 7 >= size is ignored and the
  // implicit zeros add nothing to bin 0 -> [[0, 1, 0, 1], [0, 0, 1, 0]].
  Tensor idx = I64({0, 1, 0, 2, 1, 0, 1, 1}, Shape({4, 2}));
  auto out = RunSingleOp("SparseBincount", {idx, I32({3, 1, 2, 7}), I64({2, 3}), Tensor::Scalar<int32_t>(4), Tensor(DType::kFloat, Shape({0}))},
                         Attrs(DType::kFloat));
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_TRUE(TensorsEqual((*out)[0], Tensor::FromVector<float>({0, 1, 0, 1, 0, 0, 1, 0}, Shape({2, 4}))));
}

TEST(SparseBincountTest, OneDimWeightsAndBinaryOutput) {
  Tensor idx = I64({0, 1, 2, 4}, Shape({4, 1}));
  std::vector<Tensor> in = {idx, I32({1, 1, 3, 1}), I64({5}), Tensor::Scalar<int32_t>(4), F({0.5f, 2, 1, 0.25f})};
  auto weighted = RunSingleOp("SparseBincount", in, Attrs(DType::kFloat));
  ASSERT_TRUE(weighted.ok()) << weighted.status().ToString();
  EXPECT_TRUE(TensorsEqual((*weighted)[0], F({0, 2.75f, 0, 1})));
  auto binary = RunSingleOp("SparseBincount", in, Attrs(DType::kFloat, true));
  ASSERT_TRUE(binary.ok()) << binary.status().ToString();
  EXPECT_TRUE(TensorsEqual((*binary)[0], F({0, 1, 0, 1})));
}

TEST(SparseBincountTest, NegativeValueOutOfBoundsIndexAndBadWeightsAreErrors) {
  Tensor idx = I64({0, 1}, Shape({2, 1}));
  Tensor none(DType::kInt32, Shape({0}));
  EXPECT_FALSE(RunSingleOp("SparseBincount", {idx, I32({1, -1}), I64({2}), Tensor::Scalar<int32_t>(3), none},
                           Attrs(DType::kInt32)).ok());
  EXPECT_FALSE(RunSingleOp("SparseBincount", {idx, I32({1, 1}), I64({1}), Tensor::Scalar<int32_t>(3), none},
                           Attrs(DType::kInt32)).ok());
  EXPECT_FALSE(RunSingleOp("SparseBincount", {idx, I32({1, 1}), I64({2}), Tensor::Scalar<int32_t>(3), I32({1, 2, 3})},
                           Attrs(DType::kInt32)).ok());
}

TEST(RaggedBincountTest, CountsPerRaggedRowWithEmptyRows) {
  // [[1, 1, 2], [], [3]] with size 3: [[0, 2, 1], [0, 0, 0], [0, 0, 0]] (3 >= size).
  auto out = RunSingleOp("RaggedBincount", {I64({0, 3, 3, 4}), I32({1, 1, 2, 3}), Tensor::Scalar<int32_t>(3),
                                            Tensor(DType::kInt64, Shape({0}))},
                         Attrs(DType::kInt64));
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_TRUE(TensorsEqual((*out)[0], Tensor::FromVector<int64_t>({0, 2, 1, 0, 0, 0, 0, 0, 0}, Shape({3, 3}))));
  auto bad = RunSingleOp("RaggedBincount", {I64({0, 3, 5}), I32({1, 1, 2, 3}), Tensor::Scalar<int32_t>(3),
                                            Tensor(DType::kInt64, Shape({0}))},
                         Attrs(DType::kInt64));
  TFHOST_ASSERT_ERROR(bad, StatusCode::kInvalidArgument,
                      "splits must end with the number of values, got 5 instead of 4");
  EXPECT_NE(bad.status().ToString().find("number of values"), std::string::npos);
}

TEST(RaggedBincountTest, SplitsThatOvershootTheValuesAndComeBackAreRejected) {
  // Starts at 0 and ends at the value count (2), but entry 1 (5) points past
  // the values: rejected before any row is assigned.
  auto out = RunSingleOp("RaggedBincount", {I64({0, 5, 2}), I32({1, 1}), Tensor::Scalar<int32_t>(3),
                                            Tensor(DType::kInt64, Shape({0}))},
                         Attrs(DType::kInt64));
  TFHOST_ASSERT_ERROR(out, StatusCode::kInvalidArgument,
                      "node 'test_RaggedBincount' (RaggedBincount): splits must be non-decreasing, but entry 2 is "
                      "below its predecessor");
  EXPECT_NE(out.status().message().find("'test_RaggedBincount'"), std::string::npos) << out.status().message();
  EXPECT_NE(out.status().message().find("splits must be non-decreasing, but entry 2"), std::string::npos)
      << out.status().message();
}

}  // namespace
}  // namespace tfhost::ops
