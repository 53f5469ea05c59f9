// Small TFLite flatbuffers written with tfhost's own schema, for the
// loader's unit tests: relu(x + bias) as one ADD with a fused activation,
// optionally followed by a second operator of any code, so that each test
// varies one thing (signatures, an unmapped builtin, a custom operator);
// and TestModelWriter, which assembles models of several
// subgraphs operator by operator, for control flow and resources.
// Test-only; not part of the library.
#pragma once

#include <cstring>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "loaders/tflite/tflite_file.h"

namespace tfhost::loaders::tflite {

struct TestModelOptions {
  bool signature_defs = true;   // "predict": in -> x, out -> y (or z)
  int32_t second_code = -1;     // >= 0: operator 1 of this code, y -> z
  const char* custom_code = nullptr;  // with second_code 32 (CUSTOM)
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
  std::vector<flatbuffers::Offset<fb::Tensor>> tensors = {
      fb::CreateTensorDirect(b, &row, fb::TensorType::FLOAT32, 0, "x", 0, false, 0, &any_row),
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

// The bytes of a constant's buffer.
template <typename T>
std::string TestBytes(const std::vector<T>& values) {
  std::string out(values.size() * sizeof(T), '\0');
  if (!values.empty()) std::memcpy(out.data(), values.data(), out.size());
  return out;
}

// TFLite's STRING buffer: count, count + 1 offsets, then the bytes.
inline std::string TestStringBytes(const std::vector<std::string>& values) {
  std::vector<int32_t> header = {static_cast<int32_t>(values.size())};
  int32_t offset = static_cast<int32_t>(4 * (values.size() + 2));
  for (const auto& v : values) {
    header.push_back(offset);
    offset += static_cast<int32_t>(v.size());
  }
  header.push_back(offset);
  std::string out = TestBytes(header);
  for (const auto& v : values) out += v;
  return out;
}

struct TestTensor {
  TestTensor(std::string name, fb::TensorType type, std::vector<int32_t> shape, std::string data = "")
      : name(std::move(name)), type(type), shape(std::move(shape)), data(std::move(data)) {}
  std::string name;
  fb::TensorType type;
  std::vector<int32_t> shape;
  std::string data;  // empty: not a constant
  // Quantized when scale is non-empty: one entry per tensor, or one per
  // slice along quantized_dimension.
  std::vector<float> scale;
  std::vector<int64_t> zero_point;
  int32_t quantized_dimension = 0;
};

struct TestOp {
  TestOp(int32_t code, std::vector<int32_t> inputs, std::vector<int32_t> outputs,
         fb::BuiltinOptions options_type = fb::BuiltinOptions::NONE, flatbuffers::Offset<void> options = 0)
      : code(code), inputs(std::move(inputs)), outputs(std::move(outputs)), options_type(options_type),
        options(options) {}
  int32_t code;
  std::vector<int32_t> inputs, outputs;
  fb::BuiltinOptions options_type;
  flatbuffers::Offset<void> options;  // made with TestModelWriter::b()
  std::string custom_code;            // with code 32 (CUSTOM)
  std::vector<uint8_t> custom_options;
};

struct TestSubgraph {
  std::vector<TestTensor> tensors;
  std::vector<int32_t> inputs, outputs;
  std::vector<TestOp> ops;
};

// Subgraph 0 is served as signature "predict" with the keys given to
// Finish. Options tables are made with b() before the subgraph that uses
// them is added.
class TestModelWriter {
 public:
  TestModelWriter() { buffers_.push_back(fb::CreateBuffer(b_)); }
  flatbuffers::FlatBufferBuilder& b() { return b_; }

  int AddSubgraph(const TestSubgraph& sg) {
    std::vector<flatbuffers::Offset<fb::Tensor>> tensors;
    for (const TestTensor& t : sg.tensors) {
      uint32_t buffer = 0;
      if (!t.data.empty()) {
        b_.ForceVectorAlignment(t.data.size(), sizeof(uint8_t), 16);
        auto data = b_.CreateVector(reinterpret_cast<const uint8_t*>(t.data.data()), t.data.size());
        buffer = static_cast<uint32_t>(buffers_.size());
        buffers_.push_back(fb::CreateBuffer(b_, data));
      }
      flatbuffers::Offset<fb::QuantizationParameters> quant = 0;
      if (!t.scale.empty()) {
        quant = fb::CreateQuantizationParametersDirect(b_, nullptr, nullptr, &t.scale, &t.zero_point,
                                                       t.quantized_dimension);
      }
      tensors.push_back(fb::CreateTensorDirect(b_, &t.shape, t.type, buffer, t.name.c_str(), quant));
    }
    std::vector<flatbuffers::Offset<fb::Operator>> ops;
    for (const TestOp& op : sg.ops) {
      auto [it, added] = opcodes_.emplace(std::make_pair(op.code, op.custom_code), static_cast<uint32_t>(codes_.size()));
      if (added) {
        const int8_t narrow = static_cast<int8_t>(op.code < 127 ? op.code : 127);
        codes_.push_back(fb::CreateOperatorCodeDirect(b_, narrow, op.custom_code.empty() ? nullptr : op.custom_code.c_str(),
                                                      1, op.code));
      }
      ops.push_back(fb::CreateOperatorDirect(b_, it->second, &op.inputs, &op.outputs, op.options_type, op.options,
                                             op.custom_options.empty() ? nullptr : &op.custom_options));
    }
    subgraphs_.push_back(fb::CreateSubGraphDirect(b_, &tensors, &sg.inputs, &sg.outputs, &ops));
    return static_cast<int>(subgraphs_.size()) - 1;
  }

  std::string Finish(const std::vector<std::pair<std::string, uint32_t>>& inputs,
                     const std::vector<std::pair<std::string, uint32_t>>& outputs) {
    std::vector<flatbuffers::Offset<fb::TensorMap>> in, out;
    for (const auto& [key, tensor] : inputs) in.push_back(fb::CreateTensorMapDirect(b_, key.c_str(), tensor));
    for (const auto& [key, tensor] : outputs) out.push_back(fb::CreateTensorMapDirect(b_, key.c_str(), tensor));
    std::vector<flatbuffers::Offset<fb::SignatureDef>> sigs = {
        fb::CreateSignatureDefDirect(b_, &in, &out, "predict", 0)};
    fb::FinishModelBuffer(b_, fb::CreateModelDirect(b_, 3, &codes_, &subgraphs_, nullptr, &buffers_, nullptr,
                                                    nullptr, &sigs));
    return std::string(reinterpret_cast<const char*>(b_.GetBufferPointer()), b_.GetSize());
  }

 private:
  flatbuffers::FlatBufferBuilder b_;
  std::vector<flatbuffers::Offset<fb::Buffer>> buffers_;
  std::vector<flatbuffers::Offset<fb::OperatorCode>> codes_;
  std::map<std::pair<int32_t, std::string>, uint32_t> opcodes_;
  std::vector<flatbuffers::Offset<fb::SubGraph>> subgraphs_;
};

}  // namespace tfhost::loaders::tflite
