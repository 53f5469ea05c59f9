#include "serving/v2/v2_datatype.h"

#include <gtest/gtest.h>

#include "serving/v2/v2_test_models.h"

namespace tfhost::serving::v2 {
namespace {

TEST(V2DatatypeTest, EveryV2DatatypeMapsBothWays) {
  for (DType dtype : testing::EchoDTypes()) {
    auto name = DatatypeName(dtype);
    ASSERT_TRUE(name.has_value()) << DTypeName(dtype);
    EXPECT_EQ(DatatypeFromName(*name), dtype);
  }
  EXPECT_EQ(DatatypeName(DType::kHalf), "FP16");
  EXPECT_EQ(DatatypeName(DType::kBFloat16), "BF16");
  EXPECT_EQ(DatatypeName(DType::kString), "BYTES");
  EXPECT_FALSE(DatatypeName(DType::kComplex64).has_value());
  EXPECT_EQ(DatatypeForMessage(DType::kComplex64), "DT_COMPLEX64");
  EXPECT_FALSE(DatatypeFromName("fp32").has_value());  // the protocol spells them in upper case
  EXPECT_FALSE(DatatypeFromName("FLOAT").has_value());
}

TEST(V2DatatypeTest, FixedSizeRoundTripIsLittleEndianRowMajor) {
  Tensor t = Tensor::FromVector(std::vector<int32_t>{1, -2, 0x01020304}, Shape({3}));
  std::string bytes;
  AppendBinary(t, &bytes);
  ASSERT_EQ(bytes.size(), 12u);
  EXPECT_EQ(BinaryByteSize(t), 12u);
  EXPECT_EQ(bytes.substr(8), std::string("\x04\x03\x02\x01", 4));
  auto back = TensorFromBinary(bytes, DType::kInt32, {3}, "input 'x'");
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_TRUE(TensorsEqual(*back, t));
}

TEST(V2DatatypeTest, BytesAreLengthPrefixed) {
  Tensor t(DType::kString, Shape({2}));
  t.strings()[0] = "ab";
  t.strings()[1] = std::string("\0z\xff", 3);
  std::string bytes;
  AppendBinary(t, &bytes);
  EXPECT_EQ(bytes, std::string("\x02\0\0\0ab\x03\0\0\0\0z\xff", 13));
  EXPECT_EQ(BinaryByteSize(t), 13u);
  auto back = TensorFromBinary(bytes, DType::kString, {2}, "input 's'");
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_TRUE(TensorsEqual(*back, t));
}

TEST(V2DatatypeTest, BoolBytesAreZeroOrOne) {
  auto t = TensorFromBinary(std::string("\0\x01\x07", 3), DType::kBool, {3}, "input 'b'");
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(t->data<bool>()[0], false);
  EXPECT_EQ(t->data<bool>()[1], true);
  EXPECT_EQ(t->data<bool>()[2], true);
  std::string bytes;
  AppendBinary(*t, &bytes);
  EXPECT_EQ(bytes, std::string("\0\x01\x01", 3));
}

TEST(V2DatatypeTest, WrongByteCountNamesShapeDatatypeAndBothSizes) {
  auto t = TensorFromBinary(std::string(12, '\0'), DType::kFloat, {2, 2}, "input 'x'");
  EXPECT_EQ(t.status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(t.status().message(),
            "input 'x': shape [2,2] of FP32 needs 16 bytes (4 x 4) but the binary data holds 12");
}

TEST(V2DatatypeTest, TruncatedOrPaddedBytesAreRefused) {
  auto no_prefix =
      TensorFromBinary(std::string("\x01\0\0\0a\x01\0\0\0b\x01\0\0", 13), DType::kString, {3}, "input 's'");
  EXPECT_EQ(no_prefix.status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(no_prefix.status().message(),
            "input 's': BYTES element 2 of 3 has no 4-byte length prefix: the binary data ends at byte 13");
  auto few = TensorFromBinary(std::string("\x01\0\0\0a\x01\0", 7), DType::kString, {2}, "input 's'");
  EXPECT_EQ(few.status().message(),
            "input 's': shape [2] of BYTES needs 2 length-prefixed elements (at least 2 * 4 bytes) but the binary "
            "data holds 7 bytes");
  auto long_element = TensorFromBinary(std::string("\x09\0\0\0abc", 7), DType::kString, {1}, "input 's'");
  EXPECT_EQ(long_element.status().message(),
            "input 's': BYTES element 0 declares 9 bytes but only 3 remain in the binary data");
  auto extra = TensorFromBinary(std::string("\x01\0\0\0abc", 7), DType::kString, {1}, "input 's'");
  EXPECT_EQ(extra.status().message(),
            "input 's': the binary data holds 7 bytes but the 1 BYTES element(s) of shape [1] use 5");
  auto huge = TensorFromBinary(std::string(8, '\0'), DType::kString, {1000000000}, "input 's'");
  EXPECT_EQ(huge.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(huge.status().message().find("needs 1000000000 length-prefixed elements"), std::string::npos);
}

TEST(V2DatatypeTest, ShapesAreChecked) {
  EXPECT_EQ(ShapeText({2, -1}), "[2,-1]");
  EXPECT_EQ(*ElementCount({}, "x"), 1);
  EXPECT_EQ(*ElementCount({2, 0, 5}, "x"), 0);
  auto negative = ElementCount({2, -1}, "input 'x'");
  EXPECT_EQ(negative.status().message(), "input 'x': shape [2,-1] has a negative dimension (expected sizes >= 0)");
  auto overflow = ElementCount({1LL << 40, 1LL << 40}, "input 'x'");
  EXPECT_EQ(overflow.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(overflow.status().message().find("more elements than fit in int64"), std::string::npos);
}

}  // namespace
}  // namespace tfhost::serving::v2
