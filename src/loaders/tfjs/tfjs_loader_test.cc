// TF.js loader tests on tiny handmade models written to a temporary folder:
// the weight byte layout, dequantization math, signatures, and bad files.
#include "loaders/tfjs/tfjs_loader.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <random>

#include "loaders/model_loader.h"
#include "base/test_status.h"

namespace tfhost::loaders {
namespace {

namespace fs = std::filesystem;

class TfjsLoaderTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("tfjs_loader_test_" + std::to_string(std::random_device()()));
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  void Write(const std::string& name, const std::string& bytes) {
    std::ofstream out(dir_ / name, std::ios::binary);
    out << bytes;
  }
  std::string ModelPath() const { return (dir_ / "model.json").string(); }

  // A model whose outputs are Identities of the Const nodes that `weights`
  // fill; `consts` is the list of Const nodes as JSON.
  void WriteModel(const std::string& nodes, const std::string& weights, const std::string& paths = "\"w.bin\"",
                  const std::string& extra = "") {
    Write("model.json", R"({"format": "graph-model", "generatedBy": "2.15.0",
      "convertedBy": "TensorFlow.js Converter v4.22.0", )" + extra + R"(
      "modelTopology": {"node": [)" + nodes + R"(], "versions": {"producer": 1645}},
      "weightsManifest": [{"paths": [)" + paths + R"(], "weights": [)" + weights + "]}]}");
  }

  static std::string Const(const std::string& name, const std::string& dtype, const std::string& dims) {
    return R"({"name": ")" + name + R"(", "op": "Const", "attr": {"dtype": {"type": ")" + dtype +
           R"("}, "value": {"tensor": {"dtype": ")" + dtype + R"(", "tensorShape": {"dim": [)" + dims + "]}}}}}";
  }
  static std::string Identity(const std::string& name, const std::string& input, const std::string& dtype) {
    return R"({"name": ")" + name + R"(", "op": "Identity", "input": [")" + input + R"("], "attr": {"T": {"type": ")" +
           dtype + R"("}}})";
  }

  std::map<std::string, Tensor> RunAll(runtime::Model& model) {
    auto out = model.RunSignature("serving_default", {});
    EXPECT_TRUE(out.ok()) << out.status().ToString();
    return out.ok() ? *out : std::map<std::string, Tensor>();
  }

  fs::path dir_;
};

std::vector<float> Floats(const Tensor& t) {
  return std::vector<float>(t.data<float>(), t.data<float>() + t.NumElements());
}

TEST_F(TfjsLoaderTest, Uint8AndUint16WeightsDequantizeAsQTimesScalePlusMin) {
  WriteModel(Const("a", "DT_FLOAT", R"({"size": "3"})") + "," + Identity("out_a", "a", "DT_FLOAT") + "," +
                 Const("b", "DT_FLOAT", R"({"size": "2"})") + "," + Identity("out_b", "b", "DT_FLOAT"),
             R"({"name": "a", "shape": [3], "dtype": "float32",
                 "quantization": {"dtype": "uint8", "scale": 0.5, "min": -1.0}},
                {"name": "b", "shape": [2], "dtype": "float32",
                 "quantization": {"dtype": "uint16", "scale": 0.25, "min": 2.0, "original_dtype": "float32"}})");
  // a: q = 0, 1, 255; b: q = 0x0100 = 256, 0xFFFF = 65535 (little-endian).
  Write("w.bin", std::string("\x00\x01\xff\x00\x01\xff\xff", 7));
  auto model = LoadModel(ModelPath());
  ASSERT_TRUE(model.ok()) << model.status().ToString();
  auto out = RunAll(**model);
  EXPECT_EQ(Floats(out["out_a"]), (std::vector<float>{-1.0f, -0.5f, 126.5f}));
  EXPECT_EQ(Floats(out["out_b"]), (std::vector<float>{66.0f, 16385.75f}));
  EXPECT_EQ((*model)->info().variable_count, 2);
  EXPECT_EQ((*model)->info().variable_bytes, 5 * 4);
}

TEST_F(TfjsLoaderTest, QuantizedInt32WeightsRoundHalfUpLikeTfjs) {
  WriteModel(Const("i", "DT_INT32", R"({"size": "5"})") + "," + Identity("out", "i", "DT_INT32"),
             R"({"name": "i", "shape": [5], "dtype": "int32",
                 "quantization": {"dtype": "uint8", "scale": 0.5, "min": -1.5}})");
  // q*0.5 - 1.5 = -1.5, -1, -0.5, 0, 0.5 -> Math.round: -1, -1, 0, 0, 1.
  Write("w.bin", std::string("\x00\x01\x02\x03\x04", 5));
  auto model = LoadModel(ModelPath());
  ASSERT_TRUE(model.ok()) << model.status().ToString();
  Tensor t = RunAll(**model)["out"];
  ASSERT_EQ(t.dtype(), DType::kInt32);
  EXPECT_EQ(std::vector<int32_t>(t.data<int32_t>(), t.data<int32_t>() + 5), (std::vector<int32_t>{-1, -1, 0, 0, 1}));
}

