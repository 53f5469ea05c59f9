// QuantizeAndDequantizeV2, V3 and V4: simulated integer quantization of a
// float tensor (quantization-aware training graphs, tf.quantization.
// quantize_and_dequantize_v2), computed as TensorFlow's CPU kernel does, in
// the input's own type (float32 or float64).
//
// The integer range is [qmin, qmax] = signed_input ? [-2^(b-1) (+1 with
// narrow_range), 2^(b-1) - 1] : [0, 2^b - 1]. The real range [min, max] is
// the input's (or each channel's, with `axis`) minimum and maximum, or the
// given input_min/input_max with range_given. The scale is the largest that
// maps [min, max] into [qmin, qmax] keeping 0 fixed:
//   from_min = qmin * min > 0 ? qmin / min : FLT_MAX (DBL_MAX for double),
//   from_max = qmax * max > 0 ? qmax / max : FLT_MAX;
//   from_min < from_max: scale = from_min, inverse = min / qmin, max = qmax * inverse;
//   otherwise:           scale = from_max, inverse = max / qmax, min = qmin * inverse.
// Then out = round(x * scale) * inverse, with x first clamped to the adjusted
// [min, max] when range_given. round is HALF_TO_EVEN (rint) or HALF_UP
// (floor(x + 0.5)); V3 always rounds half to even.
//
// V3 takes num_bits as a scalar int32 input instead of an attr. TensorFlow
// 2.21's V2/V4 kernel rejects range_given per-channel ranges ("input_min must
// be a scalar"); these kernels accept them as V3 does, since the op's
// documented meaning is clear and a model cannot have relied on the error.
#include <cmath>
#include <limits>

#include "ops/op_registry.h"
#include "ops/math/math_ops.h"

