// Small TFLite flatbuffers written with tfhost's own schema, for the
// loader's unit tests: relu(x + bias) as one ADD with a fused activation,
// optionally followed by a second operator of any code, so that each test
// varies one thing (signatures, an unmapped builtin, a custom operator, a
// quantized tensor). Test-only; not part of the library.
#pragma once

#include <string>
#include <vector>

#include "loaders/tflite/tflite_file.h"

namespace tfhost::loaders::tflite {

struct TestModelOptions {
  bool signature_defs = true;   // "predict": in -> x, out -> y (or z)
  int32_t second_code = -1;     // >= 0: operator 1 of this code, y -> z
  const char* custom_code = nullptr;  // with second_code 32 (CUSTOM)
  bool quantized_x = false;     // x becomes int8 with a scale
};

// Tensors: 0 "x" [1,3] (shape_signature [-1,3]), 1 "bias" [3] = {1,-2,3},
// 2 "y" [1,3], and 3 "z" with a second operator.
inline std::string BuildTestModel(const TestModelOptions& o = {}) {
  flatbuffers::FlatBufferBuilder b;
  std::vector<flatbuffers::Offset<fb::Buffer>> buffers;
  buffers.push_back(fb::CreateBuffer(b));
  const std::vector<float> bias = {1.0f, -2.0f, 3.0f};
  b.ForceVectorAlignment(bias.size() * sizeof(float), sizeof(uint8_t), 16);
  auto bias_data = b.CreateVector(reinterpret_cast<const uint8_t*>(bias.data()), bias.size() * sizeof(float));
  buffers.push_back(fb::CreateBuffer(b, bias_data));

  const std::vector<int32_t> row = {1, 3}, any_row = {-1, 3}, three = {3};
  flatbuffers::Offset<fb::QuantizationParameters> quant = 0;
  if (o.quantized_x) {
    const std::vector<float> scale = {0.5f};
    const std::vector<int64_t> zero = {0};
    quant = fb::CreateQuantizationParametersDirect(b, nullptr, nullptr, &scale, &zero);
  }
  std::vector<flatbuffers::Offset<fb::Tensor>> tensors = {
      fb::CreateTensorDirect(b, &row, o.quantized_x ? fb::TensorType::INT8 : fb::TensorType::FLOAT32, 0, "x",
                             quant, false, 0, &any_row),
      fb::CreateTensorDirect(b, &three, fb::TensorType::FLOAT32, 1, "bias"),
      fb::CreateTensorDirect(b, &row, fb::TensorType::FLOAT32, 0, "y", 0, false, 0, &any_row),
  };
  std::vector<flatbuffers::Offset<fb::OperatorCode>> codes = {fb::CreateOperatorCode(b, 0, 0, 1, 0)};
  const std::vector<int32_t> add_in = {0, 1}, add_out = {2};
  auto relu = fb::CreateAddOptions(b, fb::ActivationFunctionType::RELU);
  std::vector<flatbuffers::Offset<fb::Operator>> ops = {
      fb::CreateOperatorDirect(b, 0, &add_in, &add_out, fb::BuiltinOptions::AddOptions, relu.Union())};
  int output = 2;
  if (o.second_code >= 0) {
    tensors.push_back(fb::CreateTensorDirect(b, &row, fb::TensorType::FLOAT32, 0, "z"));
    // Codes past the int8 range live only in builtin_code; the byte says 127.
    const int8_t narrow = static_cast<int8_t>(o.second_code < 127 ? o.second_code : 127);
    codes.push_back(fb::CreateOperatorCodeDirect(b, narrow, o.custom_code, 1, o.second_code));
    const std::vector<int32_t> in = {2}, out = {3};
    ops.push_back(fb::CreateOperatorDirect(b, 1, &in, &out));
    output = 3;
  }
  const std::vector<int32_t> inputs = {0}, outputs = {output};
  std::vector<flatbuffers::Offset<fb::SubGraph>> subgraphs = {
      fb::CreateSubGraphDirect(b, &tensors, &inputs, &outputs, &ops, "main")};
  std::vector<flatbuffers::Offset<fb::SignatureDef>> sigs;
  if (o.signature_defs) {
    std::vector<flatbuffers::Offset<fb::TensorMap>> in = {fb::CreateTensorMapDirect(b, "in", 0)};
    std::vector<flatbuffers::Offset<fb::TensorMap>> out = {
        fb::CreateTensorMapDirect(b, "out", static_cast<uint32_t>(output))};
    sigs.push_back(fb::CreateSignatureDefDirect(b, &in, &out, "predict", 0));
  }
  auto model = fb::CreateModelDirect(b, 3, &codes, &subgraphs, "tfhost test model", &buffers, nullptr, nullptr,
                                     o.signature_defs ? &sigs : nullptr);
  fb::FinishModelBuffer(b, model);
  return std::string(reinterpret_cast<const char*>(b.GetBufferPointer()), b.GetSize());
}

}  // namespace tfhost::loaders::tflite
