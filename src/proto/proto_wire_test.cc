// Checks that our own .proto schemas (docs/formats.md §1) match TensorFlow's wire
// format, by parsing real files TensorFlow / TF Serving / TF.js wrote and
// requiring that no field is left unknown anywhere in the parsed tree.
#include <google/protobuf/any.pb.h>
#include <google/protobuf/descriptor.h>
#include <google/protobuf/dynamic_message.h>
#include <google/protobuf/message.h>
#include <google/protobuf/text_format.h>
#include <google/protobuf/unknown_field_set.h>
#include <google/protobuf/util/json_util.h>
#include <gtest/gtest.h>
#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "tensorflow/core/example/example.pb.h"
#include "tensorflow/core/framework/graph.pb.h"
#include "tensorflow/core/protobuf/fingerprint.pb.h"
#include "tensorflow/core/protobuf/saved_model.pb.h"
#include "tensorflow/core/protobuf/tensor_bundle.pb.h"
#include "tensorflow_serving/apis/get_model_metadata.pb.h"
#include "tensorflow_serving/apis/get_model_status.pb.h"
#include "tensorflow_serving/apis/prediction_log.pb.h"
#include "tensorflow_serving/config/model_server_config.pb.h"
#include "tensorflow_serving/config/monitoring_config.pb.h"
#include "tensorflow_serving/servables/tensorflow/session_bundle_config.pb.h"

namespace fs = std::filesystem;
namespace pb = google::protobuf;

