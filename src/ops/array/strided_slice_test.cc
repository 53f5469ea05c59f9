#include "ops/array/strided_slice.h"

#include "ops/array/array_test_util.h"
#include "base/test_status.h"

namespace tfhost::ops::array {
namespace {

using test_util::Floats;
using test_util::I32;
using test_util::I64;
using test_util::Iota;

struct Masks {
  int begin = 0, end = 0, ellipsis = 0, new_axis = 0, shrink = 0;
};

ir::AttrMap SliceAttrs(DType t, DType index, const Masks& m) {
  return {{"T", MakeAttr(t)},
          {"Index", MakeAttr(index)},
          {"begin_mask", MakeAttr(m.begin)},
          {"end_mask", MakeAttr(m.end)},
          {"ellipsis_mask", MakeAttr(m.ellipsis)},
          {"new_axis_mask", MakeAttr(m.new_axis)},
          {"shrink_axis_mask", MakeAttr(m.shrink)}};
}

StatusOr<std::vector<Tensor>> Slice(const Tensor& x, std::vector<int32_t> b, std::vector<int32_t> e,
                                    std::vector<int32_t> s, const Masks& m) {
  return RunSingleOp("StridedSlice", {x, I32(b), I32(e), I32(s)},
                     SliceAttrs(x.dtype(), DType::kInt32, m));
}

TEST(StridedSliceTest, ShrinkMiddleAxisLikeColonThreeColon) {
  // x[:, 3, :] on a [2, 4, 3] tensor.
  auto out = Slice(Iota({2, 4, 3}), {0, 3, 0}, {0, 4, 0}, {1, 1, 1},
                   {.begin = 5, .end = 5, .shrink = 2});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ((*out)[0].shape(), Shape({2, 3}));
  EXPECT_EQ(Floats((*out)[0]), (std::vector<float>{9, 10, 11, 21, 22, 23}));
}

TEST(StridedSliceTest, EllipsisThenRangeSlicesLastAxis) {
  // x[..., 1:] on [2, 3].
  auto out = Slice(Iota({2, 3}), {0, 1}, {0, 0}, {1, 1}, {.end = 2, .ellipsis = 1});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ((*out)[0].shape(), Shape({2, 2}));
  EXPECT_EQ(Floats((*out)[0]), (std::vector<float>{1, 2, 4, 5}));
}

TEST(StridedSliceTest, NewAxisInsertsUnitDim) {
  // x[:, tf.newaxis] on [2, 3] -> [2, 1, 3].
  auto out = Slice(Iota({2, 3}), {0, 0}, {0, 0}, {1, 1}, {.begin = 1, .end = 1, .new_axis = 2});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ((*out)[0].shape(), Shape({2, 1, 3}));
  EXPECT_EQ(Floats((*out)[0]), (std::vector<float>{0, 1, 2, 3, 4, 5}));
}

TEST(StridedSliceTest, NegativeStrideReverses) {
  auto all = Slice(Iota({5}), {0}, {0}, {-1}, {.begin = 1, .end = 1});  // x[::-1]
  ASSERT_TRUE(all.ok()) << all.status().ToString();
  EXPECT_EQ(Floats((*all)[0]), (std::vector<float>{4, 3, 2, 1, 0}));
  auto part = Slice(Iota({5}), {3}, {0}, {-1}, {});  // x[3:0:-1]
  ASSERT_TRUE(part.ok());
  EXPECT_EQ(Floats((*part)[0]), (std::vector<float>{3, 2, 1}));
  auto neg = Slice(Iota({5}), {-1}, {-4}, {-1}, {});  // x[-1:-4:-1]
  ASSERT_TRUE(neg.ok());
  EXPECT_EQ(Floats((*neg)[0]), (std::vector<float>{4, 3, 2}));
  auto every_other = Slice(Iota({6}), {0}, {0}, {-2}, {.begin = 1, .end = 1});  // x[::-2]
  ASSERT_TRUE(every_other.ok());
  EXPECT_EQ(Floats((*every_other)[0]), (std::vector<float>{5, 3, 1}));
}

TEST(StridedSliceTest, OutOfRangeBoundsAreClamped) {
  auto high = Slice(Iota({5}), {1}, {100}, {1}, {});  // x[1:100]
  ASSERT_TRUE(high.ok());
  EXPECT_EQ(Floats((*high)[0]), (std::vector<float>{1, 2, 3, 4}));
  auto low = Slice(Iota({5}), {-100}, {2}, {1}, {});  // x[-100:2]
  ASSERT_TRUE(low.ok());
  EXPECT_EQ(Floats((*low)[0]), (std::vector<float>{0, 1}));
  auto empty = Slice(Iota({5}), {4}, {1}, {1}, {});  // x[4:1] is empty
  ASSERT_TRUE(empty.ok());
  EXPECT_EQ((*empty)[0].shape(), Shape({0}));
}

TEST(StridedSliceTest, ShrinkWithNegativeIndexTakesFromTheEnd) {
  auto out = Slice(Iota({5}), {-1}, {0}, {1}, {.shrink = 1});  // x[-1]
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ((*out)[0].shape(), Shape());
  EXPECT_EQ(Floats((*out)[0]), (std::vector<float>{4}));
}

TEST(StridedSliceTest, ShrinkOutOfRangeIsAnError) {
  auto out = Slice(Iota({5}), {5}, {6}, {1}, {.shrink = 1});
  TFHOST_ASSERT_ERROR(out, StatusCode::kInvalidArgument,
                      "index 5 is out of bounds for input dim 0 of size 5 (input shape [5], begin [5], end [6], strides");
  EXPECT_NE(out.status().message().find("StridedSlice"), std::string::npos);
}

TEST(StridedSliceTest, ZeroStrideAndMismatchedSpecsAreErrors) {
  TFHOST_EXPECT_ERROR(Slice(Iota({5}), {0}, {5}, {0}, {}), StatusCode::kInvalidArgument,
                      "stride for input dim 0 is 0 (input shape [5], begin [0], end [5], strides [0])");
  TFHOST_EXPECT_ERROR(Slice(Iota({5}), {0, 1}, {5}, {1}, {}), StatusCode::kInvalidArgument,
                      "begin, end and strides must have the same length, got 2, 1 and 1 (input shape [5], begin [0, 1],");
  // Two ellipses.
  TFHOST_EXPECT_ERROR(Slice(Iota({2, 2}), {0, 0}, {0, 0}, {1, 1}, {.ellipsis = 3}), StatusCode::kInvalidArgument,
                      "ellipsis_mask 3 has more than one bit set; at most one ellipsis is allowed (input shape [2,2],");
  // More specs than input dims.
  TFHOST_EXPECT_ERROR(Slice(Iota({2}), {0, 0}, {1, 1}, {1, 1}, {}), StatusCode::kInvalidArgument,
                      "slice spec entry 1 refers to input dim 1, but the input has only 1 dims (input shape [2], begin [0,");
}

TEST(StridedSliceTest, Int64SpecAndStringElements) {
  Tensor x = test_util::Str({"a", "b", "c", "d"}, {2, 2});
  auto out = RunSingleOp("StridedSlice", {x, I64({0, 1}), I64({2, 2}), I64({1, 1})},
                         SliceAttrs(DType::kString, DType::kInt64, {}));
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ((*out)[0].shape(), Shape({2, 1}));
  EXPECT_EQ(test_util::Strings((*out)[0]), (std::vector<std::string>{"b", "d"}));
}

TEST(ResolveStridedSliceTest, ShrinkEllipsisNewAxisAndStepCombine) {
  // x[1, ..., tf.newaxis, ::2] on [3, 4, 5, 6].
  StridedSliceMasks masks;
  masks.shrink_axis_mask = 1;
  masks.ellipsis_mask = 2;
  masks.new_axis_mask = 4;
  masks.begin_mask = 8;
  masks.end_mask = 8;
  auto r = ResolveStridedSlice(Shape({3, 4, 5, 6}), {1, 0, 0, 0}, {2, 0, 0, 0}, {1, 1, 1, 2}, masks);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->output_dims, (std::vector<int64_t>{4, 5, 1, 3}));
  EXPECT_EQ(r->sizes, (std::vector<int64_t>{1, 4, 5, 3}));
  EXPECT_EQ(r->begin, (std::vector<int64_t>{1, 0, 0, 0}));
  EXPECT_FALSE(r->is_identity);
}

TEST(ResolveStridedSliceTest, FullRangeIsIdentity) {
  auto r = ResolveStridedSlice(Shape({3, 4}), {0}, {3}, {1}, {});
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(r->is_identity);
  EXPECT_EQ(r->output_dims, (std::vector<int64_t>{3, 4}));
}

}  // namespace
}  // namespace tfhost::ops::array
