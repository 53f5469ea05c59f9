#include "serving/grpc/grpc_server.h"

#include <google/protobuf/util/json_util.h>
#include <google/protobuf/util/message_differencer.h>
#include <grpcpp/grpcpp.h>
#include <gtest/gtest.h>
#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>
#include <unistd.h>

#include <atomic>
#include <condition_variable>
#include <filesystem>
#include <fstream>
#include <future>
#include <map>
#include <mutex>
#include <thread>

#include "base/test_fixtures.h"
#include "base/test_status.h"
#include "base/test_tfserving_models.h"
#include "serving/batching/batching_runner.h"
#include "serving/server_core.h"
#include "serving/serving_test_util.h"
#include "tensorflow_serving/apis/model_service.grpc.pb.h"
#include "tensorflow_serving/apis/prediction_service.grpc.pb.h"

namespace tfhost::serving {
namespace {

namespace fs = std::filesystem;
namespace ts = tensorflow::serving;
using google::protobuf::util::MessageDifferencer;

// TF Serving's test models: the shared fixtures' copies, else the zoo's equivalents.
std::string Model(const std::string& relative) { return tfhost::testing::TfServingModelPath(relative); }
std::string ConfigsDir() { return tfhost::testing::FixturePath("tfserving-configs"); }

using testing::FromJson;
using testing::GateRunner;
using testing::PartiallyEquals;
using testing::ReadText;
using testing::ToJson;

std::unique_ptr<ServerCore> MakeCore(ModelServerConfig config) {
  ServerCoreOptions o;
  o.model_server_config = std::move(config);
  o.manager.file_system_poll_wait_seconds = 0;
  o.manager.max_num_load_retries = 0;
  o.manager.log_sink = [](const std::string&) {};
  auto core = ServerCore::Create(std::move(o));
  EXPECT_TRUE(core.ok()) << core.status().ToString();
  return core.ok() ? std::move(*core) : nullptr;
}

// A ServerCore serving one model behind a GrpcServer on a free loopback port,
// and a real channel to it (unlimited message sizes on the client side, so
// that limits seen in these tests are the server's).
struct Served {
  std::unique_ptr<ServerCore> core;
  std::unique_ptr<GrpcServer> server;
  std::shared_ptr<grpc::Channel> channel;
  std::unique_ptr<ts::PredictionService::Stub> predict;
  std::unique_ptr<ts::ModelService::Stub> model;

