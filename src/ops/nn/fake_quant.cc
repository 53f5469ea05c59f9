// Fake quantization of quantization-aware-trained models (TF Model
// Optimization's QAT layers export FakeQuantWithMinMaxVars and its
// per-channel form; tf.quantization.fake_quant_with_min_max_args): values are
// clamped to a nudged [min, max] and rounded to 2^num_bits levels, in float,
// with TensorFlow's nudging so that zero is exactly representable:
//
//   qmin = narrow_range ? 1 : 0, qmax = 2^num_bits - 1,
//   scale = (max - min) / (qmax - qmin), zp = qmin - min / scale rounded and
//   clamped to [qmin, qmax], nudged_min = (qmin - zp) * scale,
//   nudged_max = (qmax - zp) * scale,
//   y = floor((clamp(x, nudged_min, nudged_max) - nudged_min) * inv_scale + 0.5)
//       * scale + nudged_min, inv_scale = 1 / scale (Args: (qmax - qmin) /
//       (max - min)).
#include <cmath>

#include "ops/op_registry.h"
#include "ops/nn/nn_registrations.h"

namespace tfhost::ops::nn {
namespace {

struct Nudged {
  float min = 0, max = 0, scale = 0;
  // What values are multiplied by before rounding: 1 / scale, except that
  // TensorFlow's FakeQuantWithMinMaxArgs computes (qmax - qmin) / (max - min)
  // directly, and the two round differently for values halfway between two
  // levels (conformance case
  // FakeQuantWithMinMaxArgs/tf/min0.0_max1.0_bits8_narrow_False; its
  // FakeQuantWithMinMaxVars/tf/ twin checks 1 / scale).
  float inv_scale = 0;
};

Nudged Nudge(float min, float max, int64_t num_bits, bool narrow_range, bool direct_inverse) {
  const float qmin = narrow_range ? 1.0f : 0.0f;
  const float qmax = static_cast<float>((int64_t{1} << num_bits) - 1);
  Nudged n;
  n.scale = (max - min) / (qmax - qmin);
  n.inv_scale = direct_inverse ? (qmax - qmin) / (max - min) : 1.0f / n.scale;
  if (!(n.scale > 0)) {  // min == max (or inverted): everything maps to min
    n.min = n.max = min;
    n.scale = 0;
    return n;
  }
  const float zero_from_min = qmin - min / n.scale;
  float zp;
  if (zero_from_min < qmin) {
    zp = qmin;
  } else if (zero_from_min > qmax) {
    zp = qmax;
  } else {
    zp = std::round(zero_from_min);
  }
  n.min = (qmin - zp) * n.scale;
  n.max = (qmax - zp) * n.scale;
  return n;
}

float Quantize(float x, const Nudged& n) {
  if (n.scale == 0) return n.min;
  const float clamped = std::min(std::max(x, n.min), n.max);
  return std::floor((clamped - n.min) * n.inv_scale + 0.5f) * n.scale + n.min;
}

StatusOr<std::pair<int64_t, bool>> BitsAttrs(const KernelContext& ctx) {
  TFHOST_ASSIGN_OR_RETURN(int64_t bits, ctx.AttrOr<int64_t>("num_bits", 8));
  TFHOST_ASSIGN_OR_RETURN(bool narrow, ctx.AttrOr<bool>("narrow_range", false));
  if (bits < 2 || bits > 16) return ctx.Error("num_bits must be in [2, 16], got " + std::to_string(bits));
  return std::make_pair(bits, narrow);
}

Status Apply(KernelContext& ctx, const std::vector<Nudged>& per_channel) {
  const Tensor& x = ctx.input(0);
  if (x.dtype() != DType::kFloat) return ctx.Error("inputs must be float32");
  const int64_t channels = static_cast<int64_t>(per_channel.size());
  if (channels > 1 && (x.rank() < 1 || x.dim(x.rank() - 1) != channels)) {
    return ctx.Error("inputs' last dim must be " + std::to_string(channels) + ", got " + x.shape().ToString());
  }
  Tensor out(DType::kFloat, x.shape());
  for (int64_t i = 0; i < x.NumElements(); ++i) {
    out.data<float>()[i] = Quantize(x.data<float>()[i], per_channel[channels > 1 ? i % channels : 0]);
  }
  ctx.set_output(0, std::move(out));
  return OkStatus();
}

Status FakeQuantArgs(KernelContext& ctx) {
  TFHOST_ASSIGN_OR_RETURN(auto bits, BitsAttrs(ctx));
  TFHOST_ASSIGN_OR_RETURN(float min, ctx.AttrOr<float>("min", -6.0f));
  TFHOST_ASSIGN_OR_RETURN(float max, ctx.AttrOr<float>("max", 6.0f));
  if (min >= max) return ctx.Error("min " + std::to_string(min) + " must be below max " + std::to_string(max));
  return Apply(ctx, {Nudge(min, max, bits.first, bits.second, /*direct_inverse=*/true)});
}

Status FakeQuantVars(KernelContext& ctx, bool per_channel) {
  TFHOST_ASSIGN_OR_RETURN(auto bits, BitsAttrs(ctx));
  const Tensor& min = ctx.input(1);
  const Tensor& max = ctx.input(2);
  if (min.dtype() != DType::kFloat || max.dtype() != DType::kFloat || min.shape() != max.shape() ||
      (per_channel ? min.rank() != 1 : min.NumElements() != 1)) {
    return ctx.Error(std::string("min and max must be float ") + (per_channel ? "vectors" : "scalars") +
                     " of one shape, got " + min.shape().ToString() + " and " + max.shape().ToString());
  }
  std::vector<Nudged> n;
  for (int64_t c = 0; c < min.NumElements(); ++c) {
    n.push_back(Nudge(min.data<float>()[c], max.data<float>()[c], bits.first, bits.second, /*direct_inverse=*/false));
  }
  if (per_channel && n.size() == 1 && ctx.input(0).rank() >= 1 && ctx.input(0).dim(ctx.input(0).rank() - 1) != 1) {
    return ctx.Error("inputs' last dim must be 1 for one channel, got " + ctx.input(0).shape().ToString());
  }
  if (n.empty()) return ctx.Error("min and max must not be empty");
  return Apply(ctx, n);
}

}  // namespace

void RegisterFakeQuantOps(OpRegistry& registry) {
  registry.Register(ir::OpDefBuilder("FakeQuantWithMinMaxArgs")
                        .Input("inputs: float")
                        .Output("outputs: float")
                        .Attr("min: float = -6.0")
                        .Attr("max: float = 6.0")
                        .Attr("num_bits: int = 8")
                        .Attr("narrow_range: bool = false"),
                    FakeQuantArgs);
  for (const char* name : {"FakeQuantWithMinMaxVars", "FakeQuantWithMinMaxVarsPerChannel"}) {
    const bool per_channel = std::string(name) == "FakeQuantWithMinMaxVarsPerChannel";
    registry.Register(ir::OpDefBuilder(name)
                          .Input("inputs: float")
                          .Input("min: float")
                          .Input("max: float")
                          .Output("outputs: float")
                          .Attr("num_bits: int = 8")
                          .Attr("narrow_range: bool = false"),
                      [per_channel](KernelContext& ctx) { return FakeQuantVars(ctx, per_channel); });
  }
}

}  // namespace tfhost::ops::nn
