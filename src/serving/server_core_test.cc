#include "serving/server_core.h"

#include <google/protobuf/util/json_util.h>
#include <google/protobuf/util/message_differencer.h>
#include <gtest/gtest.h>
#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <fstream>
#include <future>
#include <iostream>
#include <mutex>
#include <thread>

#include "base/test_fixtures.h"
#include "base/test_status.h"
#include "base/test_temp_dir.h"
#include "base/test_tfserving_models.h"
#include "serving/servable/warmup.h"
#include "serving/serving_test_util.h"
#include "tensorflow_serving/apis/prediction_log.pb.h"

namespace tfhost::serving {
namespace {

namespace fs = std::filesystem;
namespace ts = tensorflow::serving;
using google::protobuf::util::MessageDifferencer;

// TF Serving's test models: the shared fixtures' copies, else the zoo's equivalents.
std::string Model(const std::string& relative) { return tfhost::testing::TfServingModelPath(relative); }
std::string ConfigsDir() { return tfhost::testing::FixturePath("tfserving-configs"); }

struct TempDir : tfhost::testing::TempDir {
  TempDir() : tfhost::testing::TempDir("tfhost_core") {}};

using testing::FromJson;
using testing::PartiallyEquals;
using testing::ReadText;
using testing::ToJson;

struct Logs {
  std::mutex mu;
  std::vector<std::string> lines;
  LogSink Sink() {
    return [this](const std::string& l) {
      std::lock_guard lock(mu);
      lines.push_back(l);
    };
  }
  bool Contains(const std::string& needle) {
    std::lock_guard lock(mu);
    for (const auto& l : lines) {
      if (l.find(needle) != std::string::npos) return true;
    }
    return false;
  }
};

ServerCoreOptions Options(ModelServerConfig config, Logs* logs = nullptr) {
  ServerCoreOptions o;
  o.model_server_config = std::move(config);
  o.manager.file_system_poll_wait_seconds = 0;
  o.manager.max_num_load_retries = 0;
  if (logs) o.manager.log_sink = logs->Sink();
  else o.manager.log_sink = [](const std::string&) {};
  return o;
}

std::unique_ptr<ServerCore> MakeCore(const std::string& name, const std::string& base_path, Logs* logs = nullptr) {
  auto core = ServerCore::Create(Options(SingleModelConfig(name, base_path), logs));
  EXPECT_TRUE(core.ok()) << core.status().ToString();
  return core.ok() ? std::move(*core) : nullptr;
}

ts::ModelSpec Spec(const std::string& name, const std::string& signature = "") {
  ts::ModelSpec s;
  s.set_name(name);
  s.set_signature_name(signature);
  return s;
}

ts::PredictRequest FloatPredict(const std::string& model, const std::vector<float>& values,
                                const std::vector<int64_t>& shape, const std::string& alias = "x") {
  ts::PredictRequest r;
  *r.mutable_model_spec() = Spec(model);
  tensorflow::TensorProto& t = (*r.mutable_inputs())[alias];
  t.set_dtype(tensorflow::DT_FLOAT);
  for (int64_t d : shape) t.mutable_tensor_shape()->add_dim()->set_size(d);
  for (float v : values) t.add_float_val(v);
  return r;
}

TEST(ServerCoreTest, EveryGrpcCaseMatches) {
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
    auto core = MakeCore(served_as, Model(model_dir));
    ASSERT_NE(core, nullptr);
    if (rpc == "Predict") {
      auto req = FromJson<ts::PredictRequest>(ToJson(c["request"]));
      ts::PredictResponse resp;
      Status s = core->Predict(req, &resp);
      ASSERT_TRUE(s.ok()) << s.ToString();
      EXPECT_TRUE(PartiallyEquals(FromJson<ts::PredictResponse>(ToJson(c["expected"])), resp));
    } else if (rpc == "Regress") {
      auto req = FromJson<ts::RegressionRequest>(ToJson(c["request"]));
      ts::RegressionResponse resp;
      Status s = core->Regress(req, &resp);
      ASSERT_TRUE(s.ok()) << s.ToString();
      EXPECT_TRUE(PartiallyEquals(FromJson<ts::RegressionResponse>(ToJson(c["expected"])), resp));
    } else if (rpc == "Classify") {
      auto req = FromJson<ts::ClassificationRequest>(ToJson(c["request"]));
      ts::ClassificationResponse resp;
      Status s = core->Classify(req, &resp);
      ASSERT_TRUE(s.ok()) << s.ToString();
      EXPECT_TRUE(PartiallyEquals(FromJson<ts::ClassificationResponse>(ToJson(c["expected"])), resp));
      ASSERT_EQ(resp.result().classifications_size(), 1);
      EXPECT_EQ(resp.result().classifications(0).classes(0).label(), "");
    } else if (rpc == "MultiInference") {
      auto req = FromJson<ts::MultiInferenceRequest>(ToJson(c["request"]));
      ts::MultiInferenceResponse resp;
      Status s = core->MultiInference(req, &resp);
      ASSERT_TRUE(s.ok()) << s.ToString();
      EXPECT_TRUE(PartiallyEquals(FromJson<ts::MultiInferenceResponse>(ToJson(c["expected"])), resp));
    } else if (rpc == "ModelService.GetModelStatus") {
      auto req = FromJson<ts::GetModelStatusRequest>(ToJson(c["request"]));
      ts::GetModelStatusResponse resp;
      Status s = core->GetModelStatus(req, &resp);
      ASSERT_TRUE(s.ok()) << s.ToString();
      EXPECT_TRUE(PartiallyEquals(FromJson<ts::GetModelStatusResponse>(ToJson(c["expected"])), resp));
      ASSERT_EQ(resp.model_version_status_size(), 1);
      EXPECT_EQ(resp.model_version_status(0).status().error_code(), tensorflow::error::OK);
    } else if (rpc.rfind("Predict (sequence", 0) == 0) {
      for (const auto& step : c["sequence"].GetArray()) {
        ts::PredictRequest req;
        *req.mutable_model_spec() = Spec(served_as, step[0].GetString());
        for (const auto& in : step[1].GetObject()) {
          tensorflow::TensorProto& t = (*req.mutable_inputs())[in.name.GetString()];
          t.set_dtype(tensorflow::DT_FLOAT);
          t.add_float_val(static_cast<float>(in.value.GetDouble()));
        }
        ts::PredictResponse resp;
        Status s = core->Predict(req, &resp);
        ASSERT_TRUE(s.ok()) << step[0].GetString() << ": " << s.ToString();
        ASSERT_EQ(resp.outputs().count("output"), 1u);
        const auto& out = resp.outputs().at("output");
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

TEST(ServerCoreTest, ErrorCodesAndTextsMatchTheRestCases) {
  std::string model = Model("saved_model_half_plus_two_cpu");
  TFHOST_REQUIRE_TFSERVING_MODEL(model);
  auto core = MakeCore("default", model);
  ASSERT_NE(core, nullptr);
  ts::PredictResponse resp;
  // Unknown model: 404 with TF Serving's exact text.
  Status s = core->Predict(FloatPredict("half", {1, 5}, {2}), &resp);
  EXPECT_EQ(s.code(), StatusCode::kNotFound);
  EXPECT_EQ(s.message(), "Servable not found for request: Latest(half)");
  // Unknown label: 400 "Unrecognized servable version label".
  ts::ModelSpec label = Spec("default");
  label.set_version_label("nolabel");
  auto r = core->ResolveSignature(label);
  EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(r.status().message().find("Unrecognized servable version label"), std::string::npos);
  // Unknown signature through the REST path: 400 "... not found in signature def".
  r = core->ResolveSignature(Spec("default", "nope"));
  EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(r.status().message().find("not found in signature def"), std::string::npos) << r.status().message();
  EXPECT_NE(r.status().message().find("serving_default"), std::string::npos);
  // ... and through gRPC Predict: FAILED_PRECONDITION as TF Serving.
  ts::PredictRequest bad_sig = FloatPredict("default", {1}, {1});
  bad_sig.mutable_model_spec()->set_signature_name("nope");
  s = core->Predict(bad_sig, &resp);
  EXPECT_EQ(s.code(), StatusCode::kFailedPrecondition);
  EXPECT_NE(s.message().find("Serving signature key \"nope\" not found."), std::string::npos) << s.message();
  // Unknown version.
  ts::PredictRequest v999 = FloatPredict("default", {1}, {1});
  v999.mutable_model_spec()->mutable_version()->set_value(999);
  s = core->Predict(v999, &resp);
  EXPECT_EQ(s.code(), StatusCode::kNotFound);
  EXPECT_EQ(s.message(), "Servable not found for request: Specific(default, 999)");
  // Wrong dtype.
  ts::PredictRequest strings;
  *strings.mutable_model_spec() = Spec("default");
  auto& t = (*strings.mutable_inputs())["x"];
  t.set_dtype(tensorflow::DT_STRING);
  t.mutable_tensor_shape()->add_dim()->set_size(1);
  t.add_string_val("x");
  s = core->Predict(strings, &resp);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("to be float but string is provided"), std::string::npos) << s.message();
  // Unknown input alias and unknown output filter.
  s = core->Predict(FloatPredict("default", {1}, {1}, "z"), &resp);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("input tensor alias not found in signature: z"), std::string::npos) << s.message();
  ts::PredictRequest filt = FloatPredict("default", {1}, {1});
  filt.add_output_filter("nope");
  s = core->Predict(filt, &resp);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("output tensor alias not found in signature: nope"), std::string::npos);
  // No model spec.
  s = core->Predict(ts::PredictRequest(), &resp);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
}

TEST(ServerCoreTest, HugeBroadcastShapeIsRefusedNotAllocated) {
  std::string model = Model("saved_model_half_plus_two_cpu");
  TFHOST_REQUIRE_TFSERVING_MODEL(model);
  auto core = MakeCore("default", model);
  ASSERT_NE(core, nullptr);
  ts::PredictResponse resp;
  Status s = core->Predict(FloatPredict("default", {1}, {1000000, 1000000}), &resp);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("tensor parsing error: x"), std::string::npos) << s.message();
  s = core->Predict(FloatPredict("default", {1}, {-1}), &resp);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
}

TEST(ServerCoreTest, MalformedTensorsAndOddShapesAreErrorsNotCrashes) {
  std::string model = Model("saved_model_half_plus_two_cpu");
  TFHOST_REQUIRE_TFSERVING_MODEL(model);
  auto core = MakeCore("default", model);
  ASSERT_NE(core, nullptr);
  auto with = [](auto&& edit) {
    ts::PredictRequest r = FloatPredict("default", {1}, {1});
    edit((*r.mutable_inputs())["x"]);
    return r;
  };
  std::vector<ts::PredictRequest> requests = {
      with([](tensorflow::TensorProto& t) { t.set_tensor_content("abc"); }),  // 3 bytes for one float
      with([](tensorflow::TensorProto& t) { t.set_dtype(static_cast<tensorflow::DataType>(999)); }),
      with([](tensorflow::TensorProto& t) { t.set_dtype(tensorflow::DT_RESOURCE); }),
      with([](tensorflow::TensorProto& t) { t.set_dtype(tensorflow::DT_INVALID); }),
      with([](tensorflow::TensorProto& t) { t.mutable_tensor_shape()->set_unknown_rank(true); }),
      with([](tensorflow::TensorProto& t) {
        t.set_dtype(tensorflow::DT_STRING);
        t.clear_float_val();
        t.set_tensor_content(std::string("\xff\xff\xff\xff\x0f", 5));
      }),
      with([](tensorflow::TensorProto& t) { t.mutable_tensor_shape()->mutable_dim(0)->set_size(INT64_MAX); }),
      with([](tensorflow::TensorProto& t) {
        for (int i = 0; i < 40; ++i) t.mutable_tensor_shape()->add_dim()->set_size(1 << 20);
      }),
  };
  for (size_t i = 0; i < requests.size(); ++i) {
    ts::PredictResponse resp;
    Status s = core->Predict(requests[i], &resp);
    EXPECT_FALSE(s.ok()) << i;
    EXPECT_FALSE(s.message().empty()) << i;
  }
  // Shapes the graph may take or refuse -- either way an answer.
  for (const std::vector<int64_t>& shape :
       std::vector<std::vector<int64_t>>{{}, {0}, {0, 1}, {2, 2}, {1, 1, 1, 1}, {3, 0, 2}}) {
    int64_t n = 1;
    for (int64_t d : shape) n *= d;
    ts::PredictResponse resp;
    Status s = core->Predict(FloatPredict("default", std::vector<float>(n, 1.0f), shape), &resp);
    if (s.ok()) {
      EXPECT_EQ(resp.outputs().at("y").float_val_size(), n);
    }
  }
  // Classify with examples missing the feature, or with garbage bytes features.
  auto req = FromJson<ts::ClassificationRequest>(R"({"model_spec":{"name":"default","signature_name":"classify_x_to_y"},
      "input":{"example_list":{"examples":[{"features":{"feature":{"x":{"bytes_list":{"value":["AAAA"]}}}}}]}}})");
  ts::ClassificationResponse cresp;
  Status s = core->Classify(req, &cresp);
  TFHOST_EXPECT_ERROR(s, StatusCode::kInvalidArgument,
                      "node 'ParseExample/ParseExample' (ParseExample): Name: <unknown>, Key: x, Index: 0.  Data types "
                      "don't match. Data type: string but expected");
  EXPECT_NE(s.message().find("classify_x_to_y"), std::string::npos) << s.message();
}

