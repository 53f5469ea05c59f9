#include <gtest/gtest.h>

#include <numeric>

#include "backends/cpu/simd/simd_test_util.h"
#include "base/test_status.h"

namespace tfhost::backends::simd {
namespace {

using testing::ExpectSimdMatchesReference;

// Distinct values so any misplaced element shows.
Tensor Iota(DType dtype, const Shape& shape) {
  Tensor t(dtype, shape);
  const int64_t n = t.NumElements();
  TFHOST_SWITCH_REAL_TYPES(dtype, {
    T* p = t.data<T>();
    for (int64_t i = 0; i < n; ++i) p[i] = static_cast<T>(i % 251 + (i / 251) % 7);
  }, {});
  return t;
}

ir::AttrMap Attrs(DType t) { return {{"T", ops::MakeAttr(t)}, {"Tperm", ops::MakeAttr(DType::kInt32)}}; }

struct Case {
  Shape shape;
  std::vector<int32_t> perm;
};

TEST(SimdTransposeTest, MatchesReferenceExactlyOverShapesPermsAndDtypes) {
  const std::vector<Case> cases = {
      {Shape({5, 7}), {1, 0}},
      {Shape({33, 65}), {1, 0}},
      {Shape({1, 200, 300}), {0, 2, 1}},
      {Shape({2, 9, 11, 3}), {0, 3, 1, 2}},   // NHWC -> NCHW
      {Shape({2, 3, 9, 11}), {0, 2, 3, 1}},   // NCHW -> NHWC
      {Shape({4, 5, 6}), {2, 0, 1}},
      {Shape({4, 5, 6}), {1, 0, 2}},
      {Shape({3, 1, 4, 1, 5}), {4, 2, 0, 3, 1}},
      {Shape({2, 3, 4, 5, 6}), {3, 1, 4, 0, 2}},
      {Shape({2, 3, 4}), {0, 1, 2}},          // identity
      {Shape({1, 5, 1}), {2, 1, 0}},          // identity once size-1 dims go
      {Shape({0, 5}), {1, 0}},
      {Shape({}), {}},
      {Shape({7}), {0}},
  };
  for (DType dtype : {DType::kFloat, DType::kInt32, DType::kUInt8, DType::kInt16, DType::kInt64, DType::kDouble}) {
    for (const Case& c : cases) {
      SCOPED_TRACE(DTypeName(dtype) + " " + c.shape.ToString());
      ExpectSimdMatchesReference("Transpose", {Iota(dtype, c.shape), Tensor::FromVector<int32_t>(c.perm)},
                                 Attrs(dtype), 0, 0);
    }
  }
}

TEST(SimdTransposeTest, LargeTransposesSplitOverThePoolMatchReference) {
  ExpectSimdMatchesReference("Transpose", {Iota(DType::kFloat, Shape({1, 112, 112, 32})),
                                           Tensor::FromVector<int32_t>({0, 3, 1, 2})}, Attrs(DType::kFloat), 0, 0);
  ExpectSimdMatchesReference("Transpose", {Iota(DType::kFloat, Shape({40, 50, 60})),
                                           Tensor::FromVector<int32_t>({2, 1, 0})}, Attrs(DType::kFloat), 0, 0);
}

TEST(SimdTransposeTest, BadPermGivesAnError) {
  auto node = ops::MakeSingleOpNode("Transpose", Attrs(DType::kFloat));
  ASSERT_TRUE(node.ok());
  auto got = ops::RunKernelOnNode(*node, testing::MakeSimdKernel(*node),
                                  {Iota(DType::kFloat, Shape({2, 3})), Tensor::FromVector<int32_t>({0, 0})});
  TFHOST_EXPECT_ERROR(got, StatusCode::kInvalidArgument, "perm [0, 0] is not a permutation of [0, 2)");
}

}  // namespace
}  // namespace tfhost::backends::simd
