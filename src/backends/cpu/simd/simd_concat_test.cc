#include <gtest/gtest.h>

#include "backends/cpu/simd/simd_test_util.h"
#include "base/test_status.h"

namespace tfhost::backends::simd {
namespace {

using testing::ExpectSimdMatchesReference;

Tensor Iota(DType dtype, const Shape& shape, int start) {
  Tensor t(dtype, shape);
  TFHOST_SWITCH_REAL_TYPES(dtype, {
    T* p = t.data<T>();
    for (int64_t i = 0; i < t.NumElements(); ++i) p[i] = static_cast<T>((start + i) % 127);
  }, {});
  return t;
}

ir::AttrMap ConcatAttrs(DType t, int n) {
  return {{"T", ops::MakeAttr(t)}, {"N", ops::MakeAttr(n)}, {"Tidx", ops::MakeAttr(DType::kInt32)}};
}

TEST(SimdConcatTest, ConcatV2MatchesReferenceAlongEveryAxis) {
  for (DType dtype : {DType::kFloat, DType::kInt32, DType::kUInt8, DType::kDouble}) {
    for (int axis : {0, 1, 2, -1, -3}) {
      const int a = axis < 0 ? axis + 3 : axis;
      std::vector<Tensor> inputs;
      for (int k = 0; k < 3; ++k) {
        std::vector<int64_t> dims = {2, 3, 5};
        dims[a] = k + 1;
        if (k == 1) dims[a] = 0;  // an empty piece
        inputs.push_back(Iota(dtype, Shape(dims), 10 * k));
      }
      inputs.push_back(Tensor::Scalar<int32_t>(axis));
      SCOPED_TRACE(DTypeName(dtype) + " axis " + std::to_string(axis));
      ExpectSimdMatchesReference("ConcatV2", inputs, ConcatAttrs(dtype, 3), 0, 0);
    }
  }
}

TEST(SimdConcatTest, LargeConcatsSplitOverThePoolMatchReference) {
  ExpectSimdMatchesReference("ConcatV2", {Iota(DType::kFloat, Shape({1, 300, 400}), 0),
                                          Iota(DType::kFloat, Shape({1, 300, 500}), 1), Tensor::Scalar<int32_t>(2)},
                             ConcatAttrs(DType::kFloat, 2), 0, 0);
  ExpectSimdMatchesReference("ConcatV2", {Iota(DType::kFloat, Shape({200000}), 0),
                                          Iota(DType::kFloat, Shape({100001}), 1), Tensor::Scalar<int32_t>(0)},
                             ConcatAttrs(DType::kFloat, 2), 0, 0);
}

TEST(SimdConcatTest, ConcatV1TakesTheAxisFirst) {
  ExpectSimdMatchesReference("Concat", {Tensor::Scalar<int32_t>(1), Iota(DType::kFloat, Shape({4, 3}), 0),
                                        Iota(DType::kFloat, Shape({4, 5}), 7)},
                             {{"T", ops::MakeAttr(DType::kFloat)}, {"N", ops::MakeAttr(2)}}, 0, 0);
}

TEST(SimdConcatTest, MismatchedShapesGiveAnError) {
  auto node = ops::MakeSingleOpNode("ConcatV2", ConcatAttrs(DType::kFloat, 2));
  ASSERT_TRUE(node.ok());
  auto got = ops::RunKernelOnNode(*node, testing::MakeSimdKernel(*node),
                                  {Iota(DType::kFloat, Shape({2, 3}), 0), Iota(DType::kFloat, Shape({3, 3}), 0),
                                   Tensor::Scalar<int32_t>(1)});
  TFHOST_EXPECT_ERROR(got, StatusCode::kInvalidArgument,
                      "value 1 has shape [3,3], which does not match value 0's shape [2,3] in every dimension but axis 1");
}

}  // namespace
}  // namespace tfhost::backends::simd