TEST(ServerCoreTest, ServingLetsTheGraphDecideShapesButRunKeepsStrictChecks) {
  std::string model = Model("saved_model_half_plus_two_cpu");
  TFHOST_REQUIRE_TFSERVING_MODEL(model);
  auto core = MakeCore("default", model);
  ASSERT_NE(core, nullptr);
  // serving_default declares x as [-1,1]; TF Serving feeds [3] and the graph accepts it.
  ts::PredictResponse resp;
  Status s = core->Predict(FloatPredict("default", {2, 3, 4}, {3}), &resp);
  ASSERT_TRUE(s.ok()) << s.ToString();
  const auto& y = resp.outputs().at("y");
  ASSERT_EQ(y.float_val_size(), 3);
  EXPECT_FLOAT_EQ(y.float_val(0), 3.0f);
  EXPECT_FLOAT_EQ(y.float_val(2), 4.0f);
  EXPECT_EQ(resp.model_spec().signature_name(), "serving_default");
  EXPECT_EQ(resp.model_spec().version().value(), 123);
  // Model::RunSignature's default (what `tfhost run` uses) still rejects it.
  auto servable = core->GetServable(Spec("default"));
  ASSERT_TRUE(servable.ok());
  auto strict = (*servable)->model->RunSignature("serving_default", {{"x", Tensor::FromVector<float>({1, 2, 3})}});
  TFHOST_EXPECT_ERROR(strict, StatusCode::kInvalidArgument,
                      "signature 'serving_default': input 'x' must have shape [?,1], got [3]");
  EXPECT_NE(strict.status().message().find("must have shape"), std::string::npos);
}

