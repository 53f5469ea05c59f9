// Control flow and resources: IF and WHILE become TensorFlow's If and While
// calling the library functions of their subgraphs (tflite_functions.h);
// CALL_ONCE hands its init subgraph to the loader, which runs it once at
// load; hash tables and resource variables become TensorFlow's
// HashTableV2/LookupTable*V2 and VarHandleOp/ReadVariableOp/AssignVariableOp,
// named so that every subgraph reaches the same resource, as TFLite shares
// resources across the whole interpreter.
#include <set>

#include "loaders/tflite/tflite_builtins.h"
#include "loaders/tflite/tflite_functions.h"
#include "loaders/tflite/tflite_ops.h"

namespace tfhost::loaders::tflite {

namespace {

tensorflow::AttrValue FuncAttr(const std::string& name) {
  tensorflow::AttrValue a;
  a.mutable_func()->set_name(name);
  return a;
}

StatusOr<DType> TensorDType(const OpContext& ctx, int tensor) {
  const fb::TensorType type = ctx.b->tensor(tensor).type();
  const DType dtype = BoundaryDTypeOf(type);
  if (dtype == DType::kInvalid || dtype == DType::kHalf) {
    return ctx.Error(std::string("passes tensor ") + std::to_string(tensor) + " of type " + TensorTypeName(type) +
                     ", which tfhost cannot pass between subgraphs");
  }
  return dtype;
}

StatusOr<std::vector<DType>> TensorDTypes(const OpContext& ctx, const std::vector<int>& tensors) {
  std::vector<DType> out;
  for (int t : tensors) {
    if (t < 0) return ctx.Error("has an absent input; control flow passes every input on");
    TFHOST_ASSIGN_OR_RETURN(DType d, TensorDType(ctx, t));
    out.push_back(d);
  }
  return out;
}

std::string TypeNames(const std::vector<DType>& types) {
  std::string s = "(";
  for (size_t i = 0; i < types.size(); ++i) s += (i ? ", " : "") + DTypeShortName(types[i]);
  return s + ")";
}

// Subgraph `index` (named by the operator field `what`) must take `in` and
// return `out`, in count and dtype.
Status CheckSubgraph(const OpContext& ctx, const std::string& what, int index, const std::vector<DType>& in,
                     const std::vector<DType>& out) {
  SubgraphLibrary& lib = ctx.b->library();
  TFHOST_RETURN_IF_ERROR(lib.CheckIndex(index, what, ctx.where));
  TFHOST_ASSIGN_OR_RETURN(SubgraphSignature sig, lib.Signature(index));
  const std::string at = ctx.where + ": " + what + " " + std::to_string(index);
  for (auto [want, got, kind] : {std::tuple{&in, &sig.inputs, "inputs"}, std::tuple{&out, &sig.outputs, "outputs"}}) {
    if (want->size() != got->size()) {
      return InvalidArgument(at + " has " + std::to_string(got->size()) + " " + kind + "; expected " +
                             std::to_string(want->size()));
    }
    if (*want != *got) {
      return InvalidArgument(at + " has " + kind + " " + TypeNames(*got) + "; expected " + TypeNames(*want));
    }
  }
  return OkStatus();
}

Status MapIf(const OpContext& ctx) {
  const auto* o = ctx.op->builtin_options_as_IfOptions();
  if (o == nullptr) return ctx.Error("has no IfOptions");
  if (ctx.inputs.empty()) return ctx.Error("has no condition input");
  const std::vector<int> args(ctx.inputs.begin() + 1, ctx.inputs.end());
  TFHOST_ASSIGN_OR_RETURN(std::vector<DType> in_types, TensorDTypes(ctx, args));
  TFHOST_ASSIGN_OR_RETURN(std::vector<DType> out_types, TensorDTypes(ctx, ctx.outputs));
  TFHOST_RETURN_IF_ERROR(CheckSubgraph(ctx, "then_subgraph_index", o->then_subgraph_index(), in_types, out_types));
  TFHOST_RETURN_IF_ERROR(CheckSubgraph(ctx, "else_subgraph_index", o->else_subgraph_index(), in_types, out_types));
  SubgraphLibrary& lib = ctx.b->library();
  TFHOST_ASSIGN_OR_RETURN(std::string then_fn,
                          lib.FunctionFor(o->then_subgraph_index(), "then_subgraph_index", ctx.where));
  TFHOST_ASSIGN_OR_RETURN(std::string else_fn,
                          lib.FunctionFor(o->else_subgraph_index(), "else_subgraph_index", ctx.where));
  TFHOST_ASSIGN_OR_RETURN(auto inputs, AllInputs(ctx, static_cast<int>(ctx.inputs.size())));
  // TFLite's condition is one bool of any rank; TensorFlow's If reads a
  // non-scalar as "has elements", so it gets the scalar (reshaping fails,
  // as TFLite does, unless there is exactly one value).
  const fb::Tensor& cond = ctx.b->tensor(ctx.inputs[0]);
  if (cond.type() != fb::TensorType::BOOL) {
    return ctx.Error(std::string("has a condition of type ") + TensorTypeName(cond.type()) + "; expected BOOL");
  }
  if (cond.shape() == nullptr || cond.shape()->size() != 0) {
    TFHOST_ASSIGN_OR_RETURN(ir::TensorRef shape,
                            ctx.b->AddConst(ctx.Base() + "/scalar_shape", Tensor(DType::kInt32, Shape({0}))));
    TFHOST_ASSIGN_OR_RETURN(inputs[0], ctx.b->AddNode(ctx.Base() + "/condition", "Reshape", {inputs[0], shape}));
  }
  ir::AttrMap attrs;
  attrs["Tcond"] = TypeAttr(DType::kBool);
  attrs["Tin"] = TypeListAttr(in_types);
  attrs["Tout"] = TypeListAttr(out_types);
  attrs["then_branch"] = FuncAttr(then_fn);
  attrs["else_branch"] = FuncAttr(else_fn);
  const bool stateful = lib.IsStateful(o->then_subgraph_index()) || lib.IsStateful(o->else_subgraph_index());
  return ctx.b->AddOutputNode(ctx.outputs, stateful ? "If" : "StatelessIf", std::move(inputs), std::move(attrs))
      .status();
}

Status MapWhile(const OpContext& ctx) {
  const auto* o = ctx.op->builtin_options_as_WhileOptions();
  if (o == nullptr) return ctx.Error("has no WhileOptions");
  if (ctx.inputs.size() != ctx.outputs.size()) {
    return ctx.Error("has " + std::to_string(ctx.inputs.size()) + " inputs and " +
                     std::to_string(ctx.outputs.size()) + " outputs; a loop's variables come out as they go in");
  }
  TFHOST_ASSIGN_OR_RETURN(std::vector<DType> types, TensorDTypes(ctx, ctx.inputs));
  TFHOST_ASSIGN_OR_RETURN(std::vector<DType> out_types, TensorDTypes(ctx, ctx.outputs));
  if (types != out_types) {
    return ctx.Error("has inputs " + TypeNames(types) + " but outputs " + TypeNames(out_types));
  }
  SubgraphLibrary& lib = ctx.b->library();
  TFHOST_RETURN_IF_ERROR(lib.CheckIndex(o->cond_subgraph_index(), "cond_subgraph_index", ctx.where));
  TFHOST_ASSIGN_OR_RETURN(SubgraphSignature cond_sig, lib.Signature(o->cond_subgraph_index()));
  if (cond_sig.outputs.size() != 1) {
    return ctx.Error("cond_subgraph_index " + std::to_string(o->cond_subgraph_index()) + " has " +
                     std::to_string(cond_sig.outputs.size()) + " outputs; expected 1 (the condition)");
  }
  TFHOST_RETURN_IF_ERROR(CheckSubgraph(ctx, "cond_subgraph_index", o->cond_subgraph_index(), types,
                                       cond_sig.outputs));
  TFHOST_RETURN_IF_ERROR(CheckSubgraph(ctx, "body_subgraph_index", o->body_subgraph_index(), types, types));
  TFHOST_ASSIGN_OR_RETURN(std::string cond_fn,
                          lib.FunctionFor(o->cond_subgraph_index(), "cond_subgraph_index", ctx.where,
                                          /*condition=*/true));
  TFHOST_ASSIGN_OR_RETURN(std::string body_fn,
                          lib.FunctionFor(o->body_subgraph_index(), "body_subgraph_index", ctx.where));
  TFHOST_ASSIGN_OR_RETURN(auto inputs, AllInputs(ctx, static_cast<int>(ctx.inputs.size())));
  ir::AttrMap attrs;
  attrs["T"] = TypeListAttr(types);
  attrs["cond"] = FuncAttr(cond_fn);
  attrs["body"] = FuncAttr(body_fn);
  const bool stateful = lib.IsStateful(o->cond_subgraph_index()) || lib.IsStateful(o->body_subgraph_index());
  return ctx.b->AddOutputNode(ctx.outputs, stateful ? "While" : "StatelessWhile", std::move(inputs),
                              std::move(attrs))
      .status();
}

Status MapCallOnce(const OpContext& ctx) {
  const auto* o = ctx.op->builtin_options_as_CallOnceOptions();
  if (o == nullptr) return ctx.Error("has no CallOnceOptions");
  if (!ctx.inputs.empty() || !ctx.outputs.empty()) return ctx.Error("has inputs or outputs; expected none");
  return ctx.b->library().AddInitSubgraph(o->init_subgraph_index(), ctx.where);
}

// Helper nodes of an operator without outputs are named after its first
// input (the resource).
std::string NoOutputBase(const OpContext& ctx, const std::string& suffix) {
  return (!ctx.inputs.empty() && ctx.inputs[0] >= 0 ? ctx.b->NodeName(ctx.inputs[0]) : "tflite_op") + suffix;
}

Status MapHashtable(const OpContext& ctx) {
  const auto* o = ctx.op->builtin_options_as_HashtableOptions();
  if (o == nullptr) return ctx.Error("has no HashtableOptions");
  const DType key = BoundaryDTypeOf(o->key_dtype()), value = BoundaryDTypeOf(o->value_dtype());
  if (key == DType::kInvalid || value == DType::kInvalid) {
    return ctx.Error(std::string("maps ") + TensorTypeName(o->key_dtype()) + " to " +
                     TensorTypeName(o->value_dtype()) + ", which tfhost has no types for");
  }
  ir::AttrMap attrs;
  // TFLite knows a table by its id, model-wide.
  attrs["shared_name"] = StringAttr("tflite_hashtable_" + std::to_string(o->table_id()));
  attrs["key_dtype"] = TypeAttr(key);
  attrs["value_dtype"] = TypeAttr(value);
  return ctx.b->AddOutputNode(ctx.outputs, "HashTableV2", {}, std::move(attrs)).status();
}

Status MapTableOp(const OpContext& ctx, const std::string& op, int arity) {
  TFHOST_ASSIGN_OR_RETURN(auto in, AllInputs(ctx, arity));
  ir::AttrMap attrs;
  if (arity == 3) {
    TFHOST_ASSIGN_OR_RETURN(DType keys, TensorDType(ctx, ctx.inputs[1]));
    TFHOST_ASSIGN_OR_RETURN(DType values, TensorDType(ctx, ctx.inputs[2]));
    attrs["Tin"] = TypeAttr(keys);
    attrs["Tout"] = TypeAttr(values);
  }
  if (ctx.outputs.empty()) {
    return ctx.b->AddNode(NoOutputBase(ctx, "/import"), op, std::move(in), std::move(attrs)).status();
  }
  return ctx.b->AddOutputNode(ctx.outputs, op, std::move(in), std::move(attrs)).status();
}

std::string VariableName(const fb::VarHandleOptions* o) {
  const std::string container = o && o->container() ? o->container()->str() : "";
  const std::string shared = o && o->shared_name() ? o->shared_name()->str() : "";
  if (!container.empty()) return container + "/" + shared;
  return shared.empty() ? "tflite_variable" : shared;
}

// TFLite's VAR_HANDLE carries no dtype; TensorFlow's VarHandleOp needs one.
// It is the dtype any subgraph reads or assigns through a handle of the
// same name.
StatusOr<DType> VariableDType(const OpContext& ctx, const std::string& name) {
  const fb::Model& model = *ctx.b->file().model;
  const auto* codes = model.operator_codes();
  auto code_of = [&](const fb::Operator* op) -> int32_t {
    if (op == nullptr || codes == nullptr || op->opcode_index() >= codes->size()) return -1;
    const fb::OperatorCode* c = codes->Get(op->opcode_index());
    return EffectiveBuiltinCode(c->deprecated_builtin_code(), c->builtin_code());
  };
  auto tensor_at = [](const fb::Operator* op, bool outputs, flatbuffers::uoffset_t i) -> int {
    const auto* list = outputs ? op->outputs() : op->inputs();
    return list != nullptr && i < list->size() ? list->Get(i) : -1;
  };
  for (const fb::SubGraph* sg : *model.subgraphs()) {
    if (sg == nullptr || sg->operators() == nullptr || sg->tensors() == nullptr) continue;
    const int tensors = static_cast<int>(sg->tensors()->size());
    std::set<int> handles;
    for (const fb::Operator* op : *sg->operators()) {
      const int handle = tensor_at(op, true, 0);
      if (code_of(op) == kVarHandle && handle >= 0 &&
          VariableName(op->builtin_options_as_VarHandleOptions()) == name) {
        handles.insert(handle);
      }
    }
    for (const fb::Operator* op : *sg->operators()) {
      const int32_t code = code_of(op);
      if ((code != kReadVariable && code != kAssignVariable) || !handles.count(tensor_at(op, false, 0))) continue;
      const int t = code == kReadVariable ? tensor_at(op, true, 0) : tensor_at(op, false, 1);
      if (t < 0 || t >= tensors || sg->tensors()->Get(t) == nullptr) continue;
      const DType dtype = DTypeOf(sg->tensors()->Get(t)->type());
      if (dtype != DType::kInvalid) return dtype;
    }
  }
  return Unimplemented(ctx.where + ": variable '" + name +
                       "' is never read or assigned through a handle of its subgraph, so its dtype is unknown");
}

Status MapVarHandle(const OpContext& ctx) {
  const std::string name = VariableName(ctx.op->builtin_options_as_VarHandleOptions());
  TFHOST_ASSIGN_OR_RETURN(DType dtype, VariableDType(ctx, name));
  ir::AttrMap attrs;
  attrs["shared_name"] = StringAttr(name);
  attrs["dtype"] = TypeAttr(dtype);
  tensorflow::AttrValue shape;
  shape.mutable_shape()->set_unknown_rank(true);
  attrs["shape"] = std::move(shape);
  return ctx.b->AddOutputNode(ctx.outputs, "VarHandleOp", {}, std::move(attrs)).status();
}

Status MapVariableAccess(const OpContext& ctx) {
  const bool read = ctx.code == kReadVariable;
  TFHOST_ASSIGN_OR_RETURN(auto in, AllInputs(ctx, read ? 1 : 2));
  const int value = read ? ctx.outputs.at(0) : ctx.inputs[1];
  const DType dtype = DTypeOf(ctx.b->tensor(value).type());
  if (dtype == DType::kInvalid) {
    return ctx.Error(std::string(read ? "reads " : "assigns ") + TensorTypeName(ctx.b->tensor(value).type()) +
                     ", which tfhost has no type for");
  }
  ir::AttrMap attrs;
  attrs["dtype"] = TypeAttr(dtype);
  if (read) return ctx.b->AddOutputNode(ctx.outputs, "ReadVariableOp", std::move(in), std::move(attrs)).status();
  return ctx.b->AddNode(NoOutputBase(ctx, "/assign"), "AssignVariableOp", std::move(in), std::move(attrs)).status();
}

}  // namespace

bool IsMappedControlBuiltin(int32_t code) {
  switch (code) {
    case kIf: case kWhile: case kCallOnce: case kHashtable: case kHashtableFind: case kHashtableImport:
    case kHashtableSize: case kVarHandle: case kReadVariable: case kAssignVariable:
      return true;
    default:
      return false;
  }
}

Status MapControlOperator(const OpContext& ctx) {
  switch (ctx.code) {
    case kIf: return MapIf(ctx);
    case kWhile: return MapWhile(ctx);
    case kCallOnce: return MapCallOnce(ctx);
    case kHashtable: return MapHashtable(ctx);
    case kHashtableFind: return MapTableOp(ctx, "LookupTableFindV2", 3);
    case kHashtableImport: return MapTableOp(ctx, "LookupTableImportV2", 3);
    case kHashtableSize: return MapTableOp(ctx, "LookupTableSizeV2", 1);
    case kVarHandle: return MapVarHandle(ctx);
    case kReadVariable: case kAssignVariable: return MapVariableAccess(ctx);
    default: return ctx.Error("is not a mapped control-flow or resource operator");
  }
}

}  // namespace tfhost::loaders::tflite
