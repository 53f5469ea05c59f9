#include <gtest/gtest.h>

#include "ops/run_single_op.h"
#include "base/test_status.h"

namespace tfhost::ops {
namespace {

ir::AttrMap RollAttrs(DType t, DType idx = DType::kInt32) {
  return {{"T", MakeAttr(t)}, {"Tshift", MakeAttr(idx)}, {"Taxis", MakeAttr(idx)}};
}

TEST(RollTest, ShiftsWrapAroundAndAddUpPerAxis) {
  // tf.roll documentation: roll([0..4], shift=2, axis=0) -> [3, 4, 0, 1, 2].
  auto one = RunSingleOp("Roll", {Tensor::FromVector<int32_t>({0, 1, 2, 3, 4}), Tensor::Scalar<int32_t>(2),
                                  Tensor::Scalar<int32_t>(0)},
                         RollAttrs(DType::kInt32));
  ASSERT_TRUE(one.ok()) << one.status().ToString();
  EXPECT_TRUE(TensorsEqual((*one)[0], Tensor::FromVector<int32_t>({3, 4, 0, 1, 2})));
  // [[0..4], [5..9]], shift [1, -2] on axes [0, 1] -> [[7, 8, 9, 5, 6], [2, 3, 4, 0, 1]].
  Tensor m = Tensor::FromVector<int32_t>({0, 1, 2, 3, 4, 5, 6, 7, 8, 9}, Shape({2, 5}));
  auto two = RunSingleOp("Roll", {m, Tensor::FromVector<int32_t>({1, -2}), Tensor::FromVector<int32_t>({0, 1})}, RollAttrs(DType::kInt32));
  ASSERT_TRUE(two.ok()) << two.status().ToString();
  EXPECT_TRUE(TensorsEqual((*two)[0], Tensor::FromVector<int32_t>({7, 8, 9, 5, 6, 2, 3, 4, 0, 1}, Shape({2, 5}))));
  // Two shifts of the same (negative) axis add: 2 + 4 = 6 = 1 mod 5.
  auto same = RunSingleOp("Roll", {m, Tensor::FromVector<int64_t>({2, 4}), Tensor::FromVector<int64_t>({-1, -1})},
                         RollAttrs(DType::kInt32, DType::kInt64));
  ASSERT_TRUE(same.ok()) << same.status().ToString();
  EXPECT_TRUE(TensorsEqual((*same)[0], Tensor::FromVector<int32_t>({4, 0, 1, 2, 3, 9, 5, 6, 7, 8}, Shape({2, 5}))));
  TFHOST_EXPECT_ERROR(RunSingleOp("Roll", {m, Tensor::FromVector<int32_t>({1}), Tensor::FromVector<int32_t>({0, 1})}, RollAttrs(DType::kInt32)), StatusCode::kInvalidArgument,
                      "shift and axis must be scalars or vectors of the same length, got [1] and [2]");
  TFHOST_EXPECT_ERROR(RunSingleOp("Roll", {m, Tensor::Scalar<int32_t>(1), Tensor::Scalar<int32_t>(2)}, RollAttrs(DType::kInt32)), StatusCode::kInvalidArgument,
                      "axis 2 is out of range; expected a value in [-2, 2) for rank 2");
}

TEST(ReverseSequenceTest, ReversesEachBatchPrefixAlongSeqDim) {
  // batch_dim 0, seq_dim 1, lengths [3, 0, 1]: row 0 prefix of 3 reversed.
  Tensor x = Tensor::FromVector<float>({1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}, Shape({3, 4}));
  auto out = RunSingleOp("ReverseSequence", {x, Tensor::FromVector<int64_t>({3, 0, 1})}, {{"seq_dim", MakeAttr(1)}, {"T", MakeAttr(DType::kFloat)}});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_TRUE(TensorsEqual((*out)[0], Tensor::FromVector<float>({3, 2, 1, 4, 5, 6, 7, 8, 9, 10, 11, 12}, Shape({3, 4}))));
  // Time-major [T=3, B=2, 1] with batch_dim 1, seq_dim 0, lengths [2, 3].
  Tensor t = Tensor::FromVector<int32_t>({1, 10, 2, 20, 3, 30}, Shape({3, 2, 1}));
  auto tm = RunSingleOp("ReverseSequence", {t, Tensor::FromVector<int32_t>({2, 3})},
                        {{"seq_dim", MakeAttr(0)}, {"batch_dim", MakeAttr(1)}, {"Tlen", MakeAttr(DType::kInt32)},
                         {"T", MakeAttr(DType::kInt32)}});
  ASSERT_TRUE(tm.ok()) << tm.status().ToString();
  EXPECT_TRUE(TensorsEqual((*tm)[0], Tensor::FromVector<int32_t>({2, 30, 1, 20, 3, 10}, Shape({3, 2, 1}))));
  TFHOST_EXPECT_ERROR(RunSingleOp("ReverseSequence", {x, Tensor::FromVector<int64_t>({5, 0, 1})}, {{"seq_dim", MakeAttr(1)}, {"T", MakeAttr(DType::kFloat)}}), StatusCode::kInvalidArgument,
                      "seq_lengths[0] = 5 is not in [0, 4]");
  TFHOST_EXPECT_ERROR(RunSingleOp("ReverseSequence", {x, Tensor::FromVector<int64_t>({1, 1})}, {{"seq_dim", MakeAttr(1)}, {"T", MakeAttr(DType::kFloat)}}), StatusCode::kInvalidArgument,
                      "seq_lengths must be a vector of length 3, got [2]");
}

}  // namespace
}  // namespace tfhost::ops
