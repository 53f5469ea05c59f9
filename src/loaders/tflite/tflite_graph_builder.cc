#include "loaders/tflite/tflite_graph_builder.h"

#include <cctype>

#include "loaders/tflite/tflite_builtins.h"
#include "loaders/tflite/tflite_functions.h"
#include "loaders/tflite/tflite_ops.h"
#include "ops/op_registry.h"

namespace tfhost::loaders::tflite {

std::vector<int64_t> SignatureDims(const fb::Tensor& tensor) {
  std::vector<int64_t> dims;
  const auto* sig = tensor.shape_signature();
  const auto* shape = (sig != nullptr && sig->size() > 0) ? sig : tensor.shape();
  if (shape != nullptr) {
    for (int32_t d : *shape) dims.push_back(d < 0 ? -1 : d);
  }
  return dims;
}

std::string NodeNameFromTensorName(const std::string& name) {
  std::string out;
  out.reserve(name.size());
  for (char c : name) {
    const bool ok = std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.' || c == '/' || c == '-';
    out.push_back(ok ? c : '_');
  }
  if (!out.empty() && (out[0] == '_' || out[0] == '/' || out[0] == '-')) out = "t" + out;
  return out;
}

GraphBuilder::GraphBuilder(const TfliteFile& file, int subgraph_index, std::string prefix, ir::Graph* graph,
                           SubgraphLibrary* library, bool function_body)
    : file_(file),
      subgraph_(file.model->subgraphs()->Get(subgraph_index)),
      subgraph_index_(subgraph_index),
      prefix_(std::move(prefix)),
      graph_(graph),
      library_(library),
      function_body_(function_body) {}

int GraphBuilder::num_tensors() const {
  return subgraph_->tensors() == nullptr ? 0 : static_cast<int>(subgraph_->tensors()->size());
}

std::string GraphBuilder::TensorWhere(int index) const {
  std::string where = file_.path + ": subgraph " + std::to_string(subgraph_index_) + " tensor " +
                      std::to_string(index);
  if (index >= 0 && index < num_tensors() && tensor(index).name() != nullptr) {
    where += " '" + tensor(index).name()->str() + "'";
  }
  return where;
}

Status GraphBuilder::ReserveNames() {
  names_.resize(num_tensors());
  for (int i = 0; i < num_tensors(); ++i) {
    const fb::Tensor* t = subgraph_->tensors()->Get(i);
    if (t == nullptr) return InvalidArgument(TensorWhere(i) + " is missing from the tensors list");
    std::string base = t->name() != nullptr ? NodeNameFromTensorName(t->name()->str()) : "";
    if (base.empty()) base = "tensor_" + std::to_string(i);
    base = prefix_ + base;
    std::string name = base;
    for (int n = 1; reserved_.count(name) || graph_->FindNode(name) >= 0; ++n) name = base + "_" + std::to_string(n);
    reserved_.insert(name);
    names_[i] = name;
  }
  return OkStatus();
}

StatusOr<ir::TensorRef> GraphBuilder::Ref(int index) {
  if (index < 0 || index >= num_tensors()) {
    return InvalidArgument(file_.path + ": subgraph " + std::to_string(subgraph_index_) + " refers to tensor " +
                           std::to_string(index) + "; it has " + std::to_string(num_tensors()) + " tensors");
  }
  if (auto it = refs_.find(index); it != refs_.end()) return it->second;
  // A constant is added where it is first read.
  TFHOST_ASSIGN_OR_RETURN(auto value, ConstantValue(index));
  if (!value.has_value()) {
    return InvalidArgument(TensorWhere(index) + " is read before any operator writes it, and it is neither a "
                           "subgraph input nor a constant");
  }
  ir::Node node;
  node.name = names_[index];
  ir::SetConstValue(&node, std::move(*value));
  TFHOST_ASSIGN_OR_RETURN(int id, graph_->AddNode(std::move(node)));
  refs_[index] = ir::TensorRef{id, 0};
  return refs_[index];
}

StatusOr<std::string> GraphBuilder::TensorName(int index) {
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef ref, Ref(index));
  return graph_->node(ref.node).name + ":" + std::to_string(ref.index);
}

StatusOr<std::string> GraphBuilder::SignatureOutputName(int index) {
  if (last_stateful_ < 0) return TensorName(index);
  if (auto it = output_names_.find(index); it != output_names_.end()) return it->second;
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef ref, Ref(index));
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef out, AddNode(names_[index] + "/after_state", "Identity", {ref}));
  graph_->mutable_node(out.node).control_inputs.push_back(last_stateful_);
  return output_names_[index] = graph_->node(out.node).name + ":0";
}

