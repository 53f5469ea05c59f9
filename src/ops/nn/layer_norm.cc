#include "ops/nn/layer_norm.h"

#include <cmath>
#include <string>

#include "ir/attrs.h"
#include "ops/nn/nn_registrations.h"

namespace tfhost::ops::nn {

StatusOr<LayerNormGeometry> CheckLayerNormInputs(const KernelContext& ctx) {
  static constexpr const char* kNames[] = {"x", "gamma", "beta"};
  for (int i = 0; i < 3; ++i) {
    if (ctx.input(i).dtype() != DType::kFloat) {
      return ctx.Error(std::string("input ") + kNames[i] + " must be float32, got " +
                       DTypeShortName(ctx.input(i).dtype()));
    }
  }
  const Tensor& x = ctx.input(0);
  if (x.rank() < 1) return ctx.Error("input x must have at least one dim (the normalized axis), got a scalar");
  LayerNormGeometry g;
  g.channels = x.dim(x.rank() - 1);
  g.rows = g.channels == 0 ? 0 : x.NumElements() / g.channels;
  for (int i = 1; i < 3; ++i) {
    const Tensor& p = ctx.input(i);
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

Status LayerNormKernel(KernelContext& ctx) {
  TFHOST_ASSIGN_OR_RETURN(LayerNormGeometry g, CheckLayerNormInputs(ctx));
  TFHOST_ASSIGN_OR_RETURN(float epsilon, ctx.Attr<float>("epsilon"));
  TFHOST_ASSIGN_OR_RETURN(Tensor y, ctx.AllocateOutput(DType::kFloat, ctx.input(0).shape()));
  const float* x = ctx.input(0).data<float>();
  for (int64_t r = 0; r < g.rows; ++r) {
    LayerNormRowReference(x + r * g.channels, ctx.input(1).data<float>(), ctx.input(2).data<float>(), epsilon,
                          y.data<float>() + r * g.channels, g.channels);
  }
  ctx.set_output(0, std::move(y));
  return OkStatus();
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
}

}  // namespace tfhost::ops::nn
