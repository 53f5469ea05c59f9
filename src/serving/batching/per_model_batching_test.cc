#include "serving/batching/per_model_batching.h"

#include <google/protobuf/text_format.h>
#include <gtest/gtest.h>
#include <stdlib.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <regex>

#include "base/test_status.h"
#include "base/test_temp_dir.h"
#include "loaders/savedmodel/demo_models.h"
#include "serving/server_core.h"

namespace tfhost::serving::batching {
namespace {

namespace fs = std::filesystem;
namespace ts = tensorflow::serving;

struct TempDir : tfhost::testing::TempDir {
  TempDir() : tfhost::testing::TempDir("tfhost_pmb") {}};

void Write(const std::string& path, const std::string& text) {
  fs::create_directories(fs::path(path).parent_path());
  std::ofstream(path) << text;
}

Servable VersionAt(const std::string& name, const std::string& version_dir) {
  Servable s;
  s.name = name;
  s.version = 1;
  s.path = version_dir;
  return s;
}

TEST(PerModelBatchingTest, TheSavedModelsAssetsExtraFileWinsOverTheBasePathOne) {
  TempDir dir;
  Servable s = VersionAt("m", dir.Sub("m/1"));
  fs::create_directories(s.path);
  EXPECT_EQ(FindPerModelBatchingParams(s), "");
  Write(dir.Sub("m/batching_params.pbtxt"), "max_batch_size { value: 4 }");
  EXPECT_EQ(FindPerModelBatchingParams(s), dir.Sub("m/batching_params.pbtxt"));
  Write(dir.Sub("m/1/assets.extra/batching_params.pbtxt"), "max_batch_size { value: 8 }");
  EXPECT_EQ(FindPerModelBatchingParams(s), dir.Sub("m/1/assets.extra/batching_params.pbtxt"));
}

TEST(PerModelBatchingTest, AModelWithoutAFileGetsNoRunnerOfItsOwn) {
  TempDir dir;
  PerModelBatching per_model(DefaultBatchingConfig(), nullptr);
  fs::create_directories(dir.Sub("m/1"));
  auto runner = per_model.RunnerForVersion(VersionAt("m", dir.Sub("m/1")));
  ASSERT_TRUE(runner.ok());
  EXPECT_EQ(*runner, nullptr);
}

TEST(PerModelBatchingTest, VersionsWithTheSameParametersShareOneRunner) {
  TempDir dir;
  PerModelBatching per_model(DefaultBatchingConfig(), nullptr);
  Write(dir.Sub("m/batching_params.pbtxt"), "max_batch_size { value: 4 } num_batch_threads { value: 1 }");
  fs::create_directories(dir.Sub("m/2"));
  auto v1 = per_model.RunnerForVersion(VersionAt("m", dir.Sub("m/1")));
  auto v2 = per_model.RunnerForVersion(VersionAt("m", dir.Sub("m/2")));
  ASSERT_TRUE(v1.ok() && v2.ok());
  ASSERT_NE(*v1, nullptr);
  EXPECT_EQ(*v1, *v2);
  EXPECT_EQ((*v1)->config().max_batch_size, 4);
  EXPECT_EQ(per_model.runners().size(), 1u);
}

TEST(PerModelBatchingTest, ABadFileIsAnErrorNamingModelFileAndField) {
  TempDir dir;
  PerModelBatching per_model(DefaultBatchingConfig(), nullptr);
  const std::string file = dir.Sub("m/1/assets.extra/batching_params.pbtxt");
  Write(file, "max_batch_sise { value: 4 }");
  auto unknown = per_model.RunnerForVersion(VersionAt("m", dir.Sub("m/1")));
  EXPECT_EQ(unknown.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(unknown.status().message().find("per-model batching parameters of model \"m\" version 1"),
            std::string::npos)
      << unknown.status().message();
  EXPECT_NE(unknown.status().message().find(file), std::string::npos) << unknown.status().message();
  EXPECT_NE(unknown.status().message().find("max_batch_sise"), std::string::npos) << unknown.status().message();
  Write(file, "max_batch_size { value: 0 }");
  auto invalid = per_model.RunnerForVersion(VersionAt("m", dir.Sub("m/1")));
  EXPECT_EQ(invalid.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(invalid.status().message().find(file), std::string::npos) << invalid.status().message();
  EXPECT_NE(invalid.status().message().find("max_batch_size"), std::string::npos) << invalid.status().message();
}

// ---- through ServerCore, the way `tfhost serve` wires it ----

struct TwoModels {
  TempDir dir;
  MetricsRegistry registry;
  std::unique_ptr<ServingMetrics> metrics = std::make_unique<ServingMetrics>(&registry);
  std::unique_ptr<PerModelBatching> per_model;
  std::unique_ptr<ServerCore> core;
};

// "own" has its batching_params.pbtxt, "global" has none; both serve the
// demo half_plus_two. Global batching: TF Serving's defaults, no timeout.
std::unique_ptr<TwoModels> Serve(const std::string& own_params) {
  auto t = std::make_unique<TwoModels>();
  for (const char* name : {"own", "global"}) {
    auto written = loaders::WriteDemoModels(t->dir.Sub(name));
    EXPECT_TRUE(written.ok()) << written.status().ToString();
  }
  Write(t->dir.Sub("own/half_plus_two/batching_params.pbtxt"), own_params);
  BatchingConfig global = DefaultBatchingConfig();
  t->per_model = std::make_unique<PerModelBatching>(global, t->metrics.get());
  ServerCoreOptions o;
  google::protobuf::TextFormat::ParseFromString(
      "model_config_list { config { name: 'own' base_path: '" + t->dir.Sub("own/half_plus_two") +
          "' } config { name: 'global' base_path: '" + t->dir.Sub("global/half_plus_two") + "' } }",
      &o.model_server_config);
  o.manager.file_system_poll_wait_seconds = 0;
  o.manager.max_num_load_retries = 0;
  o.manager.log_sink = [](const std::string&) {};
  o.metrics_registry = &t->registry;
  PerModelBatching* per_model = t->per_model.get();
  o.version_runner = [per_model](const Servable& s) -> StatusOr<std::shared_ptr<SignatureRunner>> {
    TFHOST_ASSIGN_OR_RETURN(auto runner, per_model->RunnerForVersion(s));
    return std::shared_ptr<SignatureRunner>(std::move(runner));
  };
  auto core = ServerCore::Create(std::move(o));
  EXPECT_TRUE(core.ok()) << core.status().ToString();
  if (!core.ok()) return nullptr;
  t->core = std::move(*core);
  BatchingRunnerOptions bo;
  bo.config = global;
  bo.metrics = &t->core->metrics();
  auto batcher = BatchingRunner::Create(bo);
  EXPECT_TRUE(batcher.ok());
  t->core->SetDefaultRunner(*batcher);
  return t;
}

ts::PredictRequest Rows(const std::string& model, int rows) {
  ts::PredictRequest r;
  r.mutable_model_spec()->set_name(model);
  tensorflow::TensorProto& x = (*r.mutable_inputs())["x"];
  x.set_dtype(tensorflow::DT_FLOAT);
  x.mutable_tensor_shape()->add_dim()->set_size(rows);
  x.mutable_tensor_shape()->add_dim()->set_size(1);
  for (int i = 0; i < rows; ++i) x.add_float_val(static_cast<float>(i));
  return r;
}

// Sum of :tensorflow:serving:batching:processed_batch_size for `model`.
double ProcessedRows(const MetricsRegistry& registry, const std::string& model) {
  std::smatch m;
  const std::string text = registry.ToPrometheusText();
  std::regex sum(":tensorflow:serving:batching:processed_batch_size_sum\\{model_name=\"" + model +
                 "\",op_name=\"serving_default\"\\} ([0-9.]+)");
  return std::regex_search(text, m, sum) ? std::stod(m[1].str()) : -1;
}

TEST(PerModelBatchingCoreTest, AModelsOwnBatchSizesApplyToItAloneAndShowInTheMetrics) {
  auto t = Serve("max_batch_size { value: 4 } allowed_batch_sizes: 4 num_batch_threads { value: 1 }");
  ASSERT_NE(t, nullptr);
  auto* own = dynamic_cast<BatchingRunner*>(t->core->RunnerFor("own").get());
  auto* global = dynamic_cast<BatchingRunner*>(t->core->RunnerFor("global").get());
  ASSERT_NE(own, nullptr);
  ASSERT_NE(global, nullptr);
  EXPECT_NE(own, global);
  EXPECT_EQ(own->config().max_batch_size, 4);
  EXPECT_EQ(global->config().max_batch_size, 1000);

  ts::PredictResponse response;
  ASSERT_TRUE(t->core->Predict(Rows("own", 1), &response).ok());
  ASSERT_TRUE(t->core->Predict(Rows("global", 1), &response).ok());
  // One row padded up to the model's allowed size 4; the global model runs 1.
  EXPECT_EQ(ProcessedRows(t->registry, "own"), 4);
  EXPECT_EQ(ProcessedRows(t->registry, "global"), 1);
  // Six rows exceed the model's own max_batch_size, not the global one.
  Status big = t->core->Predict(Rows("own", 6), &response);
  EXPECT_EQ(big.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(big.message().find("Task size 6 is larger than maximum batch size 4"), std::string::npos)
      << big.message();
  EXPECT_TRUE(t->core->Predict(Rows("global", 6), &response).ok());
}

TEST(PerModelBatchingCoreTest, AModelsOwnBatchTimeoutHoldsALoneRequestOnlyForIt) {
  auto t = Serve("max_batch_size { value: 8 } batch_timeout_micros { value: 400000 } num_batch_threads { value: 1 }");
  ASSERT_NE(t, nullptr);
  auto timed = [&](const std::string& model) {
    ts::PredictResponse response;
    const auto start = std::chrono::steady_clock::now();
    EXPECT_TRUE(t->core->Predict(Rows(model, 1), &response).ok());
    return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - start).count();
  };
  // A lone request waits for its batch to fill until the timeout (400 ms)
  // on "own"; the global parameters have no timeout.
  const auto own_ms = timed("own");
  const auto global_ms = timed("global");
  EXPECT_GE(own_ms, 350);
  EXPECT_LT(global_ms, 300);
}

TEST(PerModelBatchingCoreTest, ABadParametersFileFailsThatModelsLoadNamingTheFile) {
  TempDir dir;
  ASSERT_TRUE(loaders::WriteDemoModels(dir.Sub("m")).ok());
  const std::string file = dir.Sub("m/half_plus_two/batching_params.pbtxt");
  Write(file, "batch_timeout_micros { value: -5 }");
  PerModelBatching per_model(DefaultBatchingConfig(), nullptr);
  ServerCoreOptions o;
  o.model_server_config = SingleModelConfig("m", dir.Sub("m/half_plus_two"));
  o.manager.file_system_poll_wait_seconds = 0;
  o.manager.max_num_load_retries = 0;
  o.manager.log_sink = [](const std::string&) {};
  o.version_runner = [&per_model](const Servable& s) -> StatusOr<std::shared_ptr<SignatureRunner>> {
    TFHOST_ASSIGN_OR_RETURN(auto runner, per_model.RunnerForVersion(s));
    return std::shared_ptr<SignatureRunner>(std::move(runner));
  };
  auto core = ServerCore::Create(std::move(o));
  TFHOST_ASSERT_ERROR(core, StatusCode::kUnavailable,
                      "BatchingParameters.batch_timeout_micros must be non-negative, got -5");
  EXPECT_NE(core.status().message().find(file), std::string::npos) << core.status().ToString();
  EXPECT_NE(core.status().message().find("batch_timeout_micros"), std::string::npos) << core.status().ToString();
}

}  // namespace
}  // namespace tfhost::serving::batching
