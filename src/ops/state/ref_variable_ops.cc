// TF1 reference variables. TensorFlow passes a VariableV2's storage by
// reference into Assign; tfhost passes values, so each variable lives in the
// ResourceManager under VariableResourceName(node) and the ref-updating ops
// find it by their kVarNameAttr attr (set by the SavedModel loader). Their
// first input is accepted and ignored.
#include <mutex>

#include "ops/state/state_ops.h"

namespace tfhost::ops {
namespace {

using state_internal::LookupOrCreateVariable;

// The variable named by the node's kVarNameAttr.
StatusOr<std::string> RefVariableName(const KernelContext& ctx) {
  const tensorflow::AttrValue* attr = ctx.node().FindAttr(kVarNameAttr);
  if (attr == nullptr || attr->value_case() != tensorflow::AttrValue::kS || attr->s().empty()) {
    return ctx.Error(std::string("missing string attr '") + kVarNameAttr +
                     "' naming the variable it updates (the loader sets it for ref-variable ops)");
  }
  return attr->s();
}

Status VariableV2Kernel(KernelContext& ctx) {
  TFHOST_ASSIGN_OR_RETURN(DType dtype, ctx.Attr<DType>("dtype"));
  const std::string name = VariableResourceName(ctx.node());
  auto var = LookupOrCreateVariable(ctx.resources(), name, dtype);
  if (!var.ok()) return ctx.Error(var.status().message());
  Tensor value;
  {
    std::lock_guard<std::mutex> lock((*var)->mu);
    value = (*var)->value;
  }
  if (!value.valid()) {
    return FailedPrecondition(ir::NodeContext(ctx.node()) + ": variable " + name +
                              " is uninitialized (attempting to use an uninitialized value)");
  }
  ctx.set_output(0, std::move(value));
  return OkStatus();
}

Status AssignKernel(KernelContext& ctx) {
  TFHOST_ASSIGN_OR_RETURN(std::string name, RefVariableName(ctx));
  TFHOST_ASSIGN_OR_RETURN(DType dtype, ctx.Attr<DType>("T"));
  TFHOST_ASSIGN_OR_RETURN(bool validate_shape, ctx.AttrOr<bool>("validate_shape", true));
  const Tensor& value = ctx.input(1);
  TFHOST_RETURN_IF_ERROR(
      state_internal::AssignVariable(ctx, name, dtype, "T", value, validate_shape));
  ctx.set_output(0, value);
  return OkStatus();
}

Status AssignUpdateKernel(KernelContext& ctx, bool subtract) {
  TFHOST_ASSIGN_OR_RETURN(std::string name, RefVariableName(ctx));
  TFHOST_ASSIGN_OR_RETURN(DType dtype, ctx.Attr<DType>("T"));
  TFHOST_ASSIGN_OR_RETURN(Tensor updated, state_internal::UpdateVariable(
                                              ctx, name, dtype, "T", ctx.input(1), subtract));
  ctx.set_output(0, std::move(updated));
  return OkStatus();
}

Status IsVariableInitializedKernel(KernelContext& ctx) {
  TFHOST_ASSIGN_OR_RETURN(std::string name, RefVariableName(ctx));
  ctx.set_output(0, Tensor::Scalar<bool>(state_internal::VariableIsInitialized(ctx, name)));
  return OkStatus();
}

ir::OpDefBuilder VariableSchema(const char* op) {
  return ir::OpDefBuilder(op)
      .Output("ref: Ref(dtype)")
      .Attr("shape: shape")
      .Attr("dtype: type")
      .Attr("container: string = ''")
      .Attr("shared_name: string = ''")
      .SetIsStateful();
}

ir::OpDefBuilder UpdateSchema(const char* op, bool is_assign) {
  ir::OpDefBuilder b(op);
  b.Input("ref: Ref(T)").Input("value: T").Output("output_ref: Ref(T)").Attr("T: type");
  if (is_assign) {
    b.Attr("validate_shape: bool = true").Attr("use_locking: bool = true");
  } else {
    b.Attr("use_locking: bool = false");
  }
  return b;
}

}  // namespace

void RegisterRefVariableOps(OpRegistry& registry) {
  registry.Register(VariableSchema("VariableV2"), VariableV2Kernel);
  registry.Register(VariableSchema("Variable"), VariableV2Kernel);
  registry.Register(UpdateSchema("Assign", true), AssignKernel);
  registry.Register(UpdateSchema("AssignAdd", false),
                    [](KernelContext& ctx) { return AssignUpdateKernel(ctx, false); });
  registry.Register(UpdateSchema("AssignSub", false),
                    [](KernelContext& ctx) { return AssignUpdateKernel(ctx, true); });
  registry.Register(ir::OpDefBuilder("IsVariableInitialized")
                        .Input("ref: Ref(dtype)")
                        .Output("is_initialized: bool")
                        .Attr("dtype: type"),
                    IsVariableInitializedKernel);
}

}  // namespace tfhost::ops
