#include "ir/tensor_proto.h"
#include "base/test_status.h"

#include <gtest/gtest.h>

namespace tfhost::ir {
namespace {

tensorflow::TensorProto Proto(tensorflow::DataType dtype, std::vector<int64_t> dims) {
  tensorflow::TensorProto p;
  p.set_dtype(dtype);
  for (auto d : dims) p.mutable_tensor_shape()->add_dim()->set_size(d);
  return p;
}

TEST(TensorProtoTest, SingleTypedValueFillsTheWholeShape) {
  auto p = Proto(tensorflow::DT_FLOAT, {2, 2});
  p.add_float_val(0.5f);
  auto t = TensorFromProto(p);
  ASSERT_TRUE(t.ok());
  for (int i = 0; i < 4; ++i) EXPECT_EQ(t->data<float>()[i], 0.5f);
}

TEST(TensorProtoTest, LastValueRepeatsWhenFewerValuesThanElements) {
  auto p = Proto(tensorflow::DT_INT32, {4});
  p.add_int_val(1);
  p.add_int_val(7);
  auto t = TensorFromProto(p);
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(*t->ToInt64Vector(), (std::vector<int64_t>{1, 7, 7, 7}));
}

TEST(TensorProtoTest, TensorContentWinsAndMustMatchTheSize) {
  auto p = Proto(tensorflow::DT_FLOAT, {2});
  float values[2] = {1.5f, -2.0f};
  p.set_tensor_content(std::string(reinterpret_cast<char*>(values), 8));
  p.add_float_val(9.0f);
  auto t = TensorFromProto(p);
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(t->data<float>()[1], -2.0f);
  p.set_tensor_content(std::string(7, '\0'));
  auto bad = TensorFromProto(p);
  TFHOST_ASSERT_ERROR(bad, StatusCode::kInvalidArgument, "tensor_content has 7 bytes but DT_FLOAT[2] needs 8");
}

TEST(TensorProtoTest, HalfValuesAreBitPatterns) {
  auto p = Proto(tensorflow::DT_HALF, {1});
  p.add_half_val(0x3c00);
  auto t = TensorFromProto(p);
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(HalfToFloat(t->data<uint16_t>()[0]), 1.0f);
}

TEST(TensorProtoTest, StringTensorContentUsesVarintLengths) {
  auto p = Proto(tensorflow::DT_STRING, {2});
  p.set_tensor_content(std::string("\x02\x03hiabc", 7));
  auto t = TensorFromProto(p);
  ASSERT_TRUE(t.ok()) << t.status().ToString();
  EXPECT_EQ(t->strings()[0], "hi");
  EXPECT_EQ(t->strings()[1], "abc");
  p.set_tensor_content(std::string("\x02\x09hiabc", 7));
  TFHOST_EXPECT_ERROR(TensorFromProto(p), StatusCode::kInvalidArgument,
                      "DT_STRING tensor_content is shorter than its declared lengths");
}

TEST(TensorProtoTest, RoundTripKeepsDtypeShapeAndValues) {
  for (const Tensor& t : {Tensor::FromVector<float>({1, 2, 3}, Shape({3, 1})), Tensor::Scalar<int64_t>(-5),
                          Tensor::StringScalar("x"), Tensor::FromVector<bool>({true, false})}) {
    tensorflow::TensorProto p;
    TensorToProto(t, &p);
    auto back = TensorFromProto(p);
    ASSERT_TRUE(back.ok());
    EXPECT_TRUE(TensorsEqual(t, *back)) << t.DebugString();
  }
}

TEST(TensorProtoTest, HugeDeclaredShapeIsRejectedBeforeAllocating) {
  auto p = Proto(tensorflow::DT_FLOAT, {1 << 30, 1 << 30, 1 << 30});
  TFHOST_EXPECT_ERROR(TensorFromProto(p), StatusCode::kInvalidArgument,
                      "TensorProto shape: shape [1073741824,1073741824,1073741824] has more than 1099511627776 elements");
}

}  // namespace
}  // namespace tfhost::ir
