#include "loaders/onnx/onnx_ops.h"

#include <cstring>

#include "loaders/onnx/onnx_tensor.h"

namespace tfhost::loaders::onnx {

namespace {

using ::onnx::AttributeProto;

// The attribute's type; files from old writers leave `type` unset, so it is
// then read off the one field that is set.
AttributeProto::AttributeType TypeOf(const AttributeProto& a) {
  if (a.has_type() && a.type() != AttributeProto::UNDEFINED) return a.type();
  if (a.has_f()) return AttributeProto::FLOAT;
  if (a.has_i()) return AttributeProto::INT;
  if (a.has_s()) return AttributeProto::STRING;
  if (a.has_t()) return AttributeProto::TENSOR;
  if (a.has_g()) return AttributeProto::GRAPH;
  if (a.floats_size() > 0) return AttributeProto::FLOATS;
  if (a.ints_size() > 0) return AttributeProto::INTS;
  if (a.strings_size() > 0) return AttributeProto::STRINGS;
  if (a.tensors_size() > 0) return AttributeProto::TENSORS;
  return AttributeProto::UNDEFINED;
}

std::string TypeName(AttributeProto::AttributeType t) { return AttributeProto::AttributeType_Name(t); }

}  // namespace

bool NodeContext::Has(int i) const { return i >= 0 && i < node->input_size() && !node->input(i).empty(); }

StatusOr<ir::TensorRef> NodeContext::In(int i) const {
  if (!Has(i)) return Error("input " + std::to_string(i) + " is required but absent");
  auto ref = b->Ref(node->input(i));
  if (!ref.ok()) return ref.status().WithContext(where + " input " + std::to_string(i));
  return ref;
}

StatusOr<const ValueInfo*> NodeContext::Info(int i) const {
  if (!Has(i)) return Error("input " + std::to_string(i) + " is required but absent");
  auto info = b->Value(node->input(i));
  if (!info.ok()) return info.status().WithContext(where + " input " + std::to_string(i));
  return info;
}

StatusOr<std::optional<Tensor>> NodeContext::ConstIn(int i) const {
  TFHOST_ASSIGN_OR_RETURN(const ValueInfo* info, Info(i));
  return info->constant;
}

StatusOr<std::vector<int64_t>> NodeContext::ConstInts(int i, const std::string& what) const {
  TFHOST_ASSIGN_OR_RETURN(std::optional<Tensor> t, ConstIn(i));
  if (!t.has_value()) {
    return Unsupported("input " + std::to_string(i) + " ('" + InName(i) + "', " + what +
                       ") is computed at run time; tfhost needs it to be a constant (an initializer or Constant)");
  }
  if (t->dtype() != DType::kInt64 && t->dtype() != DType::kInt32) {
    return Error("input " + std::to_string(i) + " (" + what + ") is " + DTypeName(t->dtype()) +
                 "; expected int64");
  }
  if (t->rank() > 1) return Error("input " + std::to_string(i) + " (" + what + ") must be 1-D, got " + t->shape().ToString());
  return t->ToInt64Vector();
}

StatusOr<int> NodeContext::Rank(int i, const std::string& why) const {
  TFHOST_ASSIGN_OR_RETURN(const ValueInfo* info, Info(i));
  if (info->rank() < 0) {
    return Unsupported("the rank of input " + std::to_string(i) + " ('" + InName(i) + "') is not known at load, " +
                       "and " + why + " needs it (declare the value's shape in value_info)");
  }
  return info->rank();
}

DType NodeContext::InType(int i) const {
  auto info = Info(i);
  return info.ok() ? (*info)->dtype : DType::kInvalid;
}

const AttributeProto* NodeContext::Attr(const std::string& name) const {
  for (const auto& a : node->attribute()) {
    if (a.name() == name) return &a;
  }
  return nullptr;
}

#define TFHOST_ONNX_ATTR_CHECK(a, expected)                                                                   \
  do {                                                                                                       \
    if (!(a)->ref_attr_name().empty()) {                                                                     \
      return Unsupported("attribute '" + name + "' refers to a function attribute, which tfhost does not resolve"); \
    }                                                                                                        \
    if (TypeOf(*(a)) != AttributeProto::expected) {                                                          \
      return Error("attribute '" + name + "' is " + TypeName(TypeOf(*(a))) + "; expected " #expected);       \
    }                                                                                                        \
  } while (0)

StatusOr<int64_t> NodeContext::Int(const std::string& name, int64_t fallback) const {
  const AttributeProto* a = Attr(name);
  if (a == nullptr) return fallback;
  TFHOST_ONNX_ATTR_CHECK(a, INT);
  return a->i();
}

StatusOr<float> NodeContext::Float(const std::string& name, float fallback) const {
  const AttributeProto* a = Attr(name);
  if (a == nullptr) return fallback;
  TFHOST_ONNX_ATTR_CHECK(a, FLOAT);
  return a->f();
}

StatusOr<std::string> NodeContext::String(const std::string& name, const std::string& fallback) const {
  const AttributeProto* a = Attr(name);
  if (a == nullptr) return fallback;
  TFHOST_ONNX_ATTR_CHECK(a, STRING);
  return a->s();
}

StatusOr<std::vector<int64_t>> NodeContext::Ints(const std::string& name, std::vector<int64_t> fallback) const {
  const AttributeProto* a = Attr(name);
  if (a == nullptr) return fallback;
  // An empty list has no field set, so an unset type reads as UNDEFINED.
  if (a->ints_size() == 0 && (!a->has_type() || a->type() == AttributeProto::UNDEFINED)) {
    return std::vector<int64_t>();
  }
  TFHOST_ONNX_ATTR_CHECK(a, INTS);
  return std::vector<int64_t>(a->ints().begin(), a->ints().end());
}

#undef TFHOST_ONNX_ATTR_CHECK

Status NodeContext::Error(const std::string& what) const { return InvalidArgument(where + ": " + what); }
Status NodeContext::Unsupported(const std::string& what) const { return Unimplemented(where + ": " + what); }

std::string NodeContext::Base() const { return b->NodeName(node->output(0)); }

StatusOr<ir::TensorRef> NodeContext::Helper(const std::string& suffix, const std::string& op,
                                            std::vector<ir::TensorRef> inputs, ir::AttrMap attrs) const {
  return b->AddNode(Base() + "/" + suffix, op, std::move(inputs), std::move(attrs));
}

StatusOr<ir::TensorRef> NodeContext::Const(const std::string& suffix, Tensor value) const {
  return b->AddConst(Base() + "/" + suffix, std::move(value));
}

Status NodeContext::Emit(const std::string& op, std::vector<ir::TensorRef> inputs, ir::AttrMap attrs, DType dtype,
                         ir::PartialShape shape) const {
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef ref, b->AddNamedNode(node->output(0), op, std::move(inputs), std::move(attrs)));
  return b->Bind(node->output(0), ref, dtype, std::move(shape));
}

bool NodeContext::IsNhwc(int i) const { return Has(i) && b->OnlyNhwc(node->input(i)); }

StatusOr<ir::TensorRef> NodeContext::InNhwc(int i) const {
  if (!Has(i)) return Error("input " + std::to_string(i) + " is required but absent");
  auto ref = b->RefNhwc(node->input(i));
  if (!ref.ok()) return ref.status().WithContext(where + " input " + std::to_string(i));
  return ref;
}

Status NodeContext::EmitNhwc(const std::string& op, std::vector<ir::TensorRef> inputs, ir::AttrMap attrs, DType dtype,
                             ir::PartialShape shape) const {
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef ref, Helper(op + "_nhwc", op, std::move(inputs), std::move(attrs)));
  return b->BindNhwc(node->output(0), ref, dtype, std::move(shape));
}

