// Frozen GraphDefs written by TensorFlow: the graph of TF Serving's
// matrix_half_plus_two export has no variables, so its GraphDef is a frozen
// graph exactly as TensorFlow wrote it. It is extracted to .pb and .pbtxt files
// and loaded through loaders::LoadModel as a GraphDef model.
#include <google/protobuf/text_format.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "base/test_fixtures.h"
#include "loaders/graph_to_session.h"
#include "loaders/model_loader.h"
#include "tensorflow/core/protobuf/saved_model.pb.h"

namespace tfhost {
namespace {

namespace fs = std::filesystem;

class GraphDefFixtureTest : public ::testing::Test {
 protected:
  void SetUp() override {
    source_ = testing::FixturePath("models/tfserving/matrix_half_plus_two/1/saved_model.pb");
    TFHOST_REQUIRE_FIXTURE(source_);
    auto bytes = loaders::ReadFileToString(source_);
    ASSERT_TRUE(bytes.ok());
    tensorflow::SavedModel saved_model;
    ASSERT_TRUE(saved_model.ParseFromString(*bytes));
    graph_def_ = saved_model.meta_graphs(0).graph_def();
    dir_ = fs::temp_directory_path() / ("tfhost_graphdef_fixture_" + std::to_string(::getpid()));
    fs::create_directories(dir_);
  }
  void TearDown() override {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }

  void ExpectHalfPlusTwo(const std::string& path) {
    auto model = loaders::LoadModel(path);
    ASSERT_TRUE(model.ok()) << model.status().ToString();
    EXPECT_EQ((*model)->info().format, "GraphDef");
    Tensor x(DType::kFloat, Shape({1, 3, 3}));
    for (int i = 0; i < 9; ++i) x.data<float>()[i] = static_cast<float>(i + 1);
    auto out = (*model)->session().Run({{"x:0", x}}, {"y:0"});
    ASSERT_TRUE(out.ok()) << out.status().ToString();
    const float expected[9] = {2.5f, 3.0f, 3.5f, 4.0f, 4.5f, 5.0f, 5.5f, 6.0f, 6.5f};
    for (int i = 0; i < 9; ++i) EXPECT_EQ((*out)[0].data<float>()[i], expected[i]) << i;
  }

  std::string source_;
  tensorflow::GraphDef graph_def_;
  fs::path dir_;
};

TEST_F(GraphDefFixtureTest, BinaryFrozenGraphFromTensorFlowComputesHalfPlusTwo) {
  std::string path = (dir_ / "matrix_half_plus_two.pb").string();
  std::ofstream(path, std::ios::binary) << graph_def_.SerializeAsString();
  ExpectHalfPlusTwo(path);
}

TEST_F(GraphDefFixtureTest, TextFrozenGraphFromTensorFlowComputesHalfPlusTwo) {
  std::string text;
  ASSERT_TRUE(google::protobuf::TextFormat::PrintToString(graph_def_, &text));
  std::string path = (dir_ / "matrix_half_plus_two.pbtxt").string();
  std::ofstream(path) << text;
  ExpectHalfPlusTwo(path);
}

TEST_F(GraphDefFixtureTest, SynthesizedSignatureFeedsPlaceholderAndFetchesUnconsumedOutput) {
  std::string path = (dir_ / "matrix_half_plus_two.pb").string();
  std::ofstream(path, std::ios::binary) << graph_def_.SerializeAsString();
  auto model = loaders::LoadModel(path);
  ASSERT_TRUE(model.ok()) << model.status().ToString();
  auto sig = (*model)->FindSignature("serving_default");
  ASSERT_TRUE(sig.ok()) << sig.status().ToString();
  ASSERT_EQ((*sig)->inputs.size(), 1u);
  EXPECT_EQ((*sig)->inputs[0].tensor_name, "x:0");
  Tensor zeros(DType::kFloat, Shape({2, 3, 3}));
  auto out = (*model)->RunSignature("serving_default", {{(*sig)->inputs[0].key, zeros}});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  ASSERT_EQ((*sig)->outputs.size(), 1u);
  EXPECT_EQ((*sig)->outputs[0].tensor_name, "y:0");
  const Tensor& y = out->at((*sig)->outputs[0].key);
  ASSERT_EQ(y.shape(), Shape({2, 3, 3}));
  for (int i = 0; i < 18; ++i) EXPECT_EQ(y.data<float>()[i], 2.0f);
}

}  // namespace
}  // namespace tfhost
