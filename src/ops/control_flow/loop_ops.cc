// TF1 while-loop plumbing (Enter, Exit, NextIteration, LoopCond) and the
// schemas of TF2 functional control flow (If, While, Case, calls).
//
// The loop ops only forward their input: moving tensors between frames and
// iterations is the frame executor's job (runtime/frame_executor.h). The
// functional ops are run by the runtime's function runtime, which executes
// their bodies from the function library; their kernels here are never
// called by a session and say so.
#include <string>

#include "ops/control_flow/control_flow_ops.h"

namespace tfhost::ops {

namespace {

Status ForwardInput(KernelContext& ctx) {
  ctx.set_output(0, ctx.TakeInput(0));
  return OkStatus();
}

Status LoopCondKernel(KernelContext& ctx) {
  const Tensor& pred = ctx.input(0);
  if (pred.dtype() != DType::kBool || pred.NumElements() != 1) {
    return ctx.Error("the loop condition must be a bool scalar, got " + DTypeShortName(pred.dtype()) +
                     pred.shape().ToString());
  }
  ctx.set_output(0, ctx.TakeInput(0));
  return OkStatus();
}

Status RunByRuntime(KernelContext& ctx) {
  return ctx.Error("functional control flow runs only inside a session (it executes library functions)");
}

}  // namespace

void RegisterLoopOps(OpRegistry& r) {
  r.Register(ir::OpDefBuilder("Enter").Input("data: T").Output("output: T").Attr("T: type")
                 .Attr("frame_name: string").Attr("is_constant: bool = false")
                 .Attr("parallel_iterations: int = 10"),
             ForwardInput);
  r.Register(ir::OpDefBuilder("RefEnter").Input("data: Ref(T)").Output("output: Ref(T)").Attr("T: type")
                 .Attr("frame_name: string").Attr("is_constant: bool = false")
                 .Attr("parallel_iterations: int = 10"),
             ForwardInput);
  r.Register(ir::OpDefBuilder("Exit").Input("data: T").Output("output: T").Attr("T: type"), ForwardInput);
  r.Register(ir::OpDefBuilder("RefExit").Input("data: Ref(T)").Output("output: Ref(T)").Attr("T: type"),
             ForwardInput);
  r.Register(ir::OpDefBuilder("NextIteration").Input("data: T").Output("output: T").Attr("T: type"),
             ForwardInput);
  r.Register(ir::OpDefBuilder("RefNextIteration").Input("data: Ref(T)").Output("output: Ref(T)")
                 .Attr("T: type"),
             ForwardInput);
  r.Register(ir::OpDefBuilder("LoopCond").Input("input: bool").Output("output: bool"), LoopCondKernel);
  r.Register(ir::OpDefBuilder("ControlTrigger"), [](KernelContext&) { return OkStatus(); });

  // The stateful spellings may run stateful bodies; TensorFlow marks them so.
  auto stateful = [](ir::OpDefBuilder b, bool is_stateful) { return is_stateful ? b.SetIsStateful() : b; };
  for (const char* op : {"If", "StatelessIf"}) {
    r.Register(stateful(ir::OpDefBuilder(op).Input("cond: Tcond").Input("input: Tin").Output("output: Tout")
                            .Attr("Tcond: type").Attr("Tin: list(type) >= 0").Attr("Tout: list(type) >= 0")
                            .Attr("then_branch: func").Attr("else_branch: func")
                            .Attr("output_shapes: list(shape) = []"),
                        std::string(op) == "If"),
               RunByRuntime);
  }
  for (const char* op : {"While", "StatelessWhile"}) {
    r.Register(stateful(ir::OpDefBuilder(op).Input("input: T").Output("output: T").Attr("T: list(type) >= 0")
                            .Attr("cond: func").Attr("body: func").Attr("output_shapes: list(shape) = []")
                            .Attr("parallel_iterations: int = 10"),
                        std::string(op) == "While"),
               RunByRuntime);
  }
  for (const char* op : {"Case", "StatelessCase"}) {
    r.Register(stateful(ir::OpDefBuilder(op).Input("branch_index: int32").Input("input: Tin").Output("output: Tout")
                            .Attr("Tin: list(type) >= 0").Attr("Tout: list(type) >= 0")
                            .Attr("branches: list(func) >= 1").Attr("output_shapes: list(shape) = []"),
                        std::string(op) == "Case"),
               RunByRuntime);
  }
  for (const char* op : {"PartitionedCall", "StatefulPartitionedCall"}) {
    r.Register(stateful(ir::OpDefBuilder(op).Input("args: Tin").Output("output: Tout").Attr("Tin: list(type) >= 0")
                            .Attr("Tout: list(type) >= 0").Attr("f: func").Attr("config: string = \"\"")
                            .Attr("config_proto: string = \"\"").Attr("executor_type: string = \"\""),
                        std::string(op) == "StatefulPartitionedCall"),
               RunByRuntime);
  }
}

}  // namespace tfhost::ops
