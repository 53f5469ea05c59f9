#include "loaders/onnx/onnx_graph_builder.h"

#include <cctype>

#include "loaders/onnx/onnx_ops.h"
#include "loaders/onnx/onnx_tensor.h"

namespace tfhost::loaders::onnx {

namespace {

// A Transpose's attrs; T stays unset for a value whose type is not known.
ir::AttrMap TransposeAttrs(DType dtype) {
  ir::AttrMap attrs;
  if (dtype != DType::kInvalid) attrs["T"] = TypeAttr(dtype);
  attrs["Tperm"] = TypeAttr(DType::kInt32);
  return attrs;
}

}  // namespace

std::string NodeNameFromValueName(const std::string& name) {
  std::string out;
  out.reserve(name.size());
  for (char c : name) {
    const bool ok = std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.' || c == '/' || c == '-';
    out.push_back(ok ? c : '_');
  }
  if (!out.empty() && (out[0] == '_' || out[0] == '/' || out[0] == '-' || out[0] == '.')) out = "v" + out;
  return out;
}

StatusOr<std::pair<DType, ir::PartialShape>> DeclaredType(const ::onnx::ValueInfoProto& info,
                                                          const std::string& where) {
  if (!info.has_type() || !info.type().has_tensor_type()) {
    if (info.has_type() && info.type().value_case() != ::onnx::TypeProto::VALUE_NOT_SET) {
      return Unimplemented(where + " is not a tensor (a sequence, map, optional or sparse tensor); tfhost " +
                           "takes dense tensors only");
    }
    return std::pair(DType::kInvalid, ir::PartialShape::Unknown());
  }
  const auto& t = info.type().tensor_type();
  const DType dtype = DTypeFromOnnx(t.elem_type());
  if (t.has_elem_type() && dtype == DType::kInvalid) {
    return Unimplemented(where + " has element type " + OnnxTypeName(t.elem_type()) +
                         ", which tfhost has no type for");
  }
  if (!t.has_shape()) return std::pair(dtype, ir::PartialShape::Unknown());
  std::vector<int64_t> dims;
  for (const auto& d : t.shape().dim()) dims.push_back(d.has_dim_value() && d.dim_value() >= 0 ? d.dim_value() : -1);
  return std::pair(dtype, ir::PartialShape::Known(std::move(dims)));
}

GraphBuilder::GraphBuilder(const ::onnx::GraphProto& graph, std::string path, std::string model_dir, int64_t opset,
                           ir::Graph* out)
    : proto_(graph), path_(std::move(path)), model_dir_(std::move(model_dir)), opset_(opset), graph_(out) {
  for (const auto& v : proto_.value_info()) declared_[v.name()] = &v;
  for (const auto& v : proto_.output()) declared_[v.name()] = &v;
}

std::string GraphBuilder::NodeName(const std::string& name) const {
  auto it = names_.find(name);
  return it != names_.end() ? it->second : NodeNameFromValueName(name);
}

Status GraphBuilder::ReserveNames() {
  auto reserve = [&](const std::string& value) {
    if (value.empty() || names_.count(value)) return;
    std::string base = NodeNameFromValueName(value);
    std::string name = base;
    for (int n = 1; reserved_.count(name) || graph_->FindNode(name) >= 0; ++n) name = base + "_" + std::to_string(n);
    reserved_.insert(name);
    names_[value] = name;
  };
  for (const auto& v : proto_.input()) reserve(v.name());
  for (const auto& t : proto_.initializer()) reserve(t.name());
  for (const auto& n : proto_.node()) {
    for (const auto& o : n.output()) reserve(o);
  }
  return OkStatus();
}

std::string GraphBuilder::FreshName(const std::string& base) const {
  std::string name = graph_->UniqueName(base);
  while (reserved_.count(name)) name = graph_->UniqueName(name + "_");
  return name;
}

void GraphBuilder::MergeDeclared(const std::string& name, ValueInfo* info) const {
  auto it = declared_.find(name);
  if (it == declared_.end()) return;
  auto declared = DeclaredType(*it->second, name);
  if (!declared.ok()) return;
  if (info->dtype == DType::kInvalid) info->dtype = declared->first;
  auto merged = ir::MergeShapes(info->shape, declared->second);
  // A declaration that contradicts what the graph computes is ignored here;
  // the kernels check real shapes at run time.
  if (merged.ok()) info->shape = std::move(*merged);
}

Status GraphBuilder::Bind(const std::string& name, ir::TensorRef ref, DType dtype, ir::PartialShape shape,
                          std::optional<Tensor> constant) {
  if (values_.count(name)) return InvalidArgument(path_ + ": value '" + name + "' is defined more than once");
  ValueInfo info;
  info.ref = ref;
  info.dtype = dtype;
  info.shape = std::move(shape);
  info.constant = std::move(constant);
  if (!info.constant.has_value()) MergeDeclared(name, &info);
  values_[name] = std::move(info);
  return OkStatus();
}

StatusOr<int> GraphBuilder::AddCapture(const std::string& name, DType dtype, const ir::PartialShape& shape) {
  ir::Node node;
  node.name = FreshName(NodeNameFromValueName(name));
  reserved_.insert(node.name);
  names_[name] = node.name;
  node.op = "Placeholder";
  node.attrs["dtype"].set_type(static_cast<tensorflow::DataType>(dtype));
  *node.attrs["shape"].mutable_shape() = shape.ToProto();
  TFHOST_ASSIGN_OR_RETURN(int id, graph_->AddNode(std::move(node)));
  TFHOST_RETURN_IF_ERROR(Bind(name, ir::TensorRef{id, 0}, dtype, shape));
  return id;
}

std::vector<std::string> FreeValueNames(const ::onnx::GraphProto& graph) {
  std::set<std::string> defined;
  for (const auto& v : graph.input()) defined.insert(v.name());
  for (const auto& t : graph.initializer()) defined.insert(t.name());
  for (const auto& n : graph.node()) {
    for (const auto& o : n.output()) defined.insert(o);
  }
  std::vector<std::string> free;
  std::set<std::string> seen;
  auto use = [&](const std::string& name) {
    if (!name.empty() && !defined.count(name) && seen.insert(name).second) free.push_back(name);
  };
  for (const auto& n : graph.node()) {
    for (const auto& in : n.input()) use(in);
    for (const auto& a : n.attribute()) {
      if (a.has_g()) {
        for (const auto& name : FreeValueNames(a.g())) use(name);
      }
      for (const auto& g : a.graphs()) {
        for (const auto& name : FreeValueNames(g)) use(name);
      }
    }
  }
  for (const auto& o : graph.output()) use(o.name());
  return free;
}

Status GraphBuilder::BindConstant(const std::string& name, Tensor value) {
  const DType dtype = value.dtype();
  ir::PartialShape shape = ir::PartialShape::FromShape(value.shape());
  return Bind(name, ir::TensorRef{-1, 0}, dtype, std::move(shape), std::move(value));
}

StatusOr<const ValueInfo*> GraphBuilder::Value(const std::string& name) const {
  auto it = values_.find(name);
  if (it == values_.end()) {
    return InvalidArgument(path_ + ": value '" + name + "' is read before any node, graph input or initializer " +
                           "defines it");
  }
  return &it->second;
}

StatusOr<ir::TensorRef> GraphBuilder::Ref(const std::string& name) {
  auto it = values_.find(name);
  if (it == values_.end()) return Value(name).status();
  ValueInfo& info = it->second;
  if (info.ref.node >= 0) return info.ref;
  if (info.nhwc.node >= 0) {
    const Tensor to_nchw = Tensor::FromVector<int32_t>({0, 3, 1, 2});
    TFHOST_ASSIGN_OR_RETURN(ir::TensorRef perm, AddConst(NodeName(name) + "/to_nchw", to_nchw));
    TFHOST_ASSIGN_OR_RETURN(ir::TensorRef nchw,
                            AddNamedNode(name, "Transpose", {info.nhwc, perm}, TransposeAttrs(info.dtype)));
    values_.at(name).ref = nchw;
    return nchw;
  }
  ir::Node node;
  node.name = names_.count(name) ? names_[name] : FreshName(NodeNameFromValueName(name));
  if (graph_->FindNode(node.name) >= 0) node.name = FreshName(node.name);
  ir::SetConstValue(&node, *info.constant);
  TFHOST_ASSIGN_OR_RETURN(int id, graph_->AddNode(std::move(node)));
  info.ref = ir::TensorRef{id, 0};
  return info.ref;
}

StatusOr<ir::TensorRef> GraphBuilder::RefNhwc(const std::string& name) {
  TFHOST_ASSIGN_OR_RETURN(const ValueInfo* info, Value(name));
  if (info->nhwc.node >= 0) return info->nhwc;
  const DType dtype = info->dtype;
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef nchw, Ref(name));
  const Tensor to_nhwc = Tensor::FromVector<int32_t>({0, 2, 3, 1});
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef perm, AddConst(NodeName(name) + "/to_nhwc", to_nhwc));
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef nhwc,
                          AddNode(NodeName(name) + "/nhwc", "Transpose", {nchw, perm}, TransposeAttrs(dtype)));
  values_.at(name).nhwc = nhwc;
  return nhwc;
}

