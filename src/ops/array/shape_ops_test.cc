#include "ops/array/array_test_util.h"
#include "base/test_status.h"

namespace tfhost::ops::array {
namespace {

using test_util::Ints;
using test_util::Iota;
using test_util::RunOp;

TEST(ShapeTest, ReturnsDimsInRequestedType) {
  auto i32 = RunOp("Shape", {Iota({2, 0, 3})}, {{"T", MakeAttr(DType::kFloat)}});
  ASSERT_EQ(i32.size(), 1u);
  EXPECT_EQ(i32[0].dtype(), DType::kInt32);
  EXPECT_EQ(Ints(i32[0]), (std::vector<int64_t>{2, 0, 3}));
  auto i64 = RunOp("Shape", {Tensor::StringScalar("s")},
                 {{"T", MakeAttr(DType::kString)}, {"out_type", MakeAttr(DType::kInt64)}});
  EXPECT_EQ(i64[0].dtype(), DType::kInt64);
  EXPECT_EQ(i64[0].shape(), Shape({0}));
}

TEST(ShapeNTest, OneShapePerInput) {
  auto out = RunOp("ShapeN", {Iota({2}), Iota({3, 4})},
                 {{"N", MakeAttr(2)}, {"T", MakeAttr(DType::kFloat)}});
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(Ints(out[1]), (std::vector<int64_t>{3, 4}));
}

TEST(SizeAndRankTest, CountElementsAndDims) {
  auto size = RunOp("Size", {Iota({2, 3})},
                  {{"T", MakeAttr(DType::kFloat)}, {"out_type", MakeAttr(DType::kInt64)}});
  EXPECT_EQ(size[0].dtype(), DType::kInt64);
  EXPECT_EQ(Ints(size[0]), (std::vector<int64_t>{6}));
  auto rank = RunOp("Rank", {Iota({2, 3, 1})}, {{"T", MakeAttr(DType::kFloat)}});
  EXPECT_EQ(rank[0].dtype(), DType::kInt32);
  EXPECT_EQ(rank[0].shape(), Shape());
  EXPECT_EQ(Ints(rank[0]), (std::vector<int64_t>{3}));
}

TEST(BroadcastArgsTest, BroadcastsTwoShapeVectors) {
  auto out = RunSingleOp("BroadcastArgs", {Tensor::FromVector<int32_t>({2, 1, 3}), Tensor::FromVector<int32_t>({4, 1})});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_TRUE(TensorsEqual((*out)[0], Tensor::FromVector<int32_t>({2, 4, 3})));
  TFHOST_EXPECT_ERROR(RunSingleOp("BroadcastArgs", {Tensor::FromVector<int32_t>({2}), Tensor::FromVector<int32_t>({3})}), StatusCode::kInvalidArgument,
                      "Incompatible shapes: [2] vs. [3]");
}

}  // namespace
}  // namespace tfhost::ops::array
