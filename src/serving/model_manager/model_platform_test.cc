// model_platform in the model config picks which model file of a version
// folder is served: "tensorflow" (or none) the SavedModel, "tflite" its
// model.tflite, "onnx" its model.onnx, with the real loaders.
#include <gtest/gtest.h>

#include <chrono>
#include <fstream>

#include "base/test_temp_dir.h"
#include "loaders/onnx/onnx_test_model.h"
#include "loaders/savedmodel/demo_models.h"
#include "loaders/tflite/tflite_test_model.h"
#include "serving/model_manager/model_config.h"
#include "serving/model_manager/model_manager.h"

namespace tfhost::serving {
namespace {

// half_plus_two's version 1, with a model.tflite and a model.onnx beside
// its SavedModel.
std::string WriteBaseWithThreeFormats(const testing::TempDir& dir) {
  auto written = loaders::WriteDemoModels(dir.path());
  EXPECT_TRUE(written.ok()) << written.status().ToString();
  const std::string base = dir.Sub("half_plus_two");
  std::ofstream(base + "/1/model.tflite", std::ios::binary) << loaders::tflite::BuildTestModel();
  loaders::onnx::testing::WriteBytes(base + "/1/model.onnx",
                                     loaders::onnx::testing::Serialize(loaders::onnx::testing::BaseModel()));
  return base;
}

std::string ServedFormat(const std::string& base, const std::string& platform) {
  ModelManagerOptions options;
  options.file_system_poll_wait_seconds = 0;
  ModelManager manager(options);
  auto config = ParseModelServerConfig("model_config_list { config { name: \"m\" base_path: \"" + base +
                                           "\" model_platform: \"" + platform + "\" } }",
                                       "test");
  EXPECT_TRUE(config.ok()) << config.status().ToString();
  if (!config.ok()) return "";
  EXPECT_TRUE(manager.ReloadConfig(*config).ok());
  EXPECT_TRUE(manager.WaitUntilSettled(std::chrono::seconds(60)));
  auto servable = manager.GetServable({"m", std::nullopt, std::nullopt});
  EXPECT_TRUE(servable.ok()) << servable.status().ToString();
  return servable.ok() ? (*servable)->model->info().format : "";
}

TEST(ModelPlatformTest, EachPlatformServesItsOwnFileOfTheVersionFolder) {
  testing::TempDir dir("model_platform");
  const std::string base = WriteBaseWithThreeFormats(dir);
  EXPECT_EQ(ServedFormat(base, "tensorflow").rfind("SavedModel", 0), 0u);
  EXPECT_EQ(ServedFormat(base, "tflite"), "TFLite");
  EXPECT_EQ(ServedFormat(base, "onnx"), "ONNX");
}

TEST(ModelPlatformTest, APlatformWhoseFileIsMissingFailsTheLoadNamingTheFile) {
  testing::TempDir dir("model_platform");
  auto written = loaders::WriteDemoModels(dir.path());
  ASSERT_TRUE(written.ok()) << written.status().ToString();
  ModelManagerOptions options;
  options.file_system_poll_wait_seconds = 0;
  options.max_num_load_retries = 0;
  ModelManager manager(options);
  auto config = ParseModelServerConfig("model_config_list { config { name: \"m\" base_path: \"" +
                                           dir.Sub("half_plus_two") + "\" model_platform: \"onnx\" } }",
                                       "test");
  ASSERT_TRUE(config.ok()) << config.status().ToString();
  ASSERT_TRUE(manager.ReloadConfig(*config).ok());
  ASSERT_TRUE(manager.WaitUntilSettled(std::chrono::seconds(60)));
  auto status = manager.GetModelStatus("m", std::nullopt);
  ASSERT_TRUE(status.ok()) << status.status().ToString();
  ASSERT_EQ(status->size(), 1u);
  EXPECT_EQ((*status)[0].state, VersionState::kEnd);
  EXPECT_NE((*status)[0].status.message().find(dir.Sub("half_plus_two/1/model.onnx")), std::string::npos)
      << (*status)[0].status.ToString();
}

}  // namespace
}  // namespace tfhost::serving
