// Every TF Serving test SavedModel (fixtures/models/tfserving, see its
// README) loaded through loaders::LoadModel and run through
// Model::RunSignature: the exact input -> output pairs the README lists, the
// stateful counter, the TF Serving base-path form, and the errors that broken
// copies of those models must produce.
#include <google/protobuf/text_format.h>
#include <gtest/gtest.h>

#include <atomic>
#include <functional>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>

#include "base/test_fixtures.h"
#include "loaders/model_loader.h"
#include "loaders/savedmodel/saved_model_loader.h"
#include "tensorflow/core/example/example.pb.h"
#include "tensorflow/core/protobuf/saved_model.pb.h"
#include "base/test_status.h"

namespace tfhost {
namespace {

namespace fs = std::filesystem;

std::string ServingModel(const std::string& relative) {
  return testing::FixturePath("models/tfserving/" + relative);
}

// A temporary folder removed when the test ends; broken fixture copies live
// here so /work/shared is never touched.
class TempDir {
 public:
  TempDir() {
    static std::atomic<int> counter{0};
    std::random_device rd;
    path_ = fs::temp_directory_path() /
            ("tfhost_sm_test_" + std::to_string(rd()) + "_" + std::to_string(counter++));
    fs::create_directories(path_);
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

// Copies a fixture model folder into `dir`/model and returns that path.
fs::path CopyModel(const std::string& relative, const TempDir& dir) {
  fs::path dst = dir.path() / "model";
  fs::copy(ServingModel(relative), dst, fs::copy_options::recursive);
  // Fixture files may be read-only; the copies are edited.
  for (const auto& e : fs::recursive_directory_iterator(dst)) {
    fs::permissions(e.path(), fs::perms::owner_read | fs::perms::owner_write, fs::perm_options::add);
  }
  return dst;
}

std::string ReadAll(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

void WriteAll(const fs::path& p, const std::string& bytes) {
  std::ofstream out(p, std::ios::binary | std::ios::trunc);
  out << bytes;
}

std::unique_ptr<runtime::Model> Load(const std::string& path,
                                     const loaders::LoadOptions& options = loaders::LoadOptions()) {
  auto model = loaders::LoadModel(path, options);
  EXPECT_TRUE(model.ok()) << path << ": " << model.status().ToString();
  return model.ok() ? std::move(*model) : nullptr;
}

Status LoadError(const std::string& path, const loaders::LoadOptions& options = loaders::LoadOptions()) {
  auto model = loaders::LoadModel(path, options);
  return model.ok() ? OkStatus() : model.status();
}

Tensor Floats(const std::vector<float>& values, Shape shape) { return Tensor::FromVector(values, shape); }

std::string SerializedExample(const std::map<std::string, float>& features) {
  tensorflow::Example example;
  auto& map = *example.mutable_features()->mutable_feature();
  for (const auto& [key, value] : features) map[key].mutable_float_list()->add_value(value);
  return example.SerializeAsString();
}

Tensor Examples(const std::vector<std::map<std::string, float>>& examples) {
  Tensor t(DType::kString, Shape({static_cast<int64_t>(examples.size())}));
  for (size_t i = 0; i < examples.size(); ++i) t.strings()[i] = SerializedExample(examples[i]);
  return t;
}

void ExpectFloats(const Tensor& t, const std::vector<float>& values, const Shape& shape) {
  ASSERT_TRUE(t.valid());
  ASSERT_EQ(t.dtype(), DType::kFloat) << t.DebugString();
  EXPECT_EQ(t.shape(), shape) << t.DebugString();
  ASSERT_EQ(t.NumElements(), static_cast<int64_t>(values.size())) << t.DebugString();
  for (size_t i = 0; i < values.size(); ++i) EXPECT_EQ(t.data<float>()[i], values[i]) << "element " << i;
}

// Runs one signature with one input and returns its one output `output_key`.
Tensor RunOne(runtime::Model& model, const std::string& signature, const std::string& input_key,
              const Tensor& input, const std::string& output_key) {
  auto out = model.RunSignature(signature, {{input_key, input}});
  EXPECT_TRUE(out.ok()) << signature << ": " << out.status().ToString();
  if (!out.ok()) return Tensor();
  auto it = out->find(output_key);
  EXPECT_NE(it, out->end()) << signature << " has no output " << output_key;
  return it == out->end() ? Tensor() : it->second;
}

// The TF1 half_plus_two exports (same math, different TF versions, devices
// and extras). Version folders as upstream.
const char* const kHalfPlusTwoTf1[] = {
    "saved_model_half_plus_two_cpu/00000123",
    "saved_model_half_plus_two_2_versions/00000123",
    "saved_model_half_plus_two_2_versions/00000124",
    "saved_model_half_plus_two_gpu/00000123",
    "saved_model_half_plus_two_gpu_trt/00000123",
    "saved_model_half_plus_two_mlmd/00000123",
    "saved_model_half_plus_two_cpu_with_saved_model_config/00000123",
    "saved_model_half_plus_two_cpu_with_empty_saved_model_config/00000123",
    "saved_model_half_plus_two_mkl/00000123",
};

class HalfPlusTwoTf1Test : public ::testing::TestWithParam<const char*> {};

TEST_P(HalfPlusTwoTf1Test, PredictComputesHalfPlusTwo) {
  std::string path = ServingModel(GetParam());
  TFHOST_REQUIRE_FIXTURE(path);
  auto model = Load(path);
  ASSERT_NE(model, nullptr);
  EXPECT_EQ(model->info().format, "SavedModel (TF1)");
  ExpectFloats(RunOne(*model, "serving_default", "x", Floats({1, 2, 5}, Shape({3, 1})), "y"), {2.5f, 3.0f, 4.5f},
               Shape({3, 1}));
}

TEST_P(HalfPlusTwoTf1Test, RegressAndClassifyParseTfExamples) {
  std::string path = ServingModel(GetParam());
  TFHOST_REQUIRE_FIXTURE(path);
  auto model = Load(path);
  ASSERT_NE(model, nullptr);
  ExpectFloats(RunOne(*model, "regress_x_to_y", "inputs", Examples({{{"x", 2.0f}}}), "outputs"), {3.0f},
               Shape({1, 1}));
  ExpectFloats(RunOne(*model, "regress_x_to_y", "inputs", Examples({{{"x", 80.0f}}}), "outputs"), {42.0f},
               Shape({1, 1}));
  ExpectFloats(RunOne(*model, "classify_x_to_y", "inputs", Examples({{{"x", 20.0f}}}), "scores"), {12.0f},
               Shape({1, 1}));
  if (std::string(GetParam()).find("mkl") == std::string::npos) {
    // (mkl's y2 and y3 broadcast to the conv output [1,10,10,1]; checked apart.)
    ExpectFloats(RunOne(*model, "regress_x2_to_y3", "inputs", Floats({1.0f}, Shape({1, 1})), "outputs"), {3.5f},
                 Shape({1, 1}));
    ExpectFloats(RunOne(*model, "regress_x_to_y2", "inputs", Examples({{{"x", 2.0f}}}), "outputs"), {4.0f},
                 Shape({1, 1}));
  }
}

INSTANTIATE_TEST_SUITE_P(AllExports, HalfPlusTwoTf1Test, ::testing::ValuesIn(kHalfPlusTwoTf1),
                         [](const ::testing::TestParamInfo<const char*>& info) {
                           std::string name = info.param;
                           for (char& c : name) {
                             if (!isalnum(static_cast<unsigned char>(c))) c = '_';
                           }
                           return name;
                         });

TEST(SavedModelFixturesTest, ExampleWithoutX2UsesItsDefaultOfZero) {
  std::string path = ServingModel("saved_model_half_plus_two_cpu/00000123");
  TFHOST_REQUIRE_FIXTURE(path);
  auto model = Load(path);
  ASSERT_NE(model, nullptr);
  auto out = model->session().Run({{"tf_example:0", Examples({{{"x", 1.0f}}})}}, {"y3:0"});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  ExpectFloats((*out)[0], {3.0f}, Shape({1, 1}));
}

TEST(SavedModelFixturesTest, TwoVersionsModelMatchesItsReadmePairs) {
  std::string path = ServingModel("saved_model_half_plus_two_2_versions/00000123");
  TFHOST_REQUIRE_FIXTURE(path);
  auto model = Load(path);
  ASSERT_NE(model, nullptr);
  // The README's [[1,2],[3,4]] pair does not fit the signature's [?,1], which
  // RunSignature enforces (TF Serving does not); the graph itself takes it.
  auto out = model->session().Run({{"x:0", Floats({1, 2, 3, 4}, Shape({2, 2}))}}, {"y:0"});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  ExpectFloats((*out)[0], {2.5f, 3.0f, 3.5f, 4.0f}, Shape({2, 2}));
  ExpectFloats(RunOne(*model, "regress_x_to_y", "inputs", Examples({{{"x", 80.0f}}}), "outputs"), {42.0f},
               Shape({1, 1}));
  ExpectFloats(RunOne(*model, "classify_x_to_y", "inputs", Examples({{{"x", 10.0f}}}), "scores"), {7.0f},
               Shape({1, 1}));
  ExpectFloats(RunOne(*model, "classify_x2_to_y3", "inputs", Floats({1.0f}, Shape({1, 1})), "scores"), {3.5f},
               Shape({1, 1}));
}

TEST(SavedModelFixturesTest, MklModelRunsItsConvBranches) {
  std::string path = ServingModel("saved_model_half_plus_two_mkl/00000123");
  TFHOST_REQUIRE_FIXTURE(path);
  auto model = Load(path);
  ASSERT_NE(model, nullptr);
  ExpectFloats(RunOne(*model, "serving_default", "x", Floats({1.0f}, Shape({1, 1})), "y"), {2.5f}, Shape({1, 1}));
  ExpectFloats(RunOne(*model, "serving_default", "x", Floats({2.0f}, Shape({1, 1})), "y"), {3.0f}, Shape({1, 1}));
  ExpectFloats(RunOne(*model, "regress_x_to_y2", "inputs", Examples({{{"x", 2.0f}}}), "outputs"),
               std::vector<float>(100, 4.0f), Shape({1, 10, 10, 1}));
  ExpectFloats(RunOne(*model, "regress_x2_to_y3", "inputs", Floats({1.0f}, Shape({1, 1})), "outputs"),
               std::vector<float>(100, 3.5f), Shape({1, 10, 10, 1}));
}

TEST(SavedModelFixturesTest, HalfPlusThreeServesPredictAndItsRegressSignature) {
  std::string path = ServingModel("saved_model_half_plus_three/00000123");
  TFHOST_REQUIRE_FIXTURE(path);
  auto model = Load(path);
  ASSERT_NE(model, nullptr);
  ExpectFloats(RunOne(*model, "serving_default", "x", Floats({1, 2, 5}, Shape({3})), "y"), {3.5f, 4.0f, 5.5f},
               Shape({3}));
  ExpectFloats(RunOne(*model, "serving_default", "x", Floats({2}, Shape({1})), "y"), {4.0f}, Shape({1}));
  // The SignatureDef records DT_FLOAT for the string placeholder tf_example;
  // the loader follows the graph, as TensorFlow does when feeding.
  const runtime::Signature* regress = *model->FindSignature("tensorflow/serving/regress");
  ASSERT_EQ(regress->inputs.size(), 1u);
  EXPECT_EQ(regress->inputs[0].dtype, DType::kString);
  ExpectFloats(RunOne(*model, "tensorflow/serving/regress", "inputs", Examples({{{"x", 1.0f}}, {{"x", 2.0f}}}),
                      "outputs"),
               {3.5f, 4.0f}, Shape({2, 1}));
}

TEST(SavedModelFixturesTest, MatrixHalfPlusTwoNeedsNoVariables) {
  std::string path = ServingModel("matrix_half_plus_two/1");
  TFHOST_REQUIRE_FIXTURE(path);
  auto model = Load(path);
  ASSERT_NE(model, nullptr);
  ExpectFloats(RunOne(*model, "serving_default", "x", Floats({1, 2, 3, 4, 5, 6, 7, 8, 9}, Shape({1, 3, 3})), "y"),
               {2.5f, 3, 3.5f, 4, 4.5f, 5, 5.5f, 6, 6.5f}, Shape({1, 3, 3}));
  ExpectFloats(RunOne(*model, "serving_default", "x", Floats(std::vector<float>(18, 0.0f), Shape({2, 3, 3})), "y"),
               std::vector<float>(18, 2.0f), Shape({2, 3, 3}));
  EXPECT_EQ(model->info().variable_count, 0);
}

TEST(SavedModelFixturesTest, Tf2ModelServesEverySignature) {
  std::string path = ServingModel("saved_model_half_plus_two_tf2_cpu/00000123");
  TFHOST_REQUIRE_FIXTURE(path);
  auto model = Load(path);
  ASSERT_NE(model, nullptr);
  EXPECT_EQ(model->info().format, "SavedModel (TF2)");
  EXPECT_EQ(model->info().variable_count, 3);  // a, b, c (the object graph entry is not a variable)
  EXPECT_EQ(model->signatures().count("__saved_model_init_op"), 0u);
  ExpectFloats(RunOne(*model, "serving_default", "x", Floats({2.0f}, Shape({1})), "y"), {3.0f}, Shape({1}));
  ExpectFloats(RunOne(*model, "serving_default", "x", Floats({1.0f}, Shape({1})), "y"), {2.5f}, Shape({1}));
  ExpectFloats(RunOne(*model, "regress_x_to_y", "inputs", Examples({{{"x", 2.0f}}}), "outputs"), {3.0f},
               Shape({1, 1}));
  ExpectFloats(RunOne(*model, "classify_x_to_y", "inputs", Examples({{{"x", 2.0f}}}), "scores"), {3.0f},
               Shape({1, 1}));
  ExpectFloats(RunOne(*model, "regress_x_to_y2", "inputs", Examples({{{"x", 2.0f}}}), "outputs"), {4.0f},
               Shape({1, 1}));
  ExpectFloats(RunOne(*model, "regress_x2_to_y3", "inputs", Floats({1.0f}, Shape({1})), "outputs"), {3.5f},
               Shape({1}));
  ExpectFloats(RunOne(*model, "classify_x2_to_y3", "inputs", Floats({1.0f}, Shape({1})), "scores"), {3.5f},
               Shape({1}));
}

TEST(SavedModelFixturesTest, Tf2ModelPastMaxFunctionDepthOrMaxGraphNodesFailsTheLoadNamingTheFlag) {
  // serving_default reaches its AddV2 through two levels of calls.
  std::string path = ServingModel("saved_model_half_plus_two_tf2_cpu/00000123");
  TFHOST_REQUIRE_FIXTURE(path);
  loaders::LoadOptions two;
  two.session.max_function_depth = 2;
  auto at = loaders::LoadModel(path, two);
  EXPECT_TRUE(at.ok()) << at.status().ToString();
  loaders::LoadOptions one;
  one.session.max_function_depth = 1;
  TFHOST_EXPECT_ERROR(loaders::LoadModel(path, one), StatusCode::kResourceExhausted,
                      "function calls are nested 2 deep (more than 1)");
  loaders::LoadOptions tiny;
  tiny.max_graph_nodes = 5;
  TFHOST_EXPECT_ERROR(loaders::LoadModel(path, tiny), StatusCode::kResourceExhausted, "(--max_graph_nodes=5)");
}

TEST(SavedModelFixturesTest, CounterKeepsStateAcrossSignatureCalls) {
  std::string path = ServingModel("saved_model_counter/00000123");
  TFHOST_REQUIRE_FIXTURE(path);
  auto model = Load(path);
  ASSERT_NE(model, nullptr);
  auto call = [&](const std::string& sig, const std::map<std::string, Tensor>& inputs) -> float {
    auto out = model->RunSignature(sig, inputs);
    EXPECT_TRUE(out.ok()) << sig << ": " << out.status().ToString();
    if (!out.ok()) return -1;
    const Tensor& t = out->at("output");
    EXPECT_EQ(t.dtype(), DType::kFloat);  // DT_FLOAT_REF in the SignatureDef
    EXPECT_EQ(t.NumElements(), 1);
    return t.data<float>()[0];
  };
  EXPECT_EQ(call("get_counter", {}), 0.0f);
  EXPECT_EQ(call("incr_counter", {}), 1.0f);
  EXPECT_EQ(call("reset_counter", {}), 0.0f);
  EXPECT_EQ(call("incr_counter", {}), 1.0f);
  EXPECT_EQ(call("incr_counter_by", {{"delta", Tensor::Scalar<float>(3.0f)}}), 4.0f);
  EXPECT_EQ(call("get_counter", {}), 4.0f);
}

TEST(SavedModelFixturesTest, ServingBasePathLoadsTheHighestVersion) {
  std::string path = ServingModel("saved_model_half_plus_two_2_versions");
  TFHOST_REQUIRE_FIXTURE(path);
  auto model = Load(path);
  ASSERT_NE(model, nullptr);
  EXPECT_EQ(fs::path(model->info().path).filename(), "00000124");
  ExpectFloats(RunOne(*model, "serving_default", "x", Floats({2.0f}, Shape({1, 1})), "y"), {3.0f}, Shape({1, 1}));
}

TEST(SavedModelFixturesTest, ModelInfoDescribesTheExport) {
  std::string path = ServingModel("saved_model_half_plus_two_cpu/00000123");
  TFHOST_REQUIRE_FIXTURE(path);
  auto model = Load(path);
  ASSERT_NE(model, nullptr);
  const auto& info = model->info();
  EXPECT_EQ(info.path, path);
  EXPECT_EQ(info.tag_sets, (std::vector<std::vector<std::string>>{{"serve"}}));
  EXPECT_EQ(info.metadata.at("tensorflow_version"), "1.14.0");
  EXPECT_EQ(info.variable_count, 5);      // a, a2, b, c, c2
  EXPECT_EQ(info.variable_bytes, 5 * 4);  // scalar floats
  std::vector<std::string> names;
  for (const auto& [k, v] : model->signatures()) names.push_back(k);
  EXPECT_EQ(names, (std::vector<std::string>{"classify_x_to_y", "regress_x2_to_y3", "regress_x_to_y",
                                             "regress_x_to_y2", "serving_default"}));
  const runtime::Signature& predict = model->signatures().at("serving_default");
  EXPECT_EQ(predict.method_name, "tensorflow/serving/predict");
  ASSERT_EQ(predict.inputs.size(), 1u);
  EXPECT_EQ(predict.inputs[0].tensor_name, "x:0");
  EXPECT_EQ(predict.inputs[0].shape.ToString(), "[?,1]");
}

TEST(SavedModelFixturesTest, TextFormatSavedModelLoads) {
  std::string src = "saved_model_half_plus_two_cpu/00000123";
  TFHOST_REQUIRE_FIXTURE(ServingModel(src));
  TempDir tmp;
  fs::path dir = CopyModel(src, tmp);
  tensorflow::SavedModel sm;
  ASSERT_TRUE(sm.ParseFromString(ReadAll(dir / "saved_model.pb")));
  std::string text;
  ASSERT_TRUE(google::protobuf::TextFormat::PrintToString(sm, &text));
  fs::remove(dir / "saved_model.pb");
  WriteAll(dir / "saved_model.pbtxt", text);
  auto model = Load(dir.string());
  ASSERT_NE(model, nullptr);
  ExpectFloats(RunOne(*model, "serving_default", "x", Floats({2.0f}, Shape({1, 1})), "y"), {3.0f}, Shape({1, 1}));
}

TEST(SavedModelFixturesTest, TagSetMustMatchExactly) {
  std::string path = ServingModel("saved_model_half_plus_two_cpu/00000123");
  TFHOST_REQUIRE_FIXTURE(path);
  loaders::LoadOptions options;
  options.tags = {"serve", "gpu"};
  Status st = LoadError(path, options);
  TFHOST_ASSERT_ERROR(st, StatusCode::kNotFound,
                      "00000123 has no MetaGraph with tags {serve, gpu}; available tag sets: {serve}");
  EXPECT_NE(st.message().find("available tag sets: {serve}"), std::string::npos) << st.message();
}

// --- Broken models -------------------------------------------------------

TEST(SavedModelFixturesTest, TruncatedSavedModelPbIsRejected) {
  std::string src = "saved_model_half_plus_two_cpu/00000123";
  TFHOST_REQUIRE_FIXTURE(ServingModel(src));
  TempDir tmp;
  fs::path dir = CopyModel(src, tmp);
  std::string bytes = ReadAll(dir / "saved_model.pb");
  for (size_t keep : {bytes.size() / 2, bytes.size() - 7, size_t{3}, size_t{0}}) {
    WriteAll(dir / "saved_model.pb", bytes.substr(0, keep));
    Status st = LoadError(dir.string());
    TFHOST_ASSERT_ERROR(st, StatusCode::kInvalidArgument,
                        "saved_model.pb is not a valid SavedModel protobuf") << "kept " << keep << " bytes";
  }
}

TEST(SavedModelFixturesTest, RandomBytesAreRejected) {
  std::string src = "saved_model_half_plus_two_cpu/00000123";
  TFHOST_REQUIRE_FIXTURE(ServingModel(src));
  TempDir tmp;
  fs::path dir = CopyModel(src, tmp);
  std::mt19937 rng(1234);
  for (int trial = 0; trial < 20; ++trial) {
    std::string junk(1 + rng() % 5000, '\0');
    for (char& c : junk) c = static_cast<char>(rng());
    WriteAll(dir / "saved_model.pb", junk);
    Status st = LoadError(dir.string());
    TFHOST_ASSERT_ERROR(st, StatusCode::kInvalidArgument,
                        "saved_model.pb is not a valid SavedModel protobuf") << "trial " << trial;
  }
}

TEST(SavedModelFixturesTest, FlippedByteInVariablesDataFailsTheLoadNamingTheTensor) {
  std::string src = "saved_model_half_plus_two_cpu/00000123";
  TFHOST_REQUIRE_FIXTURE(ServingModel(src));
  TempDir tmp;
  fs::path dir = CopyModel(src, tmp);
  fs::path data = dir / "variables" / "variables.data-00000-of-00001";
  std::string bytes = ReadAll(data);
  ASSERT_EQ(bytes.size(), 20u);  // five scalar floats: a, a2, b, c, c2 in key order
  bytes[0] ^= 0x40;              // inside 'a'
  WriteAll(data, bytes);
  Status st = LoadError(dir.string());
  TFHOST_ASSERT_ERROR(st, StatusCode::kDataLoss,
                      "variables: node 'save/RestoreV2' (RestoreV2): CRC mismatch for tensor 'a' in");
  EXPECT_NE(st.message().find("'a'"), std::string::npos) << st.message();
  EXPECT_NE(st.message().find("restoring variables"), std::string::npos) << st.message();
}

TEST(SavedModelFixturesTest, MissingDataShardFailsTheLoadNamingTheFile) {
  std::string src = "saved_model_half_plus_two_cpu/00000123";
  TFHOST_REQUIRE_FIXTURE(ServingModel(src));
  TempDir tmp;
  fs::path dir = CopyModel(src, tmp);
  fs::remove(dir / "variables" / "variables.data-00000-of-00001");
  Status st = LoadError(dir.string());
  TFHOST_ASSERT_ERROR(st, StatusCode::kNotFound, "variables.data-00000-of-00001");
}

TEST(SavedModelFixturesTest, MissingVariablesFolderIsAnErrorWhenSignaturesNeedVariables) {
  std::string src = "saved_model_half_plus_two_cpu/00000123";
  TFHOST_REQUIRE_FIXTURE(ServingModel(src));
  TempDir tmp;
  fs::path dir = CopyModel(src, tmp);
  fs::remove_all(dir / "variables");
  Status st = LoadError(dir.string());
  TFHOST_ASSERT_ERROR(st, StatusCode::kNotFound, "variables/variables.index does not exist");
  EXPECT_NE(st.message().find("a, a2, b, c, c2"), std::string::npos) << st.message();
}

// Applies `edit` to the GraphDef of a copy of the CPU model and loads it.
Status LoadEditedGraph(const std::function<void(tensorflow::GraphDef&)>& edit, std::string* model_dir) {
  TempDir tmp;
  fs::path dir = CopyModel("saved_model_half_plus_two_cpu/00000123", tmp);
  tensorflow::SavedModel sm;
  if (!sm.ParseFromString(ReadAll(dir / "saved_model.pb"))) return Internal("fixture did not parse");
  edit(*sm.mutable_meta_graphs(0)->mutable_graph_def());
  WriteAll(dir / "saved_model.pb", sm.SerializeAsString());
  *model_dir = dir.string();
  return LoadError(dir.string());
}

tensorflow::NodeDef* FindNodeDef(tensorflow::GraphDef& gd, const std::string& name) {
  for (auto& n : *gd.mutable_node()) {
    if (n.name() == name) return &n;
  }
  ADD_FAILURE() << "no node " << name;
  static tensorflow::NodeDef dummy;
  return &dummy;
}

TEST(SavedModelFixturesTest, UnknownOpIsReportedWithNodeAndModel) {
  TFHOST_REQUIRE_FIXTURE(ServingModel("saved_model_half_plus_two_cpu/00000123"));
  std::string dir;
  Status st = LoadEditedGraph([](tensorflow::GraphDef& gd) { FindNodeDef(gd, "Add")->set_op("TfhostNoSuchOp"); },
                              &dir);
  TFHOST_ASSERT_ERROR(st, StatusCode::kUnimplemented,
                      "node 'Add' uses op 'TfhostNoSuchOp', which tfhost does not support");
  EXPECT_NE(st.message().find("node 'Add' uses op 'TfhostNoSuchOp', which tfhost does not support"),
            std::string::npos)
      << st.message();
  EXPECT_NE(st.message().find(dir), std::string::npos) << st.message();
}

TEST(SavedModelFixturesTest, MalformedAttrIsReportedWithNodeAndAttr) {
  TFHOST_REQUIRE_FIXTURE(ServingModel("saved_model_half_plus_two_cpu/00000123"));
  std::string dir;
  Status st = LoadEditedGraph(
      [](tensorflow::GraphDef& gd) { (*FindNodeDef(gd, "Add")->mutable_attr())["T"].set_s("float"); }, &dir);
  TFHOST_ASSERT_ERROR(st, StatusCode::kInvalidArgument, "node 'Add' (Add): attr 'T' must be a type");
}

TEST(SavedModelFixturesTest, CorruptConstantFailsTheLoad) {
  TFHOST_REQUIRE_FIXTURE(ServingModel("saved_model_half_plus_two_cpu/00000123"));
  std::string dir;
  Status st = LoadEditedGraph(
      [](tensorflow::GraphDef& gd) {
        auto* value = (*FindNodeDef(gd, "ParseExample/Reshape/shape")->mutable_attr())["value"].mutable_tensor();
        value->set_tensor_content(std::string(3, '\x01'));  // 3 bytes for an int32 tensor
      },
      &dir);
  TFHOST_ASSERT_ERROR(st, StatusCode::kInvalidArgument,
                      "node 'ParseExample/Reshape/shape' (Const): attr 'value': tensor_content has 3 bytes");
}

TEST(SavedModelFixturesTest, MissingInputNodeIsReported) {
  TFHOST_REQUIRE_FIXTURE(ServingModel("saved_model_half_plus_two_cpu/00000123"));
  std::string dir;
  Status st = LoadEditedGraph([](tensorflow::GraphDef& gd) { FindNodeDef(gd, "y")->set_input(0, "Nowhere"); },
                              &dir);
  TFHOST_ASSERT_ERROR(st, StatusCode::kInvalidArgument,
                      "node 'y' (Identity) has input 'Nowhere' but no node named 'Nowhere' exists");
}

TEST(SavedModelFixturesTest, LegacyExportsAreRefusedAsLegacy) {
  for (const char* legacy : {"bad_half_plus_two", "bad_half_plus_two/00000123", "session_bundle_half_plus_two",
                             "session_bundle_half_plus_two/00000123"}) {
    std::string path = ServingModel(legacy);
    TFHOST_REQUIRE_FIXTURE(path);
    Status st = LoadError(path);
    TFHOST_ASSERT_ERROR(st, StatusCode::kFailedPrecondition,
                        " holds a legacy TensorFlow export (export.meta + V1 checkpoint") << legacy;
  }
}

TEST(SavedModelFixturesTest, EveryServingSavedModelLoads) {
  std::string root = ServingModel("");
  TFHOST_REQUIRE_FIXTURE(root);
  int loaded = 0;
  for (const auto& model_dir : fs::directory_iterator(root)) {
    if (!model_dir.is_directory()) continue;
    for (const auto& version : fs::directory_iterator(model_dir.path())) {
      if (!fs::exists(version.path() / "saved_model.pb")) continue;
      auto model = loaders::LoadSavedModel(version.path().string(), loaders::LoadOptions());
      EXPECT_TRUE(model.ok()) << version.path() << ": " << model.status().ToString();
      if (model.ok()) {
        EXPECT_FALSE((*model)->signatures().empty()) << version.path();
        ++loaded;
      }
    }
  }
  EXPECT_EQ(loaded, 13);
}

}  // namespace
}  // namespace tfhost
