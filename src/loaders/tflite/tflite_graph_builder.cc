#include "loaders/tflite/tflite_graph_builder.h"

#include <cctype>
#include <cmath>

#include "loaders/tflite/tflite_builtins.h"
#include "loaders/tflite/tflite_functions.h"
#include "loaders/tflite/tflite_ops.h"
#include "ops/op_registry.h"

namespace tfhost::loaders::tflite {

namespace {

bool HasScale(const fb::Tensor& t) {
  return t.quantization() != nullptr && t.quantization()->scale() != nullptr && t.quantization()->scale()->size() > 0;
}

bool IsIntegerStorage(DType d) {
  return d == DType::kInt8 || d == DType::kUInt8 || d == DType::kInt16 || d == DType::kInt32 || d == DType::kInt64;
}

// CAST converts a quantized tensor's stored integers, not its real values.
bool ReadsStoredIntegers(int32_t code) { return code == kCast; }

// The scales, zero points and axis of `t` (which HasScale), checked against
// its dimensions `dims` (-1 = unknown).
StatusOr<GraphBuilder::Quantization> ReadQuantization(const fb::Tensor& t, const std::vector<int64_t>& dims,
                                                      const std::string& where) {
  const fb::QuantizationParameters& q = *t.quantization();
  GraphBuilder::Quantization out;
  out.type = DTypeOf(t.type());
  out.scales.assign(q.scale()->begin(), q.scale()->end());
  const size_t channels = out.scales.size();
  if (q.zero_point() != nullptr && q.zero_point()->size() > 0) {
    if (q.zero_point()->size() != channels) {
      return InvalidArgument(where + " has " + std::to_string(q.zero_point()->size()) + " zero points for " +
                             std::to_string(channels) + " quantization scales");
    }
    out.zero_points.assign(q.zero_point()->begin(), q.zero_point()->end());
  } else {
    out.zero_points.assign(channels, 0);
  }
  for (float scale : out.scales) {
    if (!(scale > 0) || !std::isfinite(scale)) {
      return InvalidArgument(where + " has the quantization scale " + std::to_string(scale) +
                             "; expected a positive finite number");
    }
  }
  if (channels > 1) {
    // One pair per slice along quantized_dimension: weights, or the
    // fake-quantized weights a QUANTIZE computes.
    out.axis = q.quantized_dimension();
    const bool fits = out.axis >= 0 && out.axis < static_cast<int64_t>(dims.size()) &&
                      (dims[out.axis] < 0 || static_cast<size_t>(dims[out.axis]) == channels);
    if (!fits) {
      return InvalidArgument(where + " has " + std::to_string(channels) + " quantization scales that do not match "
                             "dimension " + std::to_string(out.axis) + " of its shape " + Shape(dims).ToString());
    }
  }
  return out;
}

// real = scale[c] * (q - zero_point[c]), c the index along the axis.
Tensor DequantizeConstant(const Tensor& value, const GraphBuilder::Quantization& q) {
  int64_t inner = 1;
  for (int d = static_cast<int>(q.axis) + 1; q.axis >= 0 && d < value.rank(); ++d) inner *= value.dim(d);
  const int64_t channels = static_cast<int64_t>(q.scales.size());
  const std::vector<double> stored = value.ToDoubleVector();
  Tensor out(DType::kFloat, value.shape());
  float* dst = out.data<float>();
  for (int64_t i = 0; i < static_cast<int64_t>(stored.size()); ++i) {
    const int64_t c = q.axis >= 0 ? (i / inner) % channels : 0;
    dst[i] = static_cast<float>(static_cast<double>(q.scales[c]) * (stored[i] - static_cast<double>(q.zero_points[c])));
  }
  return out;
}

}  // namespace

void GraphBuilder::SetAffineAttrs(const Quantization& q, ir::AttrMap* attrs) {
  (*attrs)["scales"] = FloatListAttr(q.scales);
  (*attrs)["zero_points"] = IntListAttr(q.zero_points);
  (*attrs)["axis"] = IntAttr(q.axis);
}

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
  if (HasScale(t) && IsIntegerStorage(value.dtype())) {
    TFHOST_ASSIGN_OR_RETURN(Quantization q, ReadQuantization(t, value.shape().dims(), TensorWhere(index)));
    value = DequantizeConstant(value, q);
  }
  return std::optional<Tensor>(std::move(value));
}