TEST(ServerCoreTest, RestCaseModelsAnswerThroughTheProtoApi) {
  for (const char* model : {"saved_model_half_plus_three", "saved_model_half_plus_two_2_versions",
                            "saved_model_half_plus_two_tf2_cpu", "matrix_half_plus_two"}) {
    TFHOST_REQUIRE_TFSERVING_MODEL(Model(model));
  }
  {
    auto core = MakeCore("saved_model_half_plus_three", Model("saved_model_half_plus_three"));
    ASSERT_NE(core, nullptr);
    // A signature literally keyed "tensorflow/serving/regress".
    auto req = FromJson<ts::RegressionRequest>(R"({"model_spec":{"name":"saved_model_half_plus_three",
        "signature_name":"tensorflow/serving/regress"},"input":{"example_list":{"examples":[
        {"features":{"feature":{"x":{"float_list":{"value":[1.0]}}}}},
        {"features":{"feature":{"x":{"float_list":{"value":[2.0]}}}}}]}}})");
    ts::RegressionResponse resp;
    Status s = core->Regress(req, &resp);
    ASSERT_TRUE(s.ok()) << s.ToString();
    ASSERT_EQ(resp.result().regressions_size(), 2);
    EXPECT_FLOAT_EQ(resp.result().regressions(0).value(), 3.5f);
    EXPECT_FLOAT_EQ(resp.result().regressions(1).value(), 4.0f);
  }
  {
    auto core = MakeCore("m", Model("saved_model_half_plus_two_2_versions"));
    ASSERT_NE(core, nullptr);
    ts::PredictRequest req = FloatPredict("m", {1.0f}, {1, 1}, "inputs");
    req.mutable_model_spec()->set_signature_name("classify_x2_to_y3");
    ts::PredictResponse resp;
    Status s = core->Predict(req, &resp);
    ASSERT_TRUE(s.ok()) << s.ToString();
    EXPECT_FLOAT_EQ(resp.outputs().at("scores").float_val(0), 3.5f);
    EXPECT_EQ(resp.model_spec().version().value(), 124);  // latest{1}
  }
  {
    auto core = MakeCore("default", Model("saved_model_half_plus_two_tf2_cpu"));
    ASSERT_NE(core, nullptr);
    // TF2 regress signature has method_name .../predict: allowed with the check off (default).
    auto req = FromJson<ts::RegressionRequest>(R"({"model_spec":{"name":"default","signature_name":"regress_x_to_y"},
        "input":{"example_list":{"examples":[{"features":{"feature":{"x":{"float_list":{"value":[2.0]}}}}}]}}})");
    ts::RegressionResponse resp;
    Status s = core->Regress(req, &resp);
    ASSERT_TRUE(s.ok()) << s.ToString();
    EXPECT_FLOAT_EQ(resp.result().regressions(0).value(), 3.0f);
  }
  {
    auto core = MakeCore("matrix_half_plus_two", Model("matrix_half_plus_two"));
    ASSERT_NE(core, nullptr);
    auto servable = core->GetServable(Spec("matrix_half_plus_two"));
    ASSERT_TRUE(servable.ok());
    std::string alias = (*servable)->model->signatures().at("serving_default").inputs[0].key;
    ts::PredictRequest req = FloatPredict("matrix_half_plus_two", {1, 2, 3, 4, 5, 6, 7, 8, 9}, {1, 3, 3}, alias);
    ts::PredictResponse resp;
    Status s = core->Predict(req, &resp);
    ASSERT_TRUE(s.ok()) << s.ToString();
    const auto& out = resp.outputs().begin()->second;
    ASSERT_EQ(out.float_val_size(), 9);
    EXPECT_FLOAT_EQ(out.float_val(0), 2.5f);
    EXPECT_FLOAT_EQ(out.float_val(8), 6.5f);
  }
}

TEST(ServerCoreTest, ExampleListWithContextMergesContextFeatures) {
  std::string model = Model("saved_model_half_plus_two_cpu");
  TFHOST_REQUIRE_TFSERVING_MODEL(model);
  auto core = MakeCore("default", model);
  ASSERT_NE(core, nullptr);
  // x comes from the context for the first example and is overridden by the second.
  auto req = FromJson<ts::RegressionRequest>(R"({"model_spec":{"name":"default","signature_name":"regress_x_to_y"},
      "input":{"example_list_with_context":{
        "context":{"features":{"feature":{"x":{"float_list":{"value":[2.0]}}}}},
        "examples":[{"features":{"feature":{}}},
                    {"features":{"feature":{"x":{"float_list":{"value":[4.0]}}}}}]}}})");
  ts::RegressionResponse resp;
  Status s = core->Regress(req, &resp);
  ASSERT_TRUE(s.ok()) << s.ToString();
  ASSERT_EQ(resp.result().regressions_size(), 2);
  EXPECT_FLOAT_EQ(resp.result().regressions(0).value(), 3.0f);
  EXPECT_FLOAT_EQ(resp.result().regressions(1).value(), 4.0f);
  EXPECT_EQ(resp.model_spec().signature_name(), "regress_x_to_y");
  // Empty input.
  ts::RegressionRequest empty;
  *empty.mutable_model_spec() = Spec("default", "regress_x_to_y");
  s = core->Regress(empty, &resp);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(s.message(), "Input is empty.");
  // A predict signature with a float input is not a regression signature.
  *empty.mutable_model_spec() = Spec("default", "serving_default");
  *empty.mutable_input() = req.input();
  s = core->Regress(empty, &resp);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
}

TEST(ServerCoreTest, MultiInferenceRejectsMixedModelsAndDuplicateSignatures) {
  std::string model = Model("saved_model_half_plus_two_cpu");
  TFHOST_REQUIRE_TFSERVING_MODEL(model);
  auto core = MakeCore("default", model);
  ASSERT_NE(core, nullptr);
  ts::MultiInferenceResponse resp;
  EXPECT_EQ(core->MultiInference(ts::MultiInferenceRequest(), &resp).message(), "Tasks field is empty.");
  auto req = FromJson<ts::MultiInferenceRequest>(R"({"tasks":[
      {"model_spec":{"name":"default","signature_name":"regress_x_to_y"},"method_name":"tensorflow/serving/regress"},
      {"model_spec":{"name":"default","signature_name":"regress_x_to_y"},"method_name":"tensorflow/serving/regress"}],
      "input":{"example_list":{"examples":[{"features":{"feature":{"x":{"float_list":{"value":[2.0]}}}}}]}}})");
  Status s = core->MultiInference(req, &resp);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("Duplicate evaluation of signature: regress_x_to_y"), std::string::npos);
  req.mutable_tasks(1)->mutable_model_spec()->set_name("other");
  req.mutable_tasks(1)->mutable_model_spec()->set_signature_name("regress_x_to_y2");
  s = core->MultiInference(req, &resp);
  EXPECT_NE(s.message().find("must access the same model name"), std::string::npos) << s.message();
  req.mutable_tasks(1)->mutable_model_spec()->set_name("default");
  req.mutable_tasks(1)->set_method_name("tensorflow/serving/predict");
  s = core->MultiInference(req, &resp);
  EXPECT_NE(s.message().find("Unsupported signature method_name"), std::string::npos) << s.message();
}

