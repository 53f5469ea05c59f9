#include <gtest/gtest.h>

#include "ops/run_single_op.h"
#include "base/test_status.h"

namespace tfhost::ops {
namespace {

Tensor I64(std::vector<int64_t> v, Shape s) { return Tensor::FromVector<int64_t>(v, s); }
Tensor I64(std::vector<int64_t> v) { return Tensor::FromVector<int64_t>(v); }
Tensor I32(std::vector<int32_t> v) { return Tensor::FromVector<int32_t>(v); }

ir::AttrMap ToSparseAttrs(int64_t ragged_rank, DType t = DType::kInt32) {
  return {{"RAGGED_RANK", MakeAttr(ragged_rank)}, {"T", MakeAttr(t)}, {"Tsplits", MakeAttr(DType::kInt64)}};
}

TEST(RaggedTensorToSparseTest, MatchesTensorFlowDocstringExample) {
  // tf.RaggedTensor.to_sparse: [[1, 2, 3], [4], [], [5, 6]] -> indices
  // [[0,0],[0,1],[0,2],[1,0],[3,0],[3,1]], dense_shape [4, 3].
  auto out = RunSingleOp("RaggedTensorToSparse", {I64({0, 3, 4, 4, 6}), I32({1, 2, 3, 4, 5, 6})}, ToSparseAttrs(1));
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_TRUE(TensorsEqual((*out)[0], I64({0, 0, 0, 1, 0, 2, 1, 0, 3, 0, 3, 1}, Shape({6, 2}))));
  EXPECT_TRUE(TensorsEqual((*out)[1], I32({1, 2, 3, 4, 5, 6})));
  EXPECT_TRUE(TensorsEqual((*out)[2], I64({4, 3})));
}

TEST(RaggedTensorToSparseTest, NestedLevelsAndInnerDenseDims) {
  // [[[1, 2], [3]], [[4]]]: splits [0, 2, 3], [0, 2, 3, 4].
  auto nested = RunSingleOp("RaggedTensorToSparse", {I64({0, 2, 3}), I64({0, 2, 3, 4}), I32({1, 2, 3, 4})},
                            ToSparseAttrs(2));
  ASSERT_TRUE(nested.ok()) << nested.status().ToString();
  EXPECT_TRUE(TensorsEqual((*nested)[0], I64({0, 0, 0, 0, 0, 1, 0, 1, 0, 1, 0, 0}, Shape({4, 3}))));
  EXPECT_TRUE(TensorsEqual((*nested)[2], I64({2, 2, 2})));
  // Rows of 2-vectors: [[[1, 2], [3, 4]], [[5, 6]]].
  auto inner = RunSingleOp("RaggedTensorToSparse",
                           {I64({0, 2, 3}), Tensor::FromVector<int32_t>({1, 2, 3, 4, 5, 6}, Shape({3, 2}))},
                           ToSparseAttrs(1));
  ASSERT_TRUE(inner.ok()) << inner.status().ToString();
  EXPECT_TRUE(TensorsEqual((*inner)[0], I64({0, 0, 0, 0, 0, 1, 0, 1, 0, 0, 1, 1, 1, 0, 0, 1, 0, 1}, Shape({6, 3}))));
  EXPECT_TRUE(TensorsEqual((*inner)[2], I64({2, 2, 2})));
}

TEST(RaggedTensorToSparseTest, InconsistentSplitsAreErrors) {
  // Last split 5 but 6 values; splits not starting at 0; decreasing splits.
  for (auto splits : {I64({0, 3, 5}), I64({1, 3, 6}), I64({0, 4, 3, 6})}) {
    auto out = RunSingleOp("RaggedTensorToSparse", {splits, I32({1, 2, 3, 4, 5, 6})}, ToSparseAttrs(1));
    TFHOST_EXPECT_ERROR(out, StatusCode::kInvalidArgument, "rt_nested splits[0]") << splits.DebugString();
  }
}

ir::AttrMap ToVariantAttrs(int64_t ragged_rank, bool batched) {
  return {{"RAGGED_RANK", MakeAttr(ragged_rank)}, {"Tvalues", MakeAttr(DType::kInt32)},
          {"Tsplits", MakeAttr(DType::kInt64)}, {"batched_input", MakeAttr(batched)}};
}
ir::AttrMap FromVariantAttrs(int64_t input_rank, int64_t output_rank) {
  return {{"input_ragged_rank", MakeAttr(input_rank)}, {"output_ragged_rank", MakeAttr(output_rank)},
          {"Tvalues", MakeAttr(DType::kInt32)}, {"Tsplits", MakeAttr(DType::kInt64)}};
}

TEST(RaggedVariantTest, BatchedEncodingHoldsOneRowPerElementAndDecodesBack) {
  auto enc = RunSingleOp("RaggedTensorToVariant", {I64({0, 3, 4, 4, 6}), I32({1, 2, 3, 4, 5, 6})},
                         ToVariantAttrs(1, true));
  ASSERT_TRUE(enc.ok()) << enc.status().ToString();
  ASSERT_EQ((*enc)[0].dtype(), DType::kVariant);
  ASSERT_EQ((*enc)[0].shape(), Shape({4}));
  // Each row alone (ragged rank 0): row 3 is [5, 6].
  auto row3 = RunSingleOp("RaggedTensorFromVariant", {Tensor::VariantScalar((*enc)[0].variants()[3])},
                          FromVariantAttrs(0, 0));
  ASSERT_TRUE(row3.ok()) << row3.status().ToString();
  EXPECT_TRUE(TensorsEqual((*row3)[0], I32({5, 6})));
  auto dec = RunSingleOp("RaggedTensorFromVariant", {(*enc)[0]}, FromVariantAttrs(-1, 1));
  ASSERT_TRUE(dec.ok()) << dec.status().ToString();
  EXPECT_TRUE(TensorsEqual((*dec)[0], I64({0, 3, 4, 4, 6})));
  EXPECT_TRUE(TensorsEqual((*dec)[1], I32({1, 2, 3, 4, 5, 6})));
}

TEST(RaggedVariantTest, NestedRowsRoundTripAndTwoDimEncodingAddsUniformLevel) {
  // [[[1, 2], [3]], [[4]], [], [[5], [], [6]]].
  std::vector<Tensor> rt = {I64({0, 2, 3, 3, 6}), I64({0, 2, 3, 4, 5, 5, 6}), I32({1, 2, 3, 4, 5, 6})};
  auto enc = RunSingleOp("RaggedTensorToVariant", rt, ToVariantAttrs(2, true));
  ASSERT_TRUE(enc.ok()) << enc.status().ToString();
  auto dec = RunSingleOp("RaggedTensorFromVariant", {(*enc)[0]}, FromVariantAttrs(1, 2));
  ASSERT_TRUE(dec.ok()) << dec.status().ToString();
  ASSERT_EQ(dec->size(), 3u);
  for (int k = 0; k < 3; ++k) EXPECT_TRUE(TensorsEqual((*dec)[k], rt[k])) << k;
  // The same four rows as a [2, 2] variant: a uniform outer level [0, 2, 4].
  Tensor grid(DType::kVariant, Shape({2, 2}));
  for (int i = 0; i < 4; ++i) grid.variants()[i] = (*enc)[0].variants()[i];
  auto dec2 = RunSingleOp("RaggedTensorFromVariant", {grid}, FromVariantAttrs(-1, 3));
  ASSERT_TRUE(dec2.ok()) << dec2.status().ToString();
  ASSERT_EQ(dec2->size(), 4u);
  EXPECT_TRUE(TensorsEqual((*dec2)[0], I64({0, 2, 4})));
  for (int k = 0; k < 3; ++k) EXPECT_TRUE(TensorsEqual((*dec2)[k + 1], rt[k])) << k;
}

TEST(RaggedVariantTest, UnbatchedScalarRoundTripAndWrongContentsAreErrors) {
  auto enc = RunSingleOp("RaggedTensorToVariant", {I64({0, 1, 3}), I32({7, 8, 9})}, ToVariantAttrs(1, false));
  ASSERT_TRUE(enc.ok()) << enc.status().ToString();
  EXPECT_EQ((*enc)[0].rank(), 0);
  auto dec = RunSingleOp("RaggedTensorFromVariant", {(*enc)[0]}, FromVariantAttrs(1, 1));
  ASSERT_TRUE(dec.ok()) << dec.status().ToString();
  EXPECT_TRUE(TensorsEqual((*dec)[0], I64({0, 1, 3})));
  EXPECT_TRUE(TensorsEqual((*dec)[1], I32({7, 8, 9})));
  // Ranks that do not add up, the wrong Tvalues, and an unset variant.
  TFHOST_EXPECT_ERROR(RunSingleOp("RaggedTensorFromVariant", {(*enc)[0]}, FromVariantAttrs(1, 2)), StatusCode::kInvalidArgument,
                      "output_ragged_rank (2) must equal input_ragged_rank (1) + the rank of encoded_ragged (0)");
  auto wrong_type = FromVariantAttrs(1, 1);
  wrong_type["Tvalues"] = MakeAttr(DType::kFloat);
  TFHOST_EXPECT_ERROR(RunSingleOp("RaggedTensorFromVariant", {(*enc)[0]}, wrong_type), StatusCode::kInvalidArgument,
                      "encoded_ragged element 0 holds values of dtype DT_INT32, expected Tvalues DT_FLOAT");
  auto empty = RunSingleOp("RaggedTensorFromVariant", {Tensor(DType::kVariant, Shape({1}))}, FromVariantAttrs(0, 1));
  TFHOST_ASSERT_ERROR(empty, StatusCode::kInvalidArgument, "encoded_ragged element 0 does not hold a RaggedTensor");
  EXPECT_NE(empty.status().ToString().find("does not hold a RaggedTensor"), std::string::npos);
}

}  // namespace
}  // namespace tfhost::ops
