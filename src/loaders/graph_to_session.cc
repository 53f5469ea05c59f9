#include "loaders/graph_to_session.h"

#include <fstream>
#include <map>
#include <sstream>

#include "backends/backend_registry.h"
#include "ir/reachability.h"
#include "ops/op_registry.h"
#include "ops/shape_inference.h"
#include "passes/pass_manager.h"

namespace tfhost::loaders {

StatusOr<std::string> ReadFileToString(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return NotFound("cannot open " + path);
  std::ostringstream ss;
  ss << in.rdbuf();
  if (in.bad()) return DataLoss("error reading " + path);
  return ss.str();
}

std::function<bool(const ir::Node&)> FastKernelCheck(const backends::BackendRegistry& registry,
                                                     backends::KernelChoice kernels) {
  return [&registry, kernels](const ir::Node& node) {
    if (kernels != backends::KernelChoice::kFast) return false;
    const backends::Backend* chosen = registry.Choose(node, kernels);
    if (chosen == nullptr || chosen->name() == backends::kReferenceBackend) return false;
    return !registry.HasDeviceBackend() || !chosen->memory_space().host_accessible();
  };
}

namespace {

// The graph passes the load options ask for, on a graph whose `kept` names
// must survive: the default passes, then the precision passes. In a
// `function_body`, `kept` (its arguments and results) is all a caller sees.
Status OptimizeGraph(ir::Graph& graph, const std::vector<std::string>& kept, const LoadOptions& options,
                     bool function_body) {
  const backends::BackendRegistry& registry =
      options.session.backends != nullptr ? *options.session.backends : backends::BackendRegistry::Global();
  if (options.optimize_graph) {
    passes::PassContext ctx = passes::PassContext::FromRoots(graph, kept);
    ctx.keep_unconsumed = !function_body;
    ctx.has_fast_kernel = FastKernelCheck(registry, options.session.kernels);
    TFHOST_RETURN_IF_ERROR(passes::PassManager::Default().Run(&graph, ctx));
  }
  if (options.precision == "bf16") {
    // bf16 activations only where bf16 kernels run: elsewhere --precision
    // bf16 computes in float32, and so must the edges between nodes. Not
    // with a device backend either: the edges are the host kernels' format,
    // and a GPU backend refuses nodes that read or write them, so a
    // convolution chain would stay on the host (the GPU computes a bf16
    // mark in float32 for now).
    const bool bf16_activations = options.session.kernels == backends::KernelChoice::kFast &&
                                  registry.HostHasNativeBf16() && !registry.HasDeviceBackend();
    return passes::PassManager::Bf16(bf16_activations).Run(&graph, passes::PassContext::FromRoots(graph, kept));
  }
  if (options.precision == "fp32-strict") {
    passes::PassManager strict;
    strict.Add(passes::MakePrecisionPass(passes::Precision::kFp32Strict));
    return strict.Run(&graph, passes::PassContext::FromRoots(graph, kept));
  }
  if (options.precision != "fp32") {
    return InvalidArgument("LoadOptions::precision is '" + options.precision +
                           "'; expected fp32, fp32-strict or bf16");
  }
  return OkStatus();
}

}  // namespace

StatusOr<std::unique_ptr<runtime::Session>> GraphToSession(
    ir::Graph graph, const tensorflow::OpList* model_op_defs, const LoadOptions& options,
    const std::string& model_name, const std::vector<std::string>& roots) {
  if (graph.num_nodes() > options.max_graph_nodes) {
    return ResourceExhausted("model '" + model_name + "': the graph has " + std::to_string(graph.num_nodes()) +
                             " nodes, more than the " + std::to_string(options.max_graph_nodes) +
                             " a model may have (--max_graph_nodes)");
  }
  // What no root reaches never runs (TensorFlow prunes it too): a shape
  // conflict in a training step left in the export, an op tfhost lacks or a
  // corrupt Const there must not fail the load, so every check below sees
  // only the nodes the roots and the caller's kept names need. Empty roots
  // keep every node, so the kept names are not added then.
  std::vector<std::string> kept = roots;
  if (!kept.empty()) kept.insert(kept.end(), options.keep.begin(), options.keep.end());
  auto pruned = ir::PruneToRoots(graph, kept);
  if (!pruned.ok()) return pruned.status().WithContext("model '" + model_name + "'");
  const auto& registry = ops::OpRegistry::Global();
  std::map<std::string, const tensorflow::OpDef*> model_defs;
  if (model_op_defs != nullptr) {
    for (const auto& def : model_op_defs->op()) model_defs[def.name()] = &def;
  }
  for (int i = 0; i < graph.num_nodes(); ++i) {
    ir::Node& n = graph.mutable_node(i);
    n.device.clear();
    // The model's own OpDefs describe exactly the attrs TensorFlow stripped,
    // so their defaults go in first.
    auto it = model_defs.find(n.op);
    if (it != model_defs.end()) ir::FillDefaultAttrs(*it->second, &n);
  }
  // Output dtypes follow tfhost's own schemas where they exist (kernels are
  // checked against them); the model's OpDefs cover ops tfhost lacks.
  ir::OpDefLookup lookup = [&](const std::string& op) -> const tensorflow::OpDef* {
    if (const ops::OpRegistration* r = registry.Find(op)) return &r->def;
    auto it = model_defs.find(op);
    return it != model_defs.end() ? it->second : nullptr;
  };
  Status st = ir::InferTypes(graph, lookup);
  if (!st.ok()) return st.WithContext("model '" + model_name + "'");
  // Static shapes, as TensorFlow's graph construction knows them: a definite
  // conflict (MatMul 3 vs 4) means the model can never run, so it fails the
  // load naming the node; everything unknown stays for the kernels to check.
  st = ops::InferShapes(graph);
  if (!st.ok()) return st.WithContext("model '" + model_name + "'");
  st = OptimizeGraph(graph, kept, options, /*function_body=*/false);
  if (!st.ok()) return st.WithContext("model '" + model_name + "'");
  runtime::SessionOptions session_options = options.session;
  session_options.model_name = model_name;
  if (options.optimize_graph || options.precision != "fp32") {
    // Loop and branch bodies get the same passes when first instantiated.
    // Their static shapes are inferred first; a body whose shapes conflict
    // runs as written, and its kernels report the conflict if it is reached.
    session_options.optimize_function_body = [options](ir::Graph& body, const std::vector<std::string>& roots) {
      if (!ops::InferShapes(body).ok()) return OkStatus();
      return OptimizeGraph(body, roots, options, /*function_body=*/true);
    };
  }
  return runtime::Session::Create(std::move(graph), session_options, roots);
}

}  // namespace tfhost::loaders
