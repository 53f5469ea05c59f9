#include "ops/array/array_test_util.h"
#include "base/test_status.h"

namespace tfhost::ops::array {
namespace {

using test_util::Floats;
using test_util::I32;
using test_util::I64;
using test_util::Ints;
using test_util::RunOp;
using test_util::RunError;

TEST(FillTest, FillsShapeWithScalarOfAnyType) {
  auto f = RunOp("Fill", {I32({2, 3}), Tensor::Scalar<float>(1.5f)}, {{"T", MakeAttr(DType::kFloat)}});
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].shape(), Shape({2, 3}));
  EXPECT_EQ(Floats(f[0]), std::vector<float>(6, 1.5f));
  auto s = RunOp("Fill", {I64({2}), Tensor::StringScalar("hi")},
               {{"T", MakeAttr(DType::kString)}, {"index_type", MakeAttr(DType::kInt64)}});
  EXPECT_EQ(test_util::Strings(s[0]), (std::vector<std::string>{"hi", "hi"}));
}

TEST(FillTest, NegativeOrHugeDimsAreRejected) {
  EXPECT_FALSE(RunError("Fill", {I32({2, -1}), Tensor::Scalar<float>(0)},
                        {{"T", MakeAttr(DType::kFloat)}})
                   .ok());
  EXPECT_FALSE(RunError("Fill", {I64({int64_t{1} << 32, int64_t{1} << 32}), Tensor::Scalar<float>(0)},
                        {{"T", MakeAttr(DType::kFloat)}, {"index_type", MakeAttr(DType::kInt64)}})
                   .ok());
}

TEST(RangeTest, IntegerAndFloatingRanges) {
  auto i = RunOp("Range", {Tensor::Scalar<int32_t>(3), Tensor::Scalar<int32_t>(18),
                         Tensor::Scalar<int32_t>(5)}, {});
  EXPECT_EQ(Ints(i[0]), (std::vector<int64_t>{3, 8, 13}));
  auto down = RunOp("Range", {Tensor::Scalar<int64_t>(3), Tensor::Scalar<int64_t>(-1),
                            Tensor::Scalar<int64_t>(-2)}, {{"Tidx", MakeAttr(DType::kInt64)}});
  EXPECT_EQ(Ints(down[0]), (std::vector<int64_t>{3, 1}));
  auto f = RunOp("Range", {Tensor::Scalar<float>(0), Tensor::Scalar<float>(1),
                         Tensor::Scalar<float>(0.25f)}, {{"Tidx", MakeAttr(DType::kFloat)}});
  EXPECT_EQ(Floats(f[0]), (std::vector<float>{0, 0.25f, 0.5f, 0.75f}));
  auto d = RunOp("Range", {Tensor::Scalar<double>(1), Tensor::Scalar<double>(2),
                         Tensor::Scalar<double>(0.4)}, {{"Tidx", MakeAttr(DType::kDouble)}});
  EXPECT_EQ(d[0].NumElements(), 3);
}

TEST(RangeTest, ZeroOrWrongWayDeltaIsAnError) {
  EXPECT_FALSE(RunError("Range", {Tensor::Scalar<int32_t>(0), Tensor::Scalar<int32_t>(5),
                                  Tensor::Scalar<int32_t>(0)}, {}).ok());
  EXPECT_FALSE(RunError("Range", {Tensor::Scalar<int32_t>(0), Tensor::Scalar<int32_t>(5),
                                  Tensor::Scalar<int32_t>(-1)}, {}).ok());
  // 2^62 elements would never fit in memory.
  EXPECT_FALSE(RunError("Range", {Tensor::Scalar<int64_t>(0),
                                  Tensor::Scalar<int64_t>(int64_t{1} << 62),
                                  Tensor::Scalar<int64_t>(1)}, {{"Tidx", MakeAttr(DType::kInt64)}})
                   .ok());
}

TEST(ZerosOnesLikeTest, KeepShapeAndDType) {
  Tensor x = I64({5, 6, 7}, {3});
  auto z = RunOp("ZerosLike", {x}, {{"T", MakeAttr(DType::kInt64)}});
  EXPECT_EQ(Ints(z[0]), (std::vector<int64_t>{0, 0, 0}));
  auto o = RunOp("OnesLike", {x}, {{"T", MakeAttr(DType::kInt64)}});
  EXPECT_EQ(Ints(o[0]), (std::vector<int64_t>{1, 1, 1}));
  Tensor h(DType::kHalf, Shape({2}));
  auto oh = RunOp("OnesLike", {h}, {{"T", MakeAttr(DType::kHalf)}});
  EXPECT_EQ(HalfToFloat(oh[0].data<uint16_t>()[1]), 1.0f);
}

TEST(LinSpaceTest, EndsExactlyAtStopAndOneValueIsStart) {
  auto out = RunSingleOp("LinSpace", {Tensor::Scalar<float>(10), Tensor::Scalar<float>(12), Tensor::Scalar<int32_t>(3)},
                         {{"T", MakeAttr(DType::kFloat)}});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_TRUE(TensorsEqual((*out)[0], Tensor::FromVector<float>({10, 11, 12})));
  auto one = RunSingleOp("LinSpace", {Tensor::Scalar<float>(5), Tensor::Scalar<float>(9), Tensor::Scalar<int32_t>(1)},
                         {{"T", MakeAttr(DType::kFloat)}});
  ASSERT_TRUE(one.ok());
  EXPECT_TRUE(TensorsEqual((*one)[0], Tensor::FromVector<float>({5})));
  EXPECT_FALSE(RunSingleOp("LinSpace", {Tensor::Scalar<float>(0), Tensor::Scalar<float>(1), Tensor::Scalar<int32_t>(0)},
                           {{"T", MakeAttr(DType::kFloat)}}).ok());
}

TEST(EmptyTest, AllocatesZerosOfTheShape) {
  auto out = RunSingleOp("Empty", {Tensor::FromVector<int32_t>({2, 0, 3})}, {{"dtype", MakeAttr(DType::kInt64)}});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ((*out)[0].shape(), Shape({2, 0, 3}));
  TFHOST_EXPECT_ERROR(RunSingleOp("Empty", {Tensor::FromVector<int32_t>({-1})}, {{"dtype", MakeAttr(DType::kFloat)}}), StatusCode::kInvalidArgument,
                      "shape: dimension -1 is negative; expected a fully known shape");
}

}  // namespace
}  // namespace tfhost::ops::array
