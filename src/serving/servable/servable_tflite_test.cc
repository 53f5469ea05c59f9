// A version folder holding both a SavedModel and model.tflite is served
// from the SavedModel, or with --prefer_tflite_model (TF Serving's flag)
// from model.tflite, whose signatures are then the ones the server reports.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "base/test_temp_dir.h"
#include "loaders/savedmodel/demo_models.h"
#include "loaders/tflite/tflite_test_model.h"
#include "serving/servable/servable.h"

namespace tfhost::serving {
namespace {

std::string WriteVersionWithBothModels(const testing::TempDir& dir) {
  auto written = loaders::WriteDemoModels(dir.path());
  EXPECT_TRUE(written.ok()) << written.status().ToString();
  const std::string version = dir.Sub("half_plus_two/1");
  std::ofstream(version + "/model.tflite", std::ios::binary) << loaders::tflite::BuildTestModel();
  return version;
}

TEST(ServableTfliteTest, SavedModelIsServedUnlessTfliteIsPreferred) {
  testing::TempDir dir("servable_tflite");
  const std::string version = WriteVersionWithBothModels(dir);
  auto servable = LoadServable("m", 1, version, loaders::LoadOptions());
  ASSERT_TRUE(servable.ok()) << servable.status().ToString();
  EXPECT_NE((*servable)->model->info().format, "TFLite");
  EXPECT_TRUE((*servable)->signature_defs.signature_def().count("classify_x_to_y"));
}

TEST(ServableTfliteTest, PreferredTfliteModelReportsItsOwnSignatures) {
  testing::TempDir dir("servable_tflite");
  const std::string version = WriteVersionWithBothModels(dir);
  loaders::LoadOptions options;
  options.prefer_tflite_model = true;
  auto servable = LoadServable("m", 1, version, options);
  ASSERT_TRUE(servable.ok()) << servable.status().ToString();
  EXPECT_EQ((*servable)->model->info().format, "TFLite");
  const auto& defs = (*servable)->signature_defs.signature_def();
  ASSERT_EQ(defs.size(), 1u);
  ASSERT_TRUE(defs.count("predict"));
  EXPECT_TRUE(defs.at("predict").inputs().count("in"));
  EXPECT_TRUE(defs.at("predict").outputs().count("out"));
}

}  // namespace
}  // namespace tfhost::serving
