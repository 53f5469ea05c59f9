// QuantizeLinear / DequantizeLinear: halves round to even, as ONNX defines
// QuantizeLinear (unlike TFLite's quantize), and the scale must be known at
// load.
#include <gtest/gtest.h>

#include "base/test_status.h"
#include "base/test_temp_dir.h"
#include "loaders/onnx/onnx_loader.h"
#include "loaders/onnx/onnx_test_model.h"

namespace tfhost::loaders {
namespace {

using namespace onnx::testing;  // NOLINT: test model builders

::onnx::TensorProto Int8Scalar(const std::string& name, int8_t v) {
  ::onnx::TensorProto t;
  t.set_name(name);
  t.set_data_type(::onnx::TensorProto::INT8);
  t.add_int32_data(v);
  return t;
}

StatusOr<std::map<std::string, Tensor>> RunOnX(const ::onnx::ModelProto& m, std::vector<float> x) {
  tfhost::testing::TempDir dir("onnx_quantize");
  const std::string path = dir.Sub("m.onnx");
  WriteBytes(path, Serialize(m));
  TFHOST_ASSIGN_OR_RETURN(auto model, LoadOnnxModel(path, LoadOptions()));
  return model->RunSignature("serving_default", {{"x", Tensor::FromVector<float>(x, {2, 3})}});
}

// scale 0.5, zero point 1: x / 0.5 = 1, 3, 5, -1, 4.5, 0.5 -> halves to even
// 4 and 0 -> plus 1: 2, 4, 6, 0, 5, 1; dequantized back: (q - 1) * 0.5.
TEST(OnnxQuantizeOpsTest, QuantizeLinearRoundsHalvesToEvenAndDequantizeLinearInvertsIt) {
  ::onnx::ModelProto m = OneNode(Node("QuantizeLinear", {"x", "scale", "zero"}, {"q"}),
                                 {{"y", ::onnx::TensorProto::FLOAT}},
                                 {FloatTensor("scale", {}, {0.5f}), Int8Scalar("zero", 1)});
  *m.mutable_graph()->add_node() = Node("DequantizeLinear", {"q", "scale", "zero"}, {"y"});
  ::onnx::ValueInfoProto q;
  q.set_name("q");
  q.mutable_type()->mutable_tensor_type()->set_elem_type(::onnx::TensorProto::INT8);
  *m.mutable_graph()->add_output() = q;
  auto out = RunOnX(m, {0.5f, 1.5f, 2.5f, -0.5f, 2.25f, 0.25f});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ(out->at("q").dtype(), DType::kInt8);
  EXPECT_EQ(out->at("q").ToDoubleVector(), (std::vector<double>{2, 4, 6, 0, 5, 1}));
  EXPECT_EQ(out->at("y").ToDoubleVector(), (std::vector<double>{0.5, 1.5, 2.5, -0.5, 2, 0}));
}

TEST(OnnxQuantizeOpsTest, AScaleComputedAtRunTimeIsRefusedNamingTheInput) {
  ::onnx::ModelProto m = OneNode(Node("QuantizeLinear", {"x", "x"}, {"y"}), {{"y", ::onnx::TensorProto::UINT8}});
  TFHOST_EXPECT_ERROR(RunOnX(m, {1, 2, 3, 4, 5, 6}).status(), StatusCode::kUnimplemented,
                      "op QuantizeLinear, opset 17): a scale computed at run time (input 1 must be an initializer)");
}

}  // namespace
}  // namespace tfhost::loaders
