#include "serving/v2/v2_grpc_codec.h"

#include <gtest/gtest.h>

#include <cstring>

#include "serving/v2/v2_datatype.h"

namespace tfhost::serving::v2 {
namespace {

inference::ModelInferRequest Request(const std::string& datatype, std::vector<int64_t> shape) {
  inference::ModelInferRequest r;
  r.set_model_name("m");
  r.set_model_version("2");
  r.set_id("i");
  auto* in = r.add_inputs();
  in->set_name("x");
  in->set_datatype(datatype);
  for (int64_t d : shape) in->add_shape(d);
  return r;
}

TEST(V2GrpcCodecTest, RawInputContentsDecodeEveryInput) {
  auto proto = Request("INT16", {2});
  proto.add_raw_input_contents(std::string("\x02\x00\xfe\xff", 4));
  (*proto.mutable_parameters())["signature_name"].set_string_param("second");
  proto.add_outputs()->set_name("b");
  auto r = InferRequestFromProto(proto);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->model_name, "m");
  EXPECT_EQ(r->model_version, "2");
  EXPECT_EQ(r->id, "i");
  EXPECT_EQ(std::get<std::string>(r->parameters.at("signature_name")), "second");
  EXPECT_TRUE(TensorsEqual(r->inputs[0].tensor, Tensor::FromVector(std::vector<int16_t>{2, -2})));
  ASSERT_EQ(r->outputs.size(), 1u);
  EXPECT_EQ(r->outputs[0].name, "b");
}

TEST(V2GrpcCodecTest, TypedContentsDecodeAndRangeCheck) {
  auto proto = Request("UINT8", {3});
  for (uint32_t v : {0u, 7u, 255u}) proto.mutable_inputs(0)->mutable_contents()->add_uint_contents(v);
  auto r = InferRequestFromProto(proto);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_TRUE(TensorsEqual(r->inputs[0].tensor, Tensor::FromVector(std::vector<uint8_t>{0, 7, 255})));

  proto.mutable_inputs(0)->mutable_contents()->set_uint_contents(2, 256);
  auto range = InferRequestFromProto(proto);
  EXPECT_EQ(range.status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(range.status().message(), "input 'x': uint_contents[2] = 256 is out of range for UINT8");

  auto bytes = Request("BYTES", {1});
  bytes.mutable_inputs(0)->mutable_contents()->add_bytes_contents("hello");
  auto s = InferRequestFromProto(bytes);
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s->inputs[0].tensor.strings()[0], "hello");
}

TEST(V2GrpcCodecTest, ErrorsNameTheInputAndCounts) {
  auto count = Request("FP32", {2, 2});
  count.mutable_inputs(0)->mutable_contents()->add_fp32_contents(1);
  EXPECT_EQ(InferRequestFromProto(count).status().message(),
            "input 'x': shape [2,2] needs 4 values but fp32_contents holds 1");
  auto half = Request("FP16", {1});
  EXPECT_EQ(InferRequestFromProto(half).status().message(),
            "input 'x': datatype FP16 has no typed contents field; send it in raw_input_contents");
  auto raw = Request("FP32", {2});
  raw.add_raw_input_contents("1234");
  EXPECT_EQ(InferRequestFromProto(raw).status().message(),
            "input 'x': shape [2] of FP32 needs 8 bytes (2 x 4) but the binary data holds 4");
  raw.add_raw_input_contents("5678");
  EXPECT_EQ(InferRequestFromProto(raw).status().message(),
            "raw_input_contents has 2 entries but the request has 1 inputs (expected one entry per input, in input "
            "order)");
  auto type = Request("STRING", {1});
  EXPECT_NE(InferRequestFromProto(type).status().message().find("input 'x': unknown datatype \"STRING\""),
            std::string::npos);
}

TEST(V2GrpcCodecTest, ResponsesUseRawOutputContents) {
  InferResponse response{"m", "4", "id", {}};
  response.outputs.push_back({"y", Tensor::FromVector(std::vector<double>{0.25}, Shape({1, 1})), false});
  inference::ModelInferResponse proto;
  InferResponseToProto(response, &proto);
  EXPECT_EQ(proto.model_name(), "m");
  EXPECT_EQ(proto.model_version(), "4");
  EXPECT_EQ(proto.id(), "id");
  ASSERT_EQ(proto.outputs_size(), 1);
  EXPECT_EQ(proto.outputs(0).datatype(), "FP64");
  EXPECT_EQ(proto.outputs(0).shape_size(), 2);
  ASSERT_EQ(proto.raw_output_contents_size(), 1);
  double back = 0;
  ASSERT_EQ(proto.raw_output_contents(0).size(), sizeof(double));
  std::memcpy(&back, proto.raw_output_contents(0).data(), sizeof(double));
  EXPECT_EQ(back, 0.25);
}

}  // namespace
}  // namespace tfhost::serving::v2