void CheckMetadata(const std::string& model_dir, const std::string& served_as, const ModelServerConfig& config,
                   const std::string& fixture, int64_t version) {
  TFHOST_REQUIRE_FIXTURE(fixture);
  auto core = ServerCore::Create(Options(config));
  ASSERT_TRUE(core.ok()) << core.status().ToString();
  ts::GetModelMetadataRequest req;
  *req.mutable_model_spec() = Spec(served_as);
  req.mutable_model_spec()->mutable_version()->set_value(version);
  req.add_metadata_field("signature_def");
  ts::GetModelMetadataResponse resp;
  Status s = (*core)->GetModelMetadata(req, &resp);
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ(resp.model_spec().name(), served_as);
  EXPECT_EQ(resp.model_spec().version().value(), version);
  const auto& any = resp.metadata().at("signature_def");
  EXPECT_EQ(any.type_url(), "type.googleapis.com/tensorflow.serving.SignatureDefMap");
  ts::SignatureDefMap actual;
  ASSERT_TRUE(any.UnpackTo(&actual));
  rapidjson::Document doc;
  doc.Parse(ReadText(fixture).c_str());
  ASSERT_FALSE(doc.HasParseError());
  EXPECT_EQ(std::string(doc["model_spec"]["name"].GetString()), served_as);
  auto expected = FromJson<ts::SignatureDefMap>(ToJson(doc["metadata"]["signature_def"]));
  MessageDifferencer d;
  std::string report;
  d.ReportDifferencesToString(&report);
  EXPECT_TRUE(d.Compare(expected, actual)) << model_dir << ":\n" << report;
}

TEST(ServerCoreTest, MetadataMatchesTheFixtureJson) {
  TFHOST_REQUIRE_TFSERVING_MODEL(Model("saved_model_half_plus_two_cpu"));
  CheckMetadata("saved_model_half_plus_two_cpu", "default",
                SingleModelConfig("default", Model("saved_model_half_plus_two_cpu")),
                ConfigsDir() + "/half_plus_two_model_metadata.json", 123);
  ModelServerConfig all = SingleModelConfig("saved_model_half_plus_two_2_versions",
                                            Model("saved_model_half_plus_two_2_versions"));
  all.mutable_model_config_list()->mutable_config(0)->mutable_model_version_policy()->mutable_all();
  CheckMetadata("saved_model_half_plus_two_2_versions", "saved_model_half_plus_two_2_versions", all,
                ConfigsDir() + "/saved_model_half_plus_two_2_versions_metadata.json", 123);
}

TEST(ServerCoreTest, MetadataRequestValidation) {
  std::string model = Model("saved_model_half_plus_two_cpu");
  TFHOST_REQUIRE_TFSERVING_MODEL(model);
  auto core = MakeCore("default", model);
  ASSERT_NE(core, nullptr);
  ts::GetModelMetadataRequest req;
  *req.mutable_model_spec() = Spec("default");
  ts::GetModelMetadataResponse resp;
  EXPECT_EQ(core->GetModelMetadata(req, &resp).code(), StatusCode::kInvalidArgument);
  req.add_metadata_field("graph_def");
  Status s = core->GetModelMetadata(req, &resp);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("graph_def"), std::string::npos);
}

// A runner that counts calls, standing in for the batching scheduler.
class CountingRunner : public SignatureRunner {
 public:
  StatusOr<TensorMap> Run(const ServableHandle& servable, const runtime::Signature& signature, TensorMap inputs,
                          const std::vector<std::string>& output_filter) override {
    ++calls;
    return DirectRunner().Run(servable, signature, std::move(inputs), output_filter);
  }
  std::atomic<int> calls{0};
};

std::string WarmupRecord(const std::string& signature) {
  ts::PredictionLog log;
  ts::PredictRequest* req = log.mutable_predict_log()->mutable_request();
  *req = FloatPredict("ignored", {1.0f}, {1, 1});
  req->mutable_model_spec()->set_signature_name(signature);
  return log.SerializeAsString();
}

TEST(ServerCoreTest, WarmupRequestsReplayBeforeAvailableAndAreLogged) {
  std::string src = Model("saved_model_half_plus_two_cpu/00000123");
  TFHOST_REQUIRE_TFSERVING_MODEL(src);
  TempDir base;
  fs::copy(src, base.Sub("1"), fs::copy_options::recursive);
  fs::create_directories(base.Sub("1/assets.extra"));
  ts::PredictionLog regress;
  auto* rr = regress.mutable_regress_log()->mutable_request();
  *rr = FromJson<ts::RegressionRequest>(R"({"model_spec":{"signature_name":"regress_x_to_y"},
      "input":{"example_list":{"examples":[{"features":{"feature":{"x":{"float_list":{"value":[2.0]}}}}}]}}})");
  ASSERT_TRUE(WriteTfRecordFile(base.Sub("1/assets.extra/tf_serving_warmup_requests"),
                                {WarmupRecord(""), WarmupRecord("serving_default"), regress.SerializeAsString()})
                  .ok());
  Logs logs;
  auto core = MakeCore("warm", base.path(), &logs);
  ASSERT_NE(core, nullptr);
  EXPECT_TRUE(logs.Contains("\"event\":\"model_warmup\",\"model\":\"warm\",\"version\":1,\"records\":3"));
  EXPECT_NE(core->MetricsText().find(":tensorflow:serving:model_warmup_latency_count"), std::string::npos);
}

TEST(ServerCoreTest, WarmupReplaysEachRecordNumRequestIterationsTimes) {
  std::string src = Model("saved_model_half_plus_two_cpu/00000123");
  TFHOST_REQUIRE_TFSERVING_MODEL(src);
  TempDir base;
  fs::copy(src, base.Sub("1"), fs::copy_options::recursive);
  fs::create_directories(base.Sub("1/assets.extra"));
  ASSERT_TRUE(WriteTfRecordFile(base.Sub("1/assets.extra/tf_serving_warmup_requests"),
                                {WarmupRecord(""), WarmupRecord("serving_default")})
                  .ok());
  // Counted where the replays run: the runner RunWarmup is given.
  auto servable = LoadServable("warm", 1, base.Sub("1"), loaders::LoadOptions());
  ASSERT_TRUE(servable.ok()) << servable.status().ToString();
  CountingRunner runner;
  auto result = RunWarmup(*servable, runner, InferenceOptions(), 3);
  ASSERT_TRUE(result.ok()) << result.status().ToString();
  EXPECT_EQ(result->records_replayed, 2);
  EXPECT_EQ(result->requests_run, 6);
  EXPECT_EQ(runner.calls.load(), 6);
  // Through ServerCore the option reaches the replay and the log line.
  Logs logs;
  auto options = Options(SingleModelConfig("warm", base.path()), &logs);
  options.warmup_num_request_iterations = 4;
  auto core = ServerCore::Create(std::move(options));
  ASSERT_TRUE(core.ok()) << core.status().ToString();
  EXPECT_TRUE(logs.Contains("\"records\":2,\"iterations\":4,\"requests\":8"));
}

