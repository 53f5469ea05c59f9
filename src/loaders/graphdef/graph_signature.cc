#include "loaders/graphdef/graph_signature.h"

#include <algorithm>
#include <set>

#include "ir/attrs.h"
#include "ir/tensor_proto.h"
#include "loaders/graph_to_session.h"

namespace tfhost::loaders {

namespace {

void SortByKey(std::vector<runtime::TensorSpec>* specs) {
  std::sort(specs->begin(), specs->end(),
            [](const runtime::TensorSpec& a, const runtime::TensorSpec& b) { return a.key < b.key; });
}

// Resolves one TensorInfo against the typed graph.
StatusOr<runtime::TensorSpec> SpecFromInfo(const std::string& where, const std::string& key,
                                           const tensorflow::TensorInfo& info, const ir::Graph& graph) {
  if (info.name().empty()) {
    return InvalidArgument(where + " '" + key + "' has no tensor name (sparse and composite tensors are "
                           "not supported)");
  }
  auto ref = graph.ResolveTensor(info.name());
  if (!ref.ok()) return ref.status().WithContext(where + " '" + key + "'");
  const ir::Node& node = graph.node(ref->node);
  runtime::TensorSpec spec;
  spec.key = key;
  spec.tensor_name = info.name();
  spec.dtype = BaseType(info.dtype());
  if (ref->index < 0 ||
      (!node.output_dtypes.empty() && ref->index >= static_cast<int>(node.output_dtypes.size()))) {
    return InvalidArgument(where + " '" + key + "' names tensor '" + info.name() + "', but node '" +
                           node.name + "' (" + node.op + ") has " +
                           std::to_string(node.output_dtypes.size()) + " outputs");
  }
  if (spec.dtype == DType::kInvalid && ref->index < static_cast<int>(node.output_dtypes.size())) {
    spec.dtype = node.output_dtypes[ref->index];
  }
  if (info.has_tensor_shape()) spec.shape = ir::PartialShape::FromProto(info.tensor_shape());
  return spec;
}

}  // namespace

std::vector<std::string> UnconsumedNodeNames(const ir::Graph& graph) {
  std::vector<bool> consumed(graph.num_nodes(), false);
  for (const ir::Node& n : graph.nodes()) {
    for (const auto& in : n.inputs) consumed[in.node] = true;
    for (int c : n.control_inputs) consumed[c] = true;
  }
  std::vector<std::string> names;
  for (int i = 0; i < graph.num_nodes(); ++i) {
    const ir::Node& n = graph.node(i);
    if (consumed[i] || n.op == "Const" || n.op == "NoOp" || n.op == "Placeholder") continue;
    names.push_back(n.name);
  }
  return names;
}

StatusOr<runtime::Signature> SynthesizeSignature(const ir::Graph& graph, int producer,
                                                 const std::vector<std::string>& output_nodes) {
  runtime::Signature sig;
  sig.name = kDefaultSignatureName;
  sig.method_name = kPredictMethodName;
  for (const ir::Node& n : graph.nodes()) {
    if (n.op != "Placeholder") continue;
    runtime::TensorSpec spec;
    spec.key = n.name;
    spec.tensor_name = n.name + ":0";
    TFHOST_ASSIGN_OR_RETURN(spec.dtype, ir::GetAttr<DType>(n, "dtype"));
    if (const auto* shape = n.FindAttr("shape"); shape != nullptr && shape->has_shape()) {
      spec.shape = ir::PartialShape::FromProto(shape->shape());
      // GraphDefs older than version 21 wrote "unknown" as an empty shape.
      if (producer < 21 && !spec.shape.unknown_rank && spec.shape.dims.empty()) {
        spec.shape = ir::PartialShape::Unknown();
      }
    }
    sig.inputs.push_back(std::move(spec));
  }
  for (const std::string& name : output_nodes) {
    const int index = graph.FindNode(name);
    if (index < 0) continue;
    const ir::Node& n = graph.node(index);
    const int outputs = static_cast<int>(n.output_dtypes.size());
    for (int i = 0; i < outputs; ++i) {
      runtime::TensorSpec spec;
      spec.key = outputs == 1 ? n.name : n.name + ":" + std::to_string(i);
      spec.tensor_name = n.name + ":" + std::to_string(i);
      spec.dtype = n.output_dtypes[i];
      sig.outputs.push_back(std::move(spec));
    }
  }
  if (sig.outputs.empty()) {
    return InvalidArgument("the graph has no signature and no node whose outputs nothing consumes, so "
                           "there is nothing to return; fetch tensors by name instead");
  }
  SortByKey(&sig.inputs);
  SortByKey(&sig.outputs);
  return sig;
}

StatusOr<runtime::Signature> SignatureFromDef(const std::string& name, const tensorflow::SignatureDef& def,
                                              const ir::Graph& graph) {
  runtime::Signature sig;
  sig.name = name;
  sig.method_name = def.method_name().empty() ? kPredictMethodName : def.method_name();
  const std::string where = "signature '" + name + "'";
  for (const auto& [key, info] : def.inputs()) {
    TFHOST_ASSIGN_OR_RETURN(auto spec, SpecFromInfo(where + " input", key, info, graph));
    sig.inputs.push_back(std::move(spec));
  }
  for (const auto& [key, info] : def.outputs()) {
    TFHOST_ASSIGN_OR_RETURN(auto spec, SpecFromInfo(where + " output", key, info, graph));
    sig.outputs.push_back(std::move(spec));
  }
  for (const auto& [key, proto] : def.defaults()) {
    auto value = ir::TensorFromProto(proto);
    if (!value.ok()) return value.status().WithContext(where + " default for '" + key + "'");
    sig.defaults[key] = std::move(*value);
  }
  if (sig.outputs.empty()) return InvalidArgument(where + " has no outputs");
  SortByKey(&sig.inputs);
  SortByKey(&sig.outputs);
  return sig;
}

StatusOr<std::vector<std::string>> SignatureRoots(const tensorflow::SignatureDef& def) {
  std::vector<std::string> roots;
  for (const auto& [key, info] : def.outputs()) {
    auto parsed = ir::ParseTensorName(info.name());
    if (!parsed.ok()) return parsed.status().WithContext("signature output '" + key + "'");
    roots.push_back(parsed->node);
  }
  return roots;
}

StatusOr<std::unique_ptr<runtime::Model>> FinishGraphModel(GraphModelParts parts, const LoadOptions& options) {
  std::vector<std::string> roots;
  std::vector<std::string> synthesized_outputs;
  if (parts.signature.has_value()) {
    auto sig_roots = SignatureRoots(*parts.signature);
    if (!sig_roots.ok()) return sig_roots.status().WithContext("model '" + parts.model_name + "'");
    roots = std::move(*sig_roots);
    // An input need not be a Placeholder nor be read by any output, but it
    // is fed by name, so pruning and the graph passes must keep it. One the
    // graph lacks is left for SignatureFromDef to report with its key.
    for (const auto& [key, info] : parts.signature->inputs()) {
      auto parsed = ir::ParseTensorName(info.name());
      if (parsed.ok() && parts.graph.FindNode(parsed->node) >= 0) roots.push_back(parsed->node);
    }
  } else {
    synthesized_outputs = UnconsumedNodeNames(parts.graph);
    roots = synthesized_outputs;
  }
  roots.insert(roots.end(), parts.init_targets.begin(), parts.init_targets.end());
  TFHOST_ASSIGN_OR_RETURN(auto session,
                          GraphToSession(std::move(parts.graph), nullptr, options, parts.model_name, roots));
  const ir::Graph& graph = session->graph();
  StatusOr<runtime::Signature> sig =
      parts.signature.has_value() ? SignatureFromDef(kDefaultSignatureName, *parts.signature, graph)
                                  : SynthesizeSignature(graph, parts.producer, synthesized_outputs);
  if (!sig.ok()) return sig.status().WithContext("model '" + parts.model_name + "'");
  if (!parts.init_targets.empty()) {
    auto ran = session->Run({}, {}, parts.init_targets);
    if (!ran.ok()) return ran.status().WithContext("model '" + parts.model_name + "': running the model initializer");
  }
  std::map<std::string, runtime::Signature> signatures;
  signatures[kDefaultSignatureName] = std::move(*sig);
  return std::make_unique<runtime::Model>(std::move(session), std::move(signatures), std::move(parts.info));
}

}  // namespace tfhost::loaders
