#include <gtest/gtest.h>

#include "ops/run_single_op.h"
#include "base/test_status.h"

namespace tfhost::ops {
namespace {

Tensor I64(std::vector<int64_t> v, Shape s) { return Tensor::FromVector<int64_t>(v, s); }
Tensor I64(std::vector<int64_t> v) { return Tensor::FromVector<int64_t>(v); }
Tensor F(std::vector<float> v) { return Tensor::FromVector<float>(v); }

ir::AttrMap ToDenseAttrs(DType t, DType ti) { return {{"T", MakeAttr(t)}, {"Tindices", MakeAttr(ti)}}; }

TEST(SparseToDenseTest, ScattersValuesOverDefault) {
  auto out = RunSingleOp("SparseToDense", {I64({0, 1, 2, 3}, Shape({2, 2})), I64({3, 4}), F({5, 6}), Tensor::Scalar(-1.f)},
                         ToDenseAttrs(DType::kFloat, DType::kInt64));
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_TRUE(TensorsEqual((*out)[0], Tensor::FromVector<float>({-1, 5, -1, -1, -1, -1, -1, -1, -1, -1, -1, 6},
                                                                  Shape({3, 4}))));
}

TEST(SparseToDenseTest, OneDimIndicesAndScalarValueAsTfOneHot) {
  auto out = RunSingleOp("SparseToDense", {Tensor::FromVector<int32_t>({1, 3}), Tensor::FromVector<int32_t>({5}),
                                           Tensor::Scalar<int32_t>(7), Tensor::Scalar<int32_t>(0)},
                         ToDenseAttrs(DType::kInt32, DType::kInt32));
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_TRUE(TensorsEqual((*out)[0], Tensor::FromVector<int32_t>({0, 7, 0, 7, 0})));
}

TEST(SparseToDenseTest, OutOfBoundsUnsortedAndRepeatedIndicesAreErrors) {
  auto attrs = ToDenseAttrs(DType::kFloat, DType::kInt64);
  TFHOST_EXPECT_ERROR(RunSingleOp("SparseToDense", {I64({5}), I64({5}), F({1}), Tensor::Scalar(0.f)}, attrs), StatusCode::kInvalidArgument,
                      "sparse_indices[0] is out of bounds of output_shape [5]");
  TFHOST_EXPECT_ERROR(RunSingleOp("SparseToDense", {I64({3, 1}), I64({5}), F({1, 2}), Tensor::Scalar(0.f)}, attrs), StatusCode::kInvalidArgument,
                      "sparse_indices[1] is out of order");
  TFHOST_EXPECT_ERROR(RunSingleOp("SparseToDense", {I64({1, 1}), I64({5}), F({1, 2}), Tensor::Scalar(0.f)}, attrs), StatusCode::kInvalidArgument,
                      "sparse_indices[1] is repeated");
  auto lax = attrs;
  lax["validate_indices"] = MakeAttr(false);
  auto out = RunSingleOp("SparseToDense", {I64({3, 1}), I64({5}), F({1, 2}), Tensor::Scalar(0.f)}, lax);
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_TRUE(TensorsEqual((*out)[0], F({0, 2, 0, 1, 0})));
}

TEST(SparseFillEmptyRowsTest, InsertsDefaultIntoEmptyRowsAndMapsInputs) {
  // Rows 0 and 2 have entries (row 2 out of order), rows 1 and 3 are empty.
  auto out = RunSingleOp("SparseFillEmptyRows",
                         {I64({2, 1, 0, 0, 2, 0}, Shape({3, 2})), F({10, 20, 30}), I64({4, 5}), Tensor::Scalar(-1.f)},
                         {{"T", MakeAttr(DType::kFloat)}});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_TRUE(TensorsEqual((*out)[0], I64({0, 0, 1, 0, 2, 1, 2, 0, 3, 0}, Shape({5, 2}))));
  EXPECT_TRUE(TensorsEqual((*out)[1], F({20, -1, 10, 30, -1})));
  EXPECT_TRUE(TensorsEqual((*out)[2], Tensor::FromVector<bool>({false, true, false, true})));
  EXPECT_TRUE(TensorsEqual((*out)[3], I64({2, 0, 3})));
}

TEST(SparseFillEmptyRowsTest, EmptyInputFillsEveryRowAndBadRowIsAnError) {
  auto out = RunSingleOp("SparseFillEmptyRows",
                         {Tensor(DType::kInt64, Shape({0, 2})), Tensor(DType::kString, Shape({0})), I64({2, 3}),
                          Tensor::StringScalar("")},
                         {{"T", MakeAttr(DType::kString)}});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_TRUE(TensorsEqual((*out)[0], I64({0, 0, 1, 0}, Shape({2, 2}))));
  EXPECT_EQ((*out)[3].NumElements(), 0);
  auto bad = RunSingleOp("SparseFillEmptyRows", {I64({7, 0}, Shape({1, 2})), F({1}), I64({2, 3}), Tensor::Scalar(0.f)},
                         {{"T", MakeAttr(DType::kFloat)}});
  TFHOST_EXPECT_ERROR(bad, StatusCode::kInvalidArgument, "indices(0, 0) is invalid: 7 is not in [0, 2)");
}

TEST(SparseReshapeTest, RelinearizesIndicesAndResolvesMinusOne) {
  // [2, 3] -> [3, -1] = [3, 2]: flat 1 -> (0, 1); flat 5 -> (2, 1); flat 3 -> (1, 1).
  auto out = RunSingleOp("SparseReshape", {I64({0, 1, 1, 2, 1, 0}, Shape({3, 2})), I64({2, 3}), I64({3, -1})});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_TRUE(TensorsEqual((*out)[0], I64({0, 1, 2, 1, 1, 1}, Shape({3, 2}))));
  EXPECT_TRUE(TensorsEqual((*out)[1], I64({3, 2})));
}

TEST(SparseReshapeTest, MismatchedSizesAndTwoUnknownsAreErrors) {
  TFHOST_EXPECT_ERROR(RunSingleOp("SparseReshape", {I64({0, 1}, Shape({1, 2})), I64({2, 3}), I64({4, 2})}), StatusCode::kInvalidArgument,
                      "Input to reshape is a tensor with 6 dense values, but the requested shape has 8");
  TFHOST_EXPECT_ERROR(RunSingleOp("SparseReshape", {I64({0, 1}, Shape({1, 2})), I64({2, 3}), I64({-1, -1})}), StatusCode::kInvalidArgument,
                      "only one output dimension may be -1, not both 0 and 1");
  TFHOST_EXPECT_ERROR(RunSingleOp("SparseReshape", {I64({0, 1}, Shape({1, 2})), I64({2, 3}), I64({4, -1})}), StatusCode::kInvalidArgument,
                      "Input to reshape is a SparseTensor with 6 dense values, but the requested shape requires a multiple");
}

}  // namespace
}  // namespace tfhost::ops
