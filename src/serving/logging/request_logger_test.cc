#include "serving/logging/request_logger.h"

#include <google/protobuf/text_format.h>
#include <google/protobuf/util/json_util.h>
#include <gtest/gtest.h>
#include <stdlib.h>

#include <algorithm>
#include <filesystem>

#include "base/test_status.h"
#include "base/test_temp_dir.h"
#include "base/test_tfserving_models.h"
#include "data/tfrecord_reader.h"
#include "ir/tensor_proto.h"
#include "serving/server_core.h"

namespace tfhost::serving::logging {
namespace {

namespace fs = std::filesystem;
namespace ts = tensorflow::serving;

struct TempDir : tfhost::testing::TempDir {
  TempDir() : tfhost::testing::TempDir("tfhost_reqlog") {}};

ModelServerConfig Config(const std::string& text) {
  ModelServerConfig config;
  EXPECT_TRUE(google::protobuf::TextFormat::ParseFromString(text, &config)) << text;
  return config;
}

std::string LoggedModel(const std::string& name, const std::string& prefix, double rate,
                        const std::string& base_path = "/models/m") {
  return "config { name: '" + name + "' base_path: '" + base_path + "' model_platform: 'tensorflow' " +
         "logging_config { log_collector_config { type: 'tfrecord' filename_prefix: '" + prefix +
         "' } sampling_config { sampling_rate: " + std::to_string(rate) + " } } }";
}

// Every PredictionLog under `dir` whose file name starts with `stem`.
std::vector<ts::PredictionLog> ReadLogs(const std::string& dir, const std::string& stem) {
  std::vector<std::string> files;
  for (const auto& e : fs::directory_iterator(dir)) {
    if (e.path().filename().string().rfind(stem + "-", 0) == 0) files.push_back(e.path().string());
  }
  std::sort(files.begin(), files.end());
  std::vector<ts::PredictionLog> logs;
  for (const auto& f : files) {
    auto records = data::ReadAllRecords(f);
    EXPECT_TRUE(records.ok()) << records.status().ToString();
    if (!records.ok()) continue;
    for (const auto& r : *records) {
      ts::PredictionLog log;
      EXPECT_TRUE(log.ParseFromString(r));
      logs.push_back(log);
    }
  }
  return logs;
}

TEST(RequestLoggerTest, ConfigErrorsNameTheModelAndTheField) {
  auto check = [](const std::string& text, const std::string& expected) {
    Status s = ValidateLoggingConfigs(Config("model_config_list { " + text + " }"));
    EXPECT_EQ(s.code(), StatusCode::kInvalidArgument) << text;
    EXPECT_NE(s.message().find(expected), std::string::npos) << s.message();
  };
  check(LoggedModel("a", "", 1), "model config \"a\": logging_config.log_collector_config.filename_prefix is empty");
  check(LoggedModel("a", "/l/a", 1.5), "model config \"a\": logging_config.sampling_config.sampling_rate is 1.5");
  check(LoggedModel("a", "/l/", 1), "filename_prefix \"/l/\" ends in '/'");
  check(LoggedModel("a", "/l/x", 1) + LoggedModel("b", "/l/x", 1),
        "model config \"b\": logging_config.log_collector_config.filename_prefix \"/l/x\" is already used by model "
        "\"a\"");
  check("config { name: 'a' base_path: '/m' logging_config { log_collector_config { type: 'kafka' "
        "filename_prefix: '/l/a' } } }",
        "log_collector_config.type \"kafka\" is not a log collector tfhost has (expected \"tfrecord\" or empty)");
}

TEST(RequestLoggerTest, AnInvalidUpdateKeepsTheLogsInForce) {
  TempDir dir;
  RequestLogger logger(nullptr, {});
  ASSERT_TRUE(logger.Update(Config("model_config_list { " + LoggedModel("a", dir.Sub("a"), 1) + " }")).ok());
  Status bad = logger.Update(Config("model_config_list { " + LoggedModel("a", dir.Sub("a"), 2) + " }"));
  EXPECT_EQ(bad.code(), StatusCode::kInvalidArgument);
  ASSERT_NE(logger.Find("a"), nullptr);
  EXPECT_EQ(logger.Find("a")->sampling_rate(), 1.0);
}

TEST(RequestLoggerTest, SamplingRateZeroLogsNothingAndOneLogsEverything) {
  TempDir dir;
  RequestLogger logger(nullptr, {});
  ASSERT_TRUE(logger
                  .Update(Config("model_config_list { " + LoggedModel("never", dir.Sub("never"), 0) +
                                 LoggedModel("always", dir.Sub("always"), 1) + " }"))
                  .ok());
  int never = 0, always = 0;
  for (int i = 0; i < 200; ++i) {
    never += logger.Sample("never") ? 1 : 0;
    always += logger.Sample("always") ? 1 : 0;
  }
  EXPECT_EQ(never, 0);
  EXPECT_EQ(always, 200);
  EXPECT_EQ(logger.Sample("unlogged"), nullptr);
}

TEST(RequestLoggerTest, AHalfSamplingRateLogsAboutHalf) {
  TempDir dir;
  RequestLogger logger(nullptr, {});
  ASSERT_TRUE(logger.Update(Config("model_config_list { " + LoggedModel("m", dir.Sub("m"), 0.5) + " }")).ok());
  int sampled = 0;
  for (int i = 0; i < 4000; ++i) sampled += logger.Sample("m") ? 1 : 0;
  // Binomial(4000, 0.5): sd ~32; 10 sd either side cannot fail by chance.
  EXPECT_GT(sampled, 1680);
  EXPECT_LT(sampled, 2320);
}

TEST(RequestLoggerTest, KeepsTheCollectorWhenAReloadLeavesThePrefixAlone) {
  TempDir dir;
  RequestLogger logger(nullptr, {});
  ASSERT_TRUE(logger.Update(Config("model_config_list { " + LoggedModel("m", dir.Sub("m"), 1) + " }")).ok());
  const TFRecordLogCollector* before = &logger.Find("m")->collector();
  ASSERT_TRUE(logger.Update(Config("model_config_list { " + LoggedModel("m", dir.Sub("m"), 0.5) + " }")).ok());
  EXPECT_EQ(&logger.Find("m")->collector(), before);
  EXPECT_EQ(logger.Find("m")->sampling_rate(), 0.5);
  ASSERT_TRUE(logger.Update(Config("model_config_list { " + LoggedModel("m", dir.Sub("n"), 1) + " }")).ok());
  EXPECT_NE(&logger.Find("m")->collector(), before);
  ASSERT_TRUE(logger.Update(Config("model_config_list { config { name: 'm' base_path: '/m' } }")).ok());
  EXPECT_EQ(logger.Find("m"), nullptr);
}

TEST(RequestLoggerTest, CountsWrittenRecordsInThePrometheusText) {
  TempDir dir;
  MetricsRegistry registry;
  RequestLogger logger(&registry, {});
  ASSERT_TRUE(logger.Update(Config("model_config_list { " + LoggedModel("m", dir.Sub("m"), 1) + " }")).ok());
  ts::PredictRequest request;
  ts::PredictResponse response;
  response.mutable_model_spec()->set_name("m");
  for (int i = 0; i < 3; ++i) logger.Sample("m")->LogPredict(request, response);
  ASSERT_TRUE(logger.FlushAll().ok());
  EXPECT_NE(registry.ToPrometheusText().find(
                ":tfhost:serving:request_log_records{model_name=\"m\",outcome=\"written\"} 3"),
            std::string::npos)
      << registry.ToPrometheusText();
}

// ---- through ServerCore, on TF Serving's half_plus_two ----

std::unique_ptr<ServerCore> LoggingCore(const std::string& model, const std::string& prefix) {
  ServerCoreOptions o;
  o.model_server_config = Config("model_config_list { " + LoggedModel("hp2", prefix, 1, model) + " }");
  o.manager.file_system_poll_wait_seconds = 0;
  o.manager.max_num_load_retries = 0;
  o.manager.log_sink = [](const std::string&) {};
  auto core = ServerCore::Create(std::move(o));
  EXPECT_TRUE(core.ok()) << core.status().ToString();
  return core.ok() ? std::move(*core) : nullptr;
}

template <typename M>
M FromJson(const std::string& json) {
  M m;
  EXPECT_TRUE(google::protobuf::util::JsonStringToMessage(json, &m).ok()) << json;
  return m;
}

TEST(RequestLoggerCoreTest, EveryApiWritesItsPredictionLogWithTheVersionThatRan) {
  std::string model = tfhost::testing::TfServingModelPath("saved_model_half_plus_two_cpu");
  TFHOST_REQUIRE_TFSERVING_MODEL(model);
  TempDir dir;
  auto core = LoggingCore(model, dir.Sub("hp2"));
  ASSERT_NE(core, nullptr);

  auto predict = FromJson<ts::PredictRequest>(
      R"({"model_spec":{"name":"hp2"},"inputs":{"x":{"dtype":"DT_FLOAT","tensor_shape":{"dim":[{"size":2}]},
          "float_val":[1,3]}}})");
  ts::PredictResponse presp;
  ASSERT_TRUE(core->Predict(predict, &presp).ok());
  auto regress = FromJson<ts::RegressionRequest>(
      R"({"model_spec":{"name":"hp2","signature_name":"regress_x_to_y"},
          "input":{"example_list":{"examples":[{"features":{"feature":{"x":{"float_list":{"value":[2.0]}}}}}]}}})");
  ts::RegressionResponse rresp;
  ASSERT_TRUE(core->Regress(regress, &rresp).ok());
  // A failed request is not logged.
  predict.mutable_model_spec()->set_signature_name("nope");
  TFHOST_EXPECT_ERROR(core->Predict(predict, &presp), StatusCode::kFailedPrecondition,
                      "Serving signature key \"nope\" not found. (model \"hp2\" version 123 has: classify_x_to_y, "
                      "regress_x2_to_y3, regress_x_to_y, regress_x_to_y2,");
  // The tensor path (REST, KServe v2): logged as the PredictLog of its tensors.
  ts::ModelSpec spec;
  spec.set_name("hp2");
  TensorMap inputs;
  inputs.emplace("x", Tensor::FromVector(std::vector<float>{4.0f}));
  auto tensors = core->PredictTensors(spec, std::move(inputs), {});
  ASSERT_TRUE(tensors.ok()) << tensors.status().ToString();
  ASSERT_TRUE(core->request_logger().FlushAll().ok());

  auto logs = ReadLogs(dir.Sub(""), "hp2");
  ASSERT_EQ(logs.size(), 3u);
  EXPECT_EQ(logs[0].log_type_case(), ts::PredictionLog::kPredictLog);
  EXPECT_EQ(logs[0].log_metadata().model_spec().name(), "hp2");
  EXPECT_EQ(logs[0].log_metadata().model_spec().version().value(), 123);
  EXPECT_EQ(logs[0].log_metadata().model_spec().signature_name(), "serving_default");
  EXPECT_EQ(logs[0].log_metadata().sampling_config().sampling_rate(), 1.0);
  ASSERT_EQ(logs[0].log_metadata().saved_model_tags_size(), 1);
  EXPECT_EQ(logs[0].log_metadata().saved_model_tags(0), "serve");
  EXPECT_EQ(logs[0].predict_log().request().inputs().at("x").float_val(1), 3.0f);
  EXPECT_EQ(logs[0].predict_log().response().outputs().at("y").float_val(1), 3.5f);
  EXPECT_EQ(logs[1].log_type_case(), ts::PredictionLog::kRegressLog);
  EXPECT_EQ(logs[1].log_metadata().model_spec().signature_name(), "regress_x_to_y");
  EXPECT_FLOAT_EQ(logs[1].regress_log().response().result().regressions(0).value(), 3.0f);
  EXPECT_EQ(logs[2].log_type_case(), ts::PredictionLog::kPredictLog);
  auto in = ir::TensorFromProto(logs[2].predict_log().request().inputs().at("x"));
  auto out = ir::TensorFromProto(logs[2].predict_log().response().outputs().at("y"));
  ASSERT_TRUE(in.ok() && out.ok());
  EXPECT_EQ(in->data<float>()[0], 4.0f);
  EXPECT_EQ(out->data<float>()[0], 4.0f);
}

TEST(RequestLoggerCoreTest, AnInvalidLoggingConfigStopsCreateWithTheModelNamed) {
  ServerCoreOptions o;
  o.model_server_config = Config("model_config_list { " + LoggedModel("bad", "", 1) + " }");
  o.manager.log_sink = [](const std::string&) {};
  auto core = ServerCore::Create(std::move(o));
  EXPECT_EQ(core.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(core.status().message().find("model config \"bad\": logging_config.log_collector_config.filename_prefix"),
            std::string::npos)
      << core.status().ToString();
}

}  // namespace
}  // namespace tfhost::serving::logging
