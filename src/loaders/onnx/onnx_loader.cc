#include "loaders/onnx/onnx_loader.h"

#include <algorithm>
#include <filesystem>
#include <numeric>
#include <set>

#include "ir/type_attr_inference.h"
#include "ops/op_registry.h"

#include "loaders/graph_to_session.h"
#include "loaders/onnx/onnx_graph_builder.h"
#include "loaders/onnx/onnx_ops.h"
#include "loaders/onnx/onnx_tensor.h"
#include "onnx/onnx.pb.h"

namespace tfhost::loaders {

namespace {

namespace fs = std::filesystem;

StatusOr<::onnx::ModelProto> ParseModel(const std::string& path) {
  TFHOST_ASSIGN_OR_RETURN(std::string bytes, ReadFileToString(path));
  ::onnx::ModelProto model;
  if (bytes.empty()) return DataLoss(path + " is empty; expected an ONNX ModelProto");
  if (!model.ParseFromString(bytes)) {
    return DataLoss(path + " is not a valid ONNX model: the ModelProto does not parse (" +
                    std::to_string(bytes.size()) + " bytes; truncated or corrupt)");
  }
  if (!model.has_graph()) return DataLoss(path + " has no graph (ModelProto field 7); truncated, or not an ONNX model");
  return model;
}

// The default domain's opset, which must be one the mappers implement.
StatusOr<int64_t> DefaultOpset(const ::onnx::ModelProto& model, const std::string& path) {
  int64_t opset = -1;
  for (const auto& o : model.opset_import()) {
    if (o.domain().empty() || o.domain() == "ai.onnx") opset = o.version();
  }
  if (opset < 0) return InvalidArgument(path + ": opset_import names no version of the default (ai.onnx) domain");
  if (opset < onnx::kMinOpset || opset > onnx::kMaxOpset) {
    return Unimplemented(path + ": the model uses ai.onnx opset " + std::to_string(opset) + "; tfhost loads opsets " +
                         std::to_string(onnx::kMinOpset) + " to " + std::to_string(onnx::kMaxOpset) +
                         " (convert older models with onnx.version_converter)");
  }
  return opset;
}

std::string ModelNameOf(const std::string& path) {
  fs::path p(path);
  std::error_code ec;
  if (p.filename() == kOnnxModelFileName && p.has_parent_path()) {
    return fs::absolute(p, ec).parent_path().filename().string();
  }
  return p.stem().string();
}

// One signature tensor: key = ONNX name, shape/dtype as declared, else as
// the load inferred.
StatusOr<runtime::TensorSpec> MakeSpec(onnx::GraphBuilder& b, const ::onnx::ValueInfoProto& v,
                                       const std::string& where) {
  runtime::TensorSpec spec;
  spec.key = v.name();
  TFHOST_ASSIGN_OR_RETURN(spec.tensor_name, b.TensorName(v.name()));
  TFHOST_ASSIGN_OR_RETURN(auto declared, onnx::DeclaredType(v, where));
  TFHOST_ASSIGN_OR_RETURN(const onnx::ValueInfo* info, b.Value(v.name()));
  spec.dtype = declared.first != DType::kInvalid ? declared.first : info->dtype;
  spec.shape = declared.second.rank_known() ? declared.second : info->shape;
  if (spec.dtype == DType::kInvalid) return InvalidArgument(where + " has no element type the load can tell");
  return spec;
}

// ONNX computes shapes and indices in int64, while TensorFlow's index type
// attrs (Reshape's Tshape, Transpose's Tperm, Mean's Tidx, ...) default to
// int32. Those attrs are therefore set from the producers' types here, before
// the load fills defaults, exactly as TensorFlow's graph builder would.
Status SetIndexTypeAttrs(ir::Graph& graph, const std::string& path) {
  const ir::OpDefLookup lookup = ops::OpRegistry::Global().Lookup();
  for (const ir::Node& n : graph.nodes()) {
    if (lookup(n.op) == nullptr) return Internal(path + ": the ONNX loader emitted op " + n.op + ", which tfhost lacks");
  }
  std::vector<int> all(graph.num_nodes());
  std::iota(all.begin(), all.end(), 0);
  return ir::InferMissingTypeAttrs(graph, lookup, all);
}

}  // namespace

StatusOr<std::unique_ptr<runtime::Model>> LoadOnnxModel(const std::string& path, const LoadOptions& options) {
  TFHOST_ASSIGN_OR_RETURN(::onnx::ModelProto model, ParseModel(path));
  TFHOST_ASSIGN_OR_RETURN(int64_t opset, DefaultOpset(model, path));
  const ::onnx::GraphProto& g = model.graph();
  if (g.output_size() == 0) return InvalidArgument(path + ": the graph has no outputs");
  if (g.node_size() > options.max_graph_nodes) {
    return ResourceExhausted(path + ": the graph has " + std::to_string(g.node_size()) + " nodes; the limit is " +
                             std::to_string(options.max_graph_nodes) + " (--max_graph_nodes)");
  }
  std::error_code ec;
  const std::string dir = fs::absolute(path, ec).parent_path().string();

  ir::Graph graph;
  onnx::GraphBuilder builder(g, path, dir, opset, &graph);
  TFHOST_RETURN_IF_ERROR(builder.Build());

  runtime::Signature sig;
  sig.name = "serving_default";
  sig.method_name = "tensorflow/serving/predict";
  std::set<std::string> initializers, keys;
  for (const auto& t : g.initializer()) initializers.insert(t.name());
  std::vector<std::string> roots;
  for (int i = 0; i < g.input_size(); ++i) {
    const auto& v = g.input(i);
    if (initializers.count(v.name())) continue;
    const std::string where = path + ": graph input " + std::to_string(i) + " '" + v.name() + "'";
    if (!keys.insert("in:" + v.name()).second) return InvalidArgument(where + " is listed twice");
    TFHOST_ASSIGN_OR_RETURN(runtime::TensorSpec spec, MakeSpec(builder, v, where));
    roots.push_back(spec.tensor_name);
    sig.inputs.push_back(std::move(spec));
  }
  for (int i = 0; i < g.output_size(); ++i) {
    const auto& v = g.output(i);
    const std::string where = path + ": graph output " + std::to_string(i) + " '" + v.name() + "'";
    if (!keys.insert("out:" + v.name()).second) return InvalidArgument(where + " is listed twice");
    auto spec = MakeSpec(builder, v, where);
    if (!spec.ok()) return spec.status().WithContext(where);
    roots.push_back(spec->tensor_name);
    sig.outputs.push_back(std::move(*spec));
  }
  auto by_key = [](const auto& a, const auto& c) { return a.key < c.key; };
  std::sort(sig.inputs.begin(), sig.inputs.end(), by_key);
  std::sort(sig.outputs.begin(), sig.outputs.end(), by_key);

  runtime::ModelInfo info;
  info.path = path;
  info.format = "ONNX";
  info.metadata["ir_version"] = std::to_string(model.ir_version());
  info.metadata["opset"] = std::to_string(opset);
  if (!model.producer_name().empty()) {
    info.metadata["producer"] = model.producer_name() +
                                (model.producer_version().empty() ? "" : " " + model.producer_version());
  }
  if (!model.domain().empty()) info.metadata["domain"] = model.domain();
  if (model.model_version() != 0) info.metadata["model_version"] = std::to_string(model.model_version());
  if (!g.name().empty()) info.metadata["graph"] = g.name();
  for (const auto& p : model.metadata_props()) info.metadata[p.key()] = p.value();
  for (const auto& t : g.initializer()) {
    ++info.variable_count;
    int64_t n = 1;
    for (int64_t d : t.dims()) n *= std::max<int64_t>(d, 0);
    const DType dtype = onnx::DTypeFromOnnx(t.data_type());
    info.variable_bytes += dtype == DType::kInvalid || dtype == DType::kString ? 0 : n * DTypeSize(dtype);
  }
  model.Clear();  // the constants are copied out; the proto is not needed

  const std::string model_name = ModelNameOf(path);
  TFHOST_RETURN_IF_ERROR(SetIndexTypeAttrs(graph, path));
  TFHOST_ASSIGN_OR_RETURN(auto session, GraphToSession(std::move(graph), nullptr, options, model_name, roots));
  std::map<std::string, runtime::Signature> signatures;
  signatures[sig.name] = std::move(sig);
  return std::make_unique<runtime::Model>(std::move(session), std::move(signatures), std::move(info));
}

}  // namespace tfhost::loaders
