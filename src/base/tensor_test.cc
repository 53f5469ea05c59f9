#include "base/tensor.h"
#include "base/test_status.h"

#include <gtest/gtest.h>

namespace tfhost {
namespace {

TEST(TensorTest, NewTensorsAreZeroFilledAndAligned) {
  Tensor t(DType::kFloat, Shape({3, 5}));
  EXPECT_EQ(t.NumElements(), 15);
  EXPECT_EQ(t.ByteSize(), 60u);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(t.raw_data()) % 64, 0u);
  for (int i = 0; i < 15; ++i) EXPECT_EQ(t.data<float>()[i], 0.0f);
}

TEST(TensorTest, CopiesShareBuffersAndCloneDoesNot) {
  Tensor a = Tensor::FromVector<int32_t>({1, 2, 3});
  Tensor b = a;
  Tensor c = a.Clone();
  EXPECT_TRUE(a.SharesBufferWith(b));
  EXPECT_FALSE(a.SharesBufferWith(c));
  a.data<int32_t>()[0] = 9;
  EXPECT_EQ(b.data<int32_t>()[0], 9);
  EXPECT_EQ(c.data<int32_t>()[0], 1);
}

TEST(TensorTest, ReshapeKeepsDataAndRejectsWrongElementCount) {
  Tensor a = Tensor::FromVector<float>({1, 2, 3, 4, 5, 6});
  auto r = a.Reshaped(Shape({2, 3}));
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->shape(), Shape({2, 3}));
  EXPECT_TRUE(r->SharesBufferWith(a));
  auto bad = a.Reshaped(Shape({4, 2}));
  TFHOST_ASSERT_ERROR(bad, StatusCode::kInvalidArgument, "cannot reshape a tensor with 6 elements to shape [4,2]");
}

TEST(TensorTest, StringTensorsHoldStdStrings) {
  Tensor s(DType::kString, Shape({2}));
  s.strings()[0] = "hello";
  s.strings()[1] = std::string("a\0b", 3);
  Tensor c = s.Clone();
  EXPECT_EQ(c.strings()[1].size(), 3u);
  EXPECT_TRUE(TensorsEqual(s, c));
}

TEST(TensorTest, MakeShapeRejectsNegativeAndOverflowingDims) {
  TFHOST_EXPECT_ERROR(MakeShape({2, -1}, "test"), StatusCode::kInvalidArgument,
                      "test: dimension -1 is negative; expected a fully known shape");
  TFHOST_EXPECT_ERROR(MakeShape({int64_t{1} << 40, int64_t{1} << 40}, "test"), StatusCode::kInvalidArgument,
                      "test: shape [1099511627776,1099511627776] has more than 1099511627776 elements");
  EXPECT_TRUE(MakeShape({0, int64_t{1} << 50}, "test").ok());
}

TEST(TensorTest, BroadcastShapesFollowsNumpyRules) {
  EXPECT_EQ(*BroadcastShapes(Shape({2, 1}), Shape({1, 3})), Shape({2, 3}));
  EXPECT_EQ(*BroadcastShapes(Shape({}), Shape({4})), Shape({4}));
  auto bad = BroadcastShapes(Shape({2, 3}), Shape({4}));
  TFHOST_ASSERT_ERROR(bad, StatusCode::kInvalidArgument, "incompatible shapes for broadcasting: [2,3] and [4]");
}

TEST(TensorTest, ToInt64VectorRejectsFloats) {
  EXPECT_EQ(*Tensor::FromVector<int32_t>({3, -1}).ToInt64Vector(), (std::vector<int64_t>{3, -1}));
  TFHOST_EXPECT_ERROR(Tensor::FromVector<float>({1.0f}).ToInt64Vector(), StatusCode::kInvalidArgument,
                      "expected an integer tensor, got DT_FLOAT");
}

}  // namespace
}  // namespace tfhost
