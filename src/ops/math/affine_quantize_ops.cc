// _TfhostAffineQuantize and _TfhostAffineDequantize: float <-> integers
// under a scale and zero point, real = scale * (q - zero_point), one pair
// per tensor or one per slice along `axis` (per channel). This is
// the quantization TensorFlow Lite (and ONNX's QuantizeLinear) stores in a
// model, which TensorFlow's own QuantizeV2/Dequantize cannot express: those
// take a [min, max] range and have no zero point of their own.
//
// The TFLite loader brackets every quantized tensor with the pair, so each
// int8 tensor holds exactly the values LiteRT's would. The arithmetic is
// TFLite's reference kernels': quantize divides by the scale in float and
// rounds half away from zero (TfLiteRound), then saturates; round_mode
// HALF_TO_EVEN is ONNX QuantizeLinear's rounding instead; dequantize
// multiplies (q - zero_point) by the scale, exact before its one rounding.
// NaN, which TFLite leaves undefined, quantizes to the zero point.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "ops/math/math_ops.h"

namespace tfhost::ops::math {

namespace {

// One (scale, zero point) per slice along axis; a single pair when axis is -1.
struct Affine {
  std::vector<float> scales;
  std::vector<int64_t> zero_points;
  int64_t axis = -1;
  int64_t inner = 1;  // elements per slice step along the axis
};

StatusOr<Affine> ReadAffine(const KernelContext& ctx, const Shape& shape) {
  Affine a;
  TFHOST_ASSIGN_OR_RETURN(a.scales, ctx.Attr<std::vector<float>>("scales"));
  TFHOST_ASSIGN_OR_RETURN(a.zero_points, ctx.Attr<std::vector<int64_t>>("zero_points"));
  TFHOST_ASSIGN_OR_RETURN(a.axis, ctx.AttrOr<int64_t>("axis", -1));
  if (a.scales.empty() || a.scales.size() != a.zero_points.size()) {
    return ctx.Error("attrs scales and zero_points must have the same, non-zero length; got " +
                     std::to_string(a.scales.size()) + " and " + std::to_string(a.zero_points.size()));
  }
  for (float s : a.scales) {
    if (!(s > 0) || !std::isfinite(s)) {
      return ctx.Error("attr scales must hold positive finite numbers, got " + std::to_string(s));
    }
  }
  if (a.axis == -1) {
    if (a.scales.size() != 1) {
      return ctx.Error("attr axis is -1 (per tensor) but scales has " + std::to_string(a.scales.size()) +
                       " entries; expected 1");
    }
    return a;
  }
  if (a.axis < 0 || a.axis >= shape.rank() || shape.dim(a.axis) != static_cast<int64_t>(a.scales.size())) {
    return ctx.Error("attr axis " + std::to_string(a.axis) + " with " + std::to_string(a.scales.size()) +
                     " scales does not match the input shape " + shape.ToString() +
                     "; expected a dimension of that size");
  }
  for (int d = static_cast<int>(a.axis) + 1; d < shape.rank(); ++d) a.inner *= shape.dim(d);
  return a;
}

template <typename Q>
Status CheckZeroPoints(const KernelContext& ctx, const Affine& a) {
  for (int64_t z : a.zero_points) {
    if (z < std::numeric_limits<Q>::lowest() || z > std::numeric_limits<Q>::max()) {
      return ctx.Error("attr zero_points holds " + std::to_string(z) + ", outside the range of the " +
                       "quantized type [" + std::to_string(std::numeric_limits<Q>::lowest()) + ", " +
                       std::to_string(std::numeric_limits<Q>::max()) + "]");
    }
  }
  return OkStatus();
}

// Calls fn(begin, end, scale, zero_point) for each run of elements that
// share one pair.
template <typename Fn>
void ForEachRun(const Affine& a, int64_t n, Fn fn) {
  if (a.axis == -1) {
    fn(int64_t{0}, n, a.scales[0], a.zero_points[0]);
    return;
  }
  const int64_t channels = static_cast<int64_t>(a.scales.size());
  for (int64_t begin = 0, run = 0; begin < n; begin += a.inner, ++run) {
    const int64_t c = run % channels;
    fn(begin, std::min(n, begin + a.inner), a.scales[c], a.zero_points[c]);
  }
}

template <typename Q>
void QuantizeValues(const float* x, Q* y, int64_t n, const Affine& a, bool half_to_even) {
  constexpr float kLow = std::numeric_limits<Q>::lowest();
  constexpr float kHigh = std::numeric_limits<Q>::max();
  ForEachRun(a, n, [&](int64_t begin, int64_t end, float scale, int64_t zero_point) {
    const float zero = static_cast<float>(zero_point);
    for (int64_t i = begin; i < end; ++i) {
      // Rounding a float, then adding the integer zero point: exact in
      // float for every value that does not saturate (|q| < 2^24).
      // nearbyint rounds halves to even in the default rounding mode.
      const float v = x[i] / scale;
      float q = (half_to_even ? std::nearbyint(v) : std::round(v)) + zero;
      if (std::isnan(q)) q = zero;
      q = q < kLow ? kLow : (q > kHigh ? kHigh : q);
      y[i] = static_cast<Q>(q);
    }
  });
}

template <typename Q>
void DequantizeValues(const Q* q, float* y, int64_t n, const Affine& a) {
  // The difference in 64 bits: an int32 value minus its zero point can pass
  // int32 (the difference is exact either way for int8, uint8 and int16).
  ForEachRun(a, n, [&](int64_t begin, int64_t end, float scale, int64_t zero_point) {
    for (int64_t i = begin; i < end; ++i) y[i] = scale * static_cast<float>(static_cast<int64_t>(q[i]) - zero_point);
  });
}

template <typename Fn>
Status SwitchStorage(const KernelContext& ctx, DType d, Fn fn) {
  switch (d) {
    case DType::kInt8: return fn(int8_t{});
    case DType::kUInt8: return fn(uint8_t{});
    case DType::kInt16: return fn(int16_t{});
    case DType::kInt32: return fn(int32_t{});
    default: return ctx.Error("quantized type must be int8, uint8, int16 or int32, got " + DTypeShortName(d));
  }
}

Status AffineQuantizeKernel(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  TFHOST_ASSIGN_OR_RETURN(Affine a, ReadAffine(ctx, x.shape()));
  TFHOST_ASSIGN_OR_RETURN(DType out_type, ctx.Attr<DType>("out_type"));
  TFHOST_ASSIGN_OR_RETURN(std::string round_mode, ctx.AttrOr<std::string>("round_mode", "HALF_AWAY_FROM_ZERO"));
  const bool half_to_even = round_mode == "HALF_TO_EVEN";
  return SwitchStorage(ctx, out_type, [&](auto zero) -> Status {
    using Q = decltype(zero);
    TFHOST_RETURN_IF_ERROR(CheckZeroPoints<Q>(ctx, a));
    TFHOST_ASSIGN_OR_RETURN(Tensor y, ctx.AllocateOutput(out_type, x.shape()));
    QuantizeValues<Q>(x.data<float>(), static_cast<Q*>(y.raw_data()), x.NumElements(), a, half_to_even);
    ctx.set_output(0, std::move(y));
    return OkStatus();
  });
}

Status AffineDequantizeKernel(KernelContext& ctx) {
  const Tensor& q = ctx.input(0);
  TFHOST_ASSIGN_OR_RETURN(Affine a, ReadAffine(ctx, q.shape()));
  return SwitchStorage(ctx, q.dtype(), [&](auto zero) -> Status {
    using Q = decltype(zero);
    TFHOST_RETURN_IF_ERROR(CheckZeroPoints<Q>(ctx, a));
    TFHOST_ASSIGN_OR_RETURN(Tensor y, ctx.AllocateOutput(DType::kFloat, q.shape()));
    DequantizeValues<Q>(static_cast<const Q*>(q.raw_data()), y.data<float>(), q.NumElements(), a);
    ctx.set_output(0, std::move(y));
    return OkStatus();
  });
}

}  // namespace

void RegisterAffineQuantizeOps(OpRegistry& registry) {
  registry.Register(ir::OpDefBuilder("_TfhostAffineQuantize")
                        .Input("input: float")
                        .Output("output: out_type")
                        .Attr("out_type: {int8, uint8, int16}")
                        .Attr("scales: list(float)")
                        .Attr("zero_points: list(int)")
                        .Attr("axis: int = -1")
                        .Attr("round_mode: {'HALF_AWAY_FROM_ZERO', 'HALF_TO_EVEN'} = 'HALF_AWAY_FROM_ZERO'"),
                    AffineQuantizeKernel);
  registry.Register(ir::OpDefBuilder("_TfhostAffineDequantize")
                        .Input("input: T")
                        .Output("output: float")
                        .Attr("T: {int8, uint8, int16, int32}")
                        .Attr("scales: list(float)")
                        .Attr("zero_points: list(int)")
                        .Attr("axis: int = -1"),
                    AffineDequantizeKernel);
}

}  // namespace tfhost::ops::math
