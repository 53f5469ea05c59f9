// LRN (local response normalization) across channels of an NHWC tensor:
//   sqr_sum[c] = sum over c' in [c - r, c + r] (clamped) of x[c']^2
//   y[c] = x[c] / (bias + alpha * sqr_sum[c])^beta
// The window sum accumulates in double.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>

#include "ops/nn/nn_registrations.h"
#include "ops/nn/nn_util.h"

namespace tfhost::ops::nn {

namespace {

Status LrnImpl(const KernelContext& ctx, const std::vector<Tensor>& in, std::vector<Tensor>& out) {
  const Tensor& x = in[0];
  TFHOST_ASSIGN_OR_RETURN(int64_t radius, ctx.AttrOr<int64_t>("depth_radius", 5));
  TFHOST_ASSIGN_OR_RETURN(float bias, ctx.AttrOr<float>("bias", 1.0f));
  TFHOST_ASSIGN_OR_RETURN(float alpha, ctx.AttrOr<float>("alpha", 1.0f));
  TFHOST_ASSIGN_OR_RETURN(float beta, ctx.AttrOr<float>("beta", 0.5f));
  if (x.rank() != 4) return ctx.Error("input must be 4-D, got shape " + x.shape().ToString());
  if (radius < 0) return ctx.Error("depth_radius must be >= 0, got " + std::to_string(radius));
  // TensorFlow's kernel holds it in an int; past that it refuses the node,
  // and c + radius below cannot overflow.
  if (radius > std::numeric_limits<int32_t>::max()) {
    return ctx.Error("depth_radius = " + std::to_string(radius) + " larger than int max");
  }
  if (x.dtype() != DType::kFloat) {
    return Unimplemented(ir::NodeContext(ctx.node()) + ": dtype " + DTypeShortName(x.dtype()) +
                         " is not supported (expected float32, float16 or bfloat16)");
  }
  const int64_t depth = x.dim(3);
  const int64_t pixels = depth == 0 ? 0 : x.NumElements() / depth;
  Tensor y(DType::kFloat, x.shape());
  const float* xp = x.data<float>();
  float* yp = y.data<float>();
  for (int64_t p = 0; p < pixels; ++p) {
    const float* row = xp + p * depth;
    float* out_row = yp + p * depth;
    for (int64_t c = 0; c < depth; ++c) {
      const int64_t lo = std::max<int64_t>(c - radius, 0);
      const int64_t hi = std::min<int64_t>(c + radius, depth - 1);
      double sum = 0;
      for (int64_t k = lo; k <= hi; ++k) sum += double(row[k]) * row[k];
      out_row[c] = static_cast<float>(row[c] / std::pow(double(bias) + double(alpha) * sum,
                                                        double(beta)));
    }
  }
  out[0] = y;
  return OkStatus();
}

}  // namespace

void RegisterLrnOps(OpRegistry& registry) {
  registry.Register(ir::OpDefBuilder("LRN")
                        .Input("input: T")
                        .Output("output: T")
                        .Attr("depth_radius: int = 5")
                        .Attr("bias: float = 1.0")
                        .Attr("alpha: float = 1.0")
                        .Attr("beta: float = 0.5")
                        .Attr("T: {half, bfloat16, float} = DT_FLOAT"),
                    [](KernelContext& ctx) { return RunWidened(ctx, 1, 0, {0}, LrnImpl); });
}

}  // namespace tfhost::ops::nn
