#include "loaders/tflite/tflite_loader.h"

#include <flatbuffers/flexbuffers.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "base/test_fixtures.h"
#include "base/test_status.h"
#include "base/test_temp_dir.h"
#include "loaders/savedmodel/demo_models.h"
#include "loaders/tflite/tflite_signatures.h"
#include "loaders/tflite/tflite_test_model.h"
#include "tensorflow/core/protobuf/meta_graph.pb.h"

namespace tfhost::loaders {
namespace {

namespace fs = std::filesystem;
using tflite::BuildTestModel;
using tflite::TestModelOptions;
using tflite::TestBytes;
using tflite::TestModelWriter;
using tflite::TestOp;
using tflite::TestSubgraph;
using TT = tflite::fb::TensorType;
using Options = tflite::fb::BuiltinOptions;

// Builtin codes of the operators the control-flow models below use.
constexpr int32_t kAdd = 0, kEmbeddingLookup = 7, kMul = 18, kSub = 41, kLess = 58, kGreater = 61, kIf = 118,
                  kWhile = 119, kCallOnce = 129, kHashtable = 136, kHashtableFind = 137, kHashtableImport = 138,
                  kVarHandle = 142, kReadVariable = 143, kAssignVariable = 144;

// A branch y = x <code> c for a float [1] x, where c is a constant.
TestSubgraph Branch(int32_t code, float c) {
  return {{{"x", TT::FLOAT32, {1}}, {"c", TT::FLOAT32, {1}, TestBytes<float>({c})}, {"y", TT::FLOAT32, {1}}},
          {0}, {2}, {{code, {0, 1}, {2}}}};
}

// main: y = x > 0 ? x * 2 : x - 10 through IF, with the branch indices given.
std::string IfModel(int then_index = 1, int else_index = 2, TestSubgraph then_branch = Branch(kMul, 2)) {
  TestModelWriter w;
  auto options = tflite::fb::CreateIfOptions(w.b(), then_index, else_index).Union();
  w.AddSubgraph({{{"x", TT::FLOAT32, {1}}, {"zero", TT::FLOAT32, {1}, TestBytes<float>({0})},
                  {"positive", TT::BOOL, {1}}, {"y", TT::FLOAT32, {1}}},
                 {0}, {3}, {{kGreater, {0, 1}, {2}}, {kIf, {2, 0}, {3}, Options::IfOptions, options}}});
  w.AddSubgraph(then_branch);
  w.AddSubgraph(Branch(kSub, 10));
  return w.Finish({{"x", 0}}, {{"y", 3}});
}

std::string WriteFile(const testing::TempDir& dir, const std::string& name, const std::string& bytes) {
  const std::string path = dir.Sub(name);
  fs::create_directories(fs::path(path).parent_path());
  std::ofstream(path, std::ios::binary) << bytes;
  return path;
}

TEST(TfliteLoaderTest, RunsAddWithConstantBiasAndFusedReluOnAnyBatch) {
  testing::TempDir dir("tflite_loader");
  auto model = LoadTfliteModel(WriteFile(dir, "model.tflite", BuildTestModel()), LoadOptions());
  ASSERT_TRUE(model.ok()) << model.status().ToString();
  EXPECT_EQ((*model)->info().format, "TFLite");
  EXPECT_EQ((*model)->info().variable_count, 1);  // the bias buffer
  auto out = (*model)->RunSignature("predict", {{"in", Tensor::FromVector<float>({0, 1, -5, 2, 2, 2}, {2, 3})}});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  const Tensor& y = out->at("out");
  ASSERT_EQ(y.shape(), Shape({2, 3}));
  const std::vector<float> want = {1, 0, 0, 3, 0, 5};
  for (int i = 0; i < 6; ++i) EXPECT_EQ(y.data<float>()[i], want[i]) << "element " << i;
}

TEST(TfliteLoaderTest, SignatureDefsNameTheSignatureAndItsKeys) {
  testing::TempDir dir("tflite_loader");
  auto model = LoadTfliteModel(WriteFile(dir, "m.tflite", BuildTestModel()), LoadOptions());
  ASSERT_TRUE(model.ok()) << model.status().ToString();
  ASSERT_EQ((*model)->signatures().size(), 1u);
  const runtime::Signature& sig = (*model)->signatures().at("predict");
  ASSERT_EQ(sig.inputs.size(), 1u);
  EXPECT_EQ(sig.inputs[0].key, "in");
  EXPECT_EQ(sig.inputs[0].dtype, DType::kFloat);
  EXPECT_EQ(sig.inputs[0].shape.ToString(), ir::PartialShape::Known({-1, 3}).ToString());
  ASSERT_EQ(sig.outputs.size(), 1u);
  EXPECT_EQ(sig.outputs[0].key, "out");
}

TEST(TfliteLoaderTest, WithoutSignatureDefsServingDefaultIsKeyedByTensorNames) {
  testing::TempDir dir("tflite_loader");
  TestModelOptions o;
  o.signature_defs = false;
  auto model = LoadTfliteModel(WriteFile(dir, "m.tflite", BuildTestModel(o)), LoadOptions());
  ASSERT_TRUE(model.ok()) << model.status().ToString();
  auto out = (*model)->RunSignature("serving_default", {{"x", Tensor::FromVector<float>({-1, 0, 0}, {1, 3})}});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ(out->at("y").data<float>()[2], 3.0f);
}

// Older TF Serving exports carry SignatureDefs in a metadata entry instead.
TEST(TfliteLoaderTest, SignatureDefsMetadataMapsKeysToTensorNames) {
  tensorflow::SignatureDef def;
  def.set_method_name("tensorflow/serving/predict");
  (*def.mutable_inputs())["features"].set_name("x:0");
  (*def.mutable_outputs())["score"].set_name("y");
  std::string blob;
  def.SerializeToString(&blob);
  flexbuffers::Builder fbx;
  fbx.Map([&] {
    fbx.Key("serving_default");
    fbx.Blob(blob.data(), blob.size());
  });
  fbx.Finish();

  namespace fb = tflite::fb;
  flatbuffers::FlatBufferBuilder b;
  const std::vector<float> bias = {1.0f, -2.0f, 3.0f};
  std::vector<flatbuffers::Offset<fb::Buffer>> buffers = {
      fb::CreateBuffer(b),
      fb::CreateBuffer(b, b.CreateVector(reinterpret_cast<const uint8_t*>(bias.data()), sizeof(float) * 3)),
      fb::CreateBuffer(b, b.CreateVector(fbx.GetBuffer()))};
  std::vector<flatbuffers::Offset<fb::Metadata>> metadata = {
      fb::CreateMetadataDirect(b, tflite::kSignatureDefsMetadataName, 2)};
  std::vector<flatbuffers::Offset<fb::OperatorCode>> codes = {fb::CreateOperatorCode(b, 0, 0, 1, 0)};
  const std::vector<int32_t> row = {1, 3}, three = {3}, add_in = {0, 1}, add_out = {2}, in = {0}, out = {2};
  std::vector<flatbuffers::Offset<fb::Tensor>> tensors = {
      fb::CreateTensorDirect(b, &row, fb::TensorType::FLOAT32, 0, "x"),
      fb::CreateTensorDirect(b, &three, fb::TensorType::FLOAT32, 1, "bias"),
      fb::CreateTensorDirect(b, &row, fb::TensorType::FLOAT32, 0, "y")};
  std::vector<flatbuffers::Offset<fb::Operator>> ops = {fb::CreateOperatorDirect(
      b, 0, &add_in, &add_out, fb::BuiltinOptions::AddOptions, fb::CreateAddOptions(b).Union())};
  std::vector<flatbuffers::Offset<fb::SubGraph>> subgraphs = {fb::CreateSubGraphDirect(b, &tensors, &in, &out, &ops)};
  fb::FinishModelBuffer(b, fb::CreateModelDirect(b, 3, &codes, &subgraphs, nullptr, &buffers, nullptr, &metadata));

  testing::TempDir dir("tflite_loader");
  const std::string bytes(reinterpret_cast<const char*>(b.GetBufferPointer()), b.GetSize());
  auto loaded = LoadTfliteModel(WriteFile(dir, "m.tflite", bytes), LoadOptions());
  ASSERT_TRUE(loaded.ok()) << loaded.status().ToString();
  auto result =
      (*loaded)->RunSignature("serving_default", {{"features", Tensor::FromVector<float>({1, 1, 1}, {1, 3})}});
  ASSERT_TRUE(result.ok()) << result.status().ToString();
  EXPECT_EQ(result->at("score").data<float>()[1], -1.0f);
}

TEST(TfliteLoaderTest, UnmappedBuiltinFailsNamingFileOperatorIndexAndName) {
  testing::TempDir dir("tflite_loader");
  TestModelOptions o;
  o.second_code = 7;  // EMBEDDING_LOOKUP
  const std::string path = WriteFile(dir, "model.tflite", BuildTestModel(o));
  TFHOST_EXPECT_ERROR(LoadTfliteModel(path, LoadOptions()), StatusCode::kUnimplemented,
                      path + ": operator 1 is EMBEDDING_LOOKUP (code 7), which tfhost does not run");
}

TEST(TfliteLoaderTest, BuiltinCodeBeyondTheDeprecatedByteIsReadFromTheInt32Field) {
  testing::TempDir dir("tflite_loader");
  TestModelOptions o;
  o.second_code = 131;  // RFFT2D: the int8 field holds 127
  TFHOST_EXPECT_ERROR(LoadTfliteModel(WriteFile(dir, "m.tflite", BuildTestModel(o)), LoadOptions()),
                      StatusCode::kUnimplemented, "operator 1 is RFFT2D (code 131)");
}

TEST(TfliteLoaderTest, CustomOperatorFailsNamingItsCustomCode) {
  testing::TempDir dir("tflite_loader");
  TestModelOptions o;
  o.second_code = 32;
  o.custom_code = "TFLite_Detection_PostProcess";
  TFHOST_EXPECT_ERROR(LoadTfliteModel(WriteFile(dir, "m.tflite", BuildTestModel(o)), LoadOptions()),
                      StatusCode::kUnimplemented,
                      "operator 1 is the custom operator 'TFLite_Detection_PostProcess', which tfhost does not run");
}

TEST(TfliteLoaderTest, TruncatedFileFailsVerificationNamingTheFile) {
  testing::TempDir dir("tflite_loader");
  const std::string bytes = BuildTestModel();
  for (size_t keep : {bytes.size() / 2, bytes.size() - 16, size_t{12}}) {
    const std::string path = WriteFile(dir, "cut.tflite", bytes.substr(0, keep));
    TFHOST_EXPECT_ERROR(LoadTfliteModel(path, LoadOptions()), StatusCode::kInvalidArgument,
                        path + " is a corrupt or truncated TensorFlow Lite model");
  }
}

TEST(TfliteLoaderTest, CorruptOffsetsFailVerificationInsteadOfBeingRead) {
  testing::TempDir dir("tflite_loader");
  std::string bytes = BuildTestModel();
  // The root table offset (bytes 0..3) pointing past the end.
  bytes[0] = bytes[1] = bytes[2] = '\x7f';
  const std::string path = WriteFile(dir, "bad.tflite", bytes);
  TFHOST_EXPECT_ERROR(LoadTfliteModel(path, LoadOptions()), StatusCode::kInvalidArgument,
                      path + " is a corrupt or truncated");
  // A corrupted byte anywhere either still gives a model or is refused; it
  // never crashes the loader.
  const std::string good = BuildTestModel();
  int refused = 0;
  for (size_t i = 8; i < good.size(); ++i) {
    std::string flipped = good;
    flipped[i] = static_cast<char>(flipped[i] ^ 0xa5);
    if (!LoadTfliteModel(WriteFile(dir, "flipped.tflite", flipped), LoadOptions()).ok()) ++refused;
  }
  EXPECT_GT(refused, 0);
}

TEST(TfliteLoaderTest, FileWithoutTheTfl3IdentifierIsRefused) {
  testing::TempDir dir("tflite_loader");
  std::string bytes = BuildTestModel();
  bytes[4] = 'X';
  const std::string path = WriteFile(dir, "m.tflite", bytes);
  TFHOST_EXPECT_ERROR(LoadTfliteModel(path, LoadOptions()), StatusCode::kInvalidArgument,
                      path + " is not a TensorFlow Lite model: bytes 4..7 must be \"TFL3\"");
}

TEST(TfliteFormatTest, DetectsTfliteByExtensionIdentifierAndFolder) {
  testing::TempDir dir("tflite_format");
  EXPECT_EQ(*DetectModelFormat(WriteFile(dir, "a.tflite", BuildTestModel())), ModelFormat::kTflite);
  EXPECT_EQ(*DetectModelFormat(WriteFile(dir, "renamed.bin", BuildTestModel())), ModelFormat::kTflite);
  WriteFile(dir, "base/7/model.tflite", BuildTestModel());
  EXPECT_EQ(*DetectModelFormat(dir.Sub("base/7")), ModelFormat::kTflite);
  EXPECT_EQ(*DetectModelFormat(dir.Sub("base")), ModelFormat::kTflite);
  auto model = LoadModel(dir.Sub("base"));
  ASSERT_TRUE(model.ok()) << model.status().ToString();
  EXPECT_EQ((*model)->info().format, "TFLite");
}

// TF Serving's --prefer_tflite_model: a SavedModel version with a
// model.tflite beside it is served from the TFLite file only when asked.
TEST(TfliteFormatTest, PreferTfliteModelPicksModelTfliteOverTheSavedModel) {
  testing::TempDir dir("tflite_prefer");
  auto written = WriteDemoModels(dir.path());
  ASSERT_TRUE(written.ok()) << written.status().ToString();
  const std::string base = dir.Sub("half_plus_two");
  WriteFile(dir, "half_plus_two/1/model.tflite", BuildTestModel());
  EXPECT_EQ(*DetectModelFormat(base), ModelFormat::kSavedModel);
  auto plain = LoadModel(base);
  ASSERT_TRUE(plain.ok()) << plain.status().ToString();
  EXPECT_NE((*plain)->info().format, "TFLite");
  LoadOptions prefer;
  prefer.prefer_tflite_model = true;
  auto tflite = LoadModel(base, prefer);
  ASSERT_TRUE(tflite.ok()) << tflite.status().ToString();
  EXPECT_EQ((*tflite)->info().format, "TFLite");
  EXPECT_TRUE((*tflite)->signatures().count("predict"));
}

// The condition is x > 0 of shape [1]: one bool, as TFLite requires.
TEST(TfliteControlFlowTest, IfRunsTheBranchItsConditionPicks) {
  testing::TempDir dir("tflite_loader");
  auto model = LoadTfliteModel(WriteFile(dir, "if.tflite", IfModel()), LoadOptions());
  ASSERT_TRUE(model.ok()) << model.status().ToString();
  for (auto [x, want] : {std::pair{3.0f, 6.0f}, std::pair{-1.0f, -11.0f}}) {
    auto out = (*model)->RunSignature("predict", {{"x", Tensor::FromVector<float>({x}, {1})}});
    ASSERT_TRUE(out.ok()) << out.status().ToString();
    EXPECT_EQ(out->at("y").data<float>()[0], want) << "x = " << x;
  }
}

// while (i < 5) { i += 1; acc *= 2; }, the condition a bool of shape [1]
// (TensorFlow's While would read any [1] tensor as true).
TEST(TfliteControlFlowTest, WhileLoopsUntilItsOneElementConditionFails) {
  TestModelWriter w;
  auto options = tflite::fb::CreateWhileOptions(w.b(), 1, 2).Union();
  w.AddSubgraph({{{"i", TT::INT32, {}}, {"acc", TT::FLOAT32, {1}}, {"i_out", TT::INT32, {}},
                  {"acc_out", TT::FLOAT32, {1}}},
                 {0, 1}, {2, 3}, {{kWhile, {0, 1}, {2, 3}, Options::WhileOptions, options}}});
  w.AddSubgraph({{{"i", TT::INT32, {}}, {"acc", TT::FLOAT32, {1}}, {"five", TT::INT32, {1}, TestBytes<int32_t>({5})},
                  {"more", TT::BOOL, {1}}},
                 {0, 1}, {3}, {{kLess, {0, 2}, {3}}}});
  w.AddSubgraph({{{"i", TT::INT32, {}}, {"acc", TT::FLOAT32, {1}}, {"one", TT::INT32, {}, TestBytes<int32_t>({1})},
                  {"two", TT::FLOAT32, {1}, TestBytes<float>({2})}, {"i_next", TT::INT32, {}},
                  {"acc_next", TT::FLOAT32, {1}}},
                 {0, 1}, {4, 5}, {{kAdd, {0, 2}, {4}}, {kMul, {1, 3}, {5}}}});
  testing::TempDir dir("tflite_loader");
  auto model = LoadTfliteModel(WriteFile(dir, "while.tflite", w.Finish({{"i", 0}, {"acc", 1}}, {{"i", 2}, {"acc", 3}})),
                               LoadOptions());
  ASSERT_TRUE(model.ok()) << model.status().ToString();
  auto out = (*model)->RunSignature(
      "predict", {{"i", Tensor::Scalar<int32_t>(0)}, {"acc", Tensor::FromVector<float>({1.5f}, {1})}});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ(out->at("i").data<int32_t>()[0], 5);
  EXPECT_EQ(out->at("acc").data<float>()[0], 48.0f);
}

// init: table 7 = {"a": 10, "b": 20}; main: CALL_ONCE(init), then looks
// keys up in table 7 (-1 when absent).
TEST(TfliteControlFlowTest, CallOnceFillsAHashTableBeforeTheFirstRun) {
  TestModelWriter w;
  auto call_once = tflite::fb::CreateCallOnceOptions(w.b(), 1).Union();
  auto table = [&] { return tflite::fb::CreateHashtableOptions(w.b(), 7, TT::STRING, TT::INT64).Union(); };
  auto main_table = table();
  w.AddSubgraph({{{"key", TT::STRING, {2}}, {"table", TT::RESOURCE, {1}},
                  {"missing", TT::INT64, {}, TestBytes<int64_t>({-1})}, {"value", TT::INT64, {2}}},
                 {0}, {3},
                 {{kCallOnce, {}, {}, Options::CallOnceOptions, call_once},
                  {kHashtable, {}, {1}, Options::HashtableOptions, main_table},
                  {kHashtableFind, {1, 0, 2}, {3}}}});
  auto init_table = table();
  w.AddSubgraph({{{"table", TT::RESOURCE, {1}}, {"keys", TT::STRING, {2}, tflite::TestStringBytes({"a", "b"})},
                  {"values", TT::INT64, {2}, TestBytes<int64_t>({10, 20})}},
                 {}, {},
                 {{kHashtable, {}, {0}, Options::HashtableOptions, init_table}, {kHashtableImport, {0, 1, 2}, {}}}});
  testing::TempDir dir("tflite_loader");
  auto model = LoadTfliteModel(WriteFile(dir, "table.tflite", w.Finish({{"key", 0}}, {{"value", 3}})), LoadOptions());
  ASSERT_TRUE(model.ok()) << model.status().ToString();
  Tensor keys(DType::kString, Shape({2}));
  keys.strings()[0] = "b";
  keys.strings()[1] = "zz";
  auto out = (*model)->RunSignature("predict", {{"key", keys}});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ(out->at("value").data<int64_t>()[0], 20);
  EXPECT_EQ(out->at("value").data<int64_t>()[1], -1);
}

// init: total = 0; main: returns total, then total += x. The write is
// read by no output, yet runs every time, as in TFLite.
TEST(TfliteControlFlowTest, VariableWritesNoOutputReadsStillHappenInOperatorOrder) {
  TestModelWriter w;
  auto call_once = tflite::fb::CreateCallOnceOptions(w.b(), 1).Union();
  auto handle = [&] { return tflite::fb::CreateVarHandleOptionsDirect(w.b(), "", "total").Union(); };
  auto main_handle = handle();
  w.AddSubgraph({{{"x", TT::FLOAT32, {1}}, {"h", TT::RESOURCE, {}}, {"before", TT::FLOAT32, {1}},
                  {"after", TT::FLOAT32, {1}}},
                 {0}, {2},
                 {{kCallOnce, {}, {}, Options::CallOnceOptions, call_once},
                  {kVarHandle, {}, {1}, Options::VarHandleOptions, main_handle},
                  {kReadVariable, {1}, {2}},
                  {kAdd, {2, 0}, {3}},
                  {kAssignVariable, {1, 3}, {}}}});
  auto init_handle = handle();
  w.AddSubgraph({{{"h", TT::RESOURCE, {}}, {"zero", TT::FLOAT32, {1}, TestBytes<float>({0})}},
                 {}, {},
                 {{kVarHandle, {}, {0}, Options::VarHandleOptions, init_handle}, {kAssignVariable, {0, 1}, {}}}});
  testing::TempDir dir("tflite_loader");
  auto model = LoadTfliteModel(WriteFile(dir, "var.tflite", w.Finish({{"x", 0}}, {{"total", 2}})), LoadOptions());
  ASSERT_TRUE(model.ok()) << model.status().ToString();
  for (float want : {0.0f, 2.0f, 4.0f}) {
    auto out = (*model)->RunSignature("predict", {{"x", Tensor::FromVector<float>({2}, {1})}});
    ASSERT_TRUE(out.ok()) << out.status().ToString();
    EXPECT_EQ(out->at("total").data<float>()[0], want);
  }
}

TEST(TfliteControlFlowTest, BranchIndexOutOfRangeIsInvalidArgumentNamingTheField) {
  testing::TempDir dir("tflite_loader");
  const std::string path = WriteFile(dir, "m.tflite", IfModel(1, 9));
  TFHOST_EXPECT_ERROR(LoadTfliteModel(path, LoadOptions()), StatusCode::kInvalidArgument,
                      path + ": operator 1 (IF): else_subgraph_index 9 is not a subgraph; the model has 3");
}

TEST(TfliteControlFlowTest, SubgraphThatCallsItselfIsARecursionError) {
  TestModelWriter w;
  auto outer = tflite::fb::CreateIfOptions(w.b(), 1, 2).Union();
  auto inner = tflite::fb::CreateIfOptions(w.b(), 1, 2).Union();  // subgraph 1 calls itself
  w.AddSubgraph({{{"x", TT::FLOAT32, {1}}, {"zero", TT::FLOAT32, {1}, TestBytes<float>({0})},
                  {"positive", TT::BOOL, {1}}, {"y", TT::FLOAT32, {1}}},
                 {0}, {3}, {{kGreater, {0, 1}, {2}}, {kIf, {2, 0}, {3}, Options::IfOptions, outer}}});
  w.AddSubgraph({{{"x", TT::FLOAT32, {1}}, {"zero", TT::FLOAT32, {1}, TestBytes<float>({0})},
                  {"positive", TT::BOOL, {1}}, {"y", TT::FLOAT32, {1}}},
                 {0}, {3}, {{kGreater, {0, 1}, {2}}, {kIf, {2, 0}, {3}, Options::IfOptions, inner}}});
  w.AddSubgraph(Branch(kSub, 10));
  testing::TempDir dir("tflite_loader");
  const std::string path = WriteFile(dir, "m.tflite", w.Finish({{"x", 0}}, {{"y", 3}}));
  TFHOST_EXPECT_ERROR(LoadTfliteModel(path, LoadOptions()), StatusCode::kInvalidArgument,
                      path + ": subgraph 1 operator 1 (IF): then_subgraph_index 1 calls a subgraph that is running "
                             "(subgraph 0 -> subgraph 1 -> subgraph 1); TFLite control flow cannot recurse");
}

TEST(TfliteControlFlowTest, WhileBodyArityMismatchIsInvalidArgument) {
  TestModelWriter w;
  auto options = tflite::fb::CreateWhileOptions(w.b(), 1, 2).Union();
  w.AddSubgraph({{{"i", TT::INT32, {}}, {"acc", TT::FLOAT32, {1}}, {"i_out", TT::INT32, {}},
                  {"acc_out", TT::FLOAT32, {1}}},
                 {0, 1}, {2, 3}, {{kWhile, {0, 1}, {2, 3}, Options::WhileOptions, options}}});
  w.AddSubgraph({{{"i", TT::INT32, {}}, {"acc", TT::FLOAT32, {1}}, {"five", TT::INT32, {}, TestBytes<int32_t>({5})},
                  {"more", TT::BOOL, {}}},
                 {0, 1}, {3}, {{kLess, {0, 2}, {3}}}});
  // The body takes the counter only.
  w.AddSubgraph({{{"i", TT::INT32, {}}, {"one", TT::INT32, {}, TestBytes<int32_t>({1})}, {"i_next", TT::INT32, {}}},
                 {0}, {2}, {{kAdd, {0, 1}, {2}}}});
  testing::TempDir dir("tflite_loader");
  const std::string path = WriteFile(dir, "m.tflite", w.Finish({{"i", 0}, {"acc", 1}}, {{"i", 2}}));
  TFHOST_EXPECT_ERROR(LoadTfliteModel(path, LoadOptions()), StatusCode::kInvalidArgument,
                      path + ": operator 0 (WHILE): body_subgraph_index 2 has 1 inputs; expected 2");
}

TEST(TfliteControlFlowTest, BranchOperatorTfhostLacksFailsNamingSubgraphAndOperator) {
  testing::TempDir dir("tflite_loader");
  const std::string path = WriteFile(dir, "m.tflite", IfModel(1, 2, Branch(kEmbeddingLookup, 0)));
  TFHOST_EXPECT_ERROR(LoadTfliteModel(path, LoadOptions()), StatusCode::kUnimplemented,
                      path + ": subgraph 1 operator 0 is EMBEDDING_LOOKUP (code 7), which tfhost does not run");
}

// TF Serving's own TFLite test models, where the shared fixtures exist.
TEST(TfliteFixturesTest, ServesTfServingsHalfPlusTwoTfliteModels) {
  for (const char* name : {"saved_model_half_plus_two_tflite", "saved_model_half_plus_two_tflite_with_sigdef"}) {
    const std::string base = testing::FixturePath(std::string("models/tfserving/") + name);
    TFHOST_REQUIRE_FIXTURE(base);
    auto model = LoadModel(base);
    ASSERT_TRUE(model.ok()) << name << ": " << model.status().ToString();
    auto out = (*model)->RunSignature("serving_default", {{"x", Tensor::FromVector<float>({3.0f}, {1, 1})}});
    ASSERT_TRUE(out.ok()) << name << ": " << out.status().ToString();
    EXPECT_EQ(out->at("y").data<float>()[0], 3.5f) << name;
  }
}

}  // namespace
}  // namespace tfhost::loaders