bool GraphBuilder::OnlyNhwc(const std::string& name) const {
  auto it = values_.find(name);
  return it != values_.end() && it->second.ref.node < 0 && it->second.nhwc.node >= 0;
}

Status GraphBuilder::BindNhwc(const std::string& name, ir::TensorRef nhwc, DType dtype, ir::PartialShape shape) {
  TFHOST_RETURN_IF_ERROR(Bind(name, ir::TensorRef{-1, 0}, dtype, std::move(shape)));
  values_.at(name).nhwc = nhwc;
  return OkStatus();
}

StatusOr<std::string> GraphBuilder::TensorName(const std::string& name) {
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef ref, Ref(name));
  return graph_->node(ref.node).name + ":" + std::to_string(ref.index);
}

StatusOr<ir::TensorRef> GraphBuilder::AddConst(const std::string& base, Tensor value) {
  ir::Node node;
  node.name = FreshName(base);
  ir::SetConstValue(&node, std::move(value));
  TFHOST_ASSIGN_OR_RETURN(int id, graph_->AddNode(std::move(node)));
  return ir::TensorRef{id, 0};
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

StatusOr<ir::TensorRef> GraphBuilder::AddNamedNode(const std::string& name, const std::string& op,
                                                   std::vector<ir::TensorRef> inputs, ir::AttrMap attrs) {
  ir::Node node;
  node.name = NodeName(name);
  // The reserved name is taken only once (a value is defined once); a
  // duplicate definition is caught by Bind.
  if (graph_->FindNode(node.name) >= 0) node.name = FreshName(node.name);
  node.op = op;
  node.inputs = std::move(inputs);
  node.attrs = std::move(attrs);
  TFHOST_ASSIGN_OR_RETURN(int id, graph_->AddNode(std::move(node)));
  return ir::TensorRef{id, 0};
}

Status GraphBuilder::AddInputs() {
  for (int i = 0; i < proto_.input_size(); ++i) {
    const auto& input = proto_.input(i);
    if (values_.count(input.name())) continue;  // an initializer (IR < 4 lists them as inputs too)
    const std::string where = path_ + ": graph input " + std::to_string(i) + " '" + input.name() + "'";
    if (input.name().empty()) return InvalidArgument(where + " has no name");
    TFHOST_ASSIGN_OR_RETURN(auto declared, DeclaredType(input, where));
    auto [dtype, shape] = declared;
    if (dtype == DType::kInvalid) return InvalidArgument(where + " declares no element type");
    ir::Node node;
    node.name = names_[input.name()];
    node.op = "Placeholder";
    node.attrs["dtype"].set_type(static_cast<tensorflow::DataType>(dtype));
    *node.attrs["shape"].mutable_shape() = shape.ToProto();
    TFHOST_ASSIGN_OR_RETURN(int id, graph_->AddNode(std::move(node)));
    TFHOST_RETURN_IF_ERROR(Bind(input.name(), ir::TensorRef{id, 0}, dtype, shape));
  }
  return OkStatus();
}

Status GraphBuilder::AddInitializers() {
  if (proto_.sparse_initializer_size() > 0) {
    return Unimplemented(path_ + ": the graph has " + std::to_string(proto_.sparse_initializer_size()) +
                         " sparse initializers; tfhost reads dense initializers only");
  }
  for (int i = 0; i < proto_.initializer_size(); ++i) {
    const auto& t = proto_.initializer(i);
    const std::string where = path_ + ": initializer " + std::to_string(i) + " '" + t.name() + "'";
    if (t.name().empty()) return InvalidArgument(where + " has no name");
    TFHOST_ASSIGN_OR_RETURN(Tensor value, DecodeTensor(t, model_dir_, where));
    if (values_.count(t.name())) return InvalidArgument(where + " is defined more than once");
    TFHOST_RETURN_IF_ERROR(BindConstant(t.name(), std::move(value)));
  }
  return OkStatus();
}

Status GraphBuilder::AddOperator(int index) {
  const ::onnx::NodeProto& node = proto_.node(index);
  NodeContext ctx;
  ctx.b = this;
  ctx.node = &node;
  ctx.index = index;
  ctx.opset = opset_;
  const bool default_domain = node.domain().empty() || node.domain() == "ai.onnx";
  std::string what = node.name().empty() ? "" : "'" + node.name() + "', ";
  what += "op " + (default_domain ? "" : node.domain() + ".") + node.op_type() + ", opset " + std::to_string(opset_);
  ctx.where = path_ + ": ONNX node " + std::to_string(index) + " (" + what + ")";
  const MapFn mapper = default_domain ? FindMapper(node.op_type()) : nullptr;
  if (mapper == nullptr) {
    return Unimplemented(path_ + ": ONNX node " + std::to_string(index) + " (" + what + ") is not supported" +
                         (default_domain ? "" : " (only the default ai.onnx domain is)"));
  }
  if (node.output_size() == 0) return ctx.Error("has no outputs");
  return mapper(ctx);
}

Status GraphBuilder::Build() {
  TFHOST_RETURN_IF_ERROR(ReserveNames());
  TFHOST_RETURN_IF_ERROR(AddInitializers());
  TFHOST_RETURN_IF_ERROR(AddInputs());
  for (int i = 0; i < proto_.node_size(); ++i) TFHOST_RETURN_IF_ERROR(AddOperator(i));
  return OkStatus();
}

}  // namespace tfhost::loaders::onnx
