// Shared by the control_flow_* model tests: builds a Session from a GraphDef
// written in pbtxt, through the same steps a GraphDef load takes (default
// attrs, dtype inference, static shape inference, kernel checks).
#pragma once

#include <google/protobuf/text_format.h>
#include <gtest/gtest.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "loaders/graph_to_session.h"
#include "tensorflow/core/framework/graph.pb.h"

namespace tfhost::testing {

// `options` defaults to one intra-op thread.
inline StatusOr<std::unique_ptr<runtime::Session>> SessionFromPbtxt(const std::string& pbtxt,
                                                                   std::optional<loaders::LoadOptions> options = {}) {
  // Tests write each function as its own "library { function {...} }" block;
  // merging the blocks one at a time concatenates the functions.
  tensorflow::GraphDef gd;
  size_t start = 0;
  while (start < pbtxt.size()) {
    size_t next = pbtxt.find("library {", start + 1);
    if (next == std::string::npos) next = pbtxt.size();
    if (!google::protobuf::TextFormat::MergeFromString(pbtxt.substr(start, next - start), &gd)) {
      return InvalidArgument("test graph is not valid pbtxt");
    }
    start = next;
  }
  TFHOST_ASSIGN_OR_RETURN(ir::Graph graph, ir::Graph::FromGraphDef(gd));
  if (!options) {
    options.emplace();
    options->session.intra_op_threads = 1;
  }
  return loaders::GraphToSession(std::move(graph), nullptr, *options, "control_flow_test", {});
}

inline std::vector<float> Floats(const Tensor& t) {
  return std::vector<float>(t.data<float>(), t.data<float>() + t.NumElements());
}
inline std::vector<int32_t> Ints(const Tensor& t) {
  return std::vector<int32_t>(t.data<int32_t>(), t.data<int32_t>() + t.NumElements());
}

// pbtxt snippets for attrs, so graphs read like TensorFlow's own dumps.
inline std::string TypeAttr(const std::string& key, const std::string& dt) {
  return "attr { key: '" + key + "' value { type: " + dt + " } }";
}
inline std::string IntConst(const std::string& name, int value, const std::string& extra_inputs = "") {
  return "node { name: '" + name + "' op: 'Const' " + extra_inputs + TypeAttr("dtype", "DT_INT32") +
         " attr { key: 'value' value { tensor { dtype: DT_INT32 tensor_shape {} int_val: " + std::to_string(value) +
         " } } } }\n";
}
inline std::string FloatConst(const std::string& name, float value, const std::string& extra_inputs = "") {
  return "node { name: '" + name + "' op: 'Const' " + extra_inputs + TypeAttr("dtype", "DT_FLOAT") +
         " attr { key: 'value' value { tensor { dtype: DT_FLOAT tensor_shape {} float_val: " + std::to_string(value) +
         " } } } }\n";
}

}  // namespace tfhost::testing
