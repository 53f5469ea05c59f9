// If: a one-element bool picks then_branch or else_branch, two subgraphs
// whose outputs become the node's. ONNX branches take no inputs; they read
// the enclosing graph's values by name. TensorFlow's functions see only
// their arguments, so each branch becomes a library function whose
// arguments are the values the two branches read from outside (in the same
// order for both), and the node becomes a StatelessIf passing them. Values
// read from outside that are constants at load are bound inside the branch
// instead, where the op mappers can use them (shapes, axes).
#include <set>

#include "ir/op_def_util.h"
#include "ir/type_attr_inference.h"
#include "loaders/graph_function.h"
#include "loaders/onnx/onnx_graph_builder.h"
#include "loaders/onnx/onnx_ops.h"
#include "ops/op_registry.h"

namespace tfhost::loaders::onnx {

namespace {

// `base` made unique among the model's functions.
std::string UniqueFunctionName(const ir::Graph& root, const std::string& base) {
  std::string name = base;
  for (int n = 1; root.FindFunction(name) != nullptr; ++n) name = base + "_" + std::to_string(n);
  return name;
}

struct Capture {
  std::string name;
  DType dtype;
  ir::PartialShape shape;
};

const ::onnx::GraphProto* Branch(const NodeContext& ctx, const std::string& name) {
  for (const auto& a : ctx.node->attribute()) {
    if (a.name() == name && a.has_g()) return &a.g();
  }
  return nullptr;
}

// Builds `branch` into a library function of the model named `fname`;
// returns its result types.
StatusOr<std::vector<DType>> BuildBranch(const NodeContext& ctx, const ::onnx::GraphProto& branch,
                                         const std::string& fname, const std::vector<Capture>& captures,
                                         const std::string& what) {
  const std::string where = ctx.where + " " + what;
  ir::Graph body;
  GraphBuilder b(branch, ctx.b->path(), ctx.b->model_dir(), ctx.b->opset(), &body);
  b.set_root(ctx.b->root());
  FunctionBoundary boundary;
  for (const Capture& c : captures) {
    TFHOST_ASSIGN_OR_RETURN(int node, b.AddCapture(c.name, c.dtype, c.shape));
    boundary.arg_nodes.push_back(node);
    boundary.arg_types.push_back(c.dtype);
  }
  // Constants from outside are bound as constants, not passed.
  for (const std::string& name : FreeValueNames(branch)) {
    TFHOST_ASSIGN_OR_RETURN(const ValueInfo* outer, ctx.b->Value(name));
    if (outer->constant.has_value()) TFHOST_RETURN_IF_ERROR(b.BindConstant(name, *outer->constant));
  }
  Status built = b.Build();
  if (!built.ok()) return built.WithContext(where);
  if (branch.output_size() == 0) return ctx.Error(what + " has no outputs");
  for (const auto& out : branch.output()) {
    TFHOST_ASSIGN_OR_RETURN(ir::TensorRef ref, b.Ref(out.name()));
    boundary.rets.push_back(ref);
    auto declared = DeclaredType(out, where + " output '" + out.name() + "'");
    boundary.ret_types.push_back(declared.ok() ? declared->first : DType::kInvalid);
  }
  // The mappers leave index-type attrs to be inferred, as for the model.
  const ir::OpDefLookup lookup = ops::OpRegistry::Global().Lookup();
  std::vector<int> all(body.num_nodes());
  for (int i = 0; i < body.num_nodes(); ++i) all[i] = i;
  TFHOST_RETURN_IF_ERROR(ir::InferMissingTypeAttrs(body, lookup, all));
  TFHOST_ASSIGN_OR_RETURN(tensorflow::FunctionDef fdef, GraphToFunctionDef(body, fname, boundary, where));
  std::vector<DType> types;
  for (const auto& arg : fdef.signature().output_arg()) types.push_back(static_cast<DType>(arg.type()));
  *ctx.b->root()->mutable_library().add_function() = std::move(fdef);
  return types;
}

Status MapIf(const NodeContext& ctx) {
  const ::onnx::GraphProto* then_branch = Branch(ctx, "then_branch");
  const ::onnx::GraphProto* else_branch = Branch(ctx, "else_branch");
  if (then_branch == nullptr || else_branch == nullptr) {
    return ctx.Error("needs graph attributes 'then_branch' and 'else_branch'");
  }
  // The values either branch reads from outside, passed to both.
  std::vector<Capture> captures;
  std::set<std::string> seen;
  std::vector<ir::TensorRef> args;
  for (const auto* branch : {then_branch, else_branch}) {
    for (const std::string& name : FreeValueNames(*branch)) {
      if (!seen.insert(name).second) continue;
      auto outer = ctx.b->Value(name);
      if (!outer.ok()) {
        return ctx.Error("a branch reads '" + name + "', which the enclosing graph does not define");
      }
      if ((*outer)->constant.has_value()) continue;
      if ((*outer)->dtype == DType::kInvalid) {
        return ctx.Unsupported("a branch reads '" + name + "', whose type is not known at load");
      }
      TFHOST_ASSIGN_OR_RETURN(ir::TensorRef ref, ctx.b->Ref(name));
      args.push_back(ref);
      captures.push_back({name, (*outer)->dtype, (*outer)->shape});
    }
  }
  const std::string base = NodeNameFromValueName(ctx.node->output(0));
  const std::string then_name = UniqueFunctionName(*ctx.b->root(), base + "_then");
  TFHOST_ASSIGN_OR_RETURN(std::vector<DType> then_types,
                          BuildBranch(ctx, *then_branch, then_name, captures, "then_branch"));
  const std::string else_name = UniqueFunctionName(*ctx.b->root(), base + "_else");
  TFHOST_ASSIGN_OR_RETURN(std::vector<DType> else_types,
                          BuildBranch(ctx, *else_branch, else_name, captures, "else_branch"));
  if (then_types != else_types) {
    return ctx.Error("then_branch returns " + std::to_string(then_types.size()) + " values and else_branch " +
                     std::to_string(else_types.size()) + ", or of other types; both must return the same");
  }
  if (static_cast<int>(then_types.size()) < ctx.node->output_size()) {
    return ctx.Error("has " + std::to_string(ctx.node->output_size()) + " outputs but its branches return " +
                     std::to_string(then_types.size()));
  }
  // The condition holds one bool; TensorFlow's If tests a scalar.
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef cond, ctx.In(0));
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef scalar, ctx.Const("scalar_shape", Int64Vector({})));
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef cond_scalar, ctx.Helper("cond", "Reshape", {cond, scalar}));
  std::vector<ir::TensorRef> inputs = {cond_scalar};
  inputs.insert(inputs.end(), args.begin(), args.end());
  ir::AttrMap attrs;
  attrs["Tcond"] = TypeAttr(DType::kBool);
  std::vector<DType> tin;
  for (const Capture& c : captures) tin.push_back(c.dtype);
  attrs["Tin"] = TypeListAttr(tin);
  attrs["Tout"] = TypeListAttr(then_types);
  attrs["then_branch"].mutable_func()->set_name(then_name);
  attrs["else_branch"].mutable_func()->set_name(else_name);
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef node, ctx.Helper("If", "StatelessIf", std::move(inputs), std::move(attrs)));
  for (int i = 0; i < ctx.node->output_size(); ++i) {
    TFHOST_RETURN_IF_ERROR(
        ctx.BindOutput(i, ir::TensorRef{node.node, i}, then_types[i], ir::PartialShape::Unknown()));
  }
  return OkStatus();
}

}  // namespace

MapFn FindControlMapper(const std::string& op_type) { return op_type == "If" ? MapIf : nullptr; }

}  // namespace tfhost::loaders::onnx
