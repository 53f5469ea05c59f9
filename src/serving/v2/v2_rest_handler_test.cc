#include "serving/v2/v2_rest_handler.h"

#include <gtest/gtest.h>

#include <future>

#include "serving/rest/json_tensor_codec.h"
#include "serving/v2/v2_test_models.h"

namespace tfhost::serving::v2 {
namespace {

class V2RestHandlerTest : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_TRUE(server_.status.ok()) << server_.status.ToString(); }

  // Through RestApiHandler, as `tfhost serve` calls it.
  RestResponse Call(std::string_view method, std::string_view path, std::string body = "",
                    RestHeaders headers = {}) {
    std::promise<RestResponse> answer;
    rest_.HandleAsync(method, path, headers, std::move(body), [&answer](RestResponse r) { answer.set_value(std::move(r)); });
    return answer.get_future().get();
  }

  testing::EchoServer server_;
  RestApiOptions options_{"/monitoring/prometheus/metrics", "9.9"};
  RestApiHandler rest_{server_.core.get(), options_};
};

TEST_F(V2RestHandlerTest, HealthAndServerMetadata) {
  EXPECT_EQ(Call("GET", "/v2/health/live").body, "{\"live\": true}");
  RestResponse ready = Call("GET", "/v2/health/ready");
  EXPECT_EQ(ready.status, 200);
  RestResponse meta = Call("GET", "/v2");
  EXPECT_EQ(meta.status, 200);
  EXPECT_EQ(meta.body, R"({"name": "tfhost", "version": "9.9", "extensions": ["binary_tensor_data", "model_repository"]})");
  rest_.SetDraining(true);
  RestResponse draining = Call("GET", "/v2/health/ready");
  EXPECT_EQ(draining.status, 400);
  EXPECT_EQ(draining.body, "{\"ready\": false}");
}

TEST_F(V2RestHandlerTest, ModelMetadataAndReadiness) {
  RestResponse meta = Call("GET", "/v2/models/echo_int8/versions/1");
  EXPECT_EQ(meta.status, 200);
  EXPECT_EQ(meta.body, R"({"name": "echo_int8", "versions": ["1"], "platform": "tensorflow_savedmodel", "inputs": )"
                       R"([{"name": "x", "datatype": "INT8", "shape": [-1,2]}], "outputs": [{"name": "y", "datatype": )"
                       R"("INT8", "shape": [-1,2]}]})");
  RestResponse ready = Call("GET", "/v2/models/echo_fp32/versions/stable/ready");
  EXPECT_EQ(ready.status, 200);
  EXPECT_EQ(ready.body, R"({"name": "echo_fp32", "ready": true})");
  RestResponse unknown = Call("GET", "/v2/models/nope/ready");
  EXPECT_EQ(unknown.status, 404);
  EXPECT_EQ(unknown.body, R"({"error": "Could not find any versions of model nope"})");
  RestResponse version = Call("GET", "/v2/models/echo_fp32/versions/7");
  EXPECT_EQ(version.status, 404);
  EXPECT_EQ(version.body, R"j({"error": "Servable not found for request: Specific(echo_fp32, 7)"})j");
  // Triton's model configuration, which perf_analyzer and Triton's clients read first.
  RestResponse config = Call("GET", "/v2/models/echo_int8/config");
  EXPECT_EQ(config.status, 200);
  EXPECT_EQ(config.body, R"({"name": "echo_int8", "platform": "tensorflow_savedmodel", "max_batch_size": 0, "input": )"
                         R"([{"name": "x", "data_type": "TYPE_INT8", "dims": [-1,2]}], "output": [{"name": "y", )"
                         R"("data_type": "TYPE_INT8", "dims": [-1,2]}]})");
  EXPECT_EQ(Call("GET", "/v2/models/nope/config").status, 404);
  RestResponse route = Call("GET", "/v2/models/echo_fp32/stats");
  EXPECT_EQ(route.status, 404);
  EXPECT_NE(route.body.find("Not found: GET /v2/models/echo_fp32/stats"), std::string::npos);
}

