#include "ops/math/cast_op.h"

#include <cmath>
#include <limits>

#include "ops/math/math_test_util.h"

namespace tfhost::ops::math {
namespace {

using math_test::F32;
using math_test::I32;
using math_test::RunOp;
using math_test::RunOpError;
using math_test::Values;

ir::AttrMap CastAttrs(DType src, DType dst) {
  return {{"SrcT", MakeAttr(src)}, {"DstT", MakeAttr(dst)}};
}

TEST(CastOpTest, FloatToIntTruncatesTowardZero) {
  Tensor y = RunOp("Cast", {F32({1.9f, -1.9f, 0.5f, -0.5f}, {4})}, CastAttrs(DType::kFloat, DType::kInt32));
  ASSERT_EQ(y.dtype(), DType::kInt32);
  EXPECT_EQ(Values<int32_t>(y), (std::vector<int32_t>{1, -1, 0, 0}));
}

TEST(CastOpTest, FloatToIntSaturatesAndMapsNaNToZero) {
  float nan = std::numeric_limits<float>::quiet_NaN();
  Tensor y = RunOp("Cast", {F32({1e20f, -1e20f, nan}, {3})}, CastAttrs(DType::kFloat, DType::kInt32));
  EXPECT_EQ(Values<int32_t>(y), (std::vector<int32_t>{std::numeric_limits<int32_t>::max(),
                                                      std::numeric_limits<int32_t>::min(), 0}));
  Tensor u = RunOp("Cast", {F32({-3.0f}, {1})}, CastAttrs(DType::kFloat, DType::kUInt8));
  EXPECT_EQ(Values<uint8_t>(u), (std::vector<uint8_t>{0}));
}

TEST(CastOpTest, NumbersToBoolAreNonZeroTests) {
  Tensor y = RunOp("Cast", {F32({0, -2, 0.1f}, {3})}, CastAttrs(DType::kFloat, DType::kBool));
  EXPECT_EQ(Values<bool>(y), (std::vector<bool>{false, true, true}));
  Tensor back = RunOp("Cast", {y}, CastAttrs(DType::kBool, DType::kInt64));
  EXPECT_EQ(Values<int64_t>(back), (std::vector<int64_t>{0, 1, 1}));
}

TEST(CastOpTest, Int64ToInt32Wraps) {
  Tensor x = Tensor::FromVector<int64_t>({(int64_t{1} << 32) + 5, -7});
  Tensor y = RunOp("Cast", {x}, CastAttrs(DType::kInt64, DType::kInt32));
  EXPECT_EQ(Values<int32_t>(y), (std::vector<int32_t>{5, -7}));
}

TEST(CastOpTest, HalfRoundTripIsExactForRepresentableValues) {
  Tensor x = F32({0.5f, -2.0f, 65504.0f, 6.103515625e-05f}, {4});
  Tensor h = RunOp("Cast", {x}, CastAttrs(DType::kFloat, DType::kHalf));
  ASSERT_EQ(h.dtype(), DType::kHalf);
  Tensor back = RunOp("Cast", {h}, CastAttrs(DType::kHalf, DType::kFloat));
  EXPECT_EQ(Values<float>(back), Values<float>(x));
}

TEST(CastOpTest, FloatToHalfRoundsToNearestEven) {
  // 1 + 2^-11 lies halfway between half values 1 and 1 + 2^-10: ties to even (1).
  Tensor h = RunOp("Cast", {F32({1.0f + 0.00048828125f}, {1})}, CastAttrs(DType::kFloat, DType::kHalf));
  EXPECT_EQ(HalfToFloat(h.data<uint16_t>()[0]), 1.0f);
}

TEST(CastOpTest, BFloat16BothWays) {
  Tensor b = RunOp("Cast", {I32({3, -256}, {2})}, CastAttrs(DType::kInt32, DType::kBFloat16));
  ASSERT_EQ(b.dtype(), DType::kBFloat16);
  Tensor back = RunOp("Cast", {b}, CastAttrs(DType::kBFloat16, DType::kInt32));
  EXPECT_EQ(Values<int32_t>(back), (std::vector<int32_t>{3, -256}));
}

TEST(CastOpTest, TruncateDropsLowBitsForBFloat16) {
  // 1.00390625 * (1 + tiny) rounds up to 1.0078125 but truncates to 1.0.
  float v = 1.0f + 0.00390625f + 0.0001f;
  ir::AttrMap attrs = CastAttrs(DType::kFloat, DType::kBFloat16);
  Tensor rounded = RunOp("Cast", {F32({v}, {1})}, attrs);
  attrs["Truncate"] = MakeAttr(true);
  Tensor truncated = RunOp("Cast", {F32({v}, {1})}, attrs);
  EXPECT_EQ(BFloat16ToFloat(rounded.data<uint16_t>()[0]), 1.0078125f);
  EXPECT_EQ(BFloat16ToFloat(truncated.data<uint16_t>()[0]), 1.0f);
}

TEST(CastOpTest, StringCastIsAnError) {
  Status st = RunOpError("Cast", {Tensor::StringScalar("1")}, CastAttrs(DType::kString, DType::kInt32));
  EXPECT_NE(st.message().find("string"), std::string::npos) << st.message();
}

TEST(CastOpTest, SameDTypeSharesTheBuffer) {
  Tensor x = F32({1, 2}, {2});
  auto y = CastTensor(x, DType::kFloat);
  ASSERT_TRUE(y.ok());
  EXPECT_TRUE(y->SharesBufferWith(x));
}

}  // namespace
}  // namespace tfhost::ops::math