namespace {

std::string FixturesDir() {
  if (const char* env = std::getenv("TFHOST_FIXTURES"); env && *env) return env;
  if (const char* src = std::getenv("TFHOST_SOURCE_DIR"); src && *src) {
    return std::string(src) + "/../shared/fixtures";
  }
  if (fs::exists("../shared/fixtures")) return "../shared/fixtures";
  return "/work/shared/fixtures";
}

#define REQUIRE_FIXTURE(path)                                                   \
  do {                                                                          \
    if (!fs::exists(path)) {                                                    \
      GTEST_SKIP() << "fixture not found: " << (path)                           \
                   << " (set TFHOST_FIXTURES to the shared fixtures folder)";   \
    }                                                                           \
  } while (0)

std::string ReadFile(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Collects "path: N unknown field(s)" for every message in the tree that has
// unknown fields. google.protobuf.Any payloads whose type is in the generated
// pool are unpacked and checked too.
void CollectUnknown(const pb::Message& msg, const std::string& path,
                    std::vector<std::string>* problems) {
  const pb::Reflection* refl = msg.GetReflection();
  const pb::Descriptor* desc = msg.GetDescriptor();
  const pb::UnknownFieldSet& unknown = refl->GetUnknownFields(msg);
  if (!unknown.empty()) {
    std::string numbers;
    for (int i = 0; i < unknown.field_count(); ++i) {
      numbers += " #" + std::to_string(unknown.field(i).number());
    }
    problems->push_back(path + " (" + desc->full_name() + "):" + numbers);
  }
  if (desc->full_name() == "google.protobuf.Any") {
    const auto& any = static_cast<const pb::Any&>(msg);
    std::string type_name = any.type_url().substr(any.type_url().rfind('/') + 1);
    const pb::Descriptor* inner =
        pb::DescriptorPool::generated_pool()->FindMessageTypeByName(type_name);
    if (inner != nullptr) {
      std::unique_ptr<pb::Message> payload(
          pb::MessageFactory::generated_factory()->GetPrototype(inner)->New());
      if (!payload->ParseFromString(any.value())) {
        problems->push_back(path + ": Any payload of " + type_name + " does not parse");
      } else {
        CollectUnknown(*payload, path + "<" + type_name + ">", problems);
      }
    }
    return;
  }
  std::vector<const pb::FieldDescriptor*> fields;
  refl->ListFields(msg, &fields);
  for (const pb::FieldDescriptor* field : fields) {
    if (field->cpp_type() != pb::FieldDescriptor::CPPTYPE_MESSAGE) continue;
    if (field->is_repeated()) {
      int n = refl->FieldSize(msg, field);
      for (int i = 0; i < n; ++i) {
        CollectUnknown(refl->GetRepeatedMessage(msg, field, i),
                       path + "." + field->name() + "[" + std::to_string(i) + "]", problems);
      }
    } else {
      CollectUnknown(refl->GetMessage(msg, field), path + "." + field->name(), problems);
    }
  }
}

void ExpectNoUnknownFields(const pb::Message& msg, const std::string& what) {
  std::vector<std::string> problems;
  CollectUnknown(msg, "", &problems);
  std::string joined;
  for (size_t i = 0; i < problems.size() && i < 20; ++i) joined += "\n  " + problems[i];
  EXPECT_TRUE(problems.empty()) << what << ": " << problems.size()
                                << " message(s) with unknown fields:" << joined;
}

std::vector<fs::path> FindFiles(const fs::path& root, const std::string& name) {
  std::vector<fs::path> out;
  for (const auto& entry : fs::recursive_directory_iterator(root)) {
    if (entry.is_regular_file() && entry.path().filename() == name) out.push_back(entry.path());
  }
  std::sort(out.begin(), out.end());
  return out;
}

const tensorflow::MetaGraphDef* FindServeMetaGraph(const tensorflow::SavedModel& sm) {
  for (const auto& mg : sm.meta_graphs()) {
    for (const auto& tag : mg.meta_info_def().tags()) {
      if (tag == "serve") return &mg;
    }
  }
  return nullptr;
}

TEST(ProtoWire, DataTypeEnumHasAllNames) {
  const pb::EnumDescriptor* e = tensorflow::DataType_descriptor();
  EXPECT_EQ(e->value_count(), 34 + 33);
  EXPECT_EQ(e->FindValueByName("DT_FLOAT")->number(), 1);
  EXPECT_EQ(e->FindValueByName("DT_FLOAT4_E2M1FN")->number(), 33);
  EXPECT_EQ(e->FindValueByName("DT_FLOAT_REF")->number(), 101);
  EXPECT_EQ(e->FindValueByName("DT_HALF_REF")->number(), 119);
  EXPECT_EQ(e->FindValueByName("DT_FLOAT8_E5M2FNUZ_REF")->number(), 128);
  EXPECT_EQ(e->FindValueByName("DT_FLOAT4_E2M1FN_REF")->number(), 133);
}

TEST(ProtoWire, SavedModelsParseWithoutUnknownFields) {
  const fs::path root = fs::path(FixturesDir()) / "models/tfserving";
  REQUIRE_FIXTURE(root);
  auto files = FindFiles(root, "saved_model.pb");
  ASSERT_FALSE(files.empty());
  for (const auto& file : files) {
    SCOPED_TRACE(file.string());
    tensorflow::SavedModel sm;
    ASSERT_TRUE(sm.ParseFromString(ReadFile(file))) << file;
    EXPECT_GE(sm.meta_graphs_size(), 1);
    ExpectNoUnknownFields(sm, file.string());
  }
}

TEST(ProtoWire, UnknownFieldCheckerDetectsUnknowns) {
  // Sanity check for the checker itself: field 99 of a nested TensorShapeProto.Dim.
  tensorflow::TensorShapeProto shape;
  shape.add_dim()->set_size(3);
  shape.mutable_dim(0)->GetReflection()->MutableUnknownFields(shape.mutable_dim(0))->AddVarint(99, 1);
  tensorflow::TensorProto tensor;
  ASSERT_TRUE(tensor.mutable_tensor_shape()->ParseFromString(shape.SerializeAsString()));
  std::vector<std::string> problems;
  CollectUnknown(tensor, "", &problems);
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_NE(problems[0].find(".tensor_shape.dim[0]"), std::string::npos) << problems[0];
}

TEST(ProtoWire, LegacyExportMetaParsesAsMetaGraphDef) {
  const fs::path root = fs::path(FixturesDir()) / "models/tfserving";
  REQUIRE_FIXTURE(root);
  for (const auto& file : FindFiles(root, "export.meta")) {
    SCOPED_TRACE(file.string());
    tensorflow::MetaGraphDef mg;
    ASSERT_TRUE(mg.ParseFromString(ReadFile(file)));
    ExpectNoUnknownFields(mg, file.string());
    EXPECT_GT(mg.graph_def().node_size(), 0);
  }
}

TEST(ProtoWire, SavedModelKnownFacts) {
  const fs::path root = fs::path(FixturesDir()) / "models/tfserving";
  const fs::path tf1 = root / "saved_model_half_plus_two_cpu/00000123/saved_model.pb";
  const fs::path tf2 = root / "saved_model_half_plus_two_tf2_cpu/00000123/saved_model.pb";
  REQUIRE_FIXTURE(tf1);
  REQUIRE_FIXTURE(tf2);

  tensorflow::SavedModel sm1;
  ASSERT_TRUE(sm1.ParseFromString(ReadFile(tf1)));
  const tensorflow::MetaGraphDef* mg1 = FindServeMetaGraph(sm1);
  ASSERT_NE(mg1, nullptr);
  for (const char* sig : {"serving_default", "regress_x_to_y", "regress_x_to_y2",
                          "regress_x2_to_y3", "classify_x_to_y"}) {
    EXPECT_TRUE(mg1->signature_def().contains(sig)) << sig;
  }
  const auto& sd = mg1->signature_def().at("serving_default");
  EXPECT_EQ(sd.method_name(), "tensorflow/serving/predict");
  EXPECT_EQ(sd.inputs().at("x").name(), "x:0");
  EXPECT_EQ(sd.inputs().at("x").dtype(), tensorflow::DT_FLOAT);
  EXPECT_EQ(sd.outputs().at("y").name(), "y:0");
  EXPECT_GT(mg1->graph_def().node_size(), 0);

  tensorflow::SavedModel sm2;
  ASSERT_TRUE(sm2.ParseFromString(ReadFile(tf2)));
  const tensorflow::MetaGraphDef* mg2 = FindServeMetaGraph(sm2);
  ASSERT_NE(mg2, nullptr);
  EXPECT_EQ(mg2->object_graph_def().nodes_size(), 24);
  EXPECT_TRUE(mg2->meta_info_def().stripped_default_attrs());
  EXPECT_GT(mg2->graph_def().library().function_size(), 0);
  EXPECT_TRUE(mg2->signature_def().contains("serving_default"));
}

TEST(ProtoWire, FingerprintParses) {
  const fs::path file = fs::path(FixturesDir()) /
                        "models/tfserving/saved_model_half_plus_two_tf2_cpu/00000123/fingerprint.pb";
  REQUIRE_FIXTURE(file);
  tensorflow::FingerprintDef fp;
  ASSERT_TRUE(fp.ParseFromString(ReadFile(file)));
  ExpectNoUnknownFields(fp, file.string());
  EXPECT_NE(fp.saved_model_checksum(), 0u);
  EXPECT_NE(fp.graph_def_program_hash(), 0u);
}

TEST(ProtoWire, TfjsModelTopologyParsesAsGraphDef) {
  const fs::path root = fs::path(FixturesDir()) / "models/tfjs";
  REQUIRE_FIXTURE(root);
  auto files = FindFiles(root, "model.json");
  ASSERT_FALSE(files.empty());
  for (const auto& file : files) {
    SCOPED_TRACE(file.string());
    rapidjson::Document doc;
    std::string text = ReadFile(file);
    ASSERT_FALSE(doc.Parse(text.c_str(), text.size()).HasParseError());
    ASSERT_TRUE(doc.IsObject() && doc.HasMember("modelTopology"));
    rapidjson::StringBuffer buf;
    rapidjson::Writer<rapidjson::StringBuffer> writer(buf);
    doc["modelTopology"].Accept(writer);

    tensorflow::GraphDef graph;
    pb::util::JsonParseOptions options;
    options.ignore_unknown_fields = false;
    auto status = pb::util::JsonStringToMessage(
        std::string(buf.GetString(), buf.GetSize()), &graph, options);
    ASSERT_TRUE(status.ok()) << status.ToString();
    EXPECT_GT(graph.node_size(), 0);
  }
}

TEST(ProtoWire, TfServingTextConfigs) {
  const fs::path dir = fs::path(FixturesDir()) / "tfserving-configs";
  REQUIRE_FIXTURE(dir);

  tensorflow::serving::ModelServerConfig good;
  ASSERT_TRUE(pb::TextFormat::ParseFromString(ReadFile(dir / "good_model_config.txt"), &good));
  ASSERT_EQ(good.model_config_list().config_size(), 2);
  EXPECT_EQ(good.model_config_list().config(0).name(), "half_plus_two");
  EXPECT_EQ(good.model_config_list().config(1).model_platform(), "tensorflow");

  tensorflow::serving::ModelServerConfig bad;
  EXPECT_FALSE(pb::TextFormat::ParseFromString(ReadFile(dir / "bad_model_config.txt"), &bad));

  tensorflow::serving::BatchingParameters batching;
  ASSERT_TRUE(pb::TextFormat::ParseFromString(ReadFile(dir / "batching_config.txt"), &batching));
  EXPECT_EQ(batching.max_batch_size().value(), 128);
  EXPECT_EQ(batching.max_enqueued_batches().value(), 1000000);
  EXPECT_EQ(batching.num_batch_threads().value(), 8);

  tensorflow::serving::MonitoringConfig monitoring;
  ASSERT_TRUE(
      pb::TextFormat::ParseFromString(ReadFile(dir / "monitoring_config.txt"), &monitoring));
  EXPECT_TRUE(monitoring.prometheus_config().enable());
  EXPECT_EQ(monitoring.prometheus_config().path(), "/monitoring/prometheus/metrics");

  const fs::path derived = dir / "derived";
  if (fs::exists(derived / "model_config_example.txt")) {
    tensorflow::serving::ModelServerConfig example;
    ASSERT_TRUE(pb::TextFormat::ParseFromString(ReadFile(derived / "model_config_example.txt"),
                                                &example));
    const auto& c0 = example.model_config_list().config(0);
    EXPECT_EQ(c0.model_version_policy().specific().versions_size(), 2);
    EXPECT_EQ(c0.version_labels().at("canary"), 124);
    EXPECT_TRUE(example.model_config_list().config(2).model_version_policy().has_all());
  }
  if (fs::exists(derived / "batching_parameters_full.txt")) {
    tensorflow::serving::BatchingParameters full;
    ASSERT_TRUE(pb::TextFormat::ParseFromString(
        ReadFile(derived / "batching_parameters_full.txt"), &full));
    EXPECT_EQ(full.thread_pool_name().value(), "model_server_batch_threads");
  }
}

TEST(ProtoWire, ServingMetadataJson) {
  const fs::path file =
      fs::path(FixturesDir()) / "tfserving-configs/half_plus_two_model_metadata.json";
  REQUIRE_FIXTURE(file);
  // The REST body nests the SignatureDefMap without "@type"; parse that part directly.
  rapidjson::Document doc;
  std::string text = ReadFile(file);
  ASSERT_FALSE(doc.Parse(text.c_str(), text.size()).HasParseError());
  rapidjson::StringBuffer buf;
  rapidjson::Writer<rapidjson::StringBuffer> writer(buf);
  doc["metadata"]["signature_def"].Accept(writer);
  tensorflow::serving::SignatureDefMap map;
  auto status = pb::util::JsonStringToMessage(std::string(buf.GetString(), buf.GetSize()), &map);
  ASSERT_TRUE(status.ok()) << status.ToString();
  EXPECT_EQ(map.signature_def().at("serving_default").inputs().at("x").tensor_shape().dim(0).size(),
            -1);
}

TEST(ProtoWire, JsonNamesOfStatus) {
  tensorflow::serving::GetModelStatusResponse resp;
  auto* s = resp.add_model_version_status();
  s->set_version(123);
  s->set_state(tensorflow::serving::ModelVersionStatus::AVAILABLE);
  s->mutable_status()->set_error_message("x");
  std::string json;
  ASSERT_TRUE(pb::util::MessageToJsonString(resp, &json).ok());
  EXPECT_NE(json.find("\"model_version_status\""), std::string::npos) << json;
  EXPECT_NE(json.find("\"error_message\""), std::string::npos) << json;
  EXPECT_NE(json.find("\"version\":\"123\""), std::string::npos) << json;
}

}  // namespace
