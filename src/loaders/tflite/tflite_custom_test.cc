// The custom operators TF Serving's TFLite sessions run: ParseExample and
// ParseExampleV2 with either form of custom_options, checked on Examples
// with and without each feature; and TF Serving's own parse_example_tflite
// where the shared fixtures exist.
#include <flatbuffers/flexbuffers.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "base/test_fixtures.h"
#include "base/test_status.h"
#include "base/test_temp_dir.h"
#include "loaders/model_loader.h"
#include "loaders/tflite/tflite_loader.h"
#include "loaders/tflite/tflite_test_model.h"
#include "tensorflow/core/example/example.pb.h"
#include "tensorflow/core/framework/node_def.pb.h"

namespace tfhost::loaders {
namespace {

using tflite::TestBytes;
using tflite::TestModelWriter;
using tflite::TestOp;
using tflite::TestStringBytes;
using TT = tflite::fb::TensorType;

constexpr int32_t kCustom = 32;

std::string Example(std::optional<std::vector<float>> x, std::optional<std::string> y) {
  tensorflow::Example e;
  auto& features = *e.mutable_features()->mutable_feature();
  if (x) {
    for (float v : *x) features["x"].mutable_float_list()->add_value(v);
  }
  if (y) features["y"].mutable_bytes_list()->add_value(*y);
  return e.SerializeAsString();
}

std::vector<uint8_t> MapOptions(int64_t num_sparse) {
  flexbuffers::Builder fbb;
  fbb.Map([&] { fbb.Int("num_sparse", num_sparse); });
  fbb.Finish();
  return fbb.GetBuffer();
}

// serialized [2] -> ParseExampleV2 over dense keys x (float, default 0) and
// y (string, default "missing"), the layout TF Serving's
// parse_example_tflite has; `x_width` values of x per example.
std::string ParseModel(std::vector<uint8_t> options, int x_width = 1) {
  TestModelWriter w;
  TestOp parse(kCustom, {0, 2, 2, 1, 2, 3, 4}, {5, 6});
  parse.custom_code = "ParseExampleV2";
  parse.custom_options = std::move(options);
  std::vector<float> x_default(x_width, 0.0f);
  w.AddSubgraph({{{"serialized", TT::STRING, {2}},
                  {"dense_keys", TT::STRING, {2}, TestStringBytes({"x", "y"})},
                  {"no_keys", TT::STRING, {0}, TestStringBytes({})},
                  {"x_default", TT::FLOAT32, {x_width}, TestBytes(x_default)},
                  {"y_default", TT::STRING, {1}, TestStringBytes({"missing"})},
                  {"x", TT::FLOAT32, {2, x_width}},
                  {"y", TT::STRING, {2, 1}}},
                 {0},
                 {5, 6},
                 {parse}});
  return w.Finish({{"examples", 0}}, {{"x", 5}, {"y", 6}});
}

std::string WriteModel(const testing::TempDir& dir, const std::string& bytes) {
  const std::string path = dir.Sub("model.tflite");
  std::ofstream(path, std::ios::binary) << bytes;
  return path;
}

TEST(TfliteCustomTest, ParseExampleV2WithMapOptionsTakesTypesAndShapesFromItsOutputs) {
  testing::TempDir dir("tflite_custom");
  auto model = LoadTfliteModel(WriteModel(dir, ParseModel(MapOptions(0))), LoadOptions());
  ASSERT_TRUE(model.ok()) << model.status().ToString();
  Tensor examples(DType::kString, Shape({2}));
  examples.strings()[0] = Example(std::vector<float>{1.5f}, "hello");
  examples.strings()[1] = Example(std::nullopt, std::nullopt);
  auto out = (*model)->RunSignature("predict", {{"examples", examples}});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ(out->at("x").shape(), Shape({2, 1}));
  EXPECT_EQ(out->at("x").ToDoubleVector(), (std::vector<double>{1.5, 0.0}));
  ASSERT_EQ(out->at("y").shape(), Shape({2, 1}));
  EXPECT_EQ(out->at("y").strings()[0], "hello");
  EXPECT_EQ(out->at("y").strings()[1], "missing");
}

TEST(TfliteCustomTest, ParseExampleV2WithANodeDefTakesItsAttrs) {
  tensorflow::NodeDef node;
  node.set_op("ParseExampleV2");
  auto& attrs = *node.mutable_attr();
  attrs["num_sparse"].set_i(0);
  attrs["Tdense"].mutable_list()->add_type(tensorflow::DT_FLOAT);
  attrs["Tdense"].mutable_list()->add_type(tensorflow::DT_STRING);
  attrs["dense_shapes"].mutable_list()->add_shape()->add_dim()->set_size(2);
  attrs["dense_shapes"].mutable_list()->add_shape()->add_dim()->set_size(1);
  attrs["sparse_types"].mutable_list();
  attrs["ragged_value_types"].mutable_list();
  attrs["ragged_split_types"].mutable_list();
  flexbuffers::Builder fbb;
  fbb.Vector([&] {
    fbb.String("ParseExampleV2");
    fbb.String(node.SerializeAsString());
  });
  fbb.Finish();
  testing::TempDir dir("tflite_custom");
  auto model = LoadTfliteModel(WriteModel(dir, ParseModel(fbb.GetBuffer(), 2)), LoadOptions());
  ASSERT_TRUE(model.ok()) << model.status().ToString();
  Tensor examples(DType::kString, Shape({2}));
  examples.strings()[0] = Example(std::vector<float>{1, 2}, "a");
  examples.strings()[1] = Example(std::vector<float>{3, 4}, std::nullopt);
  auto out = (*model)->RunSignature("predict", {{"examples", examples}});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ(out->at("x").ToDoubleVector(), (std::vector<double>{1, 2, 3, 4}));
  EXPECT_EQ(out->at("y").strings()[1], "missing");
}

TEST(TfliteCustomTest, CustomOptionsThatAreNotAFlexBufferAreRefusedNamingTheOperator) {
  testing::TempDir dir("tflite_custom");
  const std::string path = WriteModel(dir, ParseModel({0xff, 0x01, 0x02}));
  TFHOST_EXPECT_ERROR(LoadTfliteModel(path, LoadOptions()), StatusCode::kInvalidArgument,
                      path + ": operator 0 (ParseExampleV2): has custom_options that are not a valid FlexBuffer");
}

TEST(TfliteCustomTest, OutputsThatDoNotFitTheFeatureCountsAreRefused) {
  testing::TempDir dir("tflite_custom");
  const std::string path = WriteModel(dir, ParseModel(MapOptions(1)));
  TFHOST_EXPECT_ERROR(LoadTfliteModel(path, LoadOptions()), StatusCode::kInvalidArgument,
                      "operator 0 (ParseExampleV2): has 2 outputs; 1 sparse and 2 dense features need 5");
}

// TF Serving's parse_example_tflite: Examples with a float "x" (default 0)
// and a string "y" (default "missing"), keyed by tensor names.
TEST(TfliteFixturesTest, ParsesExamplesWithTfServingsParseExampleTfliteModel) {
  const std::string base = testing::FixturePath("models/tfserving/parse_example_tflite");
  TFHOST_REQUIRE_FIXTURE(base);
  auto model = LoadModel(base);
  ASSERT_TRUE(model.ok()) << model.status().ToString();
  Tensor examples(DType::kString, Shape({3}));
  examples.strings()[0] = Example(std::vector<float>{2.5f}, "first");
  examples.strings()[1] = Example(std::nullopt, "second");
  examples.strings()[2] = Example(std::vector<float>{-1.0f}, std::nullopt);
  const auto& sig = (*model)->signatures().at("serving_default");
  ASSERT_EQ(sig.inputs.size(), 1u);
  auto out = (*model)->RunSignature("serving_default", {{sig.inputs[0].key, examples}});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  ASSERT_EQ(out->size(), 2u);
  for (const auto& [key, value] : *out) {
    ASSERT_EQ(value.shape(), Shape({3, 1})) << key;
    if (value.dtype() == DType::kFloat) {
      EXPECT_EQ(value.ToDoubleVector(), (std::vector<double>{2.5, 0.0, -1.0})) << key;
    } else {
      EXPECT_EQ(value.strings()[0], "first");
      EXPECT_EQ(value.strings()[1], "second");
      EXPECT_EQ(value.strings()[2], "missing");
    }
  }
}

}  // namespace
}  // namespace tfhost::loaders
