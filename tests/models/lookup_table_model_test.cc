// A vocabulary table end to end: SavedModels written here by hand, the way
// TF1's tf.lookup.index_table_from_file exports them (a hash table filled by
// InitializeTableFromTextFile from assets/vocab.txt in the legacy_init_op,
// the asset path listed in the saved_model_assets collection), loaded through
// loaders::LoadModel and run through their serving_default signature.
#include <google/protobuf/text_format.h>
#include <gtest/gtest.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <random>

#include "loaders/model_loader.h"
#include "tensorflow/core/protobuf/saved_model.pb.h"
#include "base/test_status.h"

namespace tfhost {
namespace {

namespace fs = std::filesystem;

class TempDir {
 public:
  TempDir() {
    static std::atomic<int> counter{0};
    std::random_device rd;
    path_ = fs::temp_directory_path() / ("tfhost_lookup_test_" + std::to_string(rd()) + "_" + std::to_string(counter++));
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

// The graph of index_table_from_file(vocab, default_value=-1) applied to a
// string placeholder. `v2` picks the resource ops (TF >= 1.4) or the TF1 ref
// ops. The asset path Const holds the path at export time, which no longer
// exists: the loader must feed the model's own assets/vocab.txt instead.
constexpr char kGraphTemplate[] = R"pb(
  node {
    name: "words"
    op: "Placeholder"
    attr { key: "dtype" value { type: DT_STRING } }
    attr { key: "shape" value { shape { dim { size: -1 } } } }
  }
  node {
    name: "string_to_index/asset_path"
    op: "Const"
    attr { key: "dtype" value { type: DT_STRING } }
    attr {
      key: "value"
      value { tensor { dtype: DT_STRING tensor_shape {} string_val: "/tmp/export_time/vocab.txt" } }
    }
  }
  node {
    name: "string_to_index/hash_table"
    op: "HASH_TABLE"
    attr { key: "key_dtype" value { type: DT_STRING } }
    attr { key: "value_dtype" value { type: DT_INT64 } }
    attr { key: "shared_name" value { s: "hash_table_/tmp/export_time/vocab.txt_-2_-1" } }
    attr { key: "use_node_name_sharing" value { b: false } }
    attr { key: "container" value { s: "" } }
  }
  node {
    name: "string_to_index/hash_table/table_init"
    op: "INIT_FROM_TEXT"
    input: "string_to_index/hash_table"
    input: "string_to_index/asset_path"
    attr { key: "key_index" value { i: -2 } }
    attr { key: "value_index" value { i: -1 } }
    attr { key: "vocab_size" value { i: -1 } }
    attr { key: "delimiter" value { s: "\t" } }
  }
  node { name: "init_all_tables" op: "NoOp" input: "^string_to_index/hash_table/table_init" }
  node { name: "legacy_init_op" op: "NoOp" input: "^init_all_tables" }
  node {
    name: "default_id"
    op: "Const"
    attr { key: "dtype" value { type: DT_INT64 } }
    attr { key: "value" value { tensor { dtype: DT_INT64 tensor_shape {} int64_val: -1 } } }
  }
  node {
    name: "ids"
    op: "FIND"
    input: "string_to_index/hash_table"
    input: "words"
    input: "default_id"
    attr { key: "Tin" value { type: DT_STRING } }
    attr { key: "Tout" value { type: DT_INT64 } }
  }
  versions { producer: 27 }
)pb";

void ReplaceAll(std::string& s, const std::string& from, const std::string& to) {
  for (size_t pos = s.find(from); pos != std::string::npos; pos = s.find(from, pos + to.size())) {
    s.replace(pos, from.size(), to);
  }
}

// Writes the SavedModel into `dir` (and assets/vocab.txt when `vocab` is set).
void WriteVocabModel(const fs::path& dir, bool v2, const std::string* vocab) {
  std::string graph_text = kGraphTemplate;
  ReplaceAll(graph_text, "HASH_TABLE", v2 ? "HashTableV2" : "HashTable");
  ReplaceAll(graph_text, "INIT_FROM_TEXT", v2 ? "InitializeTableFromTextFileV2" : "InitializeTableFromTextFile");
  ReplaceAll(graph_text, "FIND", v2 ? "LookupTableFindV2" : "LookupTableFind");

  tensorflow::SavedModel saved_model;
  saved_model.set_saved_model_schema_version(1);
  tensorflow::MetaGraphDef* mg = saved_model.add_meta_graphs();
  mg->mutable_meta_info_def()->add_tags("serve");
  ASSERT_TRUE(google::protobuf::TextFormat::ParseFromString(graph_text, mg->mutable_graph_def()));

  tensorflow::AssetFileDef asset;
  asset.mutable_tensor_info()->set_name("string_to_index/asset_path:0");
  asset.mutable_tensor_info()->set_dtype(tensorflow::DT_STRING);
  asset.set_filename("vocab.txt");
  (*mg->mutable_collection_def())["saved_model_assets"].mutable_any_list()->add_value()->PackFrom(asset);
  (*mg->mutable_collection_def())["legacy_init_op"].mutable_node_list()->add_value("legacy_init_op");

  tensorflow::SignatureDef& sig = (*mg->mutable_signature_def())["serving_default"];
  sig.set_method_name("tensorflow/serving/predict");
  tensorflow::TensorInfo& in = (*sig.mutable_inputs())["words"];
  in.set_name("words:0");
  in.set_dtype(tensorflow::DT_STRING);
  in.mutable_tensor_shape()->add_dim()->set_size(-1);
  tensorflow::TensorInfo& out = (*sig.mutable_outputs())["ids"];
  out.set_name("ids:0");
  out.set_dtype(tensorflow::DT_INT64);
  out.mutable_tensor_shape()->add_dim()->set_size(-1);

  fs::create_directories(dir / "assets");
  std::string bytes;
  ASSERT_TRUE(saved_model.SerializeToString(&bytes));
  std::ofstream(dir / "saved_model.pb", std::ios::binary) << bytes;
  if (vocab != nullptr) std::ofstream(dir / "assets" / "vocab.txt", std::ios::binary) << *vocab;
}

Tensor Words(const std::vector<std::string>& words) {
  Tensor t(DType::kString, Shape({static_cast<int64_t>(words.size())}));
  for (size_t i = 0; i < words.size(); ++i) t.strings()[i] = words[i];
  return t;
}

class LookupTableModelTest : public ::testing::TestWithParam<bool> {};

TEST_P(LookupTableModelTest, KnownWordsGetTheirLineNumberAndUnknownWordsMinusOne) {
  TempDir dir;
  const std::string vocab = "the\nquick\nbrown\nfox\n";
  ASSERT_NO_FATAL_FAILURE(WriteVocabModel(dir.path(), GetParam(), &vocab));
  auto model = loaders::LoadModel(dir.path().string());
  ASSERT_TRUE(model.ok()) << model.status().ToString();

  auto out = (*model)->RunSignature("serving_default", {{"words", Words({"fox", "the", "cat", "brown", ""})}});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_TRUE(TensorsEqual(out->at("ids"), Tensor::FromVector<int64_t>({3, 0, -1, 2, -1})))
      << out->at("ids").DebugString();

  // The table persists across runs: a second request sees the same vocabulary.
  out = (*model)->RunSignature("serving_default", {{"words", Words({"quick"})}});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_TRUE(TensorsEqual(out->at("ids"), Tensor::FromVector<int64_t>({1})));
}

TEST_P(LookupTableModelTest, MissingVocabularyFileIsALoadErrorNamingIt) {
  TempDir dir;
  ASSERT_NO_FATAL_FAILURE(WriteVocabModel(dir.path(), GetParam(), nullptr));
  auto model = loaders::LoadModel(dir.path().string());
  TFHOST_ASSERT_ERROR(model, StatusCode::kNotFound,
                      "running init op 'legacy_init_op': node 'string_to_index/hash_table/table_init'");
  const std::string expected = (dir.path() / "assets" / "vocab.txt").string();
  EXPECT_NE(model.status().message().find("cannot open vocabulary file " + expected), std::string::npos)
      << model.status().ToString();
  EXPECT_NE(model.status().message().find("running init op 'legacy_init_op'"), std::string::npos)
      << model.status().ToString();
}

TEST_P(LookupTableModelTest, BadVocabularyLineIsALoadErrorNamingFileAndLine) {
  TempDir dir;
  const std::string vocab = "the\n\nfox\n";
  ASSERT_NO_FATAL_FAILURE(WriteVocabModel(dir.path(), GetParam(), &vocab));
  auto model = loaders::LoadModel(dir.path().string());
  TFHOST_ASSERT_ERROR(model, StatusCode::kInvalidArgument,
                      "running init op 'legacy_init_op': node 'string_to_index/hash_table/table_init'");
}

// The TF2 form (tf.lookup.StaticHashTable(tf.lookup.TextFileInitializer(
// asset))): the asset path reaches the initializer through a string variable
// assigned from the asset_path_initializer placeholder, and both the
// initializer and the serving function are library functions called through
// StatefulPartitionedCall; the init op is the __saved_model_init_op signature.
constexpr char kTf2Graph[] = R"pb(
  node {
    name: "serving_default_words"
    op: "Placeholder"
    attr { key: "dtype" value { type: DT_STRING } }
    attr { key: "shape" value { shape { dim { size: -1 } } } }
  }
  node {
    name: "asset_path_initializer"
    op: "Placeholder"
    attr { key: "dtype" value { type: DT_STRING } }
    attr { key: "shape" value { shape {} } }
  }
  node {
    name: "Variable"
    op: "VarHandleOp"
    attr { key: "dtype" value { type: DT_STRING } }
    attr { key: "shape" value { shape {} } }
    attr { key: "shared_name" value { s: "Variable" } }
  }
  node {
    name: "Variable/Assign"
    op: "AssignVariableOp"
    input: "Variable"
    input: "asset_path_initializer"
    attr { key: "dtype" value { type: DT_STRING } }
  }
  node {
    name: "Variable/Read/ReadVariableOp"
    op: "ReadVariableOp"
    input: "Variable"
    input: "^Variable/Assign"
    attr { key: "dtype" value { type: DT_STRING } }
  }
  node {
    name: "hash_table"
    op: "HashTableV2"
    attr { key: "key_dtype" value { type: DT_STRING } }
    attr { key: "value_dtype" value { type: DT_INT64 } }
    attr { key: "shared_name" value { s: "hash_table_/tmp/export_time/vocab.txt_-2_-1_load_0_1" } }
  }
  node {
    name: "StatefulPartitionedCall"
    op: "StatefulPartitionedCall"
    input: "hash_table"
    input: "Variable/Read/ReadVariableOp"
    input: "^Variable/Assign"
    attr { key: "Tin" value { list { type: DT_RESOURCE type: DT_STRING } } }
    attr { key: "Tout" value { list {} } }
    attr { key: "f" value { func { name: "__inference__initializer_7" } } }
  }
  node { name: "NoOp" op: "NoOp" input: "^StatefulPartitionedCall" }
  node {
    name: "StatefulPartitionedCall_1"
    op: "StatefulPartitionedCall"
    input: "serving_default_words"
    input: "hash_table"
    attr { key: "Tin" value { list { type: DT_STRING type: DT_RESOURCE } } }
    attr { key: "Tout" value { list { type: DT_INT64 } } }
    attr { key: "f" value { func { name: "__inference_signature_wrapper_20" } } }
  }
  library {
    function {
      signature {
        name: "__inference__initializer_7"
        input_arg { name: "table_handle" type: DT_RESOURCE }
        input_arg { name: "asset_filepath" type: DT_STRING }
        is_stateful: true
        control_output: "text_file_init/InitializeTableFromTextFileV2"
      }
      node_def {
        name: "text_file_init/InitializeTableFromTextFileV2"
        op: "InitializeTableFromTextFileV2"
        input: "table_handle"
        input: "asset_filepath"
        attr { key: "key_index" value { i: -2 } }
        attr { key: "value_index" value { i: -1 } }
        attr { key: "vocab_size" value { i: -1 } }
        attr { key: "delimiter" value { s: "\t" } }
        attr { key: "offset" value { i: 0 } }
      }
      control_ret {
        key: "text_file_init/InitializeTableFromTextFileV2"
        value: "text_file_init/InitializeTableFromTextFileV2"
      }
    }
    function {
      signature {
        name: "__inference_signature_wrapper_20"
        input_arg { name: "words" type: DT_STRING }
        input_arg { name: "unknown" type: DT_RESOURCE }
        output_arg { name: "identity" type: DT_INT64 }
        is_stateful: true
      }
      node_def {
        name: "Const"
        op: "Const"
        attr { key: "dtype" value { type: DT_INT64 } }
        attr { key: "value" value { tensor { dtype: DT_INT64 tensor_shape {} int64_val: -1 } } }
      }
      node_def {
        name: "None_Lookup/LookupTableFindV2"
        op: "LookupTableFindV2"
        input: "unknown"
        input: "words"
        input: "Const:output:0"
        attr { key: "Tin" value { type: DT_STRING } }
        attr { key: "Tout" value { type: DT_INT64 } }
      }
      node_def {
        name: "Identity"
        op: "Identity"
        input: "None_Lookup/LookupTableFindV2:values:0"
        attr { key: "T" value { type: DT_INT64 } }
      }
      ret { key: "identity" value: "Identity:output:0" }
    }
  }
  versions { producer: 1395 }
)pb";

void WriteTf2VocabModel(const fs::path& dir, const std::string& vocab) {
  tensorflow::SavedModel saved_model;
  saved_model.set_saved_model_schema_version(1);
  tensorflow::MetaGraphDef* mg = saved_model.add_meta_graphs();
  mg->mutable_meta_info_def()->add_tags("serve");
  ASSERT_TRUE(google::protobuf::TextFormat::ParseFromString(kTf2Graph, mg->mutable_graph_def()));
  tensorflow::AssetFileDef* asset = mg->add_asset_file_def();
  asset->mutable_tensor_info()->set_name("asset_path_initializer:0");
  asset->mutable_tensor_info()->set_dtype(tensorflow::DT_STRING);
  asset->set_filename("vocab.txt");

  tensorflow::SignatureDef& init = (*mg->mutable_signature_def())["__saved_model_init_op"];
  (*init.mutable_outputs())["__saved_model_init_op"].set_name("NoOp");
  tensorflow::SignatureDef& sig = (*mg->mutable_signature_def())["serving_default"];
  sig.set_method_name("tensorflow/serving/predict");
  tensorflow::TensorInfo& in = (*sig.mutable_inputs())["words"];
  in.set_name("serving_default_words:0");
  in.set_dtype(tensorflow::DT_STRING);
  in.mutable_tensor_shape()->add_dim()->set_size(-1);
  tensorflow::TensorInfo& out = (*sig.mutable_outputs())["output_0"];
  out.set_name("StatefulPartitionedCall_1:0");
  out.set_dtype(tensorflow::DT_INT64);
  out.mutable_tensor_shape()->add_dim()->set_size(-1);

  fs::create_directories(dir / "assets");
  std::string bytes;
  ASSERT_TRUE(saved_model.SerializeToString(&bytes));
  std::ofstream(dir / "saved_model.pb", std::ios::binary) << bytes;
  std::ofstream(dir / "assets" / "vocab.txt", std::ios::binary) << vocab;
}

TEST(LookupTableTf2ModelTest, InitializerFunctionReadsTheAssetPathVariable) {
  TempDir dir;
  ASSERT_NO_FATAL_FAILURE(WriteTf2VocabModel(dir.path(), "red\ngreen\nblue\n"));
  auto model = loaders::LoadModel(dir.path().string());
  ASSERT_TRUE(model.ok()) << model.status().ToString();
  auto out = (*model)->RunSignature("serving_default", {{"words", Words({"blue", "pink", "red"})}});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_TRUE(TensorsEqual(out->at("output_0"), Tensor::FromVector<int64_t>({2, -1, 0})))
      << out->at("output_0").DebugString();
}

INSTANTIATE_TEST_SUITE_P(ResourceAndRefOps, LookupTableModelTest, ::testing::Bool(),
                         [](const ::testing::TestParamInfo<bool>& info) {
                           return info.param ? std::string("V2ResourceOps") : std::string("Tf1RefOps");
                         });

}  // namespace
}  // namespace tfhost
