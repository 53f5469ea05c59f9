#include <gtest/gtest.h>

#include "ops/run_single_op.h"
#include "ops/shape_fn_test_util.h"
#include "base/test_status.h"

namespace tfhost::ops {
namespace {

using Strings = std::vector<std::string>;

ir::AttrMap Attrs(const std::string& separator, DType indices = DType::kInt32, DType num = DType::kInt32) {
  return {{"separator", MakeAttr(separator)}, {"Tindices", MakeAttr(indices)}, {"Tnumsegments", MakeAttr(num)}};
}

StatusOr<Tensor> Join(const Tensor& inputs, const Tensor& ids, const Tensor& num, const ir::AttrMap& attrs) {
  TFHOST_ASSIGN_OR_RETURN(auto out, RunSingleOp("UnsortedSegmentJoin", {inputs, ids, num}, attrs));
  return out[0];
}

TEST(UnsortedSegmentJoinTest, JoinsInIdOrderAndLeavesUnnamedSegmentsEmpty) {
  // tf.strings.unsorted_segment_join(["a", "b", "c", "d"], [1, 0, 1, 0], 3, "|")
  // -> ["b|d", "a|c", ""].
  auto out = Join(Tensor::FromVector<std::string>({"a", "b", "c", "d"}), Tensor::FromVector<int32_t>({1, 0, 1, 0}),
                  Tensor::Scalar<int32_t>(3), Attrs("|"));
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_TRUE(TensorsEqual(*out, Tensor::FromVector<std::string>({"b|d", "a|c", ""})));
}

TEST(UnsortedSegmentJoinTest, LeadingEmptyStringsLeaveNoSeparator) {
  // TensorFlow appends the separator only after non-empty text: "", "", "b",
  // "", "c" -> "b" then "b|" (the empty one) then "b||c".
  auto out = Join(Tensor::FromVector<std::string>({"", "", "b", "", "c"}), Tensor::FromVector<int64_t>({0, 0, 0, 0, 0}),
                  Tensor::Scalar<int64_t>(1), Attrs("|", DType::kInt64, DType::kInt64));
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_TRUE(TensorsEqual(*out, Tensor::FromVector<std::string>({"b||c"})));
}

TEST(UnsortedSegmentJoinTest, InnerDimensionsJoinElementWise) {
  // A 1-D segment_ids on a [2, 2] input moves whole rows: row 0 -> segment
  // 1, row 1 -> segment 0. A [2, 2] segment_ids joins single strings.
  Tensor in = Tensor::FromVector<std::string>({"a", "b", "c", "d"}, Shape({2, 2}));
  auto rows = Join(in, Tensor::FromVector<int32_t>({1, 0}), Tensor::Scalar<int32_t>(2), Attrs(","));
  ASSERT_TRUE(rows.ok()) << rows.status().ToString();
  EXPECT_TRUE(TensorsEqual(*rows, Tensor::FromVector<std::string>({"c", "d", "a", "b"}, Shape({2, 2}))));
  auto cells = Join(in, Tensor::FromVector<int32_t>({1, 0, 1, 1}, Shape({2, 2})), Tensor::Scalar<int32_t>(2), Attrs(","));
  ASSERT_TRUE(cells.ok()) << cells.status().ToString();
  EXPECT_TRUE(TensorsEqual(*cells, Tensor::FromVector<std::string>({"b", "a,c,d"})));
}

TEST(UnsortedSegmentJoinTest, EmptyInputGivesEmptySegments) {
  auto out = Join(Tensor(DType::kString, Shape({0, 3})), Tensor(DType::kInt32, Shape({0})), Tensor::Scalar<int32_t>(2),
                  Attrs("-"));
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_TRUE(TensorsEqual(*out, Tensor(DType::kString, Shape({2, 3}))));
  auto none = Join(Tensor(DType::kString, Shape({0})), Tensor(DType::kInt32, Shape({0})), Tensor::Scalar<int32_t>(0),
                   Attrs("-"));
  ASSERT_TRUE(none.ok()) << none.status().ToString();
  EXPECT_EQ(none->shape(), Shape({0}));
}

TEST(UnsortedSegmentJoinTest, OutOfRangeIdsAreErrorsNotDropped) {
  Tensor in = Tensor::FromVector<std::string>({"a", "b"});
  for (int32_t bad : {-1, 2}) {
    auto out = Join(in, Tensor::FromVector<int32_t>({bad, 0}), Tensor::Scalar<int32_t>(2), Attrs(""));
    TFHOST_ASSERT_ERROR(out, StatusCode::kInvalidArgument, "segment_ids[0] = ");
    EXPECT_NE(out.status().message().find("outside [0, 2)"), std::string::npos) << out.status().message();
  }
}

TEST(UnsortedSegmentJoinTest, BadShapesAreErrors) {
  Tensor in = Tensor::FromVector<std::string>({"a", "b"});
  Tensor ids = Tensor::FromVector<int32_t>({0, 0});
  // num_segments: a vector, negative.
  auto vec = Join(in, ids, Tensor::FromVector<int32_t>({2}), Attrs(""));
  TFHOST_ASSERT_ERROR(vec, StatusCode::kInvalidArgument, "num_segments must be a scalar, got shape [1]");
  TFHOST_EXPECT_ERROR(Join(in, ids, Tensor::Scalar<int32_t>(-1), Attrs("")), StatusCode::kInvalidArgument,
                      "num_segments must be non-negative, got -1");
  // segment_ids: a scalar, a longer vector, a higher rank than inputs.
  TFHOST_EXPECT_ERROR(Join(in, Tensor::Scalar<int32_t>(0), Tensor::Scalar<int32_t>(2), Attrs("")), StatusCode::kInvalidArgument,
                      "segment_ids must have rank >= 1, got a scalar");
  auto longer = Join(in, Tensor::FromVector<int32_t>({0, 0, 0}), Tensor::Scalar<int32_t>(2), Attrs(""));
  TFHOST_ASSERT_ERROR(longer, StatusCode::kInvalidArgument,
                      "segment_ids shape [3] must be a prefix of inputs shape [2] (dimension 0 differs)");
  auto deeper = Join(in, Tensor::FromVector<int32_t>({0, 0}, Shape({1, 2})), Tensor::Scalar<int32_t>(2), Attrs(""));
  TFHOST_ASSERT_ERROR(deeper, StatusCode::kOutOfRange, "segment_ids of rank 2 cannot index inputs of rank 1");
}

TEST(UnsortedSegmentJoinTest, ShapeFunctionKeepsInnerDims) {
  Tensor three = Tensor::Scalar<int32_t>(3);
  auto shapes = testing::InferShape("UnsortedSegmentJoin",
                                    {ir::PartialShape::Known({-1, 4, 5}), ir::PartialShape::Known({-1}),
                                     ir::PartialShape::Scalar()},
                                    {nullptr, nullptr, &three}, 1);
  ASSERT_EQ(shapes.size(), 1u);
  EXPECT_EQ(shapes[0].ToString(), "[3,4,5]");
}

}  // namespace
}  // namespace tfhost::ops
