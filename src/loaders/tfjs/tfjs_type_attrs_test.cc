// TF.js graph models whose nodes omit the type attrs TensorFlow would have
// set from their inputs (the converter's fused Prelu has no "T"; hand-edited
// and older models drop "N" and "T" elsewhere): they load and compute the
// right numbers, while an attr that only an output uses stays an error
// naming the node and the attr.
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <tuple>

#include "base/test_status.h"
#include "loaders/model_loader.h"

namespace tfhost::loaders {
namespace {

namespace fs = std::filesystem;

class TfjsTypeAttrsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("tfjs_type_attrs_test_" + std::to_string(std::random_device()()));
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  // model.json with `nodes` as its topology, `extra` members before it and
  // the float32 `weights` (name -> shape and values) in one shard.
  std::string WriteModel(const std::string& nodes,
                         const std::vector<std::tuple<std::string, std::string, std::vector<float>>>& weights,
                         const std::string& extra = "") {
    std::string manifest, bytes;
    for (const auto& [name, shape, values] : weights) {
      manifest += std::string(manifest.empty() ? "" : ",") + R"({"name": ")" + name + R"(", "shape": )" + shape +
                  R"(, "dtype": "float32"})";
      std::string raw(values.size() * sizeof(float), '\0');
      std::memcpy(raw.data(), values.data(), raw.size());
      bytes += raw;
    }
    std::ofstream(dir_ / "w.bin", std::ios::binary) << bytes;
    std::ofstream(dir_ / "model.json") << R"({"format": "graph-model", )" + extra +
                                              R"("modelTopology": {"node": [)" + nodes +
                                              R"(], "versions": {"producer": 1645}}, "weightsManifest": )" +
                                              R"([{"paths": ["w.bin"], "weights": [)" + manifest + "]}]}";
    return (dir_ / "model.json").string();
  }

  fs::path dir_;
};

// A Const filled from the weights; `dims` as protobuf JSON dims.
std::string FloatConst(const std::string& name, const std::string& dims) {
  return R"({"name": ")" + name + R"(", "op": "Const", "attr": {"dtype": {"type": "DT_FLOAT"}, "value": )" +
         R"({"tensor": {"dtype": "DT_FLOAT", "tensorShape": {"dim": [)" + dims + "]}}}}}";
}

TEST_F(TfjsTypeAttrsTest, PreluAddAndConcatWithoutTypeAttrsLoadAndComputeTheRightNumbers) {
  const std::string path = WriteModel(
      FloatConst("x", R"({"size": "2"}, {"size": "2"})") + "," + FloatConst("alpha", R"({"size": "2"})") + "," +
          R"({"name": "axis", "op": "Const", "attr": {"dtype": {"type": "DT_INT32"},
              "value": {"tensor": {"dtype": "DT_INT32", "tensorShape": {}, "intVal": [0]}}}},
             {"name": "p", "op": "Prelu", "input": ["x", "alpha"]},
             {"name": "s", "op": "Add", "input": ["p", "p"]},
             {"name": "out", "op": "ConcatV2", "input": ["p", "s", "axis"]})",
      {{"x", "[2, 2]", {-1, 2, -3, 4}}, {"alpha", "[2]", {0.5f, 0.25f}}});
  auto model = LoadModel(path);
  ASSERT_TRUE(model.ok()) << model.status().ToString();
  const auto& sig = (*model)->signatures().at("serving_default");
  ASSERT_EQ(sig.outputs.size(), 1u);
  EXPECT_EQ(sig.outputs[0].dtype, DType::kFloat);
  auto out = (*model)->RunSignature("serving_default", {});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  // p = Prelu(x) with alpha over the last axis: [[-0.5, 2], [-1.5, 4]];
  // s = p + p; out stacks p over s.
  EXPECT_TRUE(TensorsEqual(out->at("out"),
                           Tensor::FromVector<float>({-0.5f, 2, -1.5f, 4, -1, 4, -3, 8}, Shape({4, 2}))))
      << out->at("out").DebugString();
}

