// Shape functions of the graph plumbing ops: identities pass shapes, known
// values and resource-handle shapes straight through; Switch forwards its
// data to both branches; Merge keeps only what every input agrees on, since
// any one of them may be the live one at run time.
#include "ops/shape_inference.h"

namespace tfhost::ops {

namespace {

Status SwitchShape(ShapeContext& ctx) {
  for (int i = 0; i < 2; ++i) {
    ctx.set_output(i, ctx.input(0));
    if (ctx.input_handle_shape(0).rank_known()) ctx.set_output_handle_shape(i, ctx.input_handle_shape(0));
  }
  return OkStatus();
}

Status MergeShape(ShapeContext& ctx) {
  if (ctx.num_inputs() > 0) {
    ir::PartialShape out = ctx.input(0);
    for (int i = 1; i < ctx.num_inputs(); ++i) out = ir::RelaxShapes(out, ctx.input(i));
    ctx.set_output(0, std::move(out));
  }
  ctx.set_output(1, ir::PartialShape::Scalar());  // value_index
  return OkStatus();
}

}  // namespace

void RegisterControlFlowShapeFns(ShapeFnRegistry& registry) {
  registry.Register({"Identity", "StopGradient", "Snapshot", "PreventGradient", "IdentityN", "Enter", "Exit",
                     "RefIdentity", "NextIteration", "CheckNumerics", "EnsureShape"},
                    ForwardAllInputs);
  registry.Register("Switch", SwitchShape);
  registry.Register("Merge", MergeShape);
}

}  // namespace tfhost::ops