TEST_F(V2RestHandlerTest, JsonInferAnswersJson) {
  RestResponse r = Call("POST", "/v2/models/echo_fp32/versions/1/infer",
                        R"({"id": "7", "inputs": [{"name": "x", "shape": [1, 2], "datatype": "FP32", "data": [1.5, 2]}]})");
  EXPECT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(r.content_type, "application/json");
  EXPECT_TRUE(r.headers.empty());
  EXPECT_EQ(r.body, R"({"model_name": "echo_fp32", "model_version": "1", "id": "7", "outputs": [{"name": "y", )"
                    R"("datatype": "FP32", "shape": [1,2], "data": [1.5,2.0]}]})");
}

TEST_F(V2RestHandlerTest, BinaryInferAnswersBinaryWithHeaderLength) {
  std::string json = R"({"inputs": [{"name": "x", "shape": [1, 2], "datatype": "UINT16", )"
                     R"("parameters": {"binary_data_size": 4}}], "parameters": {"binary_data_output": true}})";
  RestResponse r = Call("POST", "/v2/models/echo_uint16/infer", json + std::string("\x01\x00\xff\xff", 4),
                        {{"inference-header-content-length", std::to_string(json.size())}});
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(r.content_type, "application/octet-stream");
  ASSERT_EQ(r.headers.size(), 1u);
  EXPECT_EQ(r.headers[0].first, kInferenceHeaderContentLength);
  size_t length = std::stoul(r.headers[0].second);
  EXPECT_EQ(r.body.substr(length), std::string("\x01\x00\xff\xff", 4));
  EXPECT_EQ(r.body.substr(0, length),
            R"({"model_name": "echo_uint16", "model_version": "1", "outputs": [{"name": "y", "datatype": "UINT16", )"
            R"("shape": [1,2], "parameters": {"binary_data_size": 4}}]})");
}

TEST_F(V2RestHandlerTest, BadRequestsAre4xxNamingTheCulpritAndTheServerKeepsServing) {
  struct Case {
    std::string path, body;
    RestHeaders headers;
    int status;
    std::string error;
  };
  std::string json = R"({"inputs": [{"name": "x", "shape": [1, 2], "datatype": "FP32", "parameters": {"binary_data_size": 8}}]})";
  const std::string length = std::to_string(json.size());
  std::vector<Case> cases = {
      {"/v2/models/echo_fp32/infer", json + "1234", {{"Inference-Header-Content-Length", length}}, 400,
       "model 'echo_fp32': input 'x': binary_data_size is 8 bytes but only 4 bytes of binary data remain in the body "
       "(truncated request?)"},
      {"/v2/models/echo_fp32/infer", json + "12345678", {{"Inference-Header-Content-Length", "99999"}}, 400,
       "model 'echo_fp32': Inference-Header-Content-Length is 99999 bytes but the request body holds only " +
           std::to_string(json.size() + 8)},
      {"/v2/models/echo_fp32/infer", json + "12345678", {{"Inference-Header-Content-Length", "99999999999999999999999"}},
       400, "Inference-Header-Content-Length must be the JSON header's length in bytes, got '99999999999999999999999'"},
      {"/v2/models/echo_fp32/infer", R"({"inputs": [{"name": "x", "shape": [1, 2], "datatype": "INT32", "data": [1, 2]}]})",
       {}, 400,
       "input 'x': expected datatype FP32 but got INT32 (model 'echo_fp32' version 2 signature 'serving_default')"},
      {"/v2/models/echo_fp32/infer", R"({"inputs": [{"name": "x", "shape": [2], "datatype": "FP32", "data": [1, 2]}]})",
       {}, 400,
       "input 'x': expected shape [?,2] but got [2] (model 'echo_fp32' version 2 signature 'serving_default'; ? is any "
       "size)"},
      {"/v2/models/echo_fp32/infer", R"({"inputs": [{"name": "x", "shape": [1, 2], "datatype": "FP32", "data": [1]}]})",
       {}, 400, "model 'echo_fp32': input 'x': shape [1,2] needs 2 values but \"data\" holds 1"},
      {"/v2/models/nope/infer", R"({"inputs": []})", {}, 404, "Servable not found for request: Latest(nope)"},
      {"/v2/models/echo_fp32/versions/3/infer", R"({"inputs": []})", {}, 404,
       "Servable not found for request: Specific(echo_fp32, 3)"},
      {"/v2/models/echo_fp32/infer", "{", {}, 400,
       "model 'echo_fp32': JSON Parse error: Missing a name for object member. at offset: 1"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.body.substr(0, 60));
    RestResponse r = Call("POST", c.path, c.body, c.headers);
    EXPECT_EQ(r.status, c.status) << r.body;
    EXPECT_EQ(r.body, MakeJsonError(c.error));
  }
  RestResponse good = Call("POST", "/v2/models/echo_fp32/infer",
                           R"({"inputs": [{"name": "x", "shape": [1, 2], "datatype": "FP32", "data": [1, 2]}]})");
  EXPECT_EQ(good.status, 200) << good.body;
}

