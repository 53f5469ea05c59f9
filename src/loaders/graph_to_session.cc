#include "loaders/graph_to_session.h"

#include <fstream>
#include <map>
#include <sstream>

#include "ops/op_registry.h"
#include "ops/shape_inference.h"

namespace tfhost::loaders {

StatusOr<std::string> ReadFileToString(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return NotFound("cannot open " + path);
  std::ostringstream ss;
  ss << in.rdbuf();
  if (in.bad()) return DataLoss("error reading " + path);
  return ss.str();
}

StatusOr<std::unique_ptr<runtime::Session>> GraphToSession(
    ir::Graph graph, const tensorflow::OpList* model_op_defs, const LoadOptions& options,
    const std::string& model_name, const std::vector<std::string>& roots) {
  const auto& registry = ops::OpRegistry::Global();
  std::map<std::string, const tensorflow::OpDef*> model_defs;
  if (model_op_defs != nullptr) {
    for (const auto& def : model_op_defs->op()) model_defs[def.name()] = &def;
  }
  // The model's own OpDefs describe exactly the attrs TensorFlow stripped, so
  // they win for defaults; tfhost's registry covers the rest.
  ir::OpDefLookup lookup = [&](const std::string& op) -> const tensorflow::OpDef* {
    auto it = model_defs.find(op);
    if (it != model_defs.end()) return it->second;
    const ops::OpRegistration* r = registry.Find(op);
    return r ? &r->def : nullptr;
  };
  for (int i = 0; i < graph.num_nodes(); ++i) graph.mutable_node(i).device.clear();
  Status st = ir::InferTypes(graph, lookup);
  if (!st.ok()) return st.WithContext("model '" + model_name + "'");
  // Output dtypes must follow tfhost's own schemas where both exist (kernels
  // are checked against them); the model's OpDefs only fill defaults.
  for (int i = 0; i < graph.num_nodes(); ++i) {
    ir::Node& n = graph.mutable_node(i);
    if (const ops::OpRegistration* r = registry.Find(n.op)) {
      ir::FillDefaultAttrs(r->def, &n);
      auto dtypes = ir::OutputDTypes(r->def, n);
      if (!dtypes.ok()) return dtypes.status().WithContext("model '" + model_name + "'");
      n.output_dtypes = std::move(*dtypes);
    }
  }
  // Static shapes, as TensorFlow's graph construction knows them: a definite
  // conflict (MatMul 3 vs 4) means the model can never run, so it fails the
  // load naming the node; everything unknown stays for the kernels to check.
  st = ops::InferShapes(graph);
  if (!st.ok()) return st.WithContext("model '" + model_name + "'");
  runtime::SessionOptions session_options = options.session;
  session_options.model_name = model_name;
  return runtime::Session::Create(std::move(graph), session_options, roots);
}

}  // namespace tfhost::loaders
