#include "serving/v2/v2_json.h"

#include <gtest/gtest.h>

#include "serving/v2/v2_datatype.h"

namespace tfhost::serving::v2 {
namespace {

StatusOr<InferRequest> Parse(std::string_view body, std::optional<size_t> json_length = std::nullopt) {
  return ParseInferRequest(body, json_length, "m", "");
}

void ExpectError(const StatusOr<InferRequest>& r, const std::string& message) {
  EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(r.status().message(), message);
}

TEST(V2JsonTest, JsonDataFlatOrNestedWithParametersAndOutputs) {
  auto r = Parse(R"({"id": "a1", "parameters": {"signature_name": "second", "binary_data_output": true},
      "inputs": [{"name": "x", "shape": [2, 2], "datatype": "FP32", "data": [[1, 2.5], [3, 4]]},
                 {"name": "s", "shape": [2], "datatype": "BYTES", "data": ["hi", {"b64": "AAE="}]},
                 {"name": "h", "shape": [1], "datatype": "FP16", "data": [0.5]}],
      "outputs": [{"name": "y", "parameters": {"binary_data": true}}, {"name": "z"}]})");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->id, "a1");
  EXPECT_EQ(std::get<std::string>(r->parameters.at("signature_name")), "second");
  EXPECT_TRUE(r->binary_outputs);
  ASSERT_EQ(r->inputs.size(), 3u);
  EXPECT_TRUE(TensorsEqual(r->inputs[0].tensor, Tensor::FromVector(std::vector<float>{1, 2.5, 3, 4}, Shape({2, 2}))));
  EXPECT_EQ(r->inputs[1].tensor.strings()[0], "hi");
  EXPECT_EQ(r->inputs[1].tensor.strings()[1], std::string("\0\x01", 2));
  EXPECT_EQ(r->inputs[2].tensor.dtype(), DType::kHalf);
  EXPECT_EQ(HalfToFloat(r->inputs[2].tensor.data<uint16_t>()[0]), 0.5f);
  ASSERT_EQ(r->outputs.size(), 2u);
  EXPECT_TRUE(r->outputs[0].binary);
  EXPECT_FALSE(r->outputs[1].binary);
}

TEST(V2JsonTest, HalfPrecisionAndBoolFromJson) {
  auto r = Parse(R"({"inputs": [{"name": "b", "shape": [2], "datatype": "BF16", "data": [1.5, -2]},
                                {"name": "t", "shape": [2], "datatype": "BOOL", "data": [true, false]}]})");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_EQ(r->inputs[0].tensor.dtype(), DType::kBFloat16);
  EXPECT_EQ(r->inputs[0].tensor.data<uint16_t>()[0], FloatToBFloat16(1.5f));
  EXPECT_EQ(r->inputs[0].tensor.data<uint16_t>()[1], FloatToBFloat16(-2.0f));
  EXPECT_TRUE(TensorsEqual(r->inputs[1].tensor, Tensor::FromVector(std::vector<bool>{true, false})));
  ExpectError(Parse(R"({"inputs": [{"name": "t", "shape": [1], "datatype": "BOOL", "data": [1]}]})"),
              "JSON Value: 1 not of expected type: bool (at inputs[0].data[0])");
}

TEST(V2JsonTest, BinaryInputsFollowTheJsonHeaderInOrder) {
  std::string json = R"({"inputs": [{"name": "a", "shape": [2], "datatype": "INT16", "parameters": {"binary_data_size": 4}},
      {"name": "b", "shape": [1], "datatype": "BYTES", "parameters": {"binary_data_size": 7}}]})";
  std::string body = json + std::string("\x01\x00\xff\xff", 4) + std::string("\x03\0\0\0abc", 7);
  auto r = Parse(body, json.size());
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_TRUE(TensorsEqual(r->inputs[0].tensor, Tensor::FromVector(std::vector<int16_t>{1, -1})));
  EXPECT_EQ(r->inputs[1].tensor.strings()[0], "abc");
}

