// RequestBudget's accounting, and the limits of ServerCoreOptions::inference
// reaching every front end: gRPC Predict (ServerCore::Predict), REST
// :predict and :classify (RestApiHandler) and v2 Infer (V2Service). Each
// limit is crossed by one value and met exactly.
#include "serving/servable/request_limits.h"

#include <gtest/gtest.h>

#include "base/test_status.h"
#include "base/test_temp_dir.h"
#include "loaders/savedmodel/demo_models.h"
#include "serving/model_manager/model_config.h"
#include "serving/rest/rest_api_handler.h"
#include "serving/server_core.h"
#include "serving/v2/v2_service.h"
#include "serving/v2/v2_test_models.h"

namespace tfhost::serving {
namespace {

RequestLimits Limits(int64_t elements, int64_t bytes, int64_t string_bytes) {
  RequestLimits l;
  l.max_elements = elements;
  l.max_bytes = bytes;
  l.max_string_bytes = string_bytes;
  return l;
}

// ---- RequestBudget ----

TEST(RequestBudgetTest, ElementsOfAllInputsUpToTheLimitPassAndOneMoreNamesTheInputAndTheFlag) {
  RequestBudget b(Limits(10, 1000, 100));
  EXPECT_TRUE(b.AddTensor("x", DType::kFloat, 6).ok());
  EXPECT_TRUE(b.AddTensor("y", DType::kFloat, 4).ok());
  TFHOST_EXPECT_ERROR(b.AddTensor("z", DType::kInt8, 1), StatusCode::kInvalidArgument,
                      "input 'z': the request's input tensors hold 11 values with this one's 1, more than the 10 "
                      "one request may send (--max_request_elements=10)");
}

TEST(RequestBudgetTest, BytesCountEachDtypesSizeAndEachStringsLength) {
  RequestBudget b(Limits(1000, 40, 100));
  EXPECT_TRUE(b.AddTensor("x", DType::kFloat, 8).ok());  // 32 bytes
  EXPECT_TRUE(b.AddTensor("s", DType::kString, 2).ok());
  EXPECT_TRUE(b.AddString("s", 0, 4).ok());
  EXPECT_TRUE(b.AddString("s", 1, 4).ok());  // 40: at the limit
  EXPECT_EQ(b.bytes(), 40u);
  TFHOST_EXPECT_ERROR(b.AddTensor("d", DType::kDouble, 1), StatusCode::kInvalidArgument,
                      "input 'd': the request's input tensors need 48 bytes with this one, more than the 40 one "
                      "request may send (--max_request_tensor_mb)");
  RequestBudget mib(Limits(1 << 30, 2 << 20, 100));
  TFHOST_EXPECT_ERROR(mib.AddTensor("x", DType::kFloat, (512 << 10) + 1), StatusCode::kInvalidArgument,
                      "more than the 2097152 one request may send (--max_request_tensor_mb=2)");
}

TEST(RequestBudgetTest, StringOfMaxStringBytesPassesAndOneByteLongerIsRefused) {
  RequestBudget b(Limits(1000, 1 << 20, 16));
  EXPECT_TRUE(b.AddString("image", 0, 16).ok());
  TFHOST_EXPECT_ERROR(b.AddString("image", 3, 17), StatusCode::kInvalidArgument,
                      "input 'image': string value 3 is 17 bytes, longer than the 16 one string may be "
                      "(--max_request_string_bytes=16)");
}

TEST(RequestBudgetTest, TensorProtoIsChargedFromItsShapeNotFromTheValuesItCarries) {
  // 10^12 floats promised by one value (TensorFlow would repeat it).
  tensorflow::TensorProto p;
  p.set_dtype(tensorflow::DT_FLOAT);
  p.mutable_tensor_shape()->add_dim()->set_size(1000000);
  p.mutable_tensor_shape()->add_dim()->set_size(1000000);
  p.add_float_val(1.0f);
  RequestBudget b{RequestLimits{}};
  TFHOST_EXPECT_ERROR(b.AddTensorProto("x", p), StatusCode::kInvalidArgument,
                      "input 'x': the request's input tensors hold 1000000000000 values");
}

TEST(RequestBudgetTest, TheRepeatedLastStringOfATensorProtoCountsOncePerValue) {
  tensorflow::TensorProto p;
  p.set_dtype(tensorflow::DT_STRING);
  p.mutable_tensor_shape()->add_dim()->set_size(1000);
  p.add_string_val("abcdefghij");  // 1000 x 10 bytes once filled
  RequestBudget at(Limits(1000, 10000, 10));
  EXPECT_TRUE(at.AddTensorProto("s", p).ok());
  RequestBudget under(Limits(1000, 9999, 10));
  TFHOST_EXPECT_ERROR(under.AddTensorProto("s", p), StatusCode::kInvalidArgument,
                      "input 's': the request's input tensors need 10000 bytes with this one, more than the 9999");
}

TEST(RequestBudgetTest, StringLengthsInTensorContentAreChecked) {
  tensorflow::TensorProto p;
  p.set_dtype(tensorflow::DT_STRING);
  p.mutable_tensor_shape()->add_dim()->set_size(2);
  // TensorFlow's layout: every length (a varint) first, then the bytes.
  p.set_tensor_content(std::string("\x03\x05" "abchello"));
  RequestBudget at(Limits(10, 100, 5));
  EXPECT_TRUE(at.AddTensorProto("s", p).ok());
  EXPECT_EQ(at.bytes(), 8u);
  RequestBudget under(Limits(10, 100, 4));
  TFHOST_EXPECT_ERROR(under.AddTensorProto("s", p), StatusCode::kInvalidArgument,
                      "input 's': string value 1 is 5 bytes, longer than the 4");
}

// ---- front ends ----

// Echo models (v2_test_models.h): echo_fp32 and echo_bytes take x [?, 2].
class RequestLimitsFrontEndTest : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_TRUE(server_.status.ok()) << server_.status.ToString(); }

