// Ops that move tensors through a graph without computing: constants,
// placeholders, identities, no-ops, assertions, and TF1 conditionals
// (Switch/Merge with dead-tensor propagation done by the executor).
#include "ops/control_flow/control_flow_ops.h"

#include "ir/tensor_proto.h"

namespace tfhost::ops {

namespace {

Status ConstKernel(KernelContext& ctx) {
  TFHOST_ASSIGN_OR_RETURN(Tensor value, ctx.Attr<Tensor>("value"));
  TFHOST_ASSIGN_OR_RETURN(DType dtype, ctx.Attr<DType>("dtype"));
  if (value.dtype() != dtype) {
    return ctx.Error("value has dtype " + DTypeName(value.dtype()) + " but attr dtype is " + DTypeName(dtype));
  }
  ctx.set_output(0, std::move(value));
  return OkStatus();
}

Status PlaceholderKernel(KernelContext& ctx) {
  TFHOST_ASSIGN_OR_RETURN(DType dtype, ctx.Attr<DType>("dtype"));
  return InvalidArgument("you must feed a value for placeholder tensor '" + ctx.node().name +
                         "' with dtype " + DTypeShortName(dtype));
}

Status ForwardInputs(KernelContext& ctx) {
  for (int i = 0; i < ctx.num_inputs(); ++i) ctx.set_output(i, ctx.TakeInput(i));
  return OkStatus();
}

Status NoOpKernel(KernelContext&) { return OkStatus(); }

Status AssertKernel(KernelContext& ctx) {
  TFHOST_RETURN_IF_ERROR(ctx.CheckDType(0, DType::kBool));
  const Tensor& cond = ctx.input(0);
  if (cond.NumElements() != 1) return ctx.Error("condition must be a scalar, got " + cond.shape().ToString());
  if (cond.data<bool>()[0]) return OkStatus();
  std::string message = "assertion failed:";
  for (int i = 1; i < ctx.num_inputs(); ++i) message += " " + ctx.input(i).DebugString(3);
  return InvalidArgument(ir::NodeContext(ctx.node()) + ": " + message);
}

Status SwitchKernel(KernelContext& ctx) {
  const Tensor& pred = ctx.input(1);
  if (pred.dtype() != DType::kBool || pred.NumElements() != 1) {
    return ctx.Error("pred must be a bool scalar, got " + DTypeShortName(pred.dtype()) + pred.shape().ToString());
  }
  bool taken = pred.data<bool>()[0];
  ctx.set_output(taken ? 1 : 0, ctx.TakeInput(0));
  ctx.set_output_dead(taken ? 0 : 1);
  return OkStatus();
}

// Forwards the first live input. The executor runs Merge once all inputs are
// settled (graphs without loops), so "first live" is well defined.
Status MergeKernel(KernelContext& ctx) {
  for (int i = 0; i < ctx.num_inputs(); ++i) {
    if (ctx.input_is_dead(i)) continue;
    ctx.set_output(0, ctx.TakeInput(i));
    ctx.set_output(1, Tensor::Scalar<int32_t>(i));
    return OkStatus();
  }
  ctx.set_output_dead(0);
  ctx.set_output_dead(1);
  return OkStatus();
}

// The copy placement inserts where memory spaces meet (backends/placement.h).
// Copies to or from device memory are run by the device's backend, never by
// this kernel; between host-readable spaces (host, pinned host) the bytes
// need no move, so the tensor passes through.
Status MemoryCopyKernel(KernelContext& ctx) {
  auto to = ctx.Attr<std::string>("to");
  if (!to.ok()) return to.status();
  auto space = MemorySpace::Parse(*to);
  if (!space.ok()) return ctx.Error("attr 'to': " + space.status().message());
  if (!ctx.input(0).memory_space().host_accessible() || !space->host_accessible()) {
    return ctx.Error("a copy from " + ctx.input(0).memory_space().ToString() + " to " + *to +
                     " is run by the device's backend; this node was not placed on one");
  }
  ctx.set_output(0, ctx.TakeInput(0));
  return OkStatus();
}

}  // namespace

void RegisterGraphPlumbingOps(OpRegistry& r) {
  r.Register(ir::OpDefBuilder("_TfhostCopy").Input("input: T").Output("output: T").Attr("T: type")
                 .Attr("from: string").Attr("to: string").Attr("constant_source: bool = false"),
             MemoryCopyKernel);
  r.Register(ir::OpDefBuilder("Const").Output("output: dtype").Attr("value: tensor").Attr("dtype: type"),
             ConstKernel);
  r.Register(ir::OpDefBuilder("Placeholder").Output("output: dtype").Attr("dtype: type")
                 .Attr("shape: shape = unknown"),
             PlaceholderKernel);
  r.Register(ir::OpDefBuilder("PlaceholderWithDefault").Input("input: dtype").Output("output: dtype")
                 .Attr("dtype: type").Attr("shape: shape"),
             ForwardInputs);
  for (const char* op : {"Identity", "StopGradient", "Snapshot", "PreventGradient"}) {
    r.Register(ir::OpDefBuilder(op).Input("input: T").Output("output: T").Attr("T: type"), ForwardInputs);
  }
  r.Register(ir::OpDefBuilder("IdentityN").Input("input: T").Output("output: T").Attr("T: list(type)"),
             ForwardInputs);
  r.Register(ir::OpDefBuilder("NoOp"), NoOpKernel);
  r.Register(ir::OpDefBuilder("Assert").Input("condition: bool").Input("data: T").Attr("T: list(type)")
                 .Attr("summarize: int = 3").SetIsStateful(),
             AssertKernel);
  r.Register(ir::OpDefBuilder("Switch").Input("data: T").Input("pred: bool").Output("output_false: T")
                 .Output("output_true: T").Attr("T: type"),
             SwitchKernel);
  r.Register(ir::OpDefBuilder("Merge").Input("inputs: N * T").Output("output: T")
                 .Output("value_index: int32").Attr("T: type").Attr("N: int >= 1"),
             MergeKernel, /*handles_dead_inputs=*/true);
  // Ref variants of TF1 graphs with reference variables inside conditionals.
  r.Register(ir::OpDefBuilder("RefSwitch").Input("data: Ref(T)").Input("pred: bool").Output("output_false: Ref(T)")
                 .Output("output_true: Ref(T)").Attr("T: type"),
             SwitchKernel);
  r.Register(ir::OpDefBuilder("RefMerge").Input("inputs: Ref(N * T)").Output("output: Ref(T)")
                 .Output("value_index: int32").Attr("T: type").Attr("N: int >= 1"),
             MergeKernel, /*handles_dead_inputs=*/true);
}

}  // namespace tfhost::ops