TEST(ServerCoreTest, FailingWarmupFailsTheLoadWithTheRecordNamed) {
  std::string src = Model("saved_model_half_plus_two_cpu/00000123");
  TFHOST_REQUIRE_TFSERVING_MODEL(src);
  TempDir base;
  fs::copy(src, base.Sub("1"), fs::copy_options::recursive);
  fs::create_directories(base.Sub("1/assets.extra"));
  ASSERT_TRUE(WriteTfRecordFile(base.Sub("1/assets.extra/tf_serving_warmup_requests"),
                                {WarmupRecord(""), WarmupRecord("nope")})
                  .ok());
  auto core = ServerCore::Create(Options(SingleModelConfig("warm", base.path())));
  TFHOST_ASSERT_ERROR(core, StatusCode::kUnavailable,
                      "(predict_log): Serving signature key \"nope\" not found. (model \"warm\" version 1 has: "
                      "classify_x_to_y, regress_x2_to_y3, regress_x_to_y,");
  EXPECT_NE(core.status().message().find("failed at record 1"), std::string::npos) << core.status().message();
  EXPECT_NE(core.status().message().find("nope"), std::string::npos);
  // With warm-up off the same version loads.
  auto options = Options(SingleModelConfig("warm", base.path()));
  options.enable_model_warmup = false;
  EXPECT_TRUE(ServerCore::Create(std::move(options)).ok());
}