TEST_F(TfjsLoaderTest, Float16WeightsWidenToFloat32) {
  WriteModel(Const("h", "DT_FLOAT", R"({"size": "4"})") + "," + Identity("out", "h", "DT_FLOAT"),
             R"({"name": "h", "shape": [4], "dtype": "float32", "quantization": {"dtype": "float16"}})");
  // 0x3C00 = 1, 0xC000 = -2, 0x7BFF = 65504, 0x0001 = 2^-24 (subnormal).
  Write("w.bin", std::string("\x00\x3c\x00\xc0\xff\x7b\x01\x00", 8));
  auto model = LoadModel(ModelPath());
  ASSERT_TRUE(model.ok()) << model.status().ToString();
  EXPECT_EQ(Floats(RunAll(**model)["out"]), (std::vector<float>{1.0f, -2.0f, 65504.0f, std::ldexp(1.0f, -24)}));
}

TEST_F(TfjsLoaderTest, PlainWeightsReadBackToBackAcrossShardsAndGroups) {
  // f (float32 [2]) straddles the first shard boundary; then bool, int32 and
  // a string weight from a second group.
  Write("model.json", R"({"format": "graph-model", "modelTopology": {"node": [)" +
                          Const("f", "DT_FLOAT", R"({"size": "2"})") + "," + Identity("out_f", "f", "DT_FLOAT") + "," +
                          Const("b", "DT_BOOL", R"({"size": "2"})") + "," + Identity("out_b", "b", "DT_BOOL") + "," +
                          Const("i", "DT_INT32", "") + "," + Identity("out_i", "i", "DT_INT32") + "," +
                          Const("s", "DT_STRING", R"({"size": "2"})") + "," + Identity("out_s", "s", "DT_STRING") +
                          R"(]}, "weightsManifest": [
      {"paths": ["g1-1.bin", "g1-2.bin"], "weights": [
        {"name": "f", "shape": [2], "dtype": "float32"}, {"name": "b", "shape": [2], "dtype": "bool"},
        {"name": "i", "shape": [], "dtype": "int32"}]},
      {"paths": ["g2.bin"], "weights": [{"name": "s", "shape": [2], "dtype": "string"}]}]})");
  // 1.5f = 0x3FC00000, -2.0f = 0xC0000000.
  Write("g1-1.bin", std::string("\x00\x00\xc0\x3f\x00\x00", 6));
  Write("g1-2.bin", std::string("\x00\xc0\x00\x01\x07\x00\x00\x00", 8));
  Write("g2.bin", std::string("\x02\x00\x00\x00hi\x00\x00\x00\x00", 10));
  auto model = LoadModel(ModelPath());
  ASSERT_TRUE(model.ok()) << model.status().ToString();
  auto out = RunAll(**model);
  EXPECT_EQ(Floats(out["out_f"]), (std::vector<float>{1.5f, -2.0f}));
  EXPECT_FALSE(out["out_b"].data<bool>()[0]);
  EXPECT_TRUE(out["out_b"].data<bool>()[1]);
  EXPECT_EQ(out["out_i"].data<int32_t>()[0], 7);
  EXPECT_EQ(out["out_s"].strings()[0], "hi");
  EXPECT_EQ(out["out_s"].strings()[1], "");
  EXPECT_EQ((*model)->info().format, "TensorFlow.js");
}

TEST_F(TfjsLoaderTest, SynthesizedSignatureUsesPlaceholdersAndUnconsumedOutputs) {
  WriteModel(R"({"name": "x", "op": "Placeholder", "attr": {"dtype": {"type": "DT_FLOAT"},
                 "shape": {"shape": {"dim": [{"size": "-1"}, {"size": "2"}]}}}},)" +
                 Identity("y", "x", "DT_FLOAT") + "," + Const("c", "DT_FLOAT", R"({"size": "1"})"),
             R"({"name": "c", "shape": [1], "dtype": "float32"})");
  Write("w.bin", std::string(4, '\0'));
  auto model = LoadModel(ModelPath());
  ASSERT_TRUE(model.ok()) << model.status().ToString();
  const auto& sig = (*model)->signatures().at("serving_default");
  ASSERT_EQ(sig.inputs.size(), 1u);
  EXPECT_EQ(sig.inputs[0].key, "x");
  EXPECT_EQ(sig.inputs[0].tensor_name, "x:0");
  EXPECT_EQ(sig.inputs[0].shape.ToString(), "[?,2]");
  ASSERT_EQ(sig.outputs.size(), 1u);  // the Const is not an output
  EXPECT_EQ(sig.outputs[0].key, "y");
  EXPECT_EQ(sig.outputs[0].dtype, DType::kFloat);
  auto out = (*model)->RunSignature("serving_default", {{"x", Tensor::FromVector<float>({3, 4}, Shape({1, 2}))}});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ(Floats(out->at("y")), (std::vector<float>{3, 4}));
}