TEST_F(TfjsTypeAttrsTest, AttrOnlyAnOutputUsesIsAnErrorNamingNodeAndAttr) {
  const std::string path = WriteModel(FloatConst("x", R"({"size": "2"})") + "," +
                                          R"({"name": "to_int", "op": "Cast", "input": ["x"]})",
                                      {{"x", "[2]", {1, 2}}});
  auto model = LoadModel(path);
  TFHOST_ASSERT_ERROR(model, StatusCode::kInvalidArgument,
                      "': node 'to_int' (Cast): missing required attr 'DstT'; only output 'y' of Cast uses it, so no "
                      "input can determine it and the model must set");
  EXPECT_NE(model.status().message().find("node 'to_int' (Cast): missing required attr 'DstT'"), std::string::npos)
      << model.status().message();
}

// The initializer's table reaches the main graph through a resource input
// that the loader turns into an Identity without attrs; the lookups omit
// Tin and Tout too.
TEST_F(TfjsTypeAttrsTest, InitializerTableInputAndLookupsAreTypedFromTheirInputs) {
  const std::string extra = R"("modelInitializer": {"node": [
      {"name": "init/table", "op": "HashTableV2",
       "attr": {"key_dtype": {"type": "DT_STRING"}, "value_dtype": {"type": "DT_INT64"}}},
      {"name": "init/keys", "op": "Const", "attr": {"dtype": {"type": "DT_STRING"}, "value": {"tensor":
       {"dtype": "DT_STRING", "tensorShape": {"dim": [{"size": "2"}]}, "stringVal": ["YQ==", "Yg=="]}}}},
      {"name": "init/values", "op": "Const", "attr": {"dtype": {"type": "DT_INT64"}, "value": {"tensor":
       {"dtype": "DT_INT64", "tensorShape": {"dim": [{"size": "2"}]}, "int64Val": ["10", "20"]}}}},
      {"name": "init/import", "op": "LookupTableImportV2", "input": ["init/table", "init/keys", "init/values"]}]},
    "initializerSignature": {"outputs": {"table": {"name": "init/table:0", "resourceId": 7}}},
    "signature": {"inputs": {"keys": {"name": "keys:0", "dtype": "DT_STRING"},
                             "table": {"name": "table:0", "dtype": "DT_RESOURCE", "resourceId": 7}},
                  "outputs": {"ids": {"name": "ids:0", "dtype": "DT_INT64"}}}, )";
  const std::string path = WriteModel(
      R"({"name": "keys", "op": "Placeholder", "attr": {"dtype": {"type": "DT_STRING"}}},
         {"name": "table", "op": "Placeholder", "attr": {"dtype": {"type": "DT_RESOURCE"}}},
         {"name": "default", "op": "Const", "attr": {"dtype": {"type": "DT_INT64"}, "value": {"tensor":
          {"dtype": "DT_INT64", "tensorShape": {}, "int64Val": ["-1"]}}}},
         {"name": "ids", "op": "LookupTableFindV2", "input": ["table", "keys", "default"]})",
      {}, extra);
  auto model = LoadModel(path);
  ASSERT_TRUE(model.ok()) << model.status().ToString();
  Tensor keys(DType::kString, Shape({3}));
  keys.strings()[0] = "b";
  keys.strings()[1] = "z";
  keys.strings()[2] = "a";
  auto out = (*model)->RunSignature("serving_default", {{"keys", keys}});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  const Tensor& ids = out->at("ids");
  ASSERT_EQ(ids.dtype(), DType::kInt64);
  EXPECT_EQ(std::vector<int64_t>(ids.data<int64_t>(), ids.data<int64_t>() + 3), (std::vector<int64_t>{20, -1, 10}));
}

}  // namespace
}  // namespace tfhost::loaders
