#include <gtest/gtest.h>

#include "backends/cpu/simd/simd_test_util.h"
#include "base/test_status.h"

namespace tfhost::backends::simd {
namespace {

using testing::ExpectSimdMatchesReference;
using testing::RandomFloats;

ir::AttrMap Attrs(bool keep_dims, DType tidx = DType::kInt32) {
  return {{"T", ops::MakeAttr(DType::kFloat)}, {"Tidx", ops::MakeAttr(tidx)}, {"keep_dims", ops::MakeAttr(keep_dims)}};
}

Tensor Axes(const std::vector<int32_t>& axes) { return Tensor::FromVector<int32_t>(axes); }

struct Case {
  Shape shape;
  std::vector<int32_t> axes;
};

std::vector<Case> Cases(int64_t n) {
  return {
      {Shape({n}), {0}},
      {Shape({5, n}), {1}},          // innermost
      {Shape({5, n}), {-1}},
      {Shape({n, 5}), {0}},          // all but last
      {Shape({3, n, 7}), {0, 1}},
      {Shape({2, 3, 4, n}), {1, 2}}, // NHWC global pooling
      {Shape({2, n, 3}), {2, 1}},    // unsorted suffix
      {Shape({2, 3, n}), {0, 1, 2}}, // everything
      {Shape({2, n, 3}), {0, 2}},    // not contiguous: reference runs
  };
}

TEST(SimdReduceTest, SumMeanMaxMinMatchReferenceOverShapesAndAxes) {
  for (const char* op : {"Sum", "Mean", "Max", "Min"}) {
    for (int64_t n : {0, 1, 3, 8, 17, 33, 100}) {
      for (const Case& c : Cases(n)) {
        for (bool keep : {false, true}) {
          SCOPED_TRACE(std::string(op) + " " + c.shape.ToString() + (keep ? " keep_dims" : ""));
          ExpectSimdMatchesReference(op, {RandomFloats(c.shape, -10, 10, false, n), Axes(c.axes)}, Attrs(keep));
        }
      }
    }
  }
}

TEST(SimdReduceTest, SpecialValuesPropagateLikeTheReference) {
  for (const char* op : {"Sum", "Mean", "Max", "Min"}) {
    ExpectSimdMatchesReference(op, {RandomFloats(Shape({40, 33}), -10, 10, true), Axes({1})}, Attrs(false));
    ExpectSimdMatchesReference(op, {RandomFloats(Shape({40, 33}), -10, 10, true), Axes({0})}, Attrs(true));
  }
}

TEST(SimdReduceTest, LargeReductionsSplitOverThePoolMatchReference) {
  for (const char* op : {"Sum", "Mean", "Max"}) {
    ExpectSimdMatchesReference(op, {RandomFloats(Shape({300, 1001}), -1, 1, false), Axes({1})}, Attrs(false));
    ExpectSimdMatchesReference(op, {RandomFloats(Shape({1001, 300}), -1, 1, false), Axes({0})}, Attrs(false));
    ExpectSimdMatchesReference(op, {RandomFloats(Shape({2, 100, 100, 32}), -1, 1, false), Axes({1, 2})},
                               Attrs(true));
    ExpectSimdMatchesReference(op, {RandomFloats(Shape({3, 50, 2500}), -1, 1, false), Axes({1})}, Attrs(false));
  }
}

TEST(SimdReduceTest, Int64AxesAndBadAxesBehaveLikeTheReference) {
  ExpectSimdMatchesReference("Sum", {RandomFloats(Shape({4, 9}), -1, 1, false), Tensor::FromVector<int64_t>({-1})},
                             Attrs(false, DType::kInt64));
  auto node = ops::MakeSingleOpNode("Sum", Attrs(false));
  ASSERT_TRUE(node.ok());
  auto got = ops::RunKernelOnNode(*node, testing::MakeSimdKernel(*node),
                                  {RandomFloats(Shape({4, 9}), -1, 1, false), Axes({2})});
  TFHOST_EXPECT_ERROR(got, StatusCode::kInvalidArgument,
                      "reduction_indices 2 is out of range for a tensor of rank 2 (expected [-2, 2))");
}

}  // namespace
}  // namespace tfhost::backends::simd