Status NodeContext::BindOutput(int i, ir::TensorRef ref, DType dtype, ir::PartialShape shape) const {
  if (i >= node->output_size() || node->output(i).empty()) return OkStatus();
  // An Identity gives the ONNX value its own node name (a signature output
  // or `--fetch` names it), instead of aliasing another value's node.
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef named, b->AddNamedNode(node->output(i), "Identity", {ref}));
  return b->Bind(node->output(i), named, dtype, std::move(shape));
}

StatusOr<ir::TensorRef> ShapeOf(const NodeContext& ctx, ir::TensorRef x, const std::string& suffix) {
  ir::AttrMap attrs;
  attrs["out_type"] = TypeAttr(DType::kInt64);
  return ctx.Helper(suffix, "Shape", {x}, std::move(attrs));
}

MapFn FindMapper(const std::string& op_type) {
  if (MapFn f = FindNnMapper(op_type)) return f;
  if (MapFn f = FindMathMapper(op_type)) return f;
  if (MapFn f = FindIndexMapper(op_type)) return f;
  if (MapFn f = FindQuantizeMapper(op_type)) return f;
  if (MapFn f = FindControlMapper(op_type)) return f;
  if (MapFn f = FindResizeMapper(op_type)) return f;
  if (MapFn f = FindRnnMapper(op_type)) return f;
  if (MapFn f = FindGatherMapper(op_type)) return f;
  return FindArrayMapper(op_type);
}

StatusOr<int> NormalizeAxis(const NodeContext& ctx, int64_t axis, int rank, const std::string& what) {
  if (axis < -rank || axis >= rank) {
    return ctx.Error(what + " " + std::to_string(axis) + " is out of range for rank " + std::to_string(rank));
  }
  return static_cast<int>(axis < 0 ? axis + rank : axis);
}

Tensor Int64Vector(const std::vector<int64_t>& v) { return Tensor::FromVector(v); }
Tensor Int32Vector(const std::vector<int32_t>& v) { return Tensor::FromVector(v); }

Status EmitUnary(const NodeContext& ctx, const std::string& op, ir::AttrMap attrs) {
  TFHOST_ASSIGN_OR_RETURN(const ValueInfo* info, ctx.Info(0));
  if (ctx.IsNhwc(0)) {  // element-wise: the layout does not matter
    TFHOST_ASSIGN_OR_RETURN(ir::TensorRef x, ctx.InNhwc(0));
    return ctx.EmitNhwc(op, {x}, std::move(attrs), info->dtype, info->shape);
  }
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef x, ctx.In(0));
  return ctx.Emit(op, {x}, std::move(attrs), info->dtype, info->shape);
}

}  // namespace tfhost::loaders::onnx