namespace tfhost::ops::math {
namespace {

std::string Str(int64_t v) { return std::to_string(v); }

struct QdqParams {
  bool signed_input = true;
  int64_t num_bits = 8;
  bool range_given = false;
  bool half_up = false;
  bool narrow_range = false;
  int64_t axis = -1;
};

// Adjusts [*min, *max] and returns {scale, inverse_scale} as described above.
template <typename T>
std::pair<T, T> QuantizationRange(const QdqParams& p, T* min, T* max) {
  const int64_t bits = p.num_bits;
  const int64_t qmin = p.signed_input ? (p.narrow_range ? -(int64_t{1} << (bits - 1)) + 1 : -(int64_t{1} << (bits - 1))) : 0;
  const int64_t qmax = p.signed_input ? (int64_t{1} << (bits - 1)) - 1 : (int64_t{1} << bits) - 1;
  const T qmin_t = static_cast<T>(qmin), qmax_t = static_cast<T>(qmax);
  const T from_min = qmin_t * *min > 0 ? qmin_t / *min : std::numeric_limits<T>::max();
  const T from_max = qmax_t * *max > 0 ? qmax_t / *max : std::numeric_limits<T>::max();
  if (from_min < from_max) {
    const T inverse = *min / qmin_t;
    *max = qmax_t * inverse;
    return {from_min, inverse};
  }
  const T inverse = *max / qmax_t;
  *min = qmin_t * inverse;
  return {from_max, inverse};
}

// Quantizes the input viewed as [outer, depth, inner], channel by channel.
template <typename T>
void QuantizeAndDequantize(const QdqParams& p, const Tensor& in, const Tensor& min_t, const Tensor& max_t,
                           int64_t outer, int64_t depth, int64_t inner, Tensor& out) {
  const T* x = in.data<T>();
  T* y = out.data<T>();
  auto round = [&](T v) { return p.half_up ? std::floor(v + T(0.5)) : std::nearbyint(v); };
  for (int64_t c = 0; c < depth; ++c) {
    T lo, hi;
    if (p.range_given) {
      lo = min_t.data<T>()[c];
      hi = max_t.data<T>()[c];
    } else {
      lo = std::numeric_limits<T>::infinity();
      hi = -std::numeric_limits<T>::infinity();
      for (int64_t o = 0; o < outer; ++o) {
        for (int64_t i = 0; i < inner; ++i) {
          const T v = x[(o * depth + c) * inner + i];
          lo = v < lo ? v : lo;
          hi = v > hi ? v : hi;
        }
      }
    }
    const auto [scale, inverse] = QuantizationRange<T>(p, &lo, &hi);
    for (int64_t o = 0; o < outer; ++o) {
      for (int64_t i = 0; i < inner; ++i) {
        const int64_t k = (o * depth + c) * inner + i;
        T v = x[k];
        // The clamp keeps the quantized value inside the integer type (the
        // adjusted range may be narrower than the given one); min first, as
        // TensorFlow's.
        if (p.range_given) v = std::max(std::min(v, hi), lo);
        y[k] = round(v * scale) * inverse;
      }
    }
  }
}

// The shared part of all three versions, once num_bits is known.
Status Run(KernelContext& ctx, QdqParams p, bool is_v3) {
  const Tensor& in = ctx.input(0);
  const Tensor& min_t = ctx.input(1);
  const Tensor& max_t = ctx.input(2);
  if (p.num_bits <= 0 || p.num_bits >= (p.signed_input ? 62 : 63)) {
    return ctx.Error("num_bits must be in [1, " + Str(p.signed_input ? 61 : 62) + "] with signed_input " +
                     (p.signed_input ? "true" : "false") + ", got " + Str(p.num_bits));
  }
  if (in.dtype() != DType::kFloat && in.dtype() != DType::kDouble) {
    return ctx.Error("TensorFlow computes this op only for float32 and float64 input, got " +
                     DTypeShortName(in.dtype()));
  }
  if (p.axis < -1) return ctx.Error("axis must be -1 (per tensor) or a dimension, got " + Str(p.axis));
  if (p.axis >= in.rank()) {
    // Not axis + 1: the attr may be INT64_MAX.
    return ctx.Error("axis " + Str(p.axis) + " is not a dimension of the input; expected less than its rank " +
                     Str(in.rank()) + ", got shape " +
                     in.shape().ToString());
  }
  const int64_t depth = p.axis == -1 ? 1 : in.dim(static_cast<int>(p.axis));
  if (p.range_given) {
    for (const Tensor* t : {&min_t, &max_t}) {
      const char* what = t == &min_t ? "input_min" : "input_max";
      if (p.axis == -1) {
        const bool ok = is_v3 ? t->NumElements() == 1 && t->rank() <= 1 : t->rank() == 0;
        if (!ok) return ctx.Error(std::string(what) + " must be a scalar without axis, got shape " + t->shape().ToString());
      } else if (t->rank() != 1 || t->dim(0) != depth) {
        return ctx.Error(std::string(what) + " must be a vector of " + Str(depth) + " values (dimension " + Str(p.axis) +
                         " of input " + in.shape().ToString() + "), got shape " + t->shape().ToString());
      }
    }
    if (p.axis == -1) {
      const double lo = min_t.ToDoubleVector()[0], hi = max_t.ToDoubleVector()[0];
      if (!(lo <= hi)) return ctx.Error("input_min " + std::to_string(lo) + " must not exceed input_max " + std::to_string(hi));
    }
  }
  int64_t outer = 1, inner = 1;
  if (p.axis != -1) {
    for (int d = 0; d < p.axis; ++d) outer *= in.dim(d);
    for (int d = static_cast<int>(p.axis) + 1; d < in.rank(); ++d) inner *= in.dim(d);
  } else {
    inner = in.NumElements();
  }
  Tensor out(in.dtype(), in.shape());
  if (in.NumElements() > 0) {
    if (in.dtype() == DType::kFloat) QuantizeAndDequantize<float>(p, in, min_t, max_t, outer, depth, inner, out);
    else QuantizeAndDequantize<double>(p, in, min_t, max_t, outer, depth, inner, out);
  }
  ctx.set_output(0, std::move(out));
  return OkStatus();
}

StatusOr<QdqParams> ReadCommonAttrs(const KernelContext& ctx, bool range_given_default) {
  QdqParams p;
  TFHOST_ASSIGN_OR_RETURN(p.signed_input, ctx.AttrOr<bool>("signed_input", true));
  TFHOST_ASSIGN_OR_RETURN(p.range_given, ctx.AttrOr<bool>("range_given", range_given_default));
  TFHOST_ASSIGN_OR_RETURN(p.narrow_range, ctx.AttrOr<bool>("narrow_range", false));
  TFHOST_ASSIGN_OR_RETURN(p.axis, ctx.AttrOr<int64_t>("axis", -1));
  return p;
}

// V2 and V4 (the same kernel in TensorFlow; V4 differs only in its gradient).
Status QuantizeAndDequantizeV4(KernelContext& ctx) {
  TFHOST_ASSIGN_OR_RETURN(QdqParams p, ReadCommonAttrs(ctx, false));
  TFHOST_ASSIGN_OR_RETURN(p.num_bits, ctx.AttrOr<int64_t>("num_bits", 8));
  TFHOST_ASSIGN_OR_RETURN(std::string round_mode, ctx.AttrOr<std::string>("round_mode", "HALF_TO_EVEN"));
  if (round_mode != "HALF_TO_EVEN" && round_mode != "HALF_UP") {
    return ctx.Error("round_mode must be HALF_TO_EVEN or HALF_UP, got '" + round_mode + "'");
  }
  p.half_up = round_mode == "HALF_UP";
  return Run(ctx, p, /*is_v3=*/false);
}

Status QuantizeAndDequantizeV3(KernelContext& ctx) {
  TFHOST_ASSIGN_OR_RETURN(QdqParams p, ReadCommonAttrs(ctx, true));
  const Tensor& bits = ctx.input(3);
  if (bits.rank() != 0) return ctx.Error("num_bits must be a scalar, got shape " + bits.shape().ToString());
  p.num_bits = bits.data<int32_t>()[0];
  return Run(ctx, p, /*is_v3=*/true);
}

ir::OpDefBuilder Schema(const char* name) {
  return ir::OpDefBuilder(name).Input("input: T").Input("input_min: T").Input("input_max: T");
}

}  // namespace

void RegisterQuantizeAndDequantizeOps(OpRegistry& registry) {
  for (const char* name : {"QuantizeAndDequantizeV2", "QuantizeAndDequantizeV4"}) {
    registry.Register(Schema(name)
                          .Output("output: T")
                          .Attr("signed_input: bool = true")
                          .Attr("num_bits: int = 8")
                          .Attr("range_given: bool = false")
                          .Attr("T: {bfloat16, half, float, double}")
                          .Attr("round_mode: {'HALF_TO_EVEN', 'HALF_UP'} = 'HALF_TO_EVEN'")
                          .Attr("narrow_range: bool = false")
                          .Attr("axis: int = -1"),
                      QuantizeAndDequantizeV4);
  }
  registry.Register(Schema("QuantizeAndDequantizeV3")
                        .Input("num_bits: int32")
                        .Output("output: T")
                        .Attr("signed_input: bool = true")
                        .Attr("range_given: bool = true")
                        .Attr("T: {bfloat16, half, float, double}")
                        .Attr("narrow_range: bool = false")
                        .Attr("axis: int = -1"),
                    QuantizeAndDequantizeV3);
}

}  // namespace tfhost::ops::math
