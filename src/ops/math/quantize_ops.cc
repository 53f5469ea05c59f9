// QuantizeV2 and Dequantize: float <-> TensorFlow's quantized types (qint8,
// quint8, qint16, quint16, qint32, stored as the same-width integers) in the
// three modes TensorFlow documents, MIN_COMBINED, MIN_FIRST and SCALED, per
// tensor or per channel (`axis`). Models that TF's graph transforms or the
// TF-TRT/INT8 converters rewrote carry these ops.
//
// The arithmetic follows TensorFlow's CPU kernels (quantize_op.cc,
// dequantize_op.cc, quantization_utils.h) step for step and in the same
// precision: the scale factors are rounded to float, the per-element math is
// float, and MIN_COMBINED/SCALED round half away from zero unless SCALED is
// asked for HALF_TO_EVEN. One deliberate difference: where TensorFlow casts a
// float that lies outside the integer type (qint32 at the very top of the
// range; undefined behaviour in C++), tfhost saturates to the type's limits.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>

#include "ops/math/math_ops.h"

namespace tfhost::ops::math {

namespace {

enum class Mode { kMinCombined, kMinFirst, kScaled };

StatusOr<Mode> ReadMode(const KernelContext& ctx) {
  TFHOST_ASSIGN_OR_RETURN(std::string mode, ctx.AttrOr<std::string>("mode", "MIN_COMBINED"));
  if (mode == "MIN_COMBINED") return Mode::kMinCombined;
  if (mode == "MIN_FIRST") return Mode::kMinFirst;
  if (mode == "SCALED") return Mode::kScaled;
  return ctx.Error("Mode string must be 'MIN_COMBINED', 'MIN_FIRST', or 'SCALED', is '" + mode + "'");
}

bool IsQuantized(DType d) {
  return d == DType::kQInt8 || d == DType::kQUInt8 || d == DType::kQInt16 || d == DType::kQUInt16 ||
         d == DType::kQInt32;
}

// Calls fn(T{}) with T the storage type of quantized dtype `d`.
template <typename Fn>
void SwitchQuantized(DType d, Fn fn) {
  switch (d) {
    case DType::kQInt8: fn(int8_t{}); break;
    case DType::kQUInt8: fn(uint8_t{}); break;
    case DType::kQInt16: fn(int16_t{}); break;
    case DType::kQUInt16: fn(uint16_t{}); break;
    default: fn(int32_t{}); break;  // kQInt32
  }
}

// float -> T with saturation (TensorFlow's plain cast for in-range values).
template <typename T>
T SaturateCast(float v) {
  if (std::isnan(v)) return 0;
  if (v <= static_cast<float>(std::numeric_limits<T>::lowest())) return std::numeric_limits<T>::lowest();
  if (v >= static_cast<float>(std::numeric_limits<T>::max())) return std::numeric_limits<T>::max();
  return static_cast<T>(v);
}

float RoundHalfToEven(float v) {
  const float r = std::round(v);
  if (std::fabs(v - std::trunc(v)) == 0.5f) return 2.0f * std::round(v / 2.0f);
  return r;
}

// Per-channel layout: slice s of `axis` covers, for each of `outer` rows,
// `inner` consecutive elements at (o * slices + s) * inner.
struct SliceLayout {
  int64_t outer = 1, slices = 1, inner = 1;
};
SliceLayout LayoutFor(const Shape& shape, int64_t axis) {
  SliceLayout l;
  if (axis < 0) {
    l.inner = shape.num_elements();
    return l;
  }
  for (int i = 0; i < axis; ++i) l.outer *= shape.dim(i);
  l.slices = shape.dim(static_cast<int>(axis));
  for (int i = static_cast<int>(axis) + 1; i < shape.rank(); ++i) l.inner *= shape.dim(i);
  return l;
}
template <typename Fn>
void ForSlice(const SliceLayout& l, int64_t s, Fn fn) {
  for (int64_t o = 0; o < l.outer; ++o) {
    const int64_t base = (o * l.slices + s) * l.inner;
    for (int64_t k = 0; k < l.inner; ++k) fn(base + k);
  }
}

// Reads attr `axis` and checks the min/max inputs against it; returns the
// number of slices (1 = per tensor).
// QuantizeV2 wants 1-D ranges per channel; Dequantize (as TF's kernel) only
// counts their elements.
StatusOr<int64_t> CheckRanges(const KernelContext& ctx, const Tensor& input, int64_t axis, bool quantize) {
  for (int i = 1; i <= 2; ++i) {
    if (ctx.input(i).dtype() != DType::kFloat) {
      return ctx.Error(std::string(i == 1 ? "min_range" : "max_range") + " must be float, got " +
                       DTypeShortName(ctx.input(i).dtype()));
    }
  }
  if (axis >= input.rank()) {
    return ctx.Error("Axis must be less than input dimension(" + std::to_string(input.rank()) + "), got " +
                     std::to_string(axis));
  }
  const int64_t slices = axis < 0 ? 1 : input.dim(static_cast<int>(axis));  // TF: any negative axis is per tensor
  for (int i = 1; i <= 2; ++i) {
    const Tensor& r = ctx.input(i);
    const char* name = i == 1 ? "min_range" : "max_range";
    if (!quantize && r.NumElements() != slices) {
      return ctx.Error(std::string(name) + " must have as many elements as input on the dequantization axis (" +
                       std::to_string(axis) + "), got " + std::to_string(r.NumElements()) + ", expected " +
                       std::to_string(slices));
    }
    if (quantize && axis < 0 && r.NumElements() != 1) {
      return ctx.Error(std::string("If axis is not specified, ") + name +
                       " must contain a single float element, but it contains " + std::to_string(r.NumElements()) +
                       " elements");
    }
    if (quantize && axis >= 0 && (r.rank() != 1 || r.dim(0) != slices)) {
      return ctx.Error(std::string("If axis is specified, ") + name + " must be a 1-D tensor of size " +
                       std::to_string(slices) + " (input dimension " + std::to_string(axis) + "), got shape " +
                       r.shape().ToString());
    }
  }
  return slices;
}

struct QuantizeParams {
  Mode mode;
  bool half_to_even;
  bool narrow_range;
  float ensure_minimum_range;
};

// Quantizes the elements of slice `s`; writes the range it used.
template <typename T>
Status QuantizeSlice(const KernelContext& ctx, const QuantizeParams& p, const float* in, T* out,
                     const SliceLayout& l, int64_t s, float min_in, float max_in, float* min_out, float* max_out) {
  if (max_in < min_in) return ctx.Error("input_max_range must be larger than input_min_range.");
  if (!std::isfinite(min_in) || !std::isfinite(max_in)) {
    return ctx.Error("min_range and max_range must be finite, got [" + std::to_string(min_in) + ", " +
                     std::to_string(max_in) + "]");
  }
  // TensorFlow widens the range to include zero and to span at least
  // ensure_minimum_range times the larger magnitude (or 1).
  float min_range = std::min(0.0f, min_in);
  const float epsilon = std::max(1.0f, std::max(std::fabs(min_in), std::fabs(max_in))) * p.ensure_minimum_range;
  float max_range = std::max(0.0f, std::max(max_in, min_range + epsilon));
  constexpr double kLowest = static_cast<double>(std::numeric_limits<T>::lowest());
  constexpr double kHighest = static_cast<double>(std::numeric_limits<T>::max());
  constexpr bool kSigned = std::numeric_limits<T>::is_signed;
  switch (p.mode) {
    case Mode::kMinCombined: {
      const float scale = static_cast<float>((kHighest - kLowest) / (max_range - min_range));
      const float half_range = kSigned ? static_cast<float>((kHighest - kLowest + 1) / 2.0f) : 0.0f;
      ForSlice(l, s, [&](int64_t i) {
        const float clamped = std::max(std::min(in[i], max_range), min_range);
        if (kSigned) {
          out[i] = SaturateCast<T>(std::round((clamped - min_range) * scale - half_range));
        } else {
          out[i] = SaturateCast<T>(std::trunc((clamped - min_range) * scale + 0.5f));
        }
      });
      break;
    }
    case Mode::kScaled: {
      const int64_t min_output = static_cast<int64_t>(kLowest) + (p.narrow_range ? 1 : 0);
      const int64_t max_output = static_cast<int64_t>(kHighest);
      const float min_out_f = static_cast<float>(min_output), max_out_f = static_cast<float>(max_output);
      const float from_min = min_out_f * min_range > 0 ? min_out_f / min_range : std::numeric_limits<float>::max();
      const float from_max = max_out_f * max_range > 0 ? max_out_f / max_range : std::numeric_limits<float>::max();
      const float scale = std::min(from_min, from_max);
      min_range = min_out_f / scale;
      max_range = max_out_f / scale;
      ForSlice(l, s, [&](int64_t i) {
        const float v = std::max(std::min(in[i], max_range), min_range) * scale;
        out[i] = SaturateCast<T>(p.half_to_even ? RoundHalfToEven(v) : std::round(v));
      });
      break;
    }
    case Mode::kMinFirst: {
      constexpr double kSteps = kHighest - kLowest + 1;  // 2^bits
      const float range_scale =
          max_range == min_range ? 0.0f : static_cast<float>((kSteps - 1.0) / (max_range - min_range));
      const float range_min_scaled = std::round(min_range * range_scale);
      const float offset = range_min_scaled - static_cast<float>(kLowest);
      const float lower = std::max(static_cast<float>(kLowest), -2.147483648e+09f);
      const float upper = std::min(static_cast<float>(kHighest), +2.147483520e+09f);
      ForSlice(l, s, [&](int64_t i) {
        const float q = std::min(std::max(std::round(in[i] * range_scale) - offset, lower), upper);
        // NaN (a NaN input, or a range so narrow its scale overflowed) passes
        // the clamps; it becomes 0, as SaturateCast makes it in the other modes.
        out[i] = std::isnan(q) ? T(0) : static_cast<T>(static_cast<int32_t>(q));
      });
      break;
    }
  }
  *min_out = min_range;
  *max_out = max_range;
  return OkStatus();
}

Status QuantizeV2Kernel(KernelContext& ctx) {
  if (ctx.num_inputs() != 3) return ctx.Error("expected 3 inputs, got " + std::to_string(ctx.num_inputs()));
  TFHOST_ASSIGN_OR_RETURN(DType t, ctx.Attr<DType>("T"));
  if (!IsQuantized(t)) return ctx.Error("T must be a quantized type, got " + DTypeShortName(t));
  QuantizeParams p;
  TFHOST_ASSIGN_OR_RETURN(p.mode, ReadMode(ctx));
  TFHOST_ASSIGN_OR_RETURN(std::string round_mode, ctx.AttrOr<std::string>("round_mode", "HALF_AWAY_FROM_ZERO"));
  if (round_mode != "HALF_AWAY_FROM_ZERO" && round_mode != "HALF_TO_EVEN") {
    return ctx.Error("Round mode string must be 'HALF_AWAY_FROM_ZERO' or 'HALF_TO_EVEN', is '" + round_mode + "'");
  }
  p.half_to_even = round_mode == "HALF_TO_EVEN";
  if (p.half_to_even && p.mode != Mode::kScaled) {
    return ctx.Error("Round mode 'HALF_TO_EVEN' only supported for mode 'SCALED'");
  }
  TFHOST_ASSIGN_OR_RETURN(p.narrow_range, ctx.AttrOr<bool>("narrow_range", false));
  TFHOST_ASSIGN_OR_RETURN(int64_t axis, ctx.AttrOr<int64_t>("axis", -1));
  TFHOST_ASSIGN_OR_RETURN(p.ensure_minimum_range, ctx.AttrOr<float>("ensure_minimum_range", 0.01f));
  const Tensor& input = ctx.input(0);
  if (input.dtype() != DType::kFloat) return ctx.Error("input must be float, got " + DTypeShortName(input.dtype()));
  TFHOST_ASSIGN_OR_RETURN(int64_t slices, CheckRanges(ctx, input, axis, true));
  if (slices > 1 && p.mode == Mode::kMinFirst) {
    return Unimplemented(ir::NodeContext(ctx.node()) + ": MIN_FIRST mode is not implemented for Quantize with axis != -1.");
  }
  const SliceLayout layout = LayoutFor(input.shape(), slices > 1 ? axis : -1);
  Tensor out(t, input.shape());
  const Shape range_shape = slices > 1 ? ctx.input(1).shape() : Shape();
  Tensor out_min(DType::kFloat, range_shape), out_max(DType::kFloat, range_shape);
  Status status = OkStatus();
  SwitchQuantized(t, [&](auto zero) {
    using T = decltype(zero);
    for (int64_t s = 0; s < slices && status.ok(); ++s) {
      status = QuantizeSlice<T>(ctx, p, input.data<float>(), static_cast<T*>(out.raw_data()), layout, s,
                                ctx.input(1).data<float>()[s], ctx.input(2).data<float>()[s],
                                &out_min.data<float>()[s], &out_max.data<float>()[s]);
    }
  });
  TFHOST_RETURN_IF_ERROR(status);
  ctx.set_output(0, std::move(out));
  ctx.set_output(1, std::move(out_min));
  ctx.set_output(2, std::move(out_max));
  return OkStatus();
}

// Dequantizes slice `s` into float.
template <typename T>
void DequantizeSlice(Mode mode, bool narrow_range, const T* in, float* out, const SliceLayout& l, int64_t s,
                     float min_range, float max_range) {
  constexpr double kLowest = static_cast<double>(std::numeric_limits<T>::lowest());
  constexpr double kHighest = static_cast<double>(std::numeric_limits<T>::max());
  constexpr bool kSigned = std::numeric_limits<T>::is_signed;
  switch (mode) {
    case Mode::kMinCombined: {
      const float type_range = static_cast<float>(kHighest) - static_cast<float>(kLowest);
      const float scale = (max_range - min_range) / type_range;
      const float half_range = kSigned ? (type_range + 1) / 2.0f : 0.0f;
      ForSlice(l, s, [&](int64_t i) { out[i] = ((static_cast<float>(in[i]) + half_range) * scale) + min_range; });
      break;
    }
    case Mode::kScaled: {
      const float min_output = static_cast<float>(static_cast<int64_t>(kLowest) + (narrow_range ? 1 : 0));
      const float scale = kLowest == 0 ? max_range / static_cast<float>(kHighest)
                                       : std::max(min_range / min_output, max_range / static_cast<float>(kHighest));
      ForSlice(l, s, [&](int64_t i) { out[i] = static_cast<float>(in[i]) * scale; });
      break;
    }
    case Mode::kMinFirst: {
      constexpr double kSteps = kHighest - kLowest + 1;  // 2^bits
      const float range_scale = static_cast<float>((max_range - min_range) / (kSteps - 1.0));
      const float range_min_rounded =
          max_range == min_range ? min_range : std::round(min_range / range_scale) * range_scale;
      const float offset = range_min_rounded - static_cast<float>(kLowest) * range_scale;
      ForSlice(l, s, [&](int64_t i) { out[i] = offset + static_cast<float>(in[i]) * range_scale; });
      break;
    }
  }
}

Status DequantizeKernel(KernelContext& ctx) {
  if (ctx.num_inputs() != 3) return ctx.Error("expected 3 inputs, got " + std::to_string(ctx.num_inputs()));
  TFHOST_ASSIGN_OR_RETURN(DType t, ctx.Attr<DType>("T"));
  if (!IsQuantized(t)) return ctx.Error("T must be a quantized type, got " + DTypeShortName(t));
  TFHOST_ASSIGN_OR_RETURN(Mode mode, ReadMode(ctx));
  TFHOST_ASSIGN_OR_RETURN(bool narrow_range, ctx.AttrOr<bool>("narrow_range", false));
  TFHOST_ASSIGN_OR_RETURN(int64_t axis, ctx.AttrOr<int64_t>("axis", -1));
  TFHOST_ASSIGN_OR_RETURN(DType dtype, ctx.AttrOr<DType>("dtype", DType::kFloat));
  if (dtype != DType::kFloat && dtype != DType::kBFloat16) {
    return ctx.Error("dtype must be float or bfloat16, got " + DTypeShortName(dtype));
  }
  if (dtype == DType::kBFloat16 && mode != Mode::kMinCombined) {
    return ctx.Error("When output type is bfloat16, Mode string must be 'MIN_COMBINED'");
  }
  const Tensor& input = ctx.input(0);
  if (input.dtype() != t) {
    return ctx.Error("input must be " + DTypeShortName(t) + " (attr T), got " + DTypeShortName(input.dtype()));
  }
  TFHOST_ASSIGN_OR_RETURN(int64_t slices, CheckRanges(ctx, input, axis, false));
  if (slices > 1 && mode == Mode::kMinFirst) {
    return Unimplemented(ir::NodeContext(ctx.node()) +
                         ": MIN_FIRST mode is not implemented for Dequantize with axis != -1.");
  }
  const SliceLayout layout = LayoutFor(input.shape(), slices > 1 ? axis : -1);
  Tensor out(DType::kFloat, input.shape());
  SwitchQuantized(t, [&](auto zero) {
    using T = decltype(zero);
    for (int64_t s = 0; s < slices; ++s) {
      DequantizeSlice<T>(mode, narrow_range, static_cast<const T*>(input.raw_data()), out.data<float>(), layout, s,
                         ctx.input(1).data<float>()[s], ctx.input(2).data<float>()[s]);
    }
  });
  if (dtype == DType::kBFloat16) {
    Tensor bf(DType::kBFloat16, input.shape());
    for (int64_t i = 0; i < out.NumElements(); ++i) bf.data<uint16_t>()[i] = FloatToBFloat16(out.data<float>()[i]);
    out = std::move(bf);
  }
  ctx.set_output(0, std::move(out));
  return OkStatus();
}

}  // namespace

void RegisterQuantizeOps(OpRegistry& registry) {
  registry.Register(ir::OpDefBuilder("QuantizeV2")
                        .Input("input: float")
                        .Input("min_range: float")
                        .Input("max_range: float")
                        .Output("output: T")
                        .Output("output_min: float")
                        .Output("output_max: float")
                        .Attr("T: {qint8, quint8, qint32, qint16, quint16}")
                        .Attr("mode: {'MIN_COMBINED', 'MIN_FIRST', 'SCALED'} = 'MIN_COMBINED'")
                        .Attr("round_mode: {'HALF_AWAY_FROM_ZERO', 'HALF_TO_EVEN'} = 'HALF_AWAY_FROM_ZERO'")
                        .Attr("narrow_range: bool = false")
                        .Attr("axis: int = -1")
                        .Attr("ensure_minimum_range: float = 0.01"),
                    QuantizeV2Kernel);
  registry.Register(ir::OpDefBuilder("Dequantize")
                        .Input("input: T")
                        .Input("min_range: float")
                        .Input("max_range: float")
                        .Output("output: dtype")
                        .Attr("T: {qint8, quint8, qint32, qint16, quint16}")
                        .Attr("mode: {'MIN_COMBINED', 'MIN_FIRST', 'SCALED'} = 'MIN_COMBINED'")
                        .Attr("narrow_range: bool = false")
                        .Attr("axis: int = -1")
                        .Attr("dtype: {bfloat16, float} = DT_FLOAT"),
                    DequantizeKernel);
}

}  // namespace tfhost::ops::math
