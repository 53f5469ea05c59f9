#include "ops/nn/expand_depthwise.h"

#include <string>
#include <vector>

#include "ir/attrs.h"
#include "ops/nn/nn_registrations.h"
#include "ops/op_registry.h"
#include "ops/run_single_op.h"

namespace tfhost::ops::nn {
namespace {

// A fused_ops list the parts take: BiasAdd, then at most one activation.
Status CheckFusedOps(const ir::Node& node, const char* attr, const std::vector<std::string>& ops) {
  if (ops.empty() || ops.size() > 2 || ops[0] != "BiasAdd") {
    return InvalidArgument(ir::NodeContext(node) + ": " + attr +
                           " must be BiasAdd followed by at most one activation, got " +
                           std::to_string(ops.size()) + " ops" + (ops.empty() ? "" : " starting with " + ops[0]));
  }
  return OkStatus();
}

Status ExpandDepthwiseKernel(KernelContext& ctx) {
  auto parts = SplitExpandDepthwise(ctx.node());
  if (!parts.ok()) return parts.status();
  const OpRegistry& registry = OpRegistry::Global();
  auto expanded = RunKernelOnNode(parts->expand, registry.Find("_FusedConv2D")->kernel,
                                  {ctx.input(0), ctx.input(1), ctx.input(2)}, nullptr, ctx.intra_op());
  if (!expanded.ok()) return expanded.status();
  auto out = RunKernelOnNode(parts->depthwise, registry.Find("FusedDepthwiseConv2dNative")->kernel,
                             {std::move((*expanded)[0]), ctx.input(3), ctx.input(4)}, nullptr, ctx.intra_op());
  if (!out.ok()) return out.status();
  ctx.set_output(0, std::move((*out)[0]));
  return OkStatus();
}

}  // namespace

StatusOr<ExpandDepthwiseParts> SplitExpandDepthwise(const ir::Node& node) {
  TFHOST_ASSIGN_OR_RETURN(auto expand_ops, ir::GetAttr<std::vector<std::string>>(node, "expand_fused_ops"));
  TFHOST_ASSIGN_OR_RETURN(auto depthwise_ops, ir::GetAttr<std::vector<std::string>>(node, "depthwise_fused_ops"));
  TFHOST_RETURN_IF_ERROR(CheckFusedOps(node, "expand_fused_ops", expand_ops));
  TFHOST_RETURN_IF_ERROR(CheckFusedOps(node, "depthwise_fused_ops", depthwise_ops));
  ir::AttrMap expand = {{"T", MakeAttr(DType::kFloat)},
                        {"strides", MakeAttr(std::vector<int64_t>{1, 1, 1, 1})},
                        {"padding", MakeAttr("VALID")},
                        {"fused_ops", MakeAttr(expand_ops)},
                        {"num_args", MakeAttr(int64_t{1})}};
  ir::AttrMap depthwise = {{"T", MakeAttr(DType::kFloat)}, {"fused_ops", MakeAttr(depthwise_ops)},
                           {"num_args", MakeAttr(int64_t{1})}};
  for (const char* attr : {"strides", "padding", "explicit_paddings", "data_format", "dilations"}) {
    if (const auto* v = node.FindAttr(attr)) depthwise[attr] = *v;
  }
  ExpandDepthwiseParts parts;
  TFHOST_ASSIGN_OR_RETURN(parts.expand, MakeSingleOpNode("_FusedConv2D", std::move(expand)));
  TFHOST_ASSIGN_OR_RETURN(parts.depthwise, MakeSingleOpNode("FusedDepthwiseConv2dNative", std::move(depthwise)));
  parts.expand.name = node.name + "/expand";
  parts.depthwise.name = node.name + "/depthwise";
  return parts;
}

void RegisterExpandDepthwiseOps(OpRegistry& registry) {
  registry.Register(ir::OpDefBuilder(kExpandDepthwiseOp)
                        .Input("x: T")
                        .Input("expand_filter: T")
                        .Input("expand_bias: T")
                        .Input("depthwise_filter: T")
                        .Input("depthwise_bias: T")
                        .Output("y: T")
                        .Attr("T: {float}")
                        .Attr("expand_fused_ops: list(string)")
                        .Attr("depthwise_fused_ops: list(string)")
                        .Attr("strides: list(int)")
                        .Attr("padding: {'SAME', 'VALID', 'EXPLICIT'}")
                        .Attr("explicit_paddings: list(int) = []")
                        .Attr("data_format: {'NHWC'} = 'NHWC'")
                        .Attr("dilations: list(int) = [1, 1, 1, 1]"),
                    ExpandDepthwiseKernel);
}

}  // namespace tfhost::ops::nn
