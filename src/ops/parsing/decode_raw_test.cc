#include <gtest/gtest.h>

#include "ops/run_single_op.h"
#include "base/test_status.h"

namespace tfhost::ops {
namespace {

TEST(DecodeRawTest, ReinterpretsBytesInEitherByteOrder) {
  Tensor bytes(DType::kString, Shape({2}));
  bytes.strings()[0] = std::string("\x01\x00\x02\x01", 4);
  bytes.strings()[1] = std::string("\xff\xff\x00\x80", 4);
  auto le = RunSingleOp("DecodeRaw", {bytes}, {{"out_type", MakeAttr(DType::kInt16)}});
  ASSERT_TRUE(le.ok()) << le.status().ToString();
  EXPECT_TRUE(TensorsEqual((*le)[0], Tensor::FromVector<int16_t>({1, 0x0102, -1, -32768}, Shape({2, 2}))));
  auto be = RunSingleOp("DecodeRaw", {bytes}, {{"out_type", MakeAttr(DType::kInt16)}, {"little_endian", MakeAttr(false)}});
  ASSERT_TRUE(be.ok());
  EXPECT_TRUE(TensorsEqual((*be)[0], Tensor::FromVector<int16_t>({0x0100, 0x0201, -1, 0x0080}, Shape({2, 2}))));
  auto u8 = RunSingleOp("DecodeRaw", {Tensor::StringScalar("AB")}, {{"out_type", MakeAttr(DType::kUInt8)}});
  ASSERT_TRUE(u8.ok());
  EXPECT_TRUE(TensorsEqual((*u8)[0], Tensor::FromVector<uint8_t>({65, 66})));
  // Unequal lengths or a length that is not a multiple of the element size.
  bytes.strings()[1] = "abc";
  TFHOST_EXPECT_ERROR(RunSingleOp("DecodeRaw", {bytes}, {{"out_type", MakeAttr(DType::kUInt8)}}), StatusCode::kInvalidArgument,
                      "DecodeRaw requires input strings to all be the same size, but element 1 has size 3 != 4");
  TFHOST_EXPECT_ERROR(RunSingleOp("DecodeRaw", {Tensor::StringScalar("abc")}, {{"out_type", MakeAttr(DType::kInt16)}}), StatusCode::kInvalidArgument,
                      "Input to DecodeRaw has length 3 that is not a multiple of 2, the size of int16");
}

}  // namespace
}  // namespace tfhost::ops