TEST_F(V2RestHandlerTest, MetricsCountV2RequestsLikeV1) {
  ASSERT_EQ(Call("POST", "/v2/models/echo_int32/infer",
                 R"({"inputs": [{"name": "x", "shape": [1, 2], "datatype": "INT32", "data": [1, 2]}]})")
                .status,
            200);
  RestResponse metrics = rest_.Handle("GET", "/monitoring/prometheus/metrics", "");
  EXPECT_NE(metrics.body.find(":tensorflow:serving:request_count{model_name=\"echo_int32\",status=\"OK\"} 1"),
            std::string::npos)
      << metrics.body;
  EXPECT_NE(metrics.body.find("model_name=\"echo_int32\",API=\"predict\",entrypoint=\"REST\""), std::string::npos);
}

TEST_F(V2RestHandlerTest, RepositoryIndexUnloadAndLoad) {
  RestResponse index = Call("POST", "/v2/repository/index", R"({"ready": true})");
  EXPECT_EQ(index.status, 200);
  EXPECT_NE(index.body.find(R"({"name": "echo_bool", "version": "1", "state": "READY"})"), std::string::npos)
      << index.body;
  EXPECT_EQ(Call("POST", "/v2/repository/models/echo_bool/unload").status, 200);
  EXPECT_EQ(Call("GET", "/v2/models/echo_bool/ready").status, 404);
  RestResponse after = Call("POST", "/v2/repository/index", "");
  EXPECT_NE(after.body.find(R"({"name": "echo_bool", "state": "UNAVAILABLE", "reason": "unloaded"})"),
            std::string::npos)
      << after.body;
  EXPECT_EQ(Call("POST", "/v2/repository/models/echo_bool/load").status, 200);
  EXPECT_EQ(Call("GET", "/v2/models/echo_bool/ready").status, 200);
  RestResponse unknown = Call("POST", "/v2/repository/models/nope/load");
  EXPECT_EQ(unknown.status, 404);
  EXPECT_NE(unknown.body.find("model 'nope' is not in the model repository"), std::string::npos);
  RestResponse config = Call("POST", "/v2/repository/models/echo_bool/load", R"({"parameters": {"config": "{}"}})");
  EXPECT_EQ(config.status, 400);
  EXPECT_NE(config.body.find("with parameter 'config'"), std::string::npos);
}

TEST(V2RestRoutesTest, OwnsOnlyV2Paths) {
  EXPECT_TRUE(V2RestHandler::Owns("/v2"));
  EXPECT_TRUE(V2RestHandler::Owns("/v2/health/live"));
  EXPECT_FALSE(V2RestHandler::Owns("/v20"));
  EXPECT_FALSE(V2RestHandler::Owns("/v1/models"));
}

TEST(V2RestRoutesTest, InferenceHeaderLengthIsParsedCaseInsensitively) {
  EXPECT_EQ(**InferenceHeaderLength({{"INFERENCE-HEADER-CONTENT-LENGTH", "12"}}), 12u);
  EXPECT_FALSE(InferenceHeaderLength({{"Content-Length", "12"}})->has_value());
  auto bad = InferenceHeaderLength({{"Inference-Header-Content-Length", "-3"}});
  EXPECT_EQ(bad.status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(bad.status().message(), "Inference-Header-Content-Length must be the JSON header's length in bytes, got '-3'");
}

}  // namespace
}  // namespace tfhost::serving::v2
