// The ONNX test models (tests/onnx/generate.py: onnx.helper models per op
// family, a CNN, an MLP, external data, and tf2onnx conversions of Keras and
// zoo models) through loaders::LoadModel, each output against ONNX
// Runtime's for the same inputs, within 1e-5 x max|reference|. One gtest
// case per model, "Onnx.<model>/serving_default"; the folder comes from
// $TFHOST_ONNX_DIR (tests/onnx/with_onnx.sh sets it). Cases listed in
// known_failures.txt must fail, with the error their line quotes.
#include <google/protobuf/message.h>
#include <google/protobuf/unknown_field_set.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <iostream>
#include <set>

#include "loaders/graph_to_session.h"
#include "loaders/model_loader.h"
#include "onnx/onnx.pb.h"
#include "zoo_cases.h"
#include "zoo_manifest.h"

namespace tfhost::zoo {
namespace {

std::string g_dir;

// The fields of `message` (recursively) that tfhost's schema does not
// declare, as "<message type>.<field number>".
void UnknownFields(const google::protobuf::Message& message, std::set<std::string>* unknown) {
  const google::protobuf::Reflection* reflection = message.GetReflection();
  const google::protobuf::UnknownFieldSet& fields = reflection->GetUnknownFields(message);
  for (int i = 0; i < fields.field_count(); ++i) {
    unknown->insert(message.GetTypeName() + "." + std::to_string(fields.field(i).number()));
  }
  std::vector<const google::protobuf::FieldDescriptor*> set_fields;
  reflection->ListFields(message, &set_fields);
  for (const google::protobuf::FieldDescriptor* field : set_fields) {
    if (field->cpp_type() != google::protobuf::FieldDescriptor::CPPTYPE_MESSAGE) continue;
    if (field->is_repeated()) {
      for (int k = 0; k < reflection->FieldSize(message, field); ++k) {
        UnknownFields(reflection->GetRepeatedMessage(message, field, k), unknown);
      }
    } else {
      UnknownFields(reflection->GetMessage(message, field), unknown);
    }
  }
}

// A model onnx.helper wrote parses with tfhost's own schema leaving no field
// unknown: the schema's field numbers are the ones the writer used.
void CheckWire(const ZooModel& m) {
  auto bytes = loaders::ReadFileToString(g_dir + "/" + m.path);
  ASSERT_TRUE(bytes.ok()) << bytes.status().ToString();
  ::onnx::ModelProto proto;
  ASSERT_TRUE(proto.ParseFromString(*bytes)) << m.path;
  std::set<std::string> unknown;
  UnknownFields(proto, &unknown);
  std::string list;
  for (const auto& u : unknown) list += " " + u;
  EXPECT_TRUE(unknown.empty()) << m.path << " has fields the schema lacks:" << list;
}

}  // namespace
}  // namespace tfhost::zoo

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  using namespace tfhost::zoo;
  DerivedSuiteSpec spec;
  spec.program = "onnx_zoo_test";
  spec.env_var = "TFHOST_ONNX_DIR";
  spec.wrapper = "tests/onnx/with_onnx.sh";
  spec.known_failures = TFHOST_ONNX_KNOWN_FAILURES;
  spec.known_failures_name = "tests/onnx/known_failures.txt";
  spec.suite = "Onnx";
  spec.min_models = 13;  // its own 13 plus the zoo's conversions
  spec.format = "ONNX";
  spec.reference = "ONNX Runtime";
  spec.log_tag = "onnx";
  const DerivedSuite& suite = SetUpDerivedSuite(spec);
  g_dir = suite.dir;
  for (const ZooModel& model : suite.manifest.models) {
    if (model.name.rfind("zoo_", 0) == 0 || model.name.find("tf2onnx") != std::string::npos) continue;
    ::testing::RegisterTest("OnnxWire", model.name.c_str(), nullptr, nullptr, __FILE__, __LINE__,
                            [mp = &model]() -> ::testing::Test* {
                              struct T : ::testing::Test {
                                const ZooModel* model = nullptr;
                                void TestBody() override { CheckWire(*model); }
                              };
                              auto* t = new T;
                              t->model = mp;
                              return t;
                            });
  }
  return RUN_ALL_TESTS();
}