bool GraphBuilder::HasBufferData(int index) const {
  auto data = BufferData(file_, tensor(index).buffer());
  return data.ok() && !data->empty();
}

StatusOr<std::optional<GraphBuilder::Quantization>> GraphBuilder::ActivationQuantization(int index) {
  if (index < 0 || index >= num_tensors()) return InvalidArgument(TensorWhere(index) + " does not exist");
  const fb::Tensor& t = tensor(index);
  const DType dtype = DTypeOf(t.type());
  if (!HasScale(t) || (dtype != DType::kInt8 && dtype != DType::kUInt8 && dtype != DType::kInt16) ||
      HasBufferData(index)) {
    return std::optional<Quantization>();
  }
  TFHOST_ASSIGN_OR_RETURN(Quantization q, ReadQuantization(t, SignatureDims(t), TensorWhere(index)));
  return std::optional<Quantization>(std::move(q));
}

StatusOr<ir::TensorRef> GraphBuilder::Operand(int index) {
  if (raw_operator_) return Ref(index);
  TFHOST_ASSIGN_OR_RETURN(auto q, ActivationQuantization(index));
  if (!q.has_value()) return Ref(index);
  if (auto it = real_refs_.find(index); it != real_refs_.end()) return it->second;
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef stored, Ref(index));
  ir::AttrMap attrs;
  attrs["T"] = TypeAttr(q->type);
  SetAffineAttrs(*q, &attrs);
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef real, AddNode(names_[index] + "/dequantized", "_TfhostAffineDequantize",
                                                      {stored}, std::move(attrs)));
  return real_refs_[index] = real;
}

StatusOr<ir::TensorRef> GraphBuilder::CenteredOperand(int index) { return IntegerOperand(index, true); }
StatusOr<ir::TensorRef> GraphBuilder::StoredOperand(int index) { return IntegerOperand(index, false); }

StatusOr<ir::TensorRef> GraphBuilder::IntegerOperand(int index, bool centered) {
  TFHOST_ASSIGN_OR_RETURN(auto q, ActivationQuantization(index));
  if (!q.has_value() || q->axis != -1) {
    return Internal(TensorWhere(index) + " is not a tensor quantized with one scale; it has no integer form");
  }
  auto& cache = centered ? centered_refs_ : stored_refs_;
  if (auto it = cache.find(index); it != cache.end()) return it->second;
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef stored, Ref(index));
  Quantization unit = *q;
  unit.scales = {1.0f};
  if (!centered) unit.zero_points = {0};
  ir::AttrMap attrs;
  attrs["T"] = TypeAttr(q->type);
  SetAffineAttrs(unit, &attrs);
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef out, AddNode(names_[index] + (centered ? "/centered" : "/integers"),
                                                     "_TfhostAffineDequantize", {stored}, std::move(attrs)));
  return cache[index] = out;
}

StatusOr<std::optional<GraphBuilder::StoredConstant>> GraphBuilder::StoredConstantValue(int index) {
  if (index < 0 || index >= num_tensors()) return InvalidArgument(TensorWhere(index) + " does not exist");
  const fb::Tensor& t = tensor(index);
  if (!HasScale(t) || !HasBufferData(index)) return std::optional<StoredConstant>();
  TFHOST_ASSIGN_OR_RETURN(Tensor value, DecodeConstant(file_, t, TensorWhere(index)));
  if (!IsIntegerStorage(value.dtype())) return std::optional<StoredConstant>();
  TFHOST_ASSIGN_OR_RETURN(Quantization q, ReadQuantization(t, value.shape().dims(), TensorWhere(index)));
  return std::optional<StoredConstant>(StoredConstant{std::move(value), std::move(q)});
}