StatusOr<std::optional<Tensor>> GraphBuilder::ConstantValue(int index) {
  if (index < 0 || index >= num_tensors()) return InvalidArgument(TensorWhere(index) + " does not exist");
  const fb::Tensor& t = tensor(index);
  if (t.is_variable()) {
    return Unimplemented(TensorWhere(index) + " is a variable tensor (is_variable); tfhost runs stateless "
                         "TFLite models only");
  }
  TFHOST_ASSIGN_OR_RETURN(std::string_view data, BufferData(file_, t.buffer()));
  if (data.empty()) {
    // An empty buffer is still a constant when the shape has no elements.
    bool zero_elements = false;
    if (t.shape() != nullptr) {
      for (int32_t d : *t.shape()) zero_elements |= (d == 0);
    }
    if (!zero_elements || t.buffer() == 0) return std::optional<Tensor>();
  }
  TFHOST_ASSIGN_OR_RETURN(Tensor value, DecodeConstant(file_, t, TensorWhere(index)));
  return std::optional<Tensor>(std::move(value));
}

std::string GraphBuilder::FreshName(const std::string& base) const {
  // Names reserved for tensors not yet added stay theirs.
  std::string name = graph_->UniqueName(base);
  while (reserved_.count(name)) name = graph_->UniqueName(name + "_");
  return name;
}

StatusOr<ir::TensorRef> GraphBuilder::AddConst(const std::string& base, Tensor value) {
  ir::Node node;
  node.name = FreshName(base);
  ir::SetConstValue(&node, std::move(value));
  TFHOST_ASSIGN_OR_RETURN(int id, graph_->AddNode(std::move(node)));
  return ir::TensorRef{id, 0};
}

Status GraphBuilder::AddOutputConst(int index, Tensor value) {
  if (index < 0 || index >= num_tensors()) return InvalidArgument(TensorWhere(index) + " does not exist");
  if (refs_.count(index)) return InvalidArgument(TensorWhere(index) + " is written by more than one operator");
  ir::Node node;
  node.name = names_[index];
  ir::SetConstValue(&node, std::move(value));
  TFHOST_ASSIGN_OR_RETURN(int id, graph_->AddNode(std::move(node)));
  refs_[index] = ir::TensorRef{id, 0};
  return OkStatus();
}

StatusOr<ir::TensorRef> GraphBuilder::AddNode(const std::string& base, const std::string& op,
                                              std::vector<ir::TensorRef> inputs, ir::AttrMap attrs) {
  ir::Node node;
  node.name = FreshName(base);
  node.op = op;
  node.inputs = std::move(inputs);
  node.attrs = std::move(attrs);
  TFHOST_ASSIGN_OR_RETURN(int id, graph_->AddNode(std::move(node)));
  return ir::TensorRef{id, 0};
}

StatusOr<ir::TensorRef> GraphBuilder::AddOutputNode(const std::vector<int>& tensors, const std::string& op,
                                                    std::vector<ir::TensorRef> inputs, ir::AttrMap attrs) {
  if (tensors.empty()) return Internal("an output node needs an output tensor");
  for (int t : tensors) {
    if (t < 0 || t >= num_tensors()) return InvalidArgument(TensorWhere(t) + " does not exist");
    if (refs_.count(t)) return InvalidArgument(TensorWhere(t) + " is written by more than one operator");
  }
  ir::Node node;
  node.name = names_[tensors[0]];
  node.op = op;
  node.inputs = std::move(inputs);
  node.attrs = std::move(attrs);
  TFHOST_ASSIGN_OR_RETURN(int id, graph_->AddNode(std::move(node)));
  for (size_t i = 0; i < tensors.size(); ++i) refs_[tensors[i]] = ir::TensorRef{id, static_cast<int>(i)};
  return ir::TensorRef{id, 0};
}

Status GraphBuilder::AddInputs() {
  if (subgraph_->inputs() == nullptr) return OkStatus();
  for (int32_t index : *subgraph_->inputs()) {
    if (index < 0 || index >= num_tensors()) {
      return InvalidArgument(file_.path + ": subgraph " + std::to_string(subgraph_index_) + " input " +
                             std::to_string(index) + " is not a tensor index");
    }
    if (refs_.count(index)) continue;
    const fb::Tensor& t = tensor(index);
    // Strings feed like any tensor; a resource handle only comes from a
    // caller, into a function.
    const DType dtype = BoundaryDTypeOf(t.type());
    if (dtype == DType::kInvalid || dtype == DType::kHalf || (dtype == DType::kResource && !function_body_)) {
      return Unimplemented(TensorWhere(index) + " is a subgraph input of type " + TensorTypeName(t.type()) +
                           ", which tfhost cannot feed");
    }
    ir::Node node;
    node.name = names_[index];
    node.op = "Placeholder";
    node.attrs["dtype"] = TypeAttr(dtype);
    tensorflow::AttrValue shape;
    for (int64_t d : SignatureDims(t)) shape.mutable_shape()->add_dim()->set_size(d);
    node.attrs["shape"] = std::move(shape);
    TFHOST_ASSIGN_OR_RETURN(int id, graph_->AddNode(std::move(node)));
    refs_[index] = ir::TensorRef{id, 0};
  }
  return OkStatus();
}