TEST_F(TfjsLoaderTest, SignatureBlockKeysAreUsedAsAliases) {
  WriteModel(R"({"name": "x", "op": "Placeholder", "attr": {"dtype": {"type": "DT_FLOAT"}}},)" +
                 Identity("y", "x", "DT_FLOAT"),
             "", "", R"("signature": {"inputs": {"src": {"name": "x:0", "dtype": "DT_FLOAT"}},
                                   "outputs": {"result": {"name": "y:0", "dtype": "DT_FLOAT"}}},)");
  auto model = LoadModel(ModelPath());
  ASSERT_TRUE(model.ok()) << model.status().ToString();
  auto out = (*model)->RunSignature("serving_default", {{"src", Tensor::Scalar<float>(5)}});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ(out->at("result").data<float>()[0], 5.0f);
}

// The initializer reshapes a 2-element Const of its own to [2] (fine) or
// [3] (a run-time error): loading fails, saying so, exactly when it runs
// and fails. The target shape goes through Abs so that only running finds
// the mismatch (a constant one is rejected earlier, by shape inference).
TEST_F(TfjsLoaderTest, ModelInitializerRunsOnceAtLoad) {
  for (bool holds : {true, false}) {
    SCOPED_TRACE(holds ? "valid reshape" : "invalid reshape");
    const std::string init = R"("modelInitializer": {"node": [
        {"name": "init/v", "op": "Const", "attr": {"dtype": {"type": "DT_FLOAT"},
         "value": {"tensor": {"dtype": "DT_FLOAT", "tensorShape": {"dim": [{"size": "2"}]}, "floatVal": [1, 2]}}}},
        {"name": "init/shape", "op": "Const", "attr": {"dtype": {"type": "DT_INT32"},
         "value": {"tensor": {"dtype": "DT_INT32", "tensorShape": {"dim": [{"size": "1"}]}, "intVal": [)" +
                             std::string(holds ? "2" : "3") + R"(]}}}},
        {"name": "init/abs", "op": "Abs", "input": ["init/shape"], "attr": {"T": {"type": "DT_INT32"}}},
        {"name": "init/reshape", "op": "Reshape", "input": ["init/v", "init/abs"],
         "attr": {"T": {"type": "DT_FLOAT"}, "Tshape": {"type": "DT_INT32"}}}]},)";
    WriteModel(Const("a", "DT_FLOAT", R"({"size": "1"})") + "," + Identity("out", "a", "DT_FLOAT"),
               R"({"name": "a", "shape": [1], "dtype": "float32"})", "\"w.bin\"", init);
    Write("w.bin", std::string(4, '\0'));
    auto model = LoadModel(ModelPath());
    if (holds) {
      ASSERT_TRUE(model.ok()) << model.status().ToString();
      EXPECT_EQ(RunAll(**model)["out"].NumElements(), 1);
    } else {
      TFHOST_ASSERT_ERROR(model, StatusCode::kInvalidArgument,
                          "running the model initializer: node 'init/reshape' (Reshape)");
    }
  }
}

TEST_F(TfjsLoaderTest, UnknownQuantizationDtypeIsAnErrorNamingIt) {
  WriteModel(Const("a", "DT_FLOAT", R"({"size": "2"})") + "," + Identity("out", "a", "DT_FLOAT"),
             R"({"name": "a", "shape": [2], "dtype": "float32",
                 "quantization": {"dtype": "int4", "scale": 1, "min": 0}})");
  Write("w.bin", std::string(2, '\0'));
  auto model = LoadModel(ModelPath());
  TFHOST_ASSERT_ERROR(model, StatusCode::kInvalidArgument,
                      "model.json: weight 'a' has quantization dtype 'int4'; expected uint8, uint16 or float16");
  EXPECT_NE(model.status().message().find("weight 'a'"), std::string::npos) << model.status().message();
}

TEST_F(TfjsLoaderTest, ConstWithoutWeightIsAnErrorNamingIt) {
  WriteModel(Const("a", "DT_FLOAT", R"({"size": "1"})") + "," + Const("orphan", "DT_FLOAT", R"({"size": "3"})") +
                 "," + R"({"name": "sum", "op": "IdentityN", "input": ["a", "orphan"],
                          "attr": {"T": {"list": {"type": ["DT_FLOAT", "DT_FLOAT"]}}}})",
             R"({"name": "a", "shape": [1], "dtype": "float32"})");
  Write("w.bin", std::string(4, '\0'));
  auto model = LoadModel(ModelPath());
  TFHOST_ASSERT_ERROR(model, StatusCode::kInvalidArgument,
                      "model.json: Const node 'orphan' has no weight in the weightsManifest and no value in modelTopology;");
}