  static tensorflow::serving::PredictRequest GrpcRequest(int rows) {
    tensorflow::serving::PredictRequest r;
    r.mutable_model_spec()->set_name("echo_fp32");
    tensorflow::TensorProto& x = (*r.mutable_inputs())["x"];
    x.set_dtype(tensorflow::DT_FLOAT);
    x.mutable_tensor_shape()->add_dim()->set_size(rows);
    x.mutable_tensor_shape()->add_dim()->set_size(2);
    for (int i = 0; i < 2 * rows; ++i) x.add_float_val(static_cast<float>(i));
    return r;
  }

  // At most 4 values and 8-byte strings per request.
  v2::testing::EchoServer server_{Limits(4, 1 << 20, 8)};
};

TEST_F(RequestLimitsFrontEndTest, GrpcPredictOverTheElementLimitIsInvalidArgumentAndTheNextRequestIsServed) {
  tensorflow::serving::PredictResponse response;
  TFHOST_EXPECT_ERROR(server_.core->Predict(GrpcRequest(3), &response), StatusCode::kInvalidArgument,
                      "input 'x': the request's input tensors hold 6 values with this one's 6, more than the 4 one "
                      "request may send (--max_request_elements=4)");
  ASSERT_TRUE(server_.core->Predict(GrpcRequest(2), &response).ok());
  EXPECT_EQ(response.outputs().at("y").float_val_size(), 4);
}

TEST_F(RequestLimitsFrontEndTest, RestPredictOverALimitGets400NamingTheFlagAndTheNextRequestIsServed) {
  RestApiHandler rest(server_.core.get(), RestApiOptions{});
  RestResponse over = rest.Handle("POST", "/v1/models/echo_fp32:predict", R"({"instances": [[1, 2], [3, 4], [5, 6]]})");
  EXPECT_EQ(over.status, 400) << over.body;
  EXPECT_NE(over.body.find("input 'x': the request's input tensors hold 6 values"), std::string::npos) << over.body;
  EXPECT_NE(over.body.find("(--max_request_elements=4)"), std::string::npos) << over.body;
  RestResponse at = rest.Handle("POST", "/v1/models/echo_fp32:predict", R"({"instances": [[1, 2], [3, 4]]})");
  EXPECT_EQ(at.status, 200) << at.body;

  RestResponse long_string =
      rest.Handle("POST", "/v1/models/echo_bytes:predict", R"({"instances": [["123456789", "a"]]})");
  EXPECT_EQ(long_string.status, 400) << long_string.body;
  EXPECT_NE(long_string.body.find("string value 0 is 9 bytes, longer than the 8 one string may be "
                                  "(--max_request_string_bytes=8)"),
            std::string::npos)
      << long_string.body;
  RestResponse at_string =
      rest.Handle("POST", "/v1/models/echo_bytes:predict", R"({"instances": [["12345678", "a"]]})");
  EXPECT_EQ(at_string.status, 200) << at_string.body;
}

TEST_F(RequestLimitsFrontEndTest, V2InferOverTheElementLimitIsInvalidArgumentOnBothProtocols) {
  // REST and gRPC v2 requests both reach V2Service once decoded.
  v2::V2Service service(server_.core.get());
  auto request = [](int rows) {
    v2::InferRequest r;
    r.model_name = "echo_fp32";
    r.inputs.push_back({"x", Tensor::FromVector(std::vector<float>(2 * rows, 1.0f), Shape({rows, 2}))});
    return r;
  };
  TFHOST_EXPECT_ERROR(service.Infer(request(3), Entrypoint::kGrpc), StatusCode::kInvalidArgument,
                      "input 'x': the request's input tensors hold 6 values with this one's 6, more than the 4 one "
                      "request may send (--max_request_elements=4)");
  EXPECT_TRUE(service.Infer(request(2), Entrypoint::kRest).ok());
}

TEST(RequestLimitsClassifyTest, SerializedExamplesLongerThanTheStringLimitAreRefused) {
  testing::TempDir dir("tfhost_request_limits");
  ASSERT_TRUE(loaders::WriteDemoModels(dir.path()).ok());
  ServerCoreOptions o;
  o.model_server_config = SingleModelConfig("half_plus_two", dir.Sub("half_plus_two"));
  o.manager.file_system_poll_wait_seconds = 0;
  o.manager.max_num_load_retries = 0;
  o.manager.log_sink = [](const std::string&) {};
  o.inference.request_limits = Limits(100, 1 << 20, 64);
  auto core = ServerCore::Create(std::move(o));
  ASSERT_TRUE(core.ok()) << core.status().ToString();
  RestApiHandler rest(core->get(), RestApiOptions{});
  RestResponse small = rest.Handle("POST", "/v1/models/half_plus_two:classify",
                                   R"({"signature_name": "classify_x_to_y", "examples": [{"x": 1.0}]})");
  EXPECT_EQ(small.status, 200) << small.body;
  RestResponse big = rest.Handle(
      "POST", "/v1/models/half_plus_two:classify",
      R"({"signature_name": "classify_x_to_y", "examples": [{"x": 1.0, "note": ")" + std::string(100, 'n') + R"("}]})");
  EXPECT_EQ(big.status, 400) << big.body;
  EXPECT_NE(big.body.find("string value 0 is"), std::string::npos) << big.body;
  EXPECT_NE(big.body.find("(--max_request_string_bytes=64)"), std::string::npos) << big.body;
}

}  // namespace
}  // namespace tfhost::serving