Status GraphBuilder::AddOperator(int op_index) {
  const fb::Operator* op = subgraph_->operators()->Get(op_index);
  const auto* codes = file_.model->operator_codes();
  if (op == nullptr || codes == nullptr || op->opcode_index() >= codes->size()) {
    return InvalidArgument(file_.path + ": operator " + std::to_string(op_index) + " names operator code " +
                           std::to_string(op ? op->opcode_index() : 0) + "; the model has " +
                           std::to_string(codes ? codes->size() : 0));
  }
  const fb::OperatorCode* code = codes->Get(op->opcode_index());
  OpContext ctx;
  ctx.b = this;
  ctx.op = op;
  ctx.op_index = op_index;
  ctx.code = EffectiveBuiltinCode(code->deprecated_builtin_code(), code->builtin_code());
  const std::string name = BuiltinOperatorName(ctx.code);
  const std::string subgraph = subgraph_index_ ? "subgraph " + std::to_string(subgraph_index_) + " " : "";
  const std::string where_op = file_.path + ": " + subgraph + "operator " + std::to_string(op_index);
  if (ctx.code == 32 /* CUSTOM */) {
    const std::string custom = code->custom_code() ? code->custom_code()->str() : "";
    return Unimplemented(where_op + " is the custom operator '" + custom +
                         "', which tfhost does not run (only TFLite builtin operators are mapped)");
  }
  if (!IsMappedBuiltin(ctx.code)) {
    return Unimplemented(where_op + " is " + name + " (code " + std::to_string(ctx.code) +
                         "), which tfhost does not run");
  }
  ctx.where = where_op + " (" + name + ")";
  if (op->inputs() != nullptr) ctx.inputs.assign(op->inputs()->begin(), op->inputs()->end());
  if (op->outputs() != nullptr) ctx.outputs.assign(op->outputs()->begin(), op->outputs()->end());
  if (ctx.outputs.empty() && !MayHaveNoOutputs(ctx.code)) return ctx.Error("has no outputs");
  // Indices are checked once here, so the mappers may look tensors up.
  for (int t : ctx.inputs) {
    if (t < -1 || t >= num_tensors()) {
      return ctx.Error("reads tensor " + std::to_string(t) + "; the subgraph has " + std::to_string(num_tensors()));
    }
  }
  for (int t : ctx.outputs) {
    if (t < 0 || t >= num_tensors()) {
      return ctx.Error("writes tensor " + std::to_string(t) + "; the subgraph has " + std::to_string(num_tensors()));
    }
  }
  // Quantized operators come later; a DEQUANTIZE of a constant is folded.
  if (ctx.code != kDequantize) {
    for (int t : ctx.inputs) {
      if (t < 0 || t >= num_tensors()) continue;
      const fb::QuantizationParameters* q = tensor(t).quantization();
      const DType dtype = DTypeOf(tensor(t).type());
      if (q != nullptr && q->scale() != nullptr && q->scale()->size() > 0 &&
          (dtype == DType::kInt8 || dtype == DType::kUInt8 || dtype == DType::kInt16)) {
        const std::string name = tensor(t).name() ? " '" + tensor(t).name()->str() + "'" : "";
        return Unimplemented(ctx.where + " reads tensor " + std::to_string(t) + name + ", quantized " +
                             TensorTypeName(tensor(t).type()) +
                             "; tfhost runs float32 TFLite models only, not quantized ones");
      }
    }
  }
  const int first = graph_->num_nodes();
  TFHOST_RETURN_IF_ERROR(MapOperator(ctx));
  OrderStatefulNodes(first);
  return OkStatus();
}

void GraphBuilder::OrderStatefulNodes(int first) {
  const auto& registry = ops::OpRegistry::Global();
  for (int i = first; i < graph_->num_nodes(); ++i) {
    const ops::OpRegistration* r = registry.Find(graph_->node(i).op);
    if (r == nullptr || !r->def.is_stateful()) continue;
    if (last_stateful_ >= 0) graph_->mutable_node(i).control_inputs.push_back(last_stateful_);
    last_stateful_ = i;
  }
}

Status GraphBuilder::Build() {
  TFHOST_RETURN_IF_ERROR(library_->Enter(subgraph_index_));
  Status st = [&]() -> Status {
    TFHOST_RETURN_IF_ERROR(ReserveNames());
    TFHOST_RETURN_IF_ERROR(AddInputs());
    const int count = subgraph_->operators() == nullptr ? 0 : static_cast<int>(subgraph_->operators()->size());
    for (int i = 0; i < count; ++i) TFHOST_RETURN_IF_ERROR(AddOperator(i));
    return OkStatus();
  }();
  library_->Leave();
  return st;
}

}  // namespace tfhost::loaders::tflite
