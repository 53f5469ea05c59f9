#include "ops/nn/layer_norm.h"

#include <cmath>
#include <string>

#include "ir/attrs.h"
#include "ops/nn/nn_registrations.h"
#include "ops/run_single_op.h"

namespace tfhost::ops::nn {

StatusOr<LayerNormGeometry> CheckLayerNormInputs(const KernelContext& ctx) {
  return CheckLayerNormOperands(ctx, ctx.input(0), ctx.input(1), ctx.input(2));
}

StatusOr<LayerNormGeometry> CheckLayerNormOperands(const KernelContext& ctx, const Tensor& x, const Tensor& gamma,
                                                   const Tensor& beta) {
  static constexpr const char* kNames[] = {"x", "gamma", "beta"};
  const Tensor* operands[] = {&x, &gamma, &beta};
  for (int i = 0; i < 3; ++i) {
    if (operands[i]->dtype() != DType::kFloat) {
      return ctx.Error(std::string("input ") + kNames[i] + " must be float32, got " +
                       DTypeShortName(operands[i]->dtype()));
    }
  }
  if (x.rank() < 1) return ctx.Error("input x must have at least one dim (the normalized axis), got a scalar");
  LayerNormGeometry g;
  g.channels = x.dim(x.rank() - 1);
  g.rows = g.channels == 0 ? 0 : x.NumElements() / g.channels;
  for (int i = 1; i < 3; ++i) {
    const Tensor& p = *operands[i];
    bool per_channel = p.rank() >= 1 && p.rank() <= x.rank() && p.dim(p.rank() - 1) == g.channels;
    for (int d = 0; per_channel && d + 1 < p.rank(); ++d) per_channel = p.dim(d) == 1;
    if (!per_channel) {
      return ctx.Error(std::string("input ") + kNames[i] + " must hold one value per channel of x " +
                       x.shape().ToString() + " (shape [" + std::to_string(g.channels) +
                       "] or [1, ..., 1, " + std::to_string(g.channels) + "] of rank at most " +
                       std::to_string(x.rank()) + "), got " + p.shape().ToString());
    }
  }
  return g;
}

void LayerNormRowReference(const float* x, const float* gamma, const float* beta, float epsilon, float* y,
                           int64_t channels) {
  const int64_t n = channels;
  double sum = 0;
  for (int64_t j = 0; j < n; ++j) sum += static_cast<double>(x[j]);
  const float mean = static_cast<float>(sum / static_cast<double>(n));
  double squares = 0;
  for (int64_t j = 0; j < n; ++j) {
    const float d = x[j] - mean;
    squares += static_cast<double>(d * d);
  }
  const float var = static_cast<float>(squares / static_cast<double>(n));
  const float inv = 1.0f / std::sqrt(var + epsilon);
  const float neg_mean = -mean;
  for (int64_t j = 0; j < n; ++j) {
    const float m = inv * gamma[j];
    y[j] = x[j] * m + (neg_mean * m + beta[j]);
  }
}

namespace {

// Layer norm of x with the node's gamma and beta (inputs `first` and
// `first + 1`).
Status NormalizeInto(KernelContext& ctx, const Tensor& x, int first) {
  const Tensor& gamma = ctx.input(first);
  const Tensor& beta = ctx.input(first + 1);
  TFHOST_ASSIGN_OR_RETURN(LayerNormGeometry g, CheckLayerNormOperands(ctx, x, gamma, beta));
  TFHOST_ASSIGN_OR_RETURN(float epsilon, ctx.Attr<float>("epsilon"));
  TFHOST_ASSIGN_OR_RETURN(Tensor y, ctx.AllocateOutput(DType::kFloat, x.shape()));
  for (int64_t r = 0; r < g.rows; ++r) {
    LayerNormRowReference(x.data<float>() + r * g.channels, gamma.data<float>(), beta.data<float>(), epsilon,
                          y.data<float>() + r * g.channels, g.channels);
  }
  ctx.set_output(0, std::move(y));
  return OkStatus();
}

Status LayerNormKernel(KernelContext& ctx) { return NormalizeInto(ctx, ctx.input(0), 1); }

// AddV2(a, b), broadcasting as AddV2 does, then the layer norm.
Status AddLayerNormKernel(KernelContext& ctx) {
  TFHOST_ASSIGN_OR_RETURN(ir::Node add, MakeSingleOpNode("AddV2", {{"T", MakeAttr(DType::kFloat)}}));
  add.name = ctx.node().name + "/add";
  auto sum = RunKernelOnNode(add, OpRegistry::Global().Find("AddV2")->kernel, {ctx.input(0), ctx.input(1)}, nullptr,
                             ctx.intra_op());
  if (!sum.ok()) return sum.status();
  return NormalizeInto(ctx, (*sum)[0], 2);
}

}  // namespace

void RegisterLayerNormOps(OpRegistry& registry) {
  registry.Register(ir::OpDefBuilder(kLayerNormOp)
                        .Input("x: T")
                        .Input("gamma: T")
                        .Input("beta: T")
                        .Output("y: T")
                        .Attr("T: {float}")
                        .Attr("epsilon: float"),
                    LayerNormKernel);
  registry.Register(ir::OpDefBuilder(kAddLayerNormOp)
                        .Input("a: T")
                        .Input("b: T")
                        .Input("gamma: T")
                        .Input("beta: T")
                        .Output("y: T")
                        .Attr("T: {float}")
                        .Attr("epsilon: float"),
                    AddLayerNormKernel);
}

}  // namespace tfhost::ops::nn
