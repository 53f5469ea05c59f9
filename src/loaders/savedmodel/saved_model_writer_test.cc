#include "loaders/savedmodel/saved_model_writer.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "checkpoint/tensor_bundle_reader.h"
#include "ir/tensor_proto.h"
#include "loaders/model_loader.h"
#include "base/test_status.h"

namespace tfhost::loaders {
namespace {

namespace fs = std::filesystem;

class TempDir {
 public:
  TempDir() {
    path_ = fs::temp_directory_path() /
            ("saved_model_writer_test_" + std::to_string(::getpid()) + "_" + std::to_string(counter_++));
    fs::remove_all(path_);
    fs::create_directories(path_);
  }
  ~TempDir() { fs::remove_all(path_); }
  fs::path path() const { return path_; }

 private:
  static inline int counter_ = 0;
  fs::path path_;
};

runtime::TensorSpec Spec(const std::string& key, const std::string& tensor, std::vector<int64_t> dims) {
  runtime::TensorSpec s;
  s.key = key;
  s.tensor_name = tensor;
  s.dtype = DType::kFloat;
  s.shape.unknown_rank = false;
  s.shape.dims = std::move(dims);
  return s;
}

// y = x * w + b with w, b variables: the smallest model with a restore path.
SavedModelSpec ScaleModel() {
  SavedModelSpec spec;
  auto* x = spec.graph_def.add_node();
  x->set_name("x");
  x->set_op("Placeholder");
  (*x->mutable_attr())["dtype"].set_type(tensorflow::DT_FLOAT);
  auto* mul = spec.graph_def.add_node();
  mul->set_name("mul");
  mul->set_op("Mul");
  mul->add_input("x");
  mul->add_input("w/read");
  (*mul->mutable_attr())["T"].set_type(tensorflow::DT_FLOAT);
  auto* add = spec.graph_def.add_node();
  add->set_name("y");
  add->set_op("AddV2");
  add->add_input("mul");
  add->add_input("b");
  (*add->mutable_attr())["T"].set_type(tensorflow::DT_FLOAT);
  spec.variables["w"] = Tensor::FromVector<float>({2, 3});
  spec.variables["b"] = Tensor::Scalar<float>(0.5f);
  spec.signatures = {runtime::Signature{"serving_default", "tensorflow/serving/predict",
                                        {Spec("x", "x:0", {-1, 2})}, {Spec("y", "y:0", {-1, 2})}, {}}};
  return spec;
}

const tensorflow::NodeDef* FindNode(const tensorflow::GraphDef& g, const std::string& name) {
  for (const auto& n : g.node()) {
    if (n.name() == name) return &n;
  }
  return nullptr;
}

TEST(SavedModelWriterTest, ProtoHasTf1VariablesAndRestoreSubgraph) {
  auto proto = BuildSavedModelProto(ScaleModel());
  ASSERT_TRUE(proto.ok()) << proto.status().ToString();
  ASSERT_EQ(proto->meta_graphs_size(), 1);
  const auto& meta = proto->meta_graphs(0);
  EXPECT_EQ(meta.meta_info_def().tags_size(), 1);
  EXPECT_EQ(meta.meta_info_def().tags(0), "serve");
  const auto& g = meta.graph_def();
  const auto* w = FindNode(g, "w");
  ASSERT_NE(w, nullptr);
  EXPECT_EQ(w->op(), "VariableV2");
  EXPECT_EQ(w->attr().at("shape").shape().dim(0).size(), 2);
  ASSERT_NE(FindNode(g, "w/read"), nullptr);
  EXPECT_EQ(FindNode(g, "w/read")->input(0), "w");
  // Keys are restored in sorted order: b is output 0, w output 1.
  const auto* names = FindNode(g, "save/RestoreV2/tensor_names");
  ASSERT_NE(names, nullptr);
  auto names_tensor = ir::TensorFromProto(names->attr().at("value").tensor());
  ASSERT_TRUE(names_tensor.ok());
  ASSERT_EQ(names_tensor->NumElements(), 2);
  EXPECT_EQ(names_tensor->strings()[0], "b");
  EXPECT_EQ(names_tensor->strings()[1], "w");
  const auto* assign1 = FindNode(g, "save/Assign_1");
  ASSERT_NE(assign1, nullptr);
  EXPECT_EQ(assign1->op(), "Assign");
  EXPECT_EQ(assign1->input(0), "w");
  EXPECT_EQ(assign1->input(1), "save/RestoreV2:1");
  const auto* restore_all = FindNode(g, "save/restore_all");
  ASSERT_NE(restore_all, nullptr);
  EXPECT_EQ(restore_all->input_size(), 2);
  EXPECT_EQ(meta.saver_def().filename_tensor_name(), "save/Const:0");
  EXPECT_EQ(meta.saver_def().restore_op_name(), "save/restore_all");
  EXPECT_EQ(meta.saver_def().version(), tensorflow::SaverDef::V2);
  const auto& sig = meta.signature_def().at("serving_default");
  EXPECT_EQ(sig.method_name(), "tensorflow/serving/predict");
  EXPECT_EQ(sig.inputs().at("x").name(), "x:0");
  EXPECT_EQ(sig.inputs().at("x").tensor_shape().dim(0).size(), -1);
  EXPECT_EQ(sig.outputs().at("y").dtype(), tensorflow::DT_FLOAT);
}

TEST(SavedModelWriterTest, BadSpecsAreErrorsNamingTheProblem) {
  SavedModelSpec missing = ScaleModel();
  missing.signatures[0].outputs[0].tensor_name = "nope:0";
  auto st = BuildSavedModelProto(missing);
  TFHOST_ASSERT_ERROR(st, StatusCode::kNotFound,
                      "signature 'serving_default', key 'y': no node named 'nope' for tensor 'nope:0'");

  SavedModelSpec clash = ScaleModel();
  clash.variables["mul"] = Tensor::Scalar<float>(1.f);
  st = BuildSavedModelProto(clash);
  TFHOST_ASSERT_ERROR(st, StatusCode::kInvalidArgument,
                      "variable 'mul' clashes with graph node 'mul' (Mul); expected a VariableV2 node or none");

  SavedModelSpec strings = ScaleModel();
  strings.variables["s"] = Tensor::StringScalar("x");
  TFHOST_EXPECT_ERROR(BuildSavedModelProto(strings), StatusCode::kInvalidArgument,
                      "variable 's' must be a valid numeric tensor, got string");

  SavedModelSpec bad_asset = ScaleModel();
  bad_asset.assets.push_back({"../escape.txt", "x", "asset:0"});
  TFHOST_EXPECT_ERROR(BuildSavedModelProto(bad_asset), StatusCode::kInvalidArgument,
                      "asset filename '../escape.txt' must be a plain file name");
}

TEST(SavedModelWriterTest, WritesBundleThatTheReaderReturnsExactly) {
  TempDir tmp;
  fs::path dir = tmp.path() / "model" / "1";
  ASSERT_TRUE(WriteSavedModel(dir.string(), ScaleModel()).ok());
  EXPECT_TRUE(fs::is_regular_file(dir / "saved_model.pb"));
  auto reader = checkpoint::TensorBundleReader::Open((dir / "variables" / "variables").string());
  ASSERT_TRUE(reader.ok()) << reader.status().ToString();
  auto w = (*reader)->Read("w");
  ASSERT_TRUE(w.ok()) << w.status().ToString();
  EXPECT_TRUE(TensorsEqual(*w, Tensor::FromVector<float>({2, 3})));
  // No temporary directories are left beside the model.
  for (const auto& entry : fs::directory_iterator(tmp.path() / "model")) {
    EXPECT_EQ(entry.path().filename(), "1");
  }
}

TEST(SavedModelWriterTest, ExistingDirectoryNeedsOverwrite) {
  TempDir tmp;
  fs::path dir = tmp.path() / "m";
  ASSERT_TRUE(WriteSavedModel(dir.string(), ScaleModel()).ok());
  Status again = WriteSavedModel(dir.string(), ScaleModel());
  TFHOST_EXPECT_ERROR(again, StatusCode::kAlreadyExists, "SavedModel directory " + dir.string() + " already exists");
  SavedModelSpec changed = ScaleModel();
  changed.variables["b"] = Tensor::Scalar<float>(7.f);
  SavedModelWriteOptions options;
  options.overwrite = true;
  ASSERT_TRUE(WriteSavedModel(dir.string(), changed, options).ok());
  auto reader = checkpoint::TensorBundleReader::Open((dir / "variables" / "variables").string());
  ASSERT_TRUE(reader.ok());
  EXPECT_TRUE(TensorsEqual(*(*reader)->Read("b"), Tensor::Scalar<float>(7.f)));
}

TEST(SavedModelWriterTest, AssetsGoToAssetsDirAndBothAssetRecords) {
  TempDir tmp;
  SavedModelSpec spec = ScaleModel();
  spec.assets.push_back({"vocab.txt", "a\nb\n", "vocab_path:0"});
  auto proto = BuildSavedModelProto(spec);
  ASSERT_TRUE(proto.ok()) << proto.status().ToString();
  const auto& meta = proto->meta_graphs(0);
  ASSERT_EQ(meta.asset_file_def_size(), 1);
  EXPECT_EQ(meta.asset_file_def(0).filename(), "vocab.txt");
  EXPECT_EQ(meta.asset_file_def(0).tensor_info().name(), "vocab_path:0");
  EXPECT_EQ(meta.collection_def().at("saved_model_assets").any_list().value_size(), 1);
  ASSERT_NE(FindNode(meta.graph_def(), "vocab_path"), nullptr);
  fs::path dir = tmp.path() / "m";
  ASSERT_TRUE(WriteSavedModel(dir.string(), spec).ok());
  std::ifstream in(dir / "assets" / "vocab.txt");
  std::string contents((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(contents, "a\nb\n");
}

TEST(SavedModelWriterTest, LoaderRestoresTheVariablesAndRuns) {
  TempDir tmp;
  fs::path dir = tmp.path() / "m";
  ASSERT_TRUE(WriteSavedModel(dir.string(), ScaleModel()).ok());
  auto model = LoadModel(dir.string());
  ASSERT_TRUE(model.ok()) << model.status().ToString();
  EXPECT_EQ((*model)->info().variable_count, 2);
  auto out = (*model)->RunSignature("serving_default", {{"x", Tensor::FromVector<float>({1, 1, 2, -1}, Shape({2, 2}))}});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  // y = x * [2, 3] + 0.5
  EXPECT_TRUE(TensorsEqual(out->at("y"), Tensor::FromVector<float>({2.5f, 3.5f, 4.5f, -2.5f}, Shape({2, 2}))))
      << out->at("y").DebugString();
}

}  // namespace
}  // namespace tfhost::loaders