TEST(ServerCoreTest, HotVersionSwapWhileRequestsRunHasZeroFailures) {
  std::string v123 = Model("saved_model_half_plus_two_cpu/00000123");
  std::string v124 = Model("saved_model_half_plus_two_2_versions/00000124");
  TFHOST_REQUIRE_TFSERVING_MODEL(v123);
  TFHOST_REQUIRE_TFSERVING_MODEL(v124);
  TempDir base;
  fs::create_directory_symlink(v123, base.Sub("1"));
  auto options = Options(SingleModelConfig("m", base.path()));
  options.manager.file_system_poll_wait_seconds = 1;
  auto created = ServerCore::Create(std::move(options));
  ASSERT_TRUE(created.ok()) << created.status().ToString();
  ServerCore& core = **created;
  std::atomic<bool> stop{false};
  std::atomic<int> failures{0}, ok{0};
  std::string first_error;
  std::mutex err_mu;
  std::vector<std::thread> clients;
  for (int i = 0; i < 2; ++i) {
    clients.emplace_back([&] {
      while (!stop) {
        ts::PredictResponse resp;
        Status s = core.Predict(FloatPredict("m", {2.0f}, {1, 1}), &resp);
        if (s.ok() && std::abs(resp.outputs().at("y").float_val(0) - 3.0f) < 1e-6) {
          ++ok;
        } else {
          std::lock_guard lock(err_mu);
          if (first_error.empty()) first_error = s.ToString();
          ++failures;
        }
      }
    });
  }
  auto wait_for_version = [&](int64_t v) {
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    while (std::chrono::steady_clock::now() < deadline) {
      auto s = core.GetServable(Spec("m"));
      if (s.ok() && (*s)->version == v) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    return false;
  };
  fs::create_directory_symlink(v124, base.Sub("2"));
  EXPECT_TRUE(wait_for_version(2));
  fs::remove(base.Sub("2"));  // back to version 1 (still on disk)
  EXPECT_TRUE(wait_for_version(1));
  stop = true;
  for (auto& c : clients) c.join();
  EXPECT_EQ(failures.load(), 0) << first_error;
  EXPECT_GT(ok.load(), 0);
}

TEST(ServerCoreTest, LoadingOneModelNeverBlocksRequestsToAnother) {
  std::string two = Model("saved_model_half_plus_two_cpu");
  std::string three = Model("saved_model_half_plus_three");
  TFHOST_REQUIRE_TFSERVING_MODEL(two);
  TFHOST_REQUIRE_TFSERVING_MODEL(three);
  auto options = Options(SingleModelConfig("a", two));
  // Loads of "b" take a second (a big model); "a" loads normally.
  options.manager.loader = [](const std::string& name, int64_t version, const std::string& path) {
    if (name == "b") std::this_thread::sleep_for(std::chrono::seconds(1));
    return LoadServable(name, version, path, loaders::LoadOptions());
  };
  auto created = ServerCore::Create(std::move(options));
  ASSERT_TRUE(created.ok()) << created.status().ToString();
  ServerCore& core = **created;
  std::atomic<bool> stop{false};
  std::atomic<int> failures{0};
  std::vector<double> latencies_ms;
  std::thread client([&] {
    while (!stop) {
      auto start = std::chrono::steady_clock::now();
      ts::PredictResponse resp;
      if (!core.Predict(FloatPredict("a", {2.0f}, {1}), &resp).ok()) ++failures;
      latencies_ms.push_back(
          std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
    }
  });
  ModelServerConfig both = SingleModelConfig("a", two);
  *both.mutable_model_config_list()->add_config() = SingleModelConfig("b", three).model_config_list().config(0);
  for (int round = 0; round < 2; ++round) {  // add b (1 s load), then remove it again
    ASSERT_TRUE(core.ReloadConfig(both).ok());
    ASSERT_TRUE(core.ReloadConfig(SingleModelConfig("a", two)).ok());
  }
  stop = true;
  client.join();
  ASSERT_FALSE(latencies_ms.empty());
  std::sort(latencies_ms.begin(), latencies_ms.end());
  double p50 = latencies_ms[latencies_ms.size() / 2];
  double p99 = latencies_ms[latencies_ms.size() * 99 / 100];
  double max = latencies_ms.back();
  std::cout << "requests to a while b loads twice: " << latencies_ms.size() << ", p50 " << p50 << " ms, p99 " << p99
            << " ms, max " << max << " ms\n";
  EXPECT_EQ(failures.load(), 0);
  // A design that held a lock across b's load would stall a for a full second.
  EXPECT_LT(max, 500.0);
}

TEST(ServerCoreTest, ReloadConfigAddsAndRemovesModels) {
  std::string two = Model("saved_model_half_plus_two_cpu");
  std::string three = Model("saved_model_half_plus_three");
  TFHOST_REQUIRE_TFSERVING_MODEL(two);
  TFHOST_REQUIRE_TFSERVING_MODEL(three);
  auto core = MakeCore("two", two);
  ASSERT_NE(core, nullptr);
  ts::ReloadConfigRequest req;
  auto* list = req.mutable_config()->mutable_model_config_list();
  *list->add_config() = SingleModelConfig("two", two).model_config_list().config(0);
  *list->add_config() = SingleModelConfig("three", three).model_config_list().config(0);
  ts::ReloadConfigResponse resp;
  ASSERT_TRUE(core->HandleReloadConfigRequest(req, &resp).ok());
  EXPECT_EQ(resp.status().error_code(), tensorflow::error::OK);
  ts::PredictResponse out;
  ASSERT_TRUE(core->Predict(FloatPredict("three", {2.0f}, {1}), &out).ok());
  EXPECT_FLOAT_EQ(out.outputs().at("y").float_val(0), 4.0f);
  EXPECT_EQ(core->ListModels().size(), 2u);
  EXPECT_TRUE(core->AllModelsAvailable());
  // Remove "two"; a config naming a missing model path reports the failure.
  list->mutable_config()->DeleteSubrange(0, 1);
  ASSERT_TRUE(core->HandleReloadConfigRequest(req, &resp).ok());
  EXPECT_EQ(core->Predict(FloatPredict("two", {2.0f}, {1}), &out).code(), StatusCode::kNotFound);
  // Adding a model that cannot load reports its error; the others keep serving.
  *list->add_config() = SingleModelConfig("broken", Model("bad_half_plus_two")).model_config_list().config(0);
  TFHOST_EXPECT_ERROR(core->HandleReloadConfigRequest(req, &resp), StatusCode::kFailedPrecondition,
                      "holds a legacy TensorFlow export (export.meta + V1 checkpoint, the SessionBundle format of TF "
                      "0.x/1.x), not a SavedModel. tfhost, like");
  EXPECT_NE(resp.status().error_message().find("\"broken\""), std::string::npos) << resp.status().error_message();
  EXPECT_TRUE(core->Predict(FloatPredict("three", {2.0f}, {1}), &out).ok());
  // Reloading the same config again: "broken" is not new, so the reload itself succeeds.
  EXPECT_TRUE(core->HandleReloadConfigRequest(req, &resp).ok());
  ts::ReloadConfigRequest bad;
  bad.mutable_config()->mutable_custom_model_config();
  TFHOST_EXPECT_ERROR(
      core->HandleReloadConfigRequest(bad, &resp), StatusCode::kInvalidArgument,
      "ServerModelConfig type not supported by HandleReloadConfigRequest. Only ModelConfigList is currently supported");
  EXPECT_EQ(resp.status().error_code(), tensorflow::error::INVALID_ARGUMENT);
  EXPECT_NE(resp.status().error_message().find("Only ModelConfigList"), std::string::npos);
}

TEST(ServerCoreTest, GetModelStatusReportsFailedVersionsWithTheirError) {
  std::string bad = Model("bad_half_plus_two");
  TFHOST_REQUIRE_TFSERVING_MODEL(bad);
  auto options = Options(SingleModelConfig("bad", bad));
  options.fail_if_initial_load_fails = false;
  auto core = ServerCore::Create(std::move(options));
  ASSERT_TRUE(core.ok()) << core.status().ToString();
  ts::GetModelStatusRequest req;
  *req.mutable_model_spec() = Spec("bad");
  ts::GetModelStatusResponse resp;
  ASSERT_TRUE((*core)->GetModelStatus(req, &resp).ok());
  ASSERT_EQ(resp.model_version_status_size(), 1);
  EXPECT_EQ(resp.model_version_status(0).version(), 123);
  EXPECT_EQ(resp.model_version_status(0).state(), ts::ModelVersionStatus::END);
  EXPECT_NE(resp.model_version_status(0).status().error_code(), tensorflow::error::OK);
  EXPECT_FALSE(resp.model_version_status(0).status().error_message().empty());
  EXPECT_FALSE((*core)->AllModelsAvailable());
  // Strict startup refuses to serve it, naming the model.
  auto strict = ServerCore::Create(Options(SingleModelConfig("bad", bad)));
  TFHOST_ASSERT_ERROR(strict, StatusCode::kUnavailable,
                      "holds a legacy TensorFlow export (export.meta + V1 checkpoint, the SessionBundle format of TF "
                      "0.x/1.x), not a SavedModel. tfhost, like");
  EXPECT_NE(strict.status().message().find("\"bad\""), std::string::npos) << strict.status().message();
}

TEST(ServerCoreTest, BasePathWithoutVersionFoldersStartsAndServesTheVersionWhenItAppears) {
  std::string model = Model("saved_model_half_plus_two_cpu/00000123");
  TFHOST_REQUIRE_TFSERVING_MODEL(model);
  TempDir base;
  fs::create_directory(base.Sub("not_a_version"));
  auto core = ServerCore::Create(Options(SingleModelConfig("m", base.path())));
  ASSERT_TRUE(core.ok()) << core.status().ToString();
  auto models = (*core)->manager().ListModels();
  ASSERT_EQ(models.size(), 1u);
  EXPECT_TRUE(models[0].no_version_folders);
  // The scan says how to lay versions out.
  EXPECT_NE(models[0].scan_error.find("no numeric version folders under " + base.path() +
                                      ": put each version in a numbered folder (" + base.path() + "/1/, "),
            std::string::npos)
      << models[0].scan_error;
  ts::PredictResponse resp;
  TFHOST_EXPECT_ERROR((*core)->Predict(FloatPredict("m", {1}, {1}), &resp, {Entrypoint::kGrpc}), StatusCode::kNotFound,
                      "Servable not found for request: Latest(m)");
  fs::copy(model, base.Sub("1"), fs::copy_options::recursive);
  (*core)->manager().PollFileSystem();
  ASSERT_TRUE((*core)->manager().WaitUntilSettled(std::chrono::seconds(60)));
  EXPECT_TRUE((*core)->Predict(FloatPredict("m", {1}, {1}), &resp, {Entrypoint::kGrpc}).ok());
}

TEST(ServerCoreTest, StartupErrorSaysWhyNothingCanBeServed) {
  TempDir empty;
  auto core = ServerCore::Create(Options(SingleModelConfig("m", empty.Sub("missing"))));
  TFHOST_ASSERT_ERROR(core, StatusCode::kUnavailable, "no servable version available: model \"m\" (");
  EXPECT_NE(core.status().message().find("does not exist"), std::string::npos) << core.status().message();
}

TEST(ServerCoreTest, RequestMetricsUseTfServingNamesAndLabels) {
  std::string model = Model("saved_model_half_plus_two_cpu");
  TFHOST_REQUIRE_TFSERVING_MODEL(model);
  auto core = MakeCore("default", model);
  ASSERT_NE(core, nullptr);
  ts::PredictResponse resp;
  ASSERT_TRUE(core->Predict(FloatPredict("default", {1}, {1}), &resp, {Entrypoint::kGrpc}).ok());
  TFHOST_ASSERT_ERROR(core->Predict(FloatPredict("default", {1}, {1}, "z"), &resp, {Entrypoint::kRest}),
                      StatusCode::kInvalidArgument,
                      "input tensor alias not found in signature: z. Inputs expected to be in the set {x}. (model "
                      "\"default\" version 123 signature");
  std::string text = core->MetricsText();
  EXPECT_NE(text.find(":tensorflow:serving:request_count{model_name=\"default\",status=\"OK\"} 1"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find(":tensorflow:serving:request_count{model_name=\"default\",status=\"INVALID_ARGUMENT\"} 1"),
            std::string::npos);
  EXPECT_NE(text.find(":tensorflow:serving:request_latency_count{model_name=\"default\",API=\"predict\","
                      "entrypoint=\"GRPC\"} 1"),
            std::string::npos);
  EXPECT_NE(text.find(":tfhost:serving:model_version_state{model_name=\"default\",version=\"123\"} 30"),
            std::string::npos);
  EXPECT_NE(text.find(":tensorflow:serving:runtime_latency_count{model_name=\"default\",API=\"predict\""),
            std::string::npos);
}

TEST(ServerCoreTest, PerModelRunnerReceivesRequests) {
  std::string model = Model("saved_model_half_plus_two_cpu");
  TFHOST_REQUIRE_TFSERVING_MODEL(model);
  auto core = MakeCore("default", model);
  ASSERT_NE(core, nullptr);
  auto runner = std::make_shared<CountingRunner>();
  core->SetRunner("default", runner);
  ts::PredictResponse resp;
  ASSERT_TRUE(core->Predict(FloatPredict("default", {1}, {1}), &resp).ok());
  auto result = core->PredictTensors(Spec("default"), {{"x", Tensor::FromVector<float>({4})}}, {});
  ASSERT_TRUE(result.ok()) << result.status().ToString();
  EXPECT_EQ(result->version, 123);
  EXPECT_FLOAT_EQ(result->outputs.at("y").data<float>()[0], 4.0f);
  EXPECT_EQ(runner->calls.load(), 2);
  auto resolved = core->ResolveSignature(Spec("default"));
  ASSERT_TRUE(resolved.ok());
  result = core->PredictTensors(*resolved, {{"x", Tensor::FromVector<float>({6})}}, {"y"});
  ASSERT_TRUE(result.ok()) << result.status().ToString();
  EXPECT_FLOAT_EQ(result->outputs.at("y").data<float>()[0], 5.0f);
  EXPECT_EQ(result->signature_name, "serving_default");
  EXPECT_EQ(runner->calls.load(), 3);
  core->SetRunner("default", nullptr);
  ASSERT_TRUE(core->Predict(FloatPredict("default", {1}, {1}), &resp).ok());
  EXPECT_EQ(runner->calls.load(), 3);
}

// Runs half_plus_two directly, noting the thread of each run; `delay` makes
// a run slow.
class ThreadNotingRunner : public SignatureRunner {
 public:
  StatusOr<TensorMap> Run(const ServableHandle& servable, const runtime::Signature& signature, TensorMap inputs,
                          const std::vector<std::string>& output_filter) override {
    {
      std::lock_guard lock(mu);
      threads.push_back(std::this_thread::get_id());
    }
    std::this_thread::sleep_for(delay.load());
    return DirectRunner().Run(servable, signature, std::move(inputs), output_filter);
  }
  std::thread::id Last() {
    std::lock_guard lock(mu);
    return threads.empty() ? std::thread::id() : threads.back();
  }
  std::mutex mu;
  std::vector<std::thread::id> threads;
  std::atomic<std::chrono::milliseconds> delay{std::chrono::milliseconds(0)};
};

// One PredictTensorsAsync call, waited for; true if it answered y = x/2 + 2.
bool PredictAsyncAndWait(ServerCore& core, float x) {
  auto resolved = core.ResolveSignature(Spec("default"));
  if (!resolved.ok()) return false;
  std::promise<StatusOr<PredictResult>> answer;
  auto future = answer.get_future();
  core.PredictTensorsAsync(std::move(*resolved), {{"x", Tensor::FromVector<float>({x})}}, {}, RequestContext{},
                           [&answer](StatusOr<PredictResult> r) { answer.set_value(std::move(r)); });
  if (future.wait_for(std::chrono::seconds(30)) != std::future_status::ready) return false;
  auto result = future.get();
  return result.ok() && result->outputs.at("y").data<float>()[0] == x / 2 + 2;
}

std::unique_ptr<ServerCore> MakeInlineCore(std::chrono::microseconds limit) {
  std::string model = Model("saved_model_half_plus_two_cpu");
  ServerCoreOptions options = Options(SingleModelConfig("default", model));
  options.enable_model_warmup = false;
  options.inline_run_limit = limit;
  auto core = ServerCore::Create(std::move(options));
  EXPECT_TRUE(core.ok()) << core.status().ToString();
  return core.ok() ? std::move(*core) : nullptr;
}

TEST(ServerCoreInlineRunTest, SignatureMeasuredFastRunsOnTheCallingThread) {
  TFHOST_REQUIRE_TFSERVING_MODEL(Model("saved_model_half_plus_two_cpu"));
  // A limit no run can reach, so the test does not depend on machine load.
  auto core = MakeInlineCore(std::chrono::seconds(60));
  ASSERT_NE(core, nullptr);
  auto runner = std::make_shared<ThreadNotingRunner>();
  core->SetRunner("default", runner);
  const auto me = std::this_thread::get_id();
  for (int i = 0; i < SignatureRunCosts::kFastRunsNeeded; ++i) {
    ASSERT_TRUE(PredictAsyncAndWait(*core, static_cast<float>(i)));
    EXPECT_NE(runner->Last(), me) << "run " << i << " ran inline before its streak was measured";
  }
  ASSERT_TRUE(PredictAsyncAndWait(*core, 3.0f));
  EXPECT_EQ(runner->Last(), me);
}

TEST(ServerCoreInlineRunTest, SignatureThatTurnsSlowGoesBackToTheWorkerPool) {
  TFHOST_REQUIRE_TFSERVING_MODEL(Model("saved_model_half_plus_two_cpu"));
  auto core = MakeInlineCore(std::chrono::milliseconds(50));
  ASSERT_NE(core, nullptr);
  auto runner = std::make_shared<ThreadNotingRunner>();
  core->SetRunner("default", runner);
  const auto me = std::this_thread::get_id();
  // Under 50 ms each unless the machine stalls a run that long; retried so
  // that one stalled run does not fail the test.
  bool inline_reached = false;
  for (int i = 0; i < 10 * SignatureRunCosts::kFastRunsNeeded && !inline_reached; ++i) {
    ASSERT_TRUE(PredictAsyncAndWait(*core, 1.0f));
    inline_reached = runner->Last() == me;
  }
  ASSERT_TRUE(inline_reached);
  runner->delay = std::chrono::milliseconds(60);
  ASSERT_TRUE(PredictAsyncAndWait(*core, 2.0f));  // inline, and slow
  EXPECT_EQ(runner->Last(), me);
  runner->delay = std::chrono::milliseconds(0);
  ASSERT_TRUE(PredictAsyncAndWait(*core, 3.0f));
  EXPECT_NE(runner->Last(), me);
}

// The asynchronous predict path keeps TF Serving's metrics through its
// cached cells: one series per entry point that served, none for the others.
TEST(ServerCoreInlineRunTest, AsyncPredictsAreCountedUnderTheirEntrypoint) {
  TFHOST_REQUIRE_TFSERVING_MODEL(Model("saved_model_half_plus_two_cpu"));
  auto core = MakeInlineCore(std::chrono::seconds(60));
  ASSERT_NE(core, nullptr);
  for (int i = 0; i < SignatureRunCosts::kFastRunsNeeded + 2; ++i) {  // pool runs, then inline ones
    auto resolved = core->ResolveSignature(Spec("default"));
    ASSERT_TRUE(resolved.ok());
    std::promise<bool> answer;
    core->PredictTensorsAsync(std::move(*resolved), {{"x", Tensor::FromVector<float>({1})}}, {},
                              RequestContext{Entrypoint::kRest},
                              [&answer](StatusOr<PredictResult> r) { answer.set_value(r.ok()); });
    ASSERT_TRUE(answer.get_future().get());
  }
  const std::string n = std::to_string(SignatureRunCosts::kFastRunsNeeded + 2);
  std::string text = core->MetricsText();
  EXPECT_NE(text.find(":tensorflow:serving:request_count{model_name=\"default\",status=\"OK\"} " + n),
            std::string::npos)
      << text;
  EXPECT_NE(text.find(":tensorflow:serving:request_latency_count{model_name=\"default\",API=\"predict\","
                      "entrypoint=\"REST\"} " + n),
            std::string::npos)
      << text;
  EXPECT_NE(text.find(":tensorflow:serving:runtime_latency_count{model_name=\"default\",API=\"predict\","
                      "runtime=\"tfhost\"} " + n),
            std::string::npos)
      << text;
  EXPECT_EQ(text.find("entrypoint=\"GRPC\""), std::string::npos) << text;
}

TEST(ServerCoreInlineRunTest, ZeroLimitAlwaysUsesTheWorkerPool) {
  TFHOST_REQUIRE_TFSERVING_MODEL(Model("saved_model_half_plus_two_cpu"));
  auto core = MakeInlineCore(std::chrono::microseconds(0));
  ASSERT_NE(core, nullptr);
  auto runner = std::make_shared<ThreadNotingRunner>();
  core->SetRunner("default", runner);
  const auto me = std::this_thread::get_id();
  for (int i = 0; i < 2 * SignatureRunCosts::kFastRunsNeeded; ++i) {
    ASSERT_TRUE(PredictAsyncAndWait(*core, 1.0f));
    EXPECT_NE(runner->Last(), me);
  }
}

TEST(ServerCoreTest, PolledConfigFileAddsAModelAndIgnoresABrokenEdit) {
  std::string two = Model("saved_model_half_plus_two_cpu");
  std::string three = Model("saved_model_half_plus_three");
  TFHOST_REQUIRE_TFSERVING_MODEL(two);
  TempDir dir;
  std::string file = dir.Sub("models.config");
  auto write = [&](const std::string& text) { std::ofstream(file, std::ios::trunc) << text; };
  write("model_config_list { config { name: \"two\" base_path: \"" + two + "\" } }");
  auto config = ReadModelServerConfigFile(file);
  ASSERT_TRUE(config.ok());
  Logs logs;
  auto options = Options(*config, &logs);
  options.model_config_file = file;
  options.model_config_file_poll_wait_seconds = 1;
  auto core = ServerCore::Create(std::move(options));
  ASSERT_TRUE(core.ok()) << core.status().ToString();
  write("model_config_list { config { name: \"two\" base_path: \"" + two +
        "\" } config { name: \"three\" base_path: \"" + three + "\" } }");
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (std::chrono::steady_clock::now() < deadline && !(*core)->GetServable(Spec("three")).ok()) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  EXPECT_TRUE((*core)->GetServable(Spec("three")).ok());
  write("model_config_list { config { nme: \"x\" } }");
  deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (std::chrono::steady_clock::now() < deadline && !logs.Contains("config ignored")) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  EXPECT_TRUE(logs.Contains("config ignored"));
  EXPECT_TRUE((*core)->GetServable(Spec("two")).ok());
  EXPECT_TRUE((*core)->GetServable(Spec("three")).ok());
}


namespace labels {

// hp2 from the two-version fixture (123 and 124) with a policy and labels.
ModelServerConfig TwoVersions(const std::vector<int64_t>& specific, const std::map<std::string, int64_t>& labels) {
  ModelServerConfig config = SingleModelConfig("hp2", Model("saved_model_half_plus_two_2_versions"));
  ModelConfig* m = config.mutable_model_config_list()->mutable_config(0);
  for (int64_t v : specific) m->mutable_model_version_policy()->mutable_specific()->add_versions(v);
  for (const auto& [label, version] : labels) (*m->mutable_version_labels())[label] = version;
  return config;
}

StatusOr<int64_t> LabelVersion(ServerCore& core, const std::string& label) {
  ts::ModelSpec spec = Spec("hp2");
  spec.set_version_label(label);
  TFHOST_ASSIGN_OR_RETURN(ServableHandle servable, core.GetServable(spec));
  return servable->version;
}

int64_t VersionOf(const StatusOr<int64_t>& version) { return version.ok() ? *version : -1; }

TEST(ServerCoreLabelTest, LabelOnVersionNotAvailableIsRefusedByDefault) {
  TFHOST_REQUIRE_TFSERVING_MODEL(Model("saved_model_half_plus_two_2_versions"));
  // Only 124 is served (latest), so 123 is not AVAILABLE: startup fails as TF Serving's does.
  ModelServerConfig bad = TwoVersions({}, {{"stable", 123}});
  auto refused = ServerCore::Create(Options(bad));
  TFHOST_ASSERT_ERROR(refused, StatusCode::kFailedPrecondition,
                      "Request to assign label to version 123 of model hp2, which is not currently available for "
                      "inference (label \"stable\";");
  EXPECT_NE(refused.status().message().find(
                "Request to assign label to version 123 of model hp2, which is not currently available for inference"),
            std::string::npos)
      << refused.status().message();

  // A running server refuses it on reload; the labels in force stay.
  auto core = ServerCore::Create(Options(TwoVersions({}, {{"canary", 124}})));
  ASSERT_TRUE(core.ok()) << core.status().ToString();
  EXPECT_EQ(VersionOf(LabelVersion(**core, "canary")), 124);
  Status reload = (*core)->ReloadConfig(TwoVersions({}, {{"canary", 124}, {"stable", 123}}));
  EXPECT_EQ(reload.code(), StatusCode::kFailedPrecondition) << reload.ToString();
  EXPECT_EQ(LabelVersion(**core, "stable").status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(VersionOf(LabelVersion(**core, "canary")), 124);
  // Once 123 is served, the same label is accepted.
  ASSERT_TRUE((*core)->ReloadConfig(TwoVersions({123, 124}, {{"canary", 124}, {"stable", 123}})).ok());
  EXPECT_EQ(VersionOf(LabelVersion(**core, "stable")), 123);
}

TEST(ServerCoreLabelTest, AllowFlagLetsNewLabelsNameUnavailableVersionsOnly) {
  TFHOST_REQUIRE_TFSERVING_MODEL(Model("saved_model_half_plus_two_2_versions"));
  ServerCoreOptions options = Options(TwoVersions({}, {{"stable", 123}, {"canary", 124}}));
  options.version_label_policy = VersionLabelPolicy::kAllowNewUnavailable;
  auto core = ServerCore::Create(std::move(options));
  ASSERT_TRUE(core.ok()) << core.status().ToString();
  // The label exists; its version is not served yet.
  auto stable = LabelVersion(**core, "stable");
  EXPECT_EQ(stable.status().code(), StatusCode::kNotFound);
  EXPECT_EQ(stable.status().message(), "Servable not found for request: Specific(hp2, 123)");
  EXPECT_EQ(VersionOf(LabelVersion(**core, "canary")), 124);
  // Moving a label in use onto a version that is not available stays refused.
  Status moved = (*core)->ReloadConfig(TwoVersions({}, {{"stable", 123}, {"canary", 125}}));
  EXPECT_EQ(moved.code(), StatusCode::kFailedPrecondition) << moved.ToString();
  EXPECT_EQ(VersionOf(LabelVersion(**core, "canary")), 124);
  // When 123 loads, "stable" serves it.
  ASSERT_TRUE((*core)->ReloadConfig(TwoVersions({123, 124}, {{"stable", 123}, {"canary", 124}})).ok());
  EXPECT_EQ(VersionOf(LabelVersion(**core, "stable")), 123);
}

TEST(ServerCoreLabelTest, ForceAllowLetsAnyLabelMove) {
  TFHOST_REQUIRE_TFSERVING_MODEL(Model("saved_model_half_plus_two_2_versions"));
  ServerCoreOptions options = Options(TwoVersions({}, {{"canary", 124}}));
  options.version_label_policy = VersionLabelPolicy::kAllowAny;
  auto core = ServerCore::Create(std::move(options));
  ASSERT_TRUE(core.ok()) << core.status().ToString();
  ASSERT_TRUE((*core)->ReloadConfig(TwoVersions({}, {{"canary", 125}})).ok());
  EXPECT_EQ(LabelVersion(**core, "canary").status().message(), "Servable not found for request: Specific(hp2, 125)");
}

}  // namespace labels

}  // namespace
}  // namespace tfhost::serving