TEST(V2JsonTest, BinaryDataErrorsNameTheInputAndSizes) {
  std::string json = R"({"inputs": [{"name": "a", "shape": [2], "datatype": "FP32", "parameters": {"binary_data_size": 8}}]})";
  ExpectError(Parse(json + "1234", json.size()),
              "input 'a': binary_data_size is 8 bytes but only 4 bytes of binary data remain in the body (truncated "
              "request?)");
  ExpectError(Parse(json + "123456789", json.size()),
              "1 bytes of binary data follow the JSON but no input's binary_data_size claims them (binary_data_size "
              "must add up to the body's length minus Inference-Header-Content-Length)");
  ExpectError(Parse(json + "12345678", json.size() + 100),
              "Inference-Header-Content-Length is " + std::to_string(json.size() + 100) +
                  " bytes but the request body holds only " + std::to_string(json.size() + 8));
  ExpectError(Parse(json), "input 'a': binary_data_size is set but the request has no Inference-Header-Content-Length "
                           "header saying where its JSON ends and binary data begins");
  std::string small = R"({"inputs": [{"name": "a", "shape": [2], "datatype": "FP32", "parameters": {"binary_data_size": 4}}]})";
  ExpectError(Parse(small + "1234", small.size()),
              "input 'a': shape [2] of FP32 needs 8 bytes (2 x 4) but the binary data holds 4");
  // A header length that cuts the JSON short is a JSON error, not a crash.
  auto cut = Parse(json + "12345678", 10);
  EXPECT_EQ(cut.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(cut.status().message().find("JSON Parse error"), std::string::npos);
}

TEST(V2JsonTest, MalformedJsonInputsAreNamed) {
  ExpectError(Parse(R"({"inputs": [{"name": "x", "shape": [3], "datatype": "FP32", "data": [1, 2]}]})"),
              "input 'x': shape [3] needs 3 values but \"data\" holds 2");
  ExpectError(Parse(R"({"inputs": [{"name": "x", "shape": [1], "datatype": "FLOAT32", "data": [1]}]})"),
              "input 'x': unknown datatype \"FLOAT32\" (expected one of BOOL, UINT8, UINT16, UINT32, UINT64, INT8, "
              "INT16, INT32, INT64, FP16, BF16, FP32, FP64, BYTES)");
  ExpectError(Parse(R"({"inputs": [{"name": "x", "shape": [1], "datatype": "INT8", "data": [300]}]})"),
              "JSON Value: 300 is out of range for type: int8 (at inputs[0].data[0])");
  ExpectError(Parse(R"({"inputs": [{"name": "x", "shape": [1], "datatype": "INT32", "data": ["a"]}]})"),
              "JSON Value: \"a\" not of expected type: int32 (at inputs[0].data[0])");
  ExpectError(Parse(R"({"inputs": [{"name": "x", "shape": [-1], "datatype": "INT32", "data": []}]})"),
              "inputs[0].shape: expected sizes >= 0 but got -1");
  ExpectError(Parse(R"({"inputs": [{"name": "x", "datatype": "INT32", "data": []}]})"), "inputs[0]: missing \"shape\"");
  ExpectError(Parse(R"({"inputs": [{"name": "x", "shape": [1], "datatype": "INT32"}]})"),
              "input 'x': has neither \"data\" nor a binary_data_size parameter");
  ExpectError(Parse(R"({"inputs": {}})"),
              "the request needs \"inputs\": a list of {\"name\", \"shape\", \"datatype\", \"data\"}");
  ExpectError(Parse(R"({"inputs": [], "outputs": [{"name": "y", "parameters": {"classification": 3}}]})"),
              "output 'y': the classification extension is not supported; request the output tensor itself");
  ExpectError(Parse(R"({"inputs": [], "parameters": {"binary_data_output": "yes"}})"),
              "request.parameters.binary_data_output: expected true or false");
  ExpectError(Parse("[1]"), "JSON Value: the request body is not a JSON object");
}

TEST(V2JsonTest, ResponseJsonAndBinaryOutputs) {
  InferResponse response;
  response.model_name = "m";
  response.model_version = "3";
  response.id = "q";
  response.outputs.push_back({"y", Tensor::FromVector(std::vector<int64_t>{1, 2}, Shape({1, 2})), false});
  EncodedResponse json = WriteInferResponse(response);
  EXPECT_FALSE(json.json_length.has_value());
  EXPECT_EQ(json.body, R"({"model_name": "m", "model_version": "3", "id": "q", "outputs": [{"name": "y", "datatype": )"
                       R"("INT64", "shape": [1,2], "data": [1,2]}]})");
  Tensor s(DType::kString, Shape({1}));
  s.strings()[0] = "ok";
  response.outputs.push_back({"s", s, true});
  EncodedResponse mixed = WriteInferResponse(response);
  ASSERT_TRUE(mixed.json_length.has_value());
  EXPECT_EQ(mixed.body.substr(*mixed.json_length), std::string("\x02\0\0\0ok", 6));
  EXPECT_NE(mixed.body.substr(0, *mixed.json_length)
                .find(R"({"name": "s", "datatype": "BYTES", "shape": [1], "parameters": {"binary_data_size": 6}})"),
            std::string::npos);
}

TEST(V2JsonTest, MetadataDocuments) {
  ModelMetadata m{"m", {"1", "2"}, "tensorflow_savedmodel", {{"x", "FP32", {-1, 2}}}, {{"y", "FP32", {-1, 2}}}};
  EXPECT_EQ(WriteModelMetadata(m),
            R"({"name": "m", "versions": ["1", "2"], "platform": "tensorflow_savedmodel", "inputs": [{"name": "x", )"
            R"("datatype": "FP32", "shape": [-1,2]}], "outputs": [{"name": "y", "datatype": "FP32", "shape": [-1,2]}]})");
  EXPECT_EQ(WriteServerMetadata({"tfhost", "0.1", {"binary_tensor_data"}}),
            R"({"name": "tfhost", "version": "0.1", "extensions": ["binary_tensor_data"]})");
}

TEST(V2JsonTest, RepositoryBodies) {
  EXPECT_FALSE(*ParseRepositoryIndexReady(""));
  EXPECT_TRUE(*ParseRepositoryIndexReady(R"({"ready": true})"));
  EXPECT_EQ(ParseRepositoryIndexReady(R"({"ready": 1})").status().message(), "ready: expected true or false but got 1");
  auto params = ParseRepositoryParameters(R"({"parameters": {"config": "{}"}})");
  ASSERT_TRUE(params.ok());
  EXPECT_EQ(params->count("config"), 1u);
  EXPECT_TRUE(ParseRepositoryParameters(" ")->empty());
}

}  // namespace
}  // namespace tfhost::serving::v2
