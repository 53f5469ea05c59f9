// Cumulative Cumsum / Cumprod along one axis (the `axis` input, a scalar).
// exclusive=true shifts by one (the first output is the identity); reverse=true
// scans from the end. Floats accumulate in double; integers wrap in their type.
#include "ops/math/math_ops.h"
#include "ops/math/math_util.h"

namespace tfhost::ops::math {
namespace {

template <bool kProd, typename T>
void ScanLoop(const T* in, T* out, int64_t outer, int64_t axis_n, int64_t inner, bool exclusive,
              bool reverse) {
  using Acc = std::conditional_t<kIsFloat<T>, double, T>;
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t i = 0; i < inner; ++i) {
      Acc acc = kProd ? Acc(1) : Acc(0);
      for (int64_t s = 0; s < axis_n; ++s) {
        const int64_t k = reverse ? axis_n - 1 - s : s;
        const int64_t at = (o * axis_n + k) * inner + i;
        const Acc v = static_cast<Acc>(in[at]);
        if (exclusive) out[at] = static_cast<T>(acc);
        acc = kProd ? WrapMul(acc, v) : WrapAdd(acc, v);
        if (!exclusive) out[at] = static_cast<T>(acc);
      }
    }
  }
}

template <bool kProd>
Status ScanKernel(KernelContext& ctx) {
  Tensor x = ctx.input(0);
  const DType dtype = x.dtype();
  TFHOST_ASSIGN_OR_RETURN(bool exclusive, ctx.AttrOr<bool>("exclusive", false));
  TFHOST_ASSIGN_OR_RETURN(bool reverse, ctx.AttrOr<bool>("reverse", false));
  if (x.rank() == 0) return ctx.Error("input must have rank >= 1, got a scalar");
  TFHOST_ASSIGN_OR_RETURN(int axis, ReadScalarAxis(ctx, ctx.input(1), x.rank(), "axis"));
  int64_t outer = 1, inner = 1;
  for (int d = 0; d < x.rank(); ++d) {
    if (d < axis) outer *= x.dim(d);
    if (d > axis) inner *= x.dim(d);
  }
  // Nothing to scan. (With an empty axis, the loops would still visit every
  // outer x inner position: 2^40 of them for a [2^20, 0, 2^20] input.)
  if (x.NumElements() == 0) {
    ctx.set_output(0, Tensor(dtype, x.shape()));
    return OkStatus();
  }
  const bool half_like = IsHalfLike(dtype);
  if (half_like) x = HalfLikeToFloat(x);
  Tensor out(x.dtype(), x.shape());
  TFHOST_RETURN_IF_ERROR(VisitDType(
      x.dtype(),
      [&](auto tag) -> Status {
        using T = typename decltype(tag)::type;
        if constexpr (kIsReal<T>) {
          ScanLoop<kProd>(x.data<T>(), out.data<T>(), outer, x.dim(axis), inner, exclusive, reverse);
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

void RegisterScan(OpRegistry& registry, const char* name, KernelFn fn) {
  registry.Register(ir::OpDefBuilder(name)
                        .Input("x: T")
                        .Input("axis: Tidx")
                        .Output("out: T")
                        .Attr("exclusive: bool = false")
                        .Attr("reverse: bool = false")
                        .Attr(std::string("T: ") + kRealTypes)
                        .Attr("Tidx: {int32, int64} = DT_INT32"),
                    std::move(fn));
}

}  // namespace

void RegisterScanOps(OpRegistry& registry) {
  RegisterScan(registry, "Cumsum", ScanKernel<false>);
  RegisterScan(registry, "Cumprod", ScanKernel<true>);
}

}  // namespace tfhost::ops::math
