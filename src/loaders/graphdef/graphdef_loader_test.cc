// GraphDef loader tests on handmade graphs: binary and text files, the
// synthesized signature, and corrupt files.
#include "loaders/graphdef/graphdef_loader.h"

#include <google/protobuf/text_format.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <random>

#include "loaders/model_loader.h"
#include "base/test_status.h"

namespace tfhost::loaders {
namespace {

namespace fs = std::filesystem;

// x (Placeholder float [?]) -> y = Identity(x); z = IdentityN(x, c) with two
// outputs; c is a Const consumed by z.
constexpr char kGraphText[] = R"pb(
  node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } }
         attr { key: "shape" value { shape { dim { size: -1 } } } } }
  node { name: "c" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } }
         attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { dim { size: 2 } }
                                              float_val: 7 float_val: 8 } } } }
  node { name: "y" op: "Identity" input: "x" attr { key: "T" value { type: DT_FLOAT } } }
  node { name: "z" op: "IdentityN" input: "x" input: "c"
         attr { key: "T" value { list { type: DT_FLOAT type: DT_FLOAT } } } }
  versions { producer: 1645 }
)pb";

class GraphDefLoaderTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("graphdef_loader_test_" + std::to_string(std::random_device()()));
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string Write(const std::string& name, const std::string& bytes) {
    std::ofstream out(dir_ / name, std::ios::binary);
    out << bytes;
    return (dir_ / name).string();
  }
  fs::path dir_;
};

void ExpectSynthesizedSignature(runtime::Model& model) {
  const auto& sig = model.signatures().at("serving_default");
  ASSERT_EQ(sig.inputs.size(), 1u);
  EXPECT_EQ(sig.inputs[0].key, "x");
  EXPECT_EQ(sig.inputs[0].shape.ToString(), "[?]");
  ASSERT_EQ(sig.outputs.size(), 3u);
  EXPECT_EQ(sig.outputs[0].key, "y");
  EXPECT_EQ(sig.outputs[1].key, "z:0");
  EXPECT_EQ(sig.outputs[2].key, "z:1");
  EXPECT_EQ(sig.outputs[2].tensor_name, "z:1");
  auto out = model.RunSignature("serving_default", {{"x", Tensor::FromVector<float>({1, 2, 3})}});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ(out->at("y").NumElements(), 3);
  EXPECT_EQ(out->at("z:1").data<float>()[1], 8.0f);
}

TEST_F(GraphDefLoaderTest, TextGraphLoadsWithPlaceholderInputsAndUnconsumedOutputs) {
  auto model = LoadModel(Write("frozen.pbtxt", kGraphText));
  ASSERT_TRUE(model.ok()) << model.status().ToString();
  ExpectSynthesizedSignature(**model);
  EXPECT_EQ((*model)->info().format, "GraphDef");
  EXPECT_EQ((*model)->info().metadata.at("producer"), "1645");
  EXPECT_EQ((*model)->info().variable_count, 1);
  EXPECT_EQ((*model)->info().variable_bytes, 8);
}

TEST_F(GraphDefLoaderTest, BinaryGraphLoadsTheSame) {
  tensorflow::GraphDef graph_def;
  ASSERT_TRUE(google::protobuf::TextFormat::ParseFromString(kGraphText, &graph_def));
  auto model = LoadModel(Write("frozen.pb", graph_def.SerializeAsString()));
  ASSERT_TRUE(model.ok()) << model.status().ToString();
  ExpectSynthesizedSignature(**model);
}

TEST_F(GraphDefLoaderTest, CorruptBinaryGraphIsAClearError) {
  tensorflow::GraphDef graph_def;
  ASSERT_TRUE(google::protobuf::TextFormat::ParseFromString(kGraphText, &graph_def));
  std::string bytes = graph_def.SerializeAsString();
  auto model = LoadModel(Write("frozen.pb", bytes.substr(0, bytes.size() / 2) + "\xff"));
  TFHOST_ASSERT_ERROR(model, StatusCode::kInvalidArgument, "cannot parse");
  EXPECT_NE(model.status().message().find("frozen.pb"), std::string::npos) << model.status().message();
}

TEST_F(GraphDefLoaderTest, MalformedTextGraphErrorGivesTheLine) {
  auto model = LoadModel(Write("frozen.pbtxt", "node { name: \"x\"\n op: Placeholder }\n"));
  TFHOST_ASSERT_ERROR(model, StatusCode::kInvalidArgument,
                      "frozen.pbtxt as a text-format GraphDef: line 2, column 6: Expected string, got: Placeholder");
}

// The shape of converted TF2 graphs: a NoOp barrier after "^x", and a Const
// that waits on it; feeding x must satisfy both control edges.
TEST_F(GraphDefLoaderTest, ControlEdgesFromFedPlaceholderAndNoOpBarrierDoNotBlockRuns) {
  auto model = LoadModel(Write("frozen.pbtxt", R"pb(
    node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
    node { name: "barrier" op: "NoOp" input: "^x" }
    node { name: "c" op: "Const" input: "^barrier" attr { key: "dtype" value { type: DT_FLOAT } }
           attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape {} float_val: 2 } } } }
    node { name: "y" op: "IdentityN" input: "x" input: "c"
           attr { key: "T" value { list { type: DT_FLOAT type: DT_FLOAT } } } })pb"));
  ASSERT_TRUE(model.ok()) << model.status().ToString();
  auto out = (*model)->RunSignature("serving_default", {{"x", Tensor::Scalar<float>(5)}});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ(out->at("y:0").data<float>()[0], 5.0f);
  EXPECT_EQ(out->at("y:1").data<float>()[0], 2.0f);
}

TEST_F(GraphDefLoaderTest, UnsupportedOpIsReportedWithItsNode) {
  auto model = LoadModel(Write("frozen.pbtxt", R"pb(
    node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
    node { name: "w" op: "SomeOpNobodyWrote" input: "x" })pb"));
  TFHOST_ASSERT_ERROR(model, StatusCode::kUnimplemented,
                      "model 'frozen': node 'w' uses op 'SomeOpNobodyWrote', which tfhost does not support");
}

}  // namespace
}  // namespace tfhost::loaders