TEST_F(TfjsLoaderTest, ShortShardIsAnErrorNamingWeightAndShard) {
  WriteModel(Const("a", "DT_FLOAT", R"({"size": "4"})") + "," + Identity("out", "a", "DT_FLOAT"),
             R"({"name": "a", "shape": [4], "dtype": "float32"})");
  Write("w.bin", std::string(10, '\0'));
  auto model = LoadModel(ModelPath());
  TFHOST_ASSERT_ERROR(model, StatusCode::kDataLoss,
                      "weight 'a' needs 16 bytes but only 10 remain in the weight shards (it starts at byte 0 of the "
                      "concatenated shards, in shard 'w.bin'; the");
  EXPECT_NE(model.status().message().find("weight 'a'"), std::string::npos) << model.status().message();
  EXPECT_NE(model.status().message().find("'w.bin'"), std::string::npos) << model.status().message();
}

TEST_F(TfjsLoaderTest, ExtraShardBytesAreAnError) {
  WriteModel(Const("a", "DT_FLOAT", R"({"size": "1"})") + "," + Identity("out", "a", "DT_FLOAT"),
             R"({"name": "a", "shape": [1], "dtype": "float32"})");
  Write("w.bin", std::string(6, '\0'));
  auto model = LoadModel(ModelPath());
  TFHOST_ASSERT_ERROR(model, StatusCode::kDataLoss,
                      "model.json: the weight shards hold 6 bytes but the weightsManifest describes only 4; 2 extra bytes");
}

TEST_F(TfjsLoaderTest, WeightDtypeMustMatchTheConstNode) {
  WriteModel(Const("a", "DT_BOOL", R"({"size": "1"})") + "," + Identity("out", "a", "DT_BOOL"),
             R"({"name": "a", "shape": [1], "dtype": "float32"})");
  Write("w.bin", std::string(4, '\0'));
  auto model = LoadModel(ModelPath());
  TFHOST_ASSERT_ERROR(model, StatusCode::kInvalidArgument,
                      "model.json: Const node 'a' is bool but its weight is float32");
}

TEST_F(TfjsLoaderTest, ShardPathsMayNotLeaveTheModelFolder) {
  WriteModel(Const("a", "DT_FLOAT", R"({"size": "1"})") + "," + Identity("out", "a", "DT_FLOAT"),
             R"({"name": "a", "shape": [1], "dtype": "float32"})", R"("../w.bin")");
  auto model = LoadModel(ModelPath());
  TFHOST_ASSERT_ERROR(model, StatusCode::kInvalidArgument,
                      "model.json: weight shard path '../w.bin' leaves the folder of model.json");
}

TEST_F(TfjsLoaderTest, LayersModelIsRefusedAsKeras) {
  Write("model.json", R"({"format": "layers-model", "modelTopology": {"class_name": "Sequential"},
                          "weightsManifest": []})");
  auto model = LoadModel(ModelPath());
  TFHOST_ASSERT_ERROR(model, StatusCode::kUnimplemented,
                      "is a TensorFlow.js layers model (a Keras model), which tfhost does not support; convert the "
                      "original model as a graph model");
  EXPECT_NE(model.status().message().find("layers model (a Keras model)"), std::string::npos)
      << model.status().message();
}

TEST_F(TfjsLoaderTest, DeeplyNestedJsonIsRefusedWithoutRecursing) {
  const int depth = 200000;
  Write("model.json", R"({"format": "graph-model", "modelTopology": {"node": [], "x": )" + std::string(depth, '[') +
                          std::string(depth, ']') + "}}");
  auto model = LoadModel(ModelPath());
  TFHOST_ASSERT_ERROR(model, StatusCode::kInvalidArgument,
                      "model.json nests JSON deeper than 64 levels; a TF.js model needs about 20");
}

TEST_F(TfjsLoaderTest, HugeDeclaredShapeFailsWithoutAllocating) {
  WriteModel(Const("a", "DT_FLOAT", R"({"size": "1000000000000"})") + "," + Identity("out", "a", "DT_FLOAT"),
             R"({"name": "a", "shape": [1000000000000], "dtype": "float32"})");
  Write("w.bin", std::string(4, '\0'));
  auto model = LoadModel(ModelPath());
  TFHOST_ASSERT_ERROR(model, StatusCode::kDataLoss,
                      "model.json: weight 'a' needs 4000000000000 bytes but only 4 remain in the weight shards (it starts");
}

}  // namespace
}  // namespace tfhost::loaders
