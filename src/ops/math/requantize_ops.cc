// _TfhostRequantize: an integer accumulator (a quantized convolution's or
// matrix product's sum of (q_in - zero_point) x q_weight, plus its int32
// bias) rescaled to a quantized output the way TensorFlow Lite's integer
// kernels do it, so that every stored integer equals theirs:
//
//   out = clamp(MultiplyByQuantizedMultiplier(acc, multiplier, shift)
//               + zero_point, clamp_min, clamp_max)
//
// with one (multiplier, shift) per output channel (the last dimension) or
// one for the tensor. An int32 output is an intermediate of TFLite's
// integer ADD, which rescales each operand before the sum. MultiplyByQuantizedMultiplier is gemmlowp's
// fixed-point product: a saturating, rounding doubling high multiply by the
// Q31 multiplier after a left shift, then a rounding right shift (halves
// away from zero). The loader computes multiplier and shift from the real
// scale input_scale x weight_scale / output_scale as TFLite's
// QuantizeMultiplier does (requantize.h).
//
// TFLite's reference FULLY_CONNECTED rescales in double instead:
//
//   out = clamp(round(acc * (input_scale * weight_scale / output_scale))
//               + zero_point, clamp_min, clamp_max)
//
// with the scale product and quotient in double from the float32 scales
// and round() halving away from zero. Given weight_scales (one, or one per
// channel) with input_scale and output_scale, the op computes that; the
// two forms round differently near halves (the fixed-point one rounds
// twice), so each model follows the arithmetic of the kernel it came from.
//
// The accumulator may come as int32 or as float32 holding integers (the sum
// a float kernel computes exactly from integer-valued operands); a float is
// rounded to the nearest integer first.
#include "ops/math/requantize.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "ops/math/math_ops.h"

