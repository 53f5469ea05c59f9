// AddN (sum of N same-shaped tensors) and ClipByValue (clip_value_min and
// clip_value_max broadcast to t's shape; NaN in t stays NaN).
// AddN accumulates floats in double and wraps integers.
#include <algorithm>

#include "ops/math/broadcast.h"
#include "ops/math/math_ops.h"
#include "ops/math/math_util.h"

namespace tfhost::ops::math {
namespace {

Status AddNKernel(KernelContext& ctx) {
  if (ctx.num_inputs() == 0) return ctx.Error("needs at least one input");
  const DType dtype = ctx.input(0).dtype();
  const Shape& shape = ctx.input(0).shape();
  std::vector<Tensor> inputs;
  for (int i = 0; i < ctx.num_inputs(); ++i) {
    const Tensor& t = ctx.input(i);
    if (t.dtype() != dtype || t.shape() != shape) {
      return ctx.Error("all inputs must match input 0 (" + DTypeShortName(dtype) + shape.ToString() +
                       "), input " + std::to_string(i) + " is " + DTypeShortName(t.dtype()) +
                       t.shape().ToString());
    }
    inputs.push_back(IsHalfLike(dtype) ? HalfLikeToFloat(t) : t);
  }
  const DType compute = IsHalfLike(dtype) ? DType::kFloat : dtype;
  Tensor out(compute, shape);
  TFHOST_RETURN_IF_ERROR(VisitDType(
      compute,
      [&](auto tag) -> Status {
        using T = typename decltype(tag)::type;
        if constexpr (kIsReal<T>) {
          using Acc = std::conditional_t<kIsFloat<T>, double, T>;
          const int64_t n = shape.num_elements();
          std::vector<Acc> acc(n, Acc(0));
          for (const Tensor& t : inputs) {
            const T* x = t.data<T>();
            for (int64_t i = 0; i < n; ++i) acc[i] = WrapAdd(acc[i], static_cast<Acc>(x[i]));
          }
          T* o = out.data<T>();
          for (int64_t i = 0; i < n; ++i) o[i] = static_cast<T>(acc[i]);
          return OkStatus();
        } else {
          return UnsupportedDType(ctx, dtype);
        }
      },
      [&] { return UnsupportedDType(ctx, dtype); }));
  if (IsHalfLike(dtype)) out = FloatToHalfLike(out, dtype);
  ctx.set_output(0, std::move(out));
  return OkStatus();
}

Status ClipByValueKernel(KernelContext& ctx) {
  Tensor t = ctx.input(0), lo = ctx.input(1), hi = ctx.input(2);
  const DType dtype = t.dtype();
  if (lo.dtype() != dtype || hi.dtype() != dtype) {
    return ctx.Error("t, clip_value_min and clip_value_max must share one dtype, got " +
                     DTypeShortName(dtype) + ", " + DTypeShortName(lo.dtype()) + " and " +
                     DTypeShortName(hi.dtype()));
  }
  auto bc = Broadcaster::MakeTo({t.shape(), lo.shape(), hi.shape()}, t.shape());
  if (!bc.ok()) return ctx.Error("clip values must broadcast to t: " + bc.status().message());
  const bool half_like = IsHalfLike(dtype);
  if (half_like) {
    t = HalfLikeToFloat(t);
    lo = HalfLikeToFloat(lo);
    hi = HalfLikeToFloat(hi);
  }
  Tensor out(t.dtype(), t.shape());
  TFHOST_RETURN_IF_ERROR(VisitDType(
      t.dtype(),
      [&](auto tag) -> Status {
        using T = typename decltype(tag)::type;
        if constexpr (kIsReal<T>) {
          const T* x = t.data<T>();
          const T* a = lo.data<T>();
          const T* b = hi.data<T>();
          T* o = out.data<T>();
          bc->ForEach(0, bc->num_elements(), [&](int64_t i, const int64_t* off) {
            o[i] = std::min(std::max(x[off[0]], a[off[1]]), b[off[2]]);
          });
          return OkStatus();
        } else {
          return UnsupportedDType(ctx, dtype);
        }
      },
      [&] { return UnsupportedDType(ctx, dtype); }));
  if (half_like) out = FloatToHalfLike(out, dtype);
  ctx.set_output(0, std::move(out));
  return OkStatus();
}

}  // namespace

void RegisterNaryOps(OpRegistry& registry) {
  registry.Register(ir::OpDefBuilder("AddN")
                        .Input("inputs: N * T")
                        .Output("sum: T")
                        .Attr("N: int >= 1")
                        .Attr(std::string("T: ") + kRealTypes),
                    AddNKernel);
  registry.Register(ir::OpDefBuilder("ClipByValue")
                        .Input("t: T")
                        .Input("clip_value_min: T")
                        .Input("clip_value_max: T")
                        .Output("output: T")
                        .Attr(std::string("T: ") + kRealTypes),
                    ClipByValueKernel);
}

}  // namespace tfhost::ops::math
