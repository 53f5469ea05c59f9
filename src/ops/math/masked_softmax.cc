#include "ops/math/masked_softmax.h"

#include <string>

#include "ops/math/math_ops.h"
#include "ops/run_single_op.h"

namespace tfhost::ops::math {
namespace {

Status MaskedSoftmaxKernel(KernelContext& ctx) {
  const OpRegistry& registry = OpRegistry::Global();
  const ir::AttrMap attrs = {{"T", MakeAttr(DType::kFloat)}};
  TFHOST_ASSIGN_OR_RETURN(ir::Node select, MakeSingleOpNode("SelectV2", attrs));
  TFHOST_ASSIGN_OR_RETURN(ir::Node softmax, MakeSingleOpNode("Softmax", attrs));
  select.name = ctx.node().name + "/select";
  softmax.name = ctx.node().name + "/softmax";
  auto masked = RunKernelOnNode(select, registry.Find("SelectV2")->kernel, {ctx.input(1), ctx.input(0), ctx.input(2)},
                                nullptr, ctx.intra_op());
  if (!masked.ok()) return masked.status();
  auto out = RunKernelOnNode(softmax, registry.Find("Softmax")->kernel, {std::move((*masked)[0])}, nullptr,
                             ctx.intra_op());
  if (!out.ok()) return out.status();
  TFHOST_ASSIGN_OR_RETURN(bool zero_masked, ctx.AttrOr<bool>("zero_masked", false));
  if (zero_masked) {
    select.name = ctx.node().name + "/zero_masked";
    out = RunKernelOnNode(select, registry.Find("SelectV2")->kernel,
                          {ctx.input(1), std::move((*out)[0]), Tensor::Scalar<float>(0.0f)}, nullptr, ctx.intra_op());
    if (!out.ok()) return out.status();
  }
  ctx.set_output(0, std::move((*out)[0]));
  return OkStatus();
}

}  // namespace

void RegisterMaskedSoftmaxOp(OpRegistry& registry) {
  registry.Register(ir::OpDefBuilder(kMaskedSoftmaxOp)
                        .Input("logits: T")
                        .Input("mask: bool")
                        .Input("fill: T")
                        .Output("softmax: T")
                        .Attr("T: {float}")
                        .Attr("zero_masked: bool = false"),
                    MaskedSoftmaxKernel);
}

}  // namespace tfhost::ops::math
