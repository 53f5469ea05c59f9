#include "loaders/onnx/onnx_tensor.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "base/test_status.h"
#include "base/test_temp_dir.h"

namespace tfhost::loaders::onnx {
namespace {

namespace fs = std::filesystem;
using ::onnx::TensorProto;

TensorProto Proto(int32_t type, std::vector<int64_t> dims) {
  TensorProto t;
  t.set_data_type(type);
  for (int64_t d : dims) t.add_dims(d);
  return t;
}

TEST(OnnxTensorTest, NarrowTypesComeFromInt32Data) {
  TensorProto t = Proto(TensorProto::INT8, {3});
  for (int v : {-3, 0, 7}) t.add_int32_data(v);
  auto x = DecodeTensor(t, "", "t");
  ASSERT_TRUE(x.ok()) << x.status().ToString();
  EXPECT_TRUE(TensorsEqual(*x, Tensor::FromVector<int8_t>({-3, 0, 7})));

  TensorProto h = Proto(TensorProto::FLOAT16, {2});
  h.add_int32_data(0x3c00);  // 1.0
  h.add_int32_data(0xc000);  // -2.0
  auto y = DecodeTensor(h, "", "h");
  ASSERT_TRUE(y.ok()) << y.status().ToString();
  EXPECT_EQ(y->dtype(), DType::kHalf);
  EXPECT_EQ(HalfToFloat(y->data<uint16_t>()[1]), -2.0f);
}

TEST(OnnxTensorTest, ScalarWithoutDimsHasOneElement) {
  TensorProto t = Proto(TensorProto::INT64, {});
  t.add_int64_data(-9);
  auto x = DecodeTensor(t, "", "t");
  ASSERT_TRUE(x.ok()) << x.status().ToString();
  EXPECT_TRUE(TensorsEqual(*x, Tensor::Scalar<int64_t>(-9)));
}

TEST(OnnxTensorTest, RawBoolBytesBecomeBools) {
  TensorProto t = Proto(TensorProto::BOOL, {3});
  t.set_raw_data(std::string("\x01\x00\x02", 3));
  auto x = DecodeTensor(t, "", "t");
  ASSERT_TRUE(x.ok()) << x.status().ToString();
  EXPECT_TRUE(TensorsEqual(*x, Tensor::FromVector<bool>({true, false, true})));
}

TEST(OnnxTensorTest, EmptyTensorNeedsNoData) {
  auto x = DecodeTensor(Proto(TensorProto::FLOAT, {0, 4}), "", "t");
  ASSERT_TRUE(x.ok()) << x.status().ToString();
  EXPECT_EQ(x->shape(), Shape({0, 4}));
}

TEST(OnnxTensorTest, NegativeDimensionIsRefused) {
  TFHOST_EXPECT_ERROR(DecodeTensor(Proto(TensorProto::FLOAT, {2, -1}), "", "initializer 'w'"),
                      StatusCode::kInvalidArgument, "initializer 'w' has a negative dimension -1");
}

TEST(OnnxTensorTest, HugeDimsWithoutDataFailBeforeAllocating) {
  TensorProto t = Proto(TensorProto::FLOAT, {1 << 30, 1 << 30});
  t.set_raw_data("abcd");
  TFHOST_EXPECT_ERROR(DecodeTensor(t, "", "w"), StatusCode::kInvalidArgument, "w has 4 bytes of raw_data");
}

TEST(OnnxTensorTest, ExternalOffsetThatIsNotANumberIsRefused) {
  tfhost::testing::TempDir dir("onnx_tensor");
  TensorProto t = Proto(TensorProto::FLOAT, {1});
  t.set_data_location(TensorProto::EXTERNAL);
  auto* e = t.add_external_data();
  e->set_key("location");
  e->set_value("w.bin");
  e = t.add_external_data();
  e->set_key("offset");
  e->set_value("12abc");
  TFHOST_EXPECT_ERROR(DecodeTensor(t, dir.path(), "w"), StatusCode::kInvalidArgument,
                      "w: external_data 'offset' is '12abc'; expected a non-negative integer");
}

TEST(OnnxTensorTest, SymlinkLeadingOutOfTheModelFolderIsRefused) {
  tfhost::testing::TempDir dir("onnx_tensor");
  fs::create_directories(dir.Sub("model"));
  std::ofstream(dir.Sub("outside.bin")) << "1234";
  fs::create_symlink(dir.Sub("outside.bin"), dir.Sub("model/link.bin"));
  TFHOST_EXPECT_ERROR(ResolveExternalPath(dir.Sub("model"), "link.bin", "w"), StatusCode::kInvalidArgument,
                      "leads outside the model's folder");
  std::ofstream(dir.Sub("model/in.bin")) << "1234";
  auto ok = ResolveExternalPath(dir.Sub("model"), "sub/../in.bin", "w");
  ASSERT_TRUE(ok.ok()) << ok.status().ToString();
  EXPECT_EQ(fs::path(*ok).filename(), "in.bin");
}

TEST(OnnxTensorTest, TypeNamesCoverTheFormatsTable) {
  EXPECT_EQ(OnnxTypeName(1), "FLOAT");
  EXPECT_EQ(OnnxTypeName(16), "BFLOAT16");
  EXPECT_EQ(OnnxTypeName(99), "type 99");
  EXPECT_EQ(DTypeFromOnnx(7), DType::kInt64);
  EXPECT_EQ(DTypeFromOnnx(19), DType::kInvalid);
}

}  // namespace
}  // namespace tfhost::loaders::onnx