namespace tfhost::ops {

QuantizedMultiplier QuantizeMultiplier(double real_multiplier) {
  QuantizedMultiplier out;
  if (!(real_multiplier > 0) || !std::isfinite(real_multiplier)) return out;
  int shift = 0;
  const double q = std::frexp(real_multiplier, &shift);
  int64_t q_fixed = static_cast<int64_t>(std::round(q * (1LL << 31)));
  if (q_fixed == (1LL << 31)) {
    q_fixed /= 2;
    ++shift;
  }
  if (shift < -31) return out;  // below the smallest representable multiplier: 0
  if (shift > 30) {             // saturates, as TFLite clamps it
    shift = 30;
    q_fixed = (1LL << 31) - 1;
  }
  out.multiplier = static_cast<int32_t>(q_fixed);
  out.shift = shift;
  return out;
}

int32_t SaturatingRoundingDoublingHighMul(int32_t a, int32_t b) {
  if (a == std::numeric_limits<int32_t>::min() && b == std::numeric_limits<int32_t>::min()) {
    return std::numeric_limits<int32_t>::max();
  }
  const int64_t ab = static_cast<int64_t>(a) * b;
  const int64_t nudge = ab >= 0 ? (int64_t{1} << 30) : (1 - (int64_t{1} << 30));
  return static_cast<int32_t>((ab + nudge) / (int64_t{1} << 31));
}

int32_t RoundingDivideByPot(int32_t x, int exponent) {
  if (exponent <= 0) return x;
  // In 64 bits, so that a shift of 32 or more (which a table built from a
  // model's scales can ask for) is defined: every int32 then rounds to 0
  // or, for -2^31 / 2^32 exactly, away from zero to -1.
  const int e = exponent > 62 ? 62 : exponent;
  const int64_t wide = x;
  const int64_t mask = (int64_t{1} << e) - 1;
  const int64_t remainder = wide & mask;
  const int64_t threshold = (mask >> 1) + (x < 0 ? 1 : 0);
  return static_cast<int32_t>((wide >> e) + (remainder > threshold ? 1 : 0));
}

int32_t MultiplyByQuantizedMultiplier(int32_t x, int32_t multiplier, int shift) {
  const int left_shift = shift > 0 ? shift : 0;
  const int right_shift = shift > 0 ? 0 : -shift;
  // TFLite shifts in int32; where that would overflow (never for the sums
  // of its own kernels), tfhost saturates instead.
  const int64_t shifted64 = static_cast<int64_t>(x) * (int64_t{1} << left_shift);
  const int32_t a = static_cast<int32_t>(std::clamp<int64_t>(shifted64, std::numeric_limits<int32_t>::min(),
                                                             std::numeric_limits<int32_t>::max()));
  return RoundingDivideByPot(SaturatingRoundingDoublingHighMul(a, multiplier), right_shift);
}

namespace math {
namespace {

// NaN and values past int32 cannot come from integer operands; they
// saturate rather than being undefined.
inline int32_t ToInt32(float v) {
  return std::isnan(v) ? 0
         : v >= 2147483520.0f ? std::numeric_limits<int32_t>::max()
         : v <= -2147483648.0f ? std::numeric_limits<int32_t>::min()
                               : static_cast<int32_t>(std::nearbyint(v));
}
inline int32_t ToInt32(int32_t v) { return v; }

// Row by row, channel by channel: the channel is the position in the row,
// so no element needs a division to find its multiplier.
template <typename A, typename Q>
void Rescale(const A* acc, int64_t n, const std::vector<int64_t>& multipliers, const std::vector<int64_t>& shifts,
             int64_t zero_point, int64_t lo, int64_t hi, Q* out) {
  const int64_t channels = static_cast<int64_t>(multipliers.size());
  for (int64_t row = 0; row < n; row += channels) {
    for (int64_t c = 0; c < channels; ++c) {
      const int64_t i = row + c;
      const int64_t v = static_cast<int64_t>(MultiplyByQuantizedMultiplier(
                            ToInt32(acc[i]), static_cast<int32_t>(multipliers[c]), static_cast<int>(shifts[c]))) +
                        zero_point;
      out[i] = static_cast<Q>(std::clamp(v, lo, hi));
    }
  }
}

template <typename Q>
void Rescale(const Tensor& acc, const std::vector<int64_t>& multipliers, const std::vector<int64_t>& shifts,
             int64_t zero_point, int64_t lo, int64_t hi, Q* out) {
  if (acc.dtype() == DType::kFloat) {
    Rescale(acc.data<float>(), acc.NumElements(), multipliers, shifts, zero_point, lo, hi, out);
  } else {
    Rescale(acc.data<int32_t>(), acc.NumElements(), multipliers, shifts, zero_point, lo, hi, out);
  }
}

// The double form: one real multiplier per channel.
template <typename A, typename Q>
void RescaleInDouble(const A* acc, int64_t n, const std::vector<double>& reals, int64_t zero_point, int64_t lo,
                     int64_t hi, Q* out) {
  const int64_t channels = static_cast<int64_t>(reals.size());
  for (int64_t row = 0; row < n; row += channels) {
    for (int64_t c = 0; c < channels; ++c) {
      const int64_t i = row + c;
      const double scaled = std::round(static_cast<double>(ToInt32(acc[i])) * reals[c]);
      // Past int32 TFLite's cast is undefined; the clamp decides the same.
      const int64_t v = static_cast<int64_t>(std::clamp(scaled, -2147483648.0, 2147483647.0)) + zero_point;
      out[i] = static_cast<Q>(std::clamp(v, lo, hi));
    }
  }
}

template <typename Q>
void RescaleInDouble(const Tensor& acc, const std::vector<double>& reals, int64_t zero_point, int64_t lo, int64_t hi,
                     Q* out) {
  if (acc.dtype() == DType::kFloat) {
    RescaleInDouble(acc.data<float>(), acc.NumElements(), reals, zero_point, lo, hi, out);
  } else {
    RescaleInDouble(acc.data<int32_t>(), acc.NumElements(), reals, zero_point, lo, hi, out);
  }
}

// Either form into `out` (the output's element type Q).
template <typename Q>
void RescaleAny(const Tensor& acc, const std::vector<int64_t>& multipliers, const std::vector<int64_t>& shifts,
                const std::vector<double>& reals, int64_t zero_point, int64_t lo, int64_t hi, Q* out) {
  if (!reals.empty()) {
    RescaleInDouble(acc, reals, zero_point, lo, hi, out);
  } else {
    Rescale(acc, multipliers, shifts, zero_point, lo, hi, out);
  }
}

Status RequantizeKernel(KernelContext& ctx) {
  const Tensor& acc = ctx.input(0);
  TFHOST_ASSIGN_OR_RETURN(auto multipliers, ctx.Attr<std::vector<int64_t>>("multipliers"));
  TFHOST_ASSIGN_OR_RETURN(auto shifts, ctx.Attr<std::vector<int64_t>>("shifts"));
  TFHOST_ASSIGN_OR_RETURN(int64_t zero_point, ctx.Attr<int64_t>("zero_point"));
  TFHOST_ASSIGN_OR_RETURN(int64_t clamp_min, ctx.Attr<int64_t>("clamp_min"));
  TFHOST_ASSIGN_OR_RETURN(int64_t clamp_max, ctx.Attr<int64_t>("clamp_max"));
  TFHOST_ASSIGN_OR_RETURN(DType out_type, ctx.Attr<DType>("out_type"));
  TFHOST_ASSIGN_OR_RETURN(auto weight_scales, ctx.Attr<std::vector<float>>("weight_scales"));
  TFHOST_ASSIGN_OR_RETURN(float input_scale, ctx.Attr<float>("input_scale"));
  TFHOST_ASSIGN_OR_RETURN(float output_scale, ctx.Attr<float>("output_scale"));
  std::vector<double> reals;
  if (!weight_scales.empty()) {
    if (!multipliers.empty() || !shifts.empty()) {
      return ctx.Error("has both weight_scales and multipliers/shifts; expected one form of rescaling");
    }
    if (!(input_scale > 0) || !(output_scale > 0) || !std::isfinite(input_scale) || !std::isfinite(output_scale)) {
      return ctx.Error("input_scale " + std::to_string(input_scale) + " and output_scale " +
                       std::to_string(output_scale) + " must be positive and finite with weight_scales");
    }
    for (size_t c = 0; c < weight_scales.size(); ++c) {
      const double real =
          static_cast<double>(input_scale) * static_cast<double>(weight_scales[c]) / static_cast<double>(output_scale);
      // A NaN or infinite factor (a NaN scale, or an output scale so small
      // the quotient overflows) would turn accumulators into NaN.
      if (!(real >= 0) || !std::isfinite(real)) {
        return ctx.Error("weight_scales[" + std::to_string(c) + "] = " + std::to_string(weight_scales[c]) +
                         " gives the rescale factor " + std::to_string(real) +
                         " (input_scale x weight scale / output_scale); expected a finite, non-negative one");
      }
      reals.push_back(real);
    }
  } else if (multipliers.empty() || multipliers.size() != shifts.size()) {
    return ctx.Error("attrs multipliers and shifts must have the same, non-zero length; got " +
                     std::to_string(multipliers.size()) + " and " + std::to_string(shifts.size()));
  }
  for (size_t c = 0; c < multipliers.size(); ++c) {
    if (multipliers[c] < 0 || multipliers[c] > std::numeric_limits<int32_t>::max() || shifts[c] < -31 ||
        shifts[c] > 30) {
      return ctx.Error("channel " + std::to_string(c) + " has multiplier " + std::to_string(multipliers[c]) +
                       " and shift " + std::to_string(shifts[c]) + "; expected a Q31 multiplier in [0, 2^31) " +
                       "and a shift in [-31, 30]");
    }
  }
  const int64_t channels = static_cast<int64_t>(reals.empty() ? multipliers.size() : reals.size());
  if (channels > 1 && (acc.rank() == 0 || acc.dim(acc.rank() - 1) != channels)) {
    return ctx.Error("has " + std::to_string(channels) + " per-channel multipliers for an input of shape " +
                     acc.shape().ToString() + "; expected that many channels in its last dimension");
  }
  int64_t lo = 0, hi = 0;
  switch (out_type) {
    case DType::kInt8: lo = -128, hi = 127; break;
    case DType::kUInt8: lo = 0, hi = 255; break;
    case DType::kInt16: lo = -32768, hi = 32767; break;
    case DType::kInt32: lo = std::numeric_limits<int32_t>::min(), hi = std::numeric_limits<int32_t>::max(); break;
    default: return ctx.Error("out_type must be int8, uint8, int16 or int32, got " + DTypeShortName(out_type));
  }
  if (clamp_min < lo || clamp_max > hi || clamp_min > clamp_max) {
    return ctx.Error("clamp [" + std::to_string(clamp_min) + ", " + std::to_string(clamp_max) + "] must lie in [" +
                     std::to_string(lo) + ", " + std::to_string(hi) + "] and not be empty");
  }
  if (zero_point < lo || zero_point > hi) {
    return ctx.Error("attr zero_point " + std::to_string(zero_point) + " lies outside the range of " +
                     DTypeShortName(out_type));
  }
  TFHOST_ASSIGN_OR_RETURN(Tensor out, ctx.AllocateOutput(out_type, acc.shape()));
  switch (out_type) {
    case DType::kInt8:
      RescaleAny(acc, multipliers, shifts, reals, zero_point, clamp_min, clamp_max, out.data<int8_t>());
      break;
    case DType::kUInt8:
      RescaleAny(acc, multipliers, shifts, reals, zero_point, clamp_min, clamp_max, out.data<uint8_t>());
      break;
    case DType::kInt16:
      RescaleAny(acc, multipliers, shifts, reals, zero_point, clamp_min, clamp_max, out.data<int16_t>());
      break;
    default:
      RescaleAny(acc, multipliers, shifts, reals, zero_point, clamp_min, clamp_max, out.data<int32_t>());
      break;
  }
  ctx.set_output(0, std::move(out));
  return OkStatus();
}

}  // namespace

void RegisterRequantizeOp(OpRegistry& registry) {
  registry.Register(ir::OpDefBuilder("_TfhostRequantize")
                        .Input("accumulator: T")
                        .Output("output: out_type")
                        .Attr("T: {float, int32}")
                        .Attr("out_type: {int8, uint8, int16, int32}")
                        .Attr("multipliers: list(int) = []")
                        .Attr("shifts: list(int) = []")
                        .Attr("weight_scales: list(float) = []")
                        .Attr("input_scale: float = 0")
                        .Attr("output_scale: float = 0")
                        .Attr("zero_point: int")
                        .Attr("clamp_min: int")
                        .Attr("clamp_max: int"),
                    RequantizeKernel);
}

}  // namespace math
}  // namespace tfhost::ops
