#include "ops/array/array_test_util.h"
#include "base/test_status.h"

namespace tfhost::ops::array {
namespace {

using test_util::Floats;
using test_util::I32;
using test_util::I64;
using test_util::Iota;
using test_util::RunOp;
using test_util::RunError;

ir::AttrMap T(DType t) { return {{"T", MakeAttr(t)}}; }

TEST(ReshapeTest, MinusOneIsInferred) {
  auto out = RunOp("Reshape", {Iota({2, 3, 4}), I32({4, -1})}, T(DType::kFloat));
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].shape(), Shape({4, 6}));
  EXPECT_EQ(Floats(out[0])[7], 7.0f);
}

TEST(ReshapeTest, Int64ShapeAndEmptyInputInferMinusOne) {
  auto out = RunOp("Reshape", {Tensor(DType::kFloat, Shape({0, 3})), I64({-1, 3})},
                 {{"T", MakeAttr(DType::kFloat)}, {"Tshape", MakeAttr(DType::kInt64)}});
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].shape(), Shape({0, 3}));
}

TEST(ReshapeTest, ElementCountMismatchNamesBothShapes) {
  Status st = RunError("Reshape", {Iota({2, 3}), I32({4})}, T(DType::kFloat));
  TFHOST_ASSERT_ERROR(st, StatusCode::kInvalidArgument,
                      "input to reshape is a tensor with 6 values (shape [2,3]), but the requested shape [4] has 4");
  EXPECT_NE(st.message().find("[4]"), std::string::npos) << st.message();
  Status st2 = RunError("Reshape", {Iota({2, 3}), I32({4, -1})}, T(DType::kFloat));
  TFHOST_ASSERT_ERROR(st2, StatusCode::kInvalidArgument,
                      "input to reshape is a tensor with 6 values (shape [2,3]), but the requested shape [4, -1] requires "
                      "a multiple of 4");
}

TEST(ReshapeTest, TwoMinusOnesAndNegativeDimsAreErrors) {
  TFHOST_EXPECT_ERROR(RunError("Reshape", {Iota({6}), I32({-1, -1})}, T(DType::kFloat)), StatusCode::kInvalidArgument,
                      "only one dimension of shape [-1, -1] may be -1");
  TFHOST_EXPECT_ERROR(RunError("Reshape", {Iota({6}), I32({-2, -3})}, T(DType::kFloat)), StatusCode::kInvalidArgument,
                      "shape [-2, -3] has negative dimension -2 at index 0");
}

TEST(SqueezeTest, DropsAllUnitDimsOrOnlyNamedOnes) {
  auto all = RunOp("Squeeze", {Iota({1, 3, 1, 2})}, T(DType::kFloat));
  EXPECT_EQ(all[0].shape(), Shape({3, 2}));
  auto one = RunOp("Squeeze", {Iota({1, 3, 1, 2})},
                 {{"T", MakeAttr(DType::kFloat)}, {"squeeze_dims", MakeAttr(std::vector<int64_t>{-2})}});
  EXPECT_EQ(one[0].shape(), Shape({1, 3, 2}));
  EXPECT_FALSE(RunError("Squeeze", {Iota({1, 3})},
                        {{"T", MakeAttr(DType::kFloat)},
                         {"squeeze_dims", MakeAttr(std::vector<int64_t>{1})}})
                   .ok());
}

TEST(ExpandDimsTest, AcceptsNegativeDimUpToMinusRankMinusOne) {
  auto front = RunOp("ExpandDims", {Iota({2, 3}), Tensor::Scalar<int32_t>(-3)}, T(DType::kFloat));
  EXPECT_EQ(front[0].shape(), Shape({1, 2, 3}));
  auto back = RunOp("ExpandDims", {Iota({2, 3}), Tensor::Scalar<int32_t>(2)}, T(DType::kFloat));
  EXPECT_EQ(back[0].shape(), Shape({2, 3, 1}));
  EXPECT_FALSE(
      RunError("ExpandDims", {Iota({2, 3}), Tensor::Scalar<int32_t>(3)}, T(DType::kFloat)).ok());
}

TEST(TransposeTest, PermutesDims) {
  auto out = RunOp("Transpose", {Iota({2, 3}), I32({1, 0})}, T(DType::kFloat));
  EXPECT_EQ(out[0].shape(), Shape({3, 2}));
  EXPECT_EQ(Floats(out[0]), (std::vector<float>{0, 3, 1, 4, 2, 5}));
  auto three = RunOp("Transpose", {Iota({2, 3, 4}), I64({2, 0, 1})},
                   {{"T", MakeAttr(DType::kFloat)}, {"Tperm", MakeAttr(DType::kInt64)}});
  EXPECT_EQ(three[0].shape(), Shape({4, 2, 3}));
  // out[k, i, j] = in[i, j, k]: out[1, 1, 2] = in[1, 2, 1] = 12 + 8 + 1.
  EXPECT_EQ(Floats(three[0])[1 * 6 + 1 * 3 + 2], 21.0f);
}

TEST(TransposeTest, RejectsNonPermutation) {
  TFHOST_EXPECT_ERROR(RunError("Transpose", {Iota({2, 3}), I32({0, 0})}, T(DType::kFloat)), StatusCode::kInvalidArgument,
                      "perm [0, 0] is not a permutation of [0, 2)");
  TFHOST_EXPECT_ERROR(RunError("Transpose", {Iota({2, 3}), I32({0})}, T(DType::kFloat)), StatusCode::kInvalidArgument,
                      "perm [0] must have 2 entries");
}

TEST(TransposeTest, MovesHalfAsRawBits) {
  Tensor h(DType::kHalf, Shape({2, 2}));
  for (int i = 0; i < 4; ++i) h.data<uint16_t>()[i] = FloatToHalf(static_cast<float>(i));
  auto out = RunOp("Transpose", {h, I32({1, 0})}, T(DType::kHalf));
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(HalfToFloat(out[0].data<uint16_t>()[1]), 2.0f);
}

TEST(InvertPermutationTest, InvertsAndRejectsDuplicates) {
  auto out = RunOp("InvertPermutation", {I32({3, 4, 0, 2, 1})}, T(DType::kInt32));
  EXPECT_EQ(test_util::Ints(out[0]), (std::vector<int64_t>{2, 4, 3, 0, 1}));
  TFHOST_EXPECT_ERROR(RunError("InvertPermutation", {I32({0, 0})}, T(DType::kInt32)), StatusCode::kInvalidArgument,
                      "x [0, 0] is not a permutation of [0, 2)");
}

}  // namespace
}  // namespace tfhost::ops::array
