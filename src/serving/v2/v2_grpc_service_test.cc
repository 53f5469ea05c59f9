#include "serving/v2/v2_grpc_service.h"

#include <gtest/gtest.h>

#include <cstring>

#include "serving/grpc/grpc_server.h"
#include "serving/v2/v2_test_models.h"

namespace tfhost::serving::v2 {
namespace {

// The real GrpcServer on a free port, called through the generated stub.
class V2GrpcServiceTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(server_.status.ok()) << server_.status.ToString();
    GrpcServerOptions options;
    options.address = "127.0.0.1";
    options.port = 0;
    options.server_version = "4.5";
    auto started = GrpcServer::Start(options, server_.core.get());
    ASSERT_TRUE(started.ok()) << started.status().ToString();
    grpc_ = std::move(*started);
    auto channel = grpc::CreateChannel("127.0.0.1:" + std::to_string(grpc_->port()), grpc::InsecureChannelCredentials());
    stub_ = inference::GRPCInferenceService::NewStub(channel);
  }

  inference::ModelInferRequest Fp32(const std::string& version, std::vector<float> values, std::vector<int64_t> shape) {
    inference::ModelInferRequest r;
    r.set_model_name("echo_fp32");
    r.set_model_version(version);
    auto* in = r.add_inputs();
    in->set_name("x");
    in->set_datatype("FP32");
    for (int64_t d : shape) in->add_shape(d);
    r.add_raw_input_contents(std::string(reinterpret_cast<const char*>(values.data()), values.size() * 4));
    return r;
  }

  testing::EchoServer server_;
  std::unique_ptr<GrpcServer> grpc_;
  std::unique_ptr<inference::GRPCInferenceService::Stub> stub_;
};

TEST_F(V2GrpcServiceTest, HealthAndMetadata) {
  grpc::ClientContext c1, c2, c3, c4, c5;
  inference::ServerLiveResponse live;
  ASSERT_TRUE(stub_->ServerLive(&c1, {}, &live).ok());
  EXPECT_TRUE(live.live());
  inference::ServerReadyResponse ready;
  ASSERT_TRUE(stub_->ServerReady(&c2, {}, &ready).ok());
  EXPECT_TRUE(ready.ready());
  inference::ServerMetadataResponse server;
  ASSERT_TRUE(stub_->ServerMetadata(&c3, {}, &server).ok());
  EXPECT_EQ(server.name(), "tfhost");
  EXPECT_EQ(server.version(), "4.5");
  inference::ModelMetadataRequest mreq;
  mreq.set_name("echo_bytes");
  inference::ModelMetadataResponse meta;
  ASSERT_TRUE(stub_->ModelMetadata(&c4, mreq, &meta).ok());
  EXPECT_EQ(meta.inputs(0).datatype(), "BYTES");
  EXPECT_EQ(meta.platform(), "tensorflow_savedmodel");
  inference::ModelReadyRequest rreq;
  rreq.set_name("nope");
  inference::ModelReadyResponse rres;
  grpc::Status missing = stub_->ModelReady(&c5, rreq, &rres);
  EXPECT_EQ(missing.error_code(), grpc::StatusCode::NOT_FOUND);
  EXPECT_EQ(missing.error_message(), "Could not find any versions of model nope");
}

TEST_F(V2GrpcServiceTest, ModelInferWithRawContents) {
  grpc::ClientContext context;
  inference::ModelInferResponse response;
  grpc::Status st = stub_->ModelInfer(&context, Fp32("1", {1.5f, -2.f}, {1, 2}), &response);
  ASSERT_TRUE(st.ok()) << st.error_message();
  EXPECT_EQ(response.model_version(), "1");
  ASSERT_EQ(response.raw_output_contents_size(), 1);
  std::vector<float> back(2);
  std::memcpy(back.data(), response.raw_output_contents(0).data(), 8);
  EXPECT_EQ(back, (std::vector<float>{1.5f, -2.f}));
}

TEST_F(V2GrpcServiceTest, ErrorsCarryTheirCodesAndTexts) {
  {
    grpc::ClientContext context;
    inference::ModelInferResponse response;
    auto r = Fp32("", {1, 2}, {1, 2});
    r.set_model_name("nope");
    grpc::Status st = stub_->ModelInfer(&context, r, &response);
    EXPECT_EQ(st.error_code(), grpc::StatusCode::NOT_FOUND);
    EXPECT_EQ(st.error_message(), "Servable not found for request: Latest(nope)");
  }
  {
    grpc::ClientContext context;
    inference::ModelInferResponse response;
    grpc::Status st = stub_->ModelInfer(&context, Fp32("", {1, 2}, {2}), &response);
    EXPECT_EQ(st.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
    EXPECT_EQ(st.error_message(), "input 'x': expected shape [?,2] but got [2] (model 'echo_fp32' version 2 signature "
                                  "'serving_default'; ? is any size)");
  }
  {
    grpc::ClientContext context;
    inference::ModelInferResponse response;
    auto r = Fp32("", {1, 2, 3}, {1, 2});
    grpc::Status st = stub_->ModelInfer(&context, r, &response);
    EXPECT_EQ(st.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
    EXPECT_EQ(st.error_message(),
              "model 'echo_fp32': input 'x': shape [1,2] of FP32 needs 8 bytes (2 x 4) but the binary data holds 12");
  }
  {
    grpc::ClientContext context;
    inference::RepositoryModelLoadRequest load;
    load.set_repository_name("other");
    load.set_model_name("echo_fp32");
    inference::RepositoryModelLoadResponse response;
    grpc::Status st = stub_->RepositoryModelLoad(&context, load, &response);
    EXPECT_EQ(st.error_code(), grpc::StatusCode::NOT_FOUND);
    EXPECT_EQ(st.error_message(), "unknown model repository 'other': tfhost serves one, named \"\"");
  }
  grpc::ClientContext context;
  inference::ModelInferResponse response;
  EXPECT_TRUE(stub_->ModelInfer(&context, Fp32("", {1, 2}, {1, 2}), &response).ok()) << "still serving";
}

TEST_F(V2GrpcServiceTest, RepositoryUnloadLoadAndIndex) {
  {
    grpc::ClientContext context;
    inference::RepositoryModelUnloadRequest unload;
    unload.set_model_name("echo_int8");
    inference::RepositoryModelUnloadResponse response;
    ASSERT_TRUE(stub_->RepositoryModelUnload(&context, unload, &response).ok());
  }
  {
    grpc::ClientContext context;
    inference::RepositoryIndexRequest request;
    request.set_ready(true);
    inference::RepositoryIndexResponse index;
    ASSERT_TRUE(stub_->RepositoryIndex(&context, request, &index).ok());
    for (const auto& m : index.models()) EXPECT_NE(m.name(), "echo_int8");
    EXPECT_EQ(index.models_size(), static_cast<int>(testing::EchoDTypes().size()));  // 13 models, fp32 twice
  }
  grpc::ClientContext context;
  inference::RepositoryModelLoadRequest load;
  load.set_model_name("echo_int8");
  inference::RepositoryModelLoadResponse response;
  ASSERT_TRUE(stub_->RepositoryModelLoad(&context, load, &response).ok());
  EXPECT_TRUE(server_.core->GetServable(ModelSpecFor("echo_int8", "", "")).ok());
}

}  // namespace
}  // namespace tfhost::serving::v2
