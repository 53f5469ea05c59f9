#include "base/dtype.h"
#include "base/test_status.h"

#include <cmath>
#include <limits>

#include <gtest/gtest.h>

namespace tfhost {
namespace {

TEST(DTypeTest, HalfRoundTripsEveryFiniteHalfValue) {
  for (uint32_t bits = 0; bits < 0x10000; ++bits) {
    uint16_t h = static_cast<uint16_t>(bits);
    if ((h & 0x7c00) == 0x7c00) continue;  // inf/nan checked below
    EXPECT_EQ(FloatToHalf(HalfToFloat(h)), h) << std::hex << bits;
  }
}

TEST(DTypeTest, HalfKnownValuesAndRounding) {
  EXPECT_EQ(HalfToFloat(0x3c00), 1.0f);
  EXPECT_EQ(HalfToFloat(0xc000), -2.0f);
  EXPECT_EQ(HalfToFloat(0x0001), std::ldexp(1.0f, -24));  // smallest subnormal
  EXPECT_EQ(FloatToHalf(65504.0f), 0x7bff);
  EXPECT_EQ(FloatToHalf(1e6f), 0x7c00);  // overflow to inf
  EXPECT_EQ(FloatToHalf(-std::numeric_limits<float>::infinity()), 0xfc00);
  EXPECT_TRUE(std::isnan(HalfToFloat(FloatToHalf(std::nanf("")))));
  // 1 + 2^-11 is halfway between 1 and the next half; ties go to even (1).
  EXPECT_EQ(FloatToHalf(1.0f + std::ldexp(1.0f, -11)), 0x3c00);
  EXPECT_EQ(FloatToHalf(1.0f + 3 * std::ldexp(1.0f, -11)), 0x3c02);
}

TEST(DTypeTest, BFloat16RoundsToNearestEven) {
  EXPECT_EQ(FloatToBFloat16(1.0f), 0x3f80);
  EXPECT_EQ(BFloat16ToFloat(0x3f80), 1.0f);
  // 1 + 2^-8 is a tie between 0x3f80 and 0x3f81: even wins.
  EXPECT_EQ(FloatToBFloat16(1.0f + std::ldexp(1.0f, -8)), 0x3f80);
  EXPECT_EQ(FloatToBFloat16(1.0f + 3 * std::ldexp(1.0f, -8)), 0x3f82);
  EXPECT_TRUE(std::isnan(BFloat16ToFloat(FloatToBFloat16(std::nanf("")))));
}

TEST(DTypeTest, RefTypesFoldOntoBaseTypes) {
  EXPECT_EQ(BaseType(101), DType::kFloat);
  EXPECT_EQ(BaseType(120), DType::kResource);
  EXPECT_EQ(BaseType(9), DType::kInt64);
}

TEST(DTypeTest, ParsesTensorFlowAndNumpyNames) {
  EXPECT_EQ(*ParseDType("DT_FLOAT"), DType::kFloat);
  EXPECT_EQ(*ParseDType("float32"), DType::kFloat);
  EXPECT_EQ(*ParseDType("float16"), DType::kHalf);
  EXPECT_EQ(*ParseDType("int64"), DType::kInt64);
  auto bad = ParseDType("float33");
  TFHOST_ASSERT_ERROR(bad, StatusCode::kInvalidArgument,
                      "unknown dtype 'float33' (expected e.g. float32, int64, DT_STRING)");
}

}  // namespace
}  // namespace tfhost