StatusOr<ir::TensorRef> GraphBuilder::AddStoredOutputNode(const std::vector<int>& tensors, const std::string& op,
                                                          std::vector<ir::TensorRef> inputs, ir::AttrMap attrs) {
  const bool raw = raw_operator_;
  raw_operator_ = true;
  auto out = AddOutputNode(tensors, op, std::move(inputs), std::move(attrs));
  raw_operator_ = raw;
  return out;
}

Status GraphBuilder::BindQuantized(int index, ir::TensorRef real, const Quantization& q) {
  ir::Node node;
  node.name = names_[index];
  node.op = "_TfhostAffineQuantize";
  node.inputs = {real};
  node.attrs["out_type"] = TypeAttr(q.type);
  SetAffineAttrs(q, &node.attrs);
  TFHOST_ASSIGN_OR_RETURN(int id, graph_->AddNode(std::move(node)));
  refs_[index] = ir::TensorRef{id, 0};
  return OkStatus();
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
  TFHOST_ASSIGN_OR_RETURN(auto q, ActivationQuantization(index));
  ir::Node node;
  node.name = q.has_value() ? FreshName(names_[index] + "/real") : names_[index];
  ir::SetConstValue(&node, std::move(value));
  TFHOST_ASSIGN_OR_RETURN(int id, graph_->AddNode(std::move(node)));
  if (q.has_value()) return BindQuantized(index, ir::TensorRef{id, 0}, *q);
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
  // A quantized output is computed in float32 by this node and stored by a
  // quantize node, which takes the tensor's name.
  std::vector<std::optional<Quantization>> quantized(tensors.size());
  bool any_quantized = false;
  for (size_t i = 0; i < tensors.size() && !raw_operator_; ++i) {
    TFHOST_ASSIGN_OR_RETURN(quantized[i], ActivationQuantization(tensors[i]));
    any_quantized |= quantized[i].has_value();
  }
  ir::Node node;
  node.name = any_quantized ? FreshName(names_[tensors[0]] + "/real") : names_[tensors[0]];
  node.op = op;
  node.inputs = std::move(inputs);
  node.attrs = std::move(attrs);
  TFHOST_ASSIGN_OR_RETURN(int id, graph_->AddNode(std::move(node)));
  for (size_t i = 0; i < tensors.size(); ++i) {
    const ir::TensorRef out{id, static_cast<int>(i)};
    if (quantized[i].has_value()) {
      TFHOST_RETURN_IF_ERROR(BindQuantized(tensors[i], out, *quantized[i]));
    } else {
      refs_[tensors[i]] = out;
    }
  }
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
  std::string custom;
  if (ctx.code == 32 /* CUSTOM */) {
    custom = code->custom_code() ? code->custom_code()->str() : "";
    if (!IsMappedCustomOperator(custom)) {
      return Unimplemented(where_op + " is the custom operator '" + custom +
                           "', which tfhost does not run (of the custom operators it runs ParseExample and "
                           "ParseExampleV2, as TF Serving does)");
    }
  } else if (!IsMappedBuiltin(ctx.code)) {
    return Unimplemented(where_op + " is " + name + " (code " + std::to_string(ctx.code) +
                         "), which tfhost does not run");
  }
  ctx.where = where_op + " (" + (custom.empty() ? name : custom) + ")";
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
  // Called subgraphs take and return tensors as they are stored, so a
  // quantized tensor would cross as integers on one side and float32 on the
  // other.
  if (ctx.code == kIf || ctx.code == kWhile || ctx.code == kCallOnce) {
    for (const auto* list : {&ctx.inputs, &ctx.outputs}) {
      for (int t : *list) {
        if (t < 0) continue;
        TFHOST_ASSIGN_OR_RETURN(auto q, ActivationQuantization(t));
        if (q.has_value()) {
          return Unimplemented(ctx.where + " passes the quantized tensor " + TensorWhere(t) +
                               " to or from a called subgraph, which tfhost does not map");
        }
      }
    }
  }
  const int first = graph_->num_nodes();
  raw_operator_ = ReadsStoredIntegers(ctx.code);
  Status mapped = custom.empty() ? MapOperator(ctx) : MapCustomOperator(ctx, custom);
  raw_operator_ = false;
  TFHOST_RETURN_IF_ERROR(mapped);
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