  explicit operator bool() const { return server != nullptr; }
};

Served Serve(ModelServerConfig config, GrpcServerOptions options = {}) {
  Served s;
  s.core = MakeCore(std::move(config));
  if (!s.core) return s;
  options.address = "127.0.0.1";
  options.port = 0;
  auto server = GrpcServer::Start(options, s.core.get());
  EXPECT_TRUE(server.ok()) << server.status().ToString();
  if (!server.ok()) return s;
  s.server = std::move(*server);
  grpc::ChannelArguments args;
  args.SetMaxReceiveMessageSize(-1);
  args.SetMaxSendMessageSize(-1);
  s.channel = grpc::CreateCustomChannel("127.0.0.1:" + std::to_string(s.server->port()),
                                        grpc::InsecureChannelCredentials(), args);
  s.predict = ts::PredictionService::NewStub(s.channel);
  s.model = ts::ModelService::NewStub(s.channel);
  return s;
}

Served ServeOne(const std::string& name, const std::string& model_dir, GrpcServerOptions options = {}) {
  return Serve(SingleModelConfig(name, Model(model_dir)), std::move(options));
}

// Every call gets a deadline so that a broken server fails the test instead of hanging it.
std::unique_ptr<grpc::ClientContext> Ctx(int seconds = 30) {
  auto ctx = std::make_unique<grpc::ClientContext>();
  ctx->set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(seconds));
  return ctx;
}

ts::PredictRequest FloatPredict(const std::string& model, const std::vector<float>& values,
                                const std::vector<int64_t>& shape, const std::string& alias = "x") {
  ts::PredictRequest r;
  r.mutable_model_spec()->set_name(model);
  tensorflow::TensorProto& t = (*r.mutable_inputs())[alias];
  t.set_dtype(tensorflow::DT_FLOAT);
  for (int64_t d : shape) t.mutable_tensor_shape()->add_dim()->set_size(d);
  for (float v : values) t.add_float_val(v);
  return r;
}

#define EXPECT_GRPC_OK(status) EXPECT_TRUE((status).ok()) << (status).error_code() << ": " << (status).error_message()
#define ASSERT_GRPC_OK(status) ASSERT_TRUE((status).ok()) << (status).error_code() << ": " << (status).error_message()

TEST(GrpcServerTest, EveryGrpcCaseMatchesOverARealChannel) {
  std::string cases_path = ConfigsDir() + "/derived/grpc_cases.json";
  TFHOST_REQUIRE_FIXTURE(cases_path);
  rapidjson::Document doc;
  doc.Parse(ReadText(cases_path).c_str());
  ASSERT_FALSE(doc.HasParseError());
  int checked = 0;
  for (const auto& c : doc["cases"].GetArray()) {
    std::string model_dir = c["model_dir"].GetString();
    std::string served_as = c["served_as"].GetString();
    std::string rpc = c["rpc"].GetString();
    SCOPED_TRACE(rpc + " on " + model_dir);
    // A fresh server per case: the counter sequence needs a freshly loaded model.
    Served s = ServeOne(served_as, model_dir);
    ASSERT_TRUE(s);
    if (rpc == "Predict") {
      auto req = FromJson<ts::PredictRequest>(ToJson(c["request"]));
      ts::PredictResponse resp;
      grpc::Status st = s.predict->Predict(Ctx().get(), req, &resp);
      ASSERT_GRPC_OK(st);
      EXPECT_TRUE(PartiallyEquals(FromJson<ts::PredictResponse>(ToJson(c["expected"])), resp));
    } else if (rpc == "Regress") {
      auto req = FromJson<ts::RegressionRequest>(ToJson(c["request"]));
      ts::RegressionResponse resp;
      grpc::Status st = s.predict->Regress(Ctx().get(), req, &resp);
      ASSERT_GRPC_OK(st);
      EXPECT_TRUE(PartiallyEquals(FromJson<ts::RegressionResponse>(ToJson(c["expected"])), resp));
    } else if (rpc == "Classify") {
      auto req = FromJson<ts::ClassificationRequest>(ToJson(c["request"]));
      ts::ClassificationResponse resp;
      grpc::Status st = s.predict->Classify(Ctx().get(), req, &resp);
      ASSERT_GRPC_OK(st);
      EXPECT_TRUE(PartiallyEquals(FromJson<ts::ClassificationResponse>(ToJson(c["expected"])), resp));
      ASSERT_EQ(resp.result().classifications_size(), 1);
      EXPECT_EQ(resp.result().classifications(0).classes(0).label(), "");
    } else if (rpc == "MultiInference") {
      auto req = FromJson<ts::MultiInferenceRequest>(ToJson(c["request"]));
      ts::MultiInferenceResponse resp;
      grpc::Status st = s.predict->MultiInference(Ctx().get(), req, &resp);
      ASSERT_GRPC_OK(st);
      EXPECT_TRUE(PartiallyEquals(FromJson<ts::MultiInferenceResponse>(ToJson(c["expected"])), resp));
      EXPECT_EQ(resp.results_size(), 2);
    } else if (rpc == "ModelService.GetModelStatus") {
      auto req = FromJson<ts::GetModelStatusRequest>(ToJson(c["request"]));
      ts::GetModelStatusResponse resp;
      grpc::Status st = s.model->GetModelStatus(Ctx().get(), req, &resp);
      ASSERT_GRPC_OK(st);
      EXPECT_TRUE(PartiallyEquals(FromJson<ts::GetModelStatusResponse>(ToJson(c["expected"])), resp));
      ASSERT_EQ(resp.model_version_status_size(), 1);
      EXPECT_EQ(resp.model_version_status(0).status().error_code(), tensorflow::error::OK);
    } else if (rpc.rfind("Predict (sequence", 0) == 0) {
      for (const auto& step : c["sequence"].GetArray()) {
        ts::PredictRequest req;
        req.mutable_model_spec()->set_name(served_as);
        req.mutable_model_spec()->set_signature_name(step[0].GetString());
        for (const auto& in : step[1].GetObject()) {
          tensorflow::TensorProto& t = (*req.mutable_inputs())[in.name.GetString()];
          t.set_dtype(tensorflow::DT_FLOAT);
          t.add_float_val(static_cast<float>(in.value.GetDouble()));
        }
        ts::PredictResponse resp;
        grpc::Status st = s.predict->Predict(Ctx().get(), req, &resp);
        ASSERT_GRPC_OK(st) << " at " << step[0].GetString();
        ASSERT_EQ(resp.outputs().count("output"), 1u);
        const auto& out = resp.outputs().at("output");
        EXPECT_EQ(out.dtype(), tensorflow::DT_FLOAT);
        EXPECT_EQ(out.tensor_shape().dim_size(), 0);
        ASSERT_EQ(out.float_val_size(), 1);
        EXPECT_FLOAT_EQ(out.float_val(0), static_cast<float>(step[2].GetDouble())) << step[0].GetString();
      }
    } else {
      ADD_FAILURE() << "unknown rpc in grpc_cases.json: " << rpc;
      continue;
    }
    ++checked;
  }
  EXPECT_EQ(checked, static_cast<int>(doc["cases"].Size()));
}

TEST(GrpcServerTest, ErrorsKeepTfServingCodesAndTexts) {
  TFHOST_REQUIRE_TFSERVING_MODEL(Model("saved_model_half_plus_two_cpu"));
  Served s = ServeOne("default", "saved_model_half_plus_two_cpu");
  ASSERT_TRUE(s);
  ts::PredictResponse resp;

  grpc::Status st = s.predict->Predict(Ctx().get(), FloatPredict("half", {1}, {1}), &resp);
  EXPECT_EQ(st.error_code(), grpc::StatusCode::NOT_FOUND);
  EXPECT_EQ(st.error_message(), "Servable not found for request: Latest(half)");

  ts::PredictRequest v999 = FloatPredict("default", {1}, {1});
  v999.mutable_model_spec()->mutable_version()->set_value(999);
  st = s.predict->Predict(Ctx().get(), v999, &resp);
  EXPECT_EQ(st.error_code(), grpc::StatusCode::NOT_FOUND);
  EXPECT_EQ(st.error_message(), "Servable not found for request: Specific(default, 999)");

  ts::PredictRequest label = FloatPredict("default", {1}, {1});
  label.mutable_model_spec()->set_version_label("nolabel");
  st = s.predict->Predict(Ctx().get(), label, &resp);
  EXPECT_EQ(st.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_NE(st.error_message().find("Unrecognized servable version label"), std::string::npos) << st.error_message();

  ts::PredictRequest bad_sig = FloatPredict("default", {1}, {1});
  bad_sig.mutable_model_spec()->set_signature_name("nope");
  st = s.predict->Predict(Ctx().get(), bad_sig, &resp);
  EXPECT_EQ(st.error_code(), grpc::StatusCode::FAILED_PRECONDITION);
  EXPECT_NE(st.error_message().find("Serving signature key \"nope\" not found."), std::string::npos)
      << st.error_message();

  ts::PredictRequest strings;
  strings.mutable_model_spec()->set_name("default");
  auto& t = (*strings.mutable_inputs())["x"];
  t.set_dtype(tensorflow::DT_STRING);
  t.mutable_tensor_shape()->add_dim()->set_size(1);
  t.add_string_val("x");
  st = s.predict->Predict(Ctx().get(), strings, &resp);
  EXPECT_EQ(st.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_NE(st.error_message().find("to be float but string is provided"), std::string::npos) << st.error_message();

  st = s.predict->Predict(Ctx().get(), FloatPredict("default", {1}, {1}, "z"), &resp);
  EXPECT_EQ(st.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_NE(st.error_message().find("input tensor alias not found in signature: z"), std::string::npos);

  st = s.predict->Predict(Ctx().get(), ts::PredictRequest(), &resp);
  EXPECT_EQ(st.error_code(), grpc::StatusCode::INVALID_ARGUMENT);

  // Classify / Regress on a signature of the wrong kind, and with no examples.
  ts::RegressionRequest regress;
  regress.mutable_model_spec()->set_name("default");
  regress.mutable_model_spec()->set_signature_name("regress_x_to_y");
  regress.mutable_input()->mutable_example_list();
  ts::RegressionResponse regress_resp;
  st = s.predict->Regress(Ctx().get(), regress, &regress_resp);
  EXPECT_EQ(st.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_NE(st.error_message().find("Input is empty"), std::string::npos) << st.error_message();

  ts::GetModelMetadataRequest meta;
  meta.mutable_model_spec()->set_name("default");
  ts::GetModelMetadataResponse meta_resp;
  st = s.predict->GetModelMetadata(Ctx().get(), meta, &meta_resp);
  EXPECT_EQ(st.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  meta.add_metadata_field("graph_def");
  st = s.predict->GetModelMetadata(Ctx().get(), meta, &meta_resp);
  EXPECT_EQ(st.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_NE(st.error_message().find("graph_def"), std::string::npos);

  ts::GetModelStatusRequest status_req;
  status_req.mutable_model_spec()->set_name("missing");
  ts::GetModelStatusResponse status_resp;
  st = s.model->GetModelStatus(Ctx().get(), status_req, &status_resp);
  EXPECT_EQ(st.error_code(), grpc::StatusCode::NOT_FOUND);
  EXPECT_NE(st.error_message().find("missing"), std::string::npos) << st.error_message();

  ts::ReloadConfigRequest bad_reload;
  bad_reload.mutable_config()->mutable_custom_model_config();
  ts::ReloadConfigResponse reload_resp;
  st = s.model->HandleReloadConfigRequest(Ctx().get(), bad_reload, &reload_resp);
  EXPECT_EQ(st.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_NE(st.error_message().find("Only ModelConfigList"), std::string::npos) << st.error_message();
}

TEST(GrpcServerTest, MetadataMatchesTheFixtureJson) {
  std::string fixture = ConfigsDir() + "/half_plus_two_model_metadata.json";
  TFHOST_REQUIRE_FIXTURE(fixture);
  TFHOST_REQUIRE_TFSERVING_MODEL(Model("saved_model_half_plus_two_cpu"));
  Served s = ServeOne("default", "saved_model_half_plus_two_cpu");
  ASSERT_TRUE(s);
  ts::GetModelMetadataRequest req;
  req.mutable_model_spec()->set_name("default");
  req.add_metadata_field("signature_def");
  ts::GetModelMetadataResponse resp;
  grpc::Status st = s.predict->GetModelMetadata(Ctx().get(), req, &resp);
  ASSERT_GRPC_OK(st);
  EXPECT_EQ(resp.model_spec().name(), "default");
  EXPECT_EQ(resp.model_spec().version().value(), 123);
  ASSERT_EQ(resp.metadata().count("signature_def"), 1u);
  const auto& any = resp.metadata().at("signature_def");
  EXPECT_EQ(any.type_url(), "type.googleapis.com/tensorflow.serving.SignatureDefMap");
  ts::SignatureDefMap actual;
  ASSERT_TRUE(any.UnpackTo(&actual));
  rapidjson::Document doc;
  doc.Parse(ReadText(fixture).c_str());
  ASSERT_FALSE(doc.HasParseError());
  auto expected = FromJson<ts::SignatureDefMap>(ToJson(doc["metadata"]["signature_def"]));
  MessageDifferencer d;
  std::string report;
  d.ReportDifferencesToString(&report);
  EXPECT_TRUE(d.Compare(expected, actual)) << report;
}

TEST(GrpcServerTest, ReloadConfigOverGrpcAddsAModelAndReportsLoadFailures) {
  std::string two = Model("saved_model_half_plus_two_cpu");
  std::string three = Model("saved_model_half_plus_three");
  TFHOST_REQUIRE_TFSERVING_MODEL(two);
  TFHOST_REQUIRE_TFSERVING_MODEL(three);
  Served s = Serve(SingleModelConfig("two", two));
  ASSERT_TRUE(s);
  ts::ReloadConfigRequest req;
  auto* list = req.mutable_config()->mutable_model_config_list();
  *list->add_config() = SingleModelConfig("two", two).model_config_list().config(0);
  *list->add_config() = SingleModelConfig("three", three).model_config_list().config(0);
  ts::ReloadConfigResponse resp;
  grpc::Status st = s.model->HandleReloadConfigRequest(Ctx(120).get(), req, &resp);
  ASSERT_GRPC_OK(st);
  EXPECT_EQ(resp.status().error_code(), tensorflow::error::OK);
  ts::PredictResponse out;
  st = s.predict->Predict(Ctx().get(), FloatPredict("three", {2.0f}, {1}), &out);
  ASSERT_GRPC_OK(st);
  EXPECT_FLOAT_EQ(out.outputs().at("y").float_val(0), 4.0f);
  EXPECT_EQ(out.model_spec().name(), "three");

  // A model that cannot load: the call fails with the load error; the rest keeps serving.
  *list->add_config() =
      SingleModelConfig("broken", Model("bad_half_plus_two")).model_config_list().config(0);
  st = s.model->HandleReloadConfigRequest(Ctx(120).get(), req, &resp);
  EXPECT_FALSE(st.ok());
  EXPECT_NE(st.error_message().find("\"broken\""), std::string::npos) << st.error_message();
  st = s.predict->Predict(Ctx().get(), FloatPredict("two", {2.0f}, {1}), &out);
  EXPECT_GRPC_OK(st);
}

TEST(GrpcServerTest, RequestOverTheReceiveLimitIsResourceExhausted) {
  TFHOST_REQUIRE_TFSERVING_MODEL(Model("saved_model_half_plus_two_cpu"));
  GrpcServerOptions options;
  options.max_receive_message_bytes = 64 * 1024;
  Served s = ServeOne("default", "saved_model_half_plus_two_cpu", options);
  ASSERT_TRUE(s);
  ts::PredictResponse resp;
  // 8192 floats (~40 KB packed) fit; 32768 (~160 KB) do not.
  std::vector<float> small(8192, 1.0f), big(32768, 1.0f);
  grpc::Status st = s.predict->Predict(Ctx().get(), FloatPredict("default", small, {8192, 1}), &resp);
  ASSERT_GRPC_OK(st);
  EXPECT_EQ(resp.outputs().at("y").float_val_size(), 8192);
  st = s.predict->Predict(Ctx().get(), FloatPredict("default", big, {32768, 1}), &resp);
  EXPECT_EQ(st.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED) << st.error_message();
  // The server keeps serving after refusing.
  st = s.predict->Predict(Ctx().get(), FloatPredict("default", {1}, {1}), &resp);
  EXPECT_GRPC_OK(st);
}

TEST(GrpcServerTest, ResponseOverTheSendLimitIsResourceExhausted) {
  TFHOST_REQUIRE_TFSERVING_MODEL(Model("saved_model_half_plus_two_cpu"));
  GrpcServerOptions options;
  options.max_send_message_bytes = 16 * 1024;
  Served s = ServeOne("default", "saved_model_half_plus_two_cpu", options);
  ASSERT_TRUE(s);
  ts::PredictResponse resp;
  std::vector<float> small(256, 1.0f), big(16384, 1.0f);
  grpc::Status st = s.predict->Predict(Ctx().get(), FloatPredict("default", small, {256, 1}), &resp);
  ASSERT_GRPC_OK(st);
  st = s.predict->Predict(Ctx().get(), FloatPredict("default", big, {16384, 1}), &resp);
  EXPECT_EQ(st.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED) << st.error_message();
}

TEST(GrpcServerTest, MessageLimitsAcceptUpToTwoGibAndRefuseNonsense) {
  GrpcServerOptions options;
  options.max_receive_message_bytes = INT_MAX;
  options.max_send_message_bytes = INT_MAX;
  EXPECT_TRUE(ValidateGrpcServerOptions(options).ok());
  options.max_receive_message_bytes = 0;
  Status st = ValidateGrpcServerOptions(options);
  EXPECT_EQ(st.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(st.message().find(std::to_string(INT_MAX)), std::string::npos) << st.message();
  options.max_receive_message_bytes = 1024;
  options.max_send_message_bytes = -5;
  TFHOST_EXPECT_ERROR(ValidateGrpcServerOptions(options), StatusCode::kInvalidArgument,
                      "gRPC message size limits must be between 1 and");
  options.max_send_message_bytes = 1024;
  options.port = 70000;
  TFHOST_EXPECT_ERROR(ValidateGrpcServerOptions(options), StatusCode::kInvalidArgument,
                      "gRPC port must be between 0 and 65535, got 70000");
}

TEST(GrpcServerTest, ChannelArgumentsParseAsTfServingWritesThem) {
  auto args = ParseGrpcChannelArguments("grpc.max_connection_age_ms=2000,grpc.primary_user_agent=x=y");
  ASSERT_TRUE(args.ok()) << args.status().ToString();
  ASSERT_EQ(args->size(), 2u);
  EXPECT_EQ((*args)[0].key, "grpc.max_connection_age_ms");
  EXPECT_EQ((*args)[0].value, "2000");
  EXPECT_EQ((*args)[1].key, "grpc.primary_user_agent");
  EXPECT_EQ((*args)[1].value, "x=y");
  EXPECT_TRUE(ParseGrpcChannelArguments("")->empty());
  auto bad = ParseGrpcChannelArguments("grpc.a=1,oops");
  EXPECT_EQ(bad.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(bad.status().message().find("'oops'"), std::string::npos) << bad.status().message();
  TFHOST_EXPECT_ERROR(ParseGrpcChannelArguments("=5"), StatusCode::kInvalidArgument,
                      "--grpc_channel_arguments: entry '=5' is not key=value (expected e.g. "
                      "grpc.max_connection_age_ms=2000,grpc.max_concurrent_streams=100)");
}

TEST(GrpcServerTest, ChannelArgumentOverridesTheReceiveLimit) {
  TFHOST_REQUIRE_TFSERVING_MODEL(Model("saved_model_half_plus_two_cpu"));
  GrpcServerOptions options;
  options.channel_arguments = {{"grpc.max_receive_message_length", "4096"}};
  Served s = ServeOne("default", "saved_model_half_plus_two_cpu", options);
  ASSERT_TRUE(s);
  ts::PredictResponse resp;
  std::vector<float> big(4096, 1.0f);
  grpc::Status st = s.predict->Predict(Ctx().get(), FloatPredict("default", big, {4096, 1}), &resp);
  EXPECT_EQ(st.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED) << st.error_message();
  st = s.predict->Predict(Ctx().get(), FloatPredict("default", {1}, {1}), &resp);
  EXPECT_GRPC_OK(st);

  options.channel_arguments = {{"grpc.max_send_message_length", "lots"}};
  auto bad = GrpcServer::Start(options, s.core.get());
  EXPECT_EQ(bad.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(bad.status().message().find("grpc.max_send_message_length=lots"), std::string::npos)
      << bad.status().message();
}

TEST(GrpcServerTest, BusyPortIsAnErrorNamingTheAddress) {
  TFHOST_REQUIRE_TFSERVING_MODEL(Model("saved_model_half_plus_two_cpu"));
  Served s = ServeOne("default", "saved_model_half_plus_two_cpu");
  ASSERT_TRUE(s);
  GrpcServerOptions options;
  options.address = "127.0.0.1";
  options.port = s.server->port();
  auto second = GrpcServer::Start(options, s.core.get());
  TFHOST_ASSERT_ERROR(
      second, StatusCode::kUnavailable,
      "(is the port in use, the address not one of this machine's, or the socket's folder missing or not writable?)");
  EXPECT_NE(second.status().message().find("127.0.0.1:" + std::to_string(options.port)), std::string::npos)
      << second.status().message();
}

// TF Serving's --grpc_socket_path: the same services on a UNIX socket,
// beside the TCP port or instead of it.
TEST(GrpcServerTest, ServesOnAUnixSocketBesideOrInsteadOfTheTcpPort) {
  TFHOST_REQUIRE_TFSERVING_MODEL(Model("saved_model_half_plus_two_cpu"));
  const std::string socket = (fs::temp_directory_path() / ("tfhost_grpc_" + std::to_string(::getpid()) + ".sock")).string();
  for (bool tcp : {true, false}) {
    GrpcServerOptions options;
    options.socket_path = socket;
    options.tcp = tcp;
    auto core = MakeCore(SingleModelConfig("default", Model("saved_model_half_plus_two_cpu")));
    ASSERT_NE(core, nullptr);
    options.address = "127.0.0.1";
    options.port = 0;
    auto server = GrpcServer::Start(options, core.get());
    ASSERT_TRUE(server.ok()) << server.status().ToString();
    EXPECT_EQ((*server)->port() != 0, tcp);
    auto channel = grpc::CreateChannel("unix:" + socket, grpc::InsecureChannelCredentials());
    auto stub = ts::PredictionService::NewStub(channel);
    ts::PredictResponse resp;
    auto ctx = Ctx();
    EXPECT_GRPC_OK(stub->Predict(ctx.get(), FloatPredict("default", {1.0f}, {1}), &resp));
    EXPECT_FLOAT_EQ(resp.outputs().at("y").float_val(0), 2.5f);
    (*server)->Shutdown(std::chrono::milliseconds(0));
  }
  fs::remove(socket);
}

TEST(GrpcServerTest, SocketPathInAMissingFolderIsAnErrorNamingIt) {
  TFHOST_REQUIRE_TFSERVING_MODEL(Model("saved_model_half_plus_two_cpu"));
  auto core = MakeCore(SingleModelConfig("default", Model("saved_model_half_plus_two_cpu")));
  ASSERT_NE(core, nullptr);
  GrpcServerOptions options;
  options.tcp = false;
  options.socket_path = "/nonexistent_dir_for_tfhost/grpc.sock";
  auto server = GrpcServer::Start(options, core.get());
  TFHOST_ASSERT_ERROR(server, StatusCode::kUnavailable,
                      "cannot serve gRPC on unix:/nonexistent_dir_for_tfhost/grpc.sock (is the port in use, the "
                      "address not one of this machine's, or the socket's");
  EXPECT_NE(server.status().message().find("cannot serve gRPC on unix:/nonexistent_dir_for_tfhost/grpc.sock"),
            std::string::npos)
      << server.status().message();
  options.socket_path = std::string(200, 'x');
  EXPECT_EQ(GrpcServer::Start(options, core.get()).status().code(), StatusCode::kInvalidArgument);
}

TEST(GrpcServerTest, ManyConcurrentCallsAllSucceed) {
  TFHOST_REQUIRE_TFSERVING_MODEL(Model("saved_model_half_plus_two_cpu"));
  Served s = ServeOne("default", "saved_model_half_plus_two_cpu");
  ASSERT_TRUE(s);
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 40; ++i) {
        ts::PredictResponse resp;
        float x = static_cast<float>(t * 100 + i);
        grpc::Status st = s.predict->Predict(Ctx().get(), FloatPredict("default", {x}, {1}), &resp);
        if (!st.ok() || resp.outputs().at("y").float_val(0) != x / 2 + 2) ++failures;
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(failures.load(), 0);
  EXPECT_EQ(s.server->in_flight(), 0);
}

TEST(GrpcServerTest, AClientDeadlineReleasesTheHandlerOfARequestWaitingForItsBatch) {
  TFHOST_REQUIRE_TFSERVING_MODEL(Model("saved_model_half_plus_two_cpu"));
  Served s = ServeOne("default", "saved_model_half_plus_two_cpu");
  ASSERT_TRUE(s);
  auto gate = std::make_shared<GateRunner>(std::chrono::seconds(20));
  batching::BatchingRunnerOptions options;
  options.config.max_batch_size = 1;
  options.config.num_batch_threads = 1;
  options.inner = gate;
  auto batcher = batching::BatchingRunner::Create(options);
  ASSERT_TRUE(batcher.ok()) << batcher.status().ToString();
  s.core->SetRunner("default", *batcher);
  auto held = std::async(std::launch::async, [&] {
    ts::PredictResponse resp;
    return s.predict->Predict(Ctx().get(), FloatPredict("default", {2}, {1, 1}), &resp);
  });
  ASSERT_TRUE(gate->WaitForWaiting(1));  // the only batch thread is busy
  ASSERT_EQ((*batcher)->Queues().size(), 1u) << "the held request should have been batched";

  grpc::ClientContext short_deadline;
  short_deadline.set_deadline(std::chrono::system_clock::now() + std::chrono::milliseconds(300));
  ts::PredictResponse resp;
  grpc::Status late = s.predict->Predict(&short_deadline, FloatPredict("default", {4}, {1, 1}), &resp);
  EXPECT_EQ(late.error_code(), grpc::StatusCode::DEADLINE_EXCEEDED) << late.error_message();
  // The server side lets go too: only the held call's handler is left.
  bool released = false;
  for (int i = 0; i < 500 && !released; ++i) {
    released = s.server->in_flight() == 1;
    if (!released) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  EXPECT_TRUE(released) << "handlers in flight: " << s.server->in_flight();
  gate->Open();
  EXPECT_GRPC_OK(held.get());
}

TEST(GrpcServerTest, ShutdownLetsInFlightCallsFinishAndRefusesNewOnes) {
  TFHOST_REQUIRE_TFSERVING_MODEL(Model("saved_model_half_plus_two_cpu"));
  Served s = ServeOne("default", "saved_model_half_plus_two_cpu");
  ASSERT_TRUE(s);
  auto gate = std::make_shared<GateRunner>(std::chrono::seconds(20));
  s.core->SetRunner("default", gate);
  auto in_flight = std::async(std::launch::async, [&] {
    ts::PredictResponse resp;
    grpc::Status st = s.predict->Predict(Ctx().get(), FloatPredict("default", {2}, {1}), &resp);
    return std::make_pair(st, resp);
  });
  ASSERT_TRUE(gate->WaitForWaiting(1));
  EXPECT_EQ(s.server->in_flight(), 1);
  auto shutdown = std::async(std::launch::async, [&] { return s.server->Shutdown(std::chrono::seconds(20)); });
  // Shutdown must wait for the held call.
  EXPECT_EQ(shutdown.wait_for(std::chrono::milliseconds(300)), std::future_status::timeout);
  // New calls are refused while draining.
  ts::PredictResponse refused;
  grpc::Status st = s.predict->Predict(Ctx(5).get(), FloatPredict("default", {1}, {1}), &refused);
  EXPECT_FALSE(st.ok());
  EXPECT_EQ(st.error_code(), grpc::StatusCode::UNAVAILABLE) << st.error_message();
  gate->Open();
  auto [call_status, resp] = in_flight.get();
  EXPECT_GRPC_OK(call_status);
  EXPECT_FLOAT_EQ(resp.outputs().at("y").float_val(0), 3.0f);
  EXPECT_TRUE(shutdown.get());
}

TEST(GrpcServerTest, ShutdownUnderLoadAnswersEveryCallThatStartedARun) {
  TFHOST_REQUIRE_TFSERVING_MODEL(Model("saved_model_half_plus_two_cpu"));
  Served s = ServeOne("default", "saved_model_half_plus_two_cpu");
  ASSERT_TRUE(s);
  auto runs = std::make_shared<GateRunner>();
  runs->Open();  // counts the model runs, holds none
  s.core->SetRunner("default", runs);
  // Many clients keep calling while the server shuts down. Every call whose
  // model run started is answered. The rest are refused: UNAVAILABLE, or
  // CANCELLED for a call that reached grpc in the instant it stopped taking
  // new ones (grpc 1.51 kills those unstarted instead of refusing them).
  std::atomic<bool> stop{false};
  std::atomic<int> answered{0}, refused{0};
  std::mutex mu;
  std::map<std::string, int> other;
  std::vector<std::thread> clients;
  for (int t = 0; t < 16; ++t) {
    clients.emplace_back([&] {
      while (!stop.load()) {
        ts::PredictResponse resp;
        grpc::Status st = s.predict->Predict(Ctx(10).get(), FloatPredict("default", {2}, {1}), &resp);
        if (st.ok() && resp.outputs().at("y").float_val(0) == 3.0f) {
          ++answered;
        } else if (st.error_code() == grpc::StatusCode::UNAVAILABLE ||
                   st.error_code() == grpc::StatusCode::CANCELLED) {
          ++refused;
        } else {
          std::lock_guard<std::mutex> lock(mu);
          ++other[std::to_string(st.error_code()) + ": " + st.error_message()];
        }
      }
    });
  }
  while (answered.load() < 500) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  EXPECT_TRUE(s.server->Shutdown(std::chrono::seconds(10))) << "a call was cut off at the deadline";
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  stop = true;
  for (auto& c : clients) c.join();
  EXPECT_GT(refused.load(), 0) << "the clients should have seen the server stop";
  EXPECT_EQ(answered.load(), runs->runs_started()) << "a call whose model ran was not answered";
  for (const auto& [what, count] : other) ADD_FAILURE() << count << " calls failed with " << what;
}

TEST(GrpcServerTest, ShutdownDeadlineCancelsCallsThatRunTooLong) {
  TFHOST_REQUIRE_TFSERVING_MODEL(Model("saved_model_half_plus_two_cpu"));
  Served s = ServeOne("default", "saved_model_half_plus_two_cpu");
  ASSERT_TRUE(s);
  // The held call finishes by itself after 1.5 s, well past the 200 ms deadline.
  auto gate = std::make_shared<GateRunner>(std::chrono::milliseconds(1500));
  s.core->SetRunner("default", gate);
  auto in_flight = std::async(std::launch::async, [&] {
    ts::PredictResponse resp;
    return s.predict->Predict(Ctx().get(), FloatPredict("default", {2}, {1}), &resp);
  });
  ASSERT_TRUE(gate->WaitForWaiting(1));
  auto start = std::chrono::steady_clock::now();
  EXPECT_FALSE(s.server->Shutdown(std::chrono::milliseconds(200)));
  EXPECT_GE(std::chrono::steady_clock::now() - start, std::chrono::milliseconds(150));
  // The client is told the server went away.
  grpc::Status st = in_flight.get();
  EXPECT_EQ(st.error_code(), grpc::StatusCode::UNAVAILABLE) << st.error_message();
  // A second Shutdown is a no-op with the same answer.
  EXPECT_FALSE(s.server->Shutdown(std::chrono::seconds(1)));
}

TEST(GrpcServerTest, MaxThreadsRefusesCallsBeyondTheCapAtOnce) {
  TFHOST_REQUIRE_TFSERVING_MODEL(Model("saved_model_half_plus_two_cpu"));
  GrpcServerOptions options;
  options.max_threads = 2;
  Served s = ServeOne("default", "saved_model_half_plus_two_cpu", options);
  ASSERT_TRUE(s);
  auto gate = std::make_shared<GateRunner>(std::chrono::seconds(10));
  s.core->SetRunner("default", gate);
  std::vector<std::future<grpc::Status>> calls;
  for (int i = 0; i < 6; ++i) {
    calls.push_back(std::async(std::launch::async, [&] {
      ts::PredictResponse resp;
      return s.predict->Predict(Ctx().get(), FloatPredict("default", {2}, {1}), &resp);
    }));
  }
  // Calls over the cap come back while the others are still held.
  int refused = 0;
  for (auto& call : calls) {
    if (call.wait_for(std::chrono::seconds(3)) == std::future_status::ready) {
      grpc::Status st = call.get();
      EXPECT_EQ(st.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED) << st.error_message();
      ++refused;
    }
  }
  EXPECT_GE(refused, 1);
  gate->Open();
  for (auto& call : calls) {
    if (call.valid()) {
      EXPECT_GRPC_OK(call.get());
    }
  }
}

}  // namespace
}  // namespace tfhost::serving
