// The generic engines behind every element-wise math kernel. An op is a small
// functor struct:
//
//   struct MulOp : BinaryOpBase {
//     template <typename T> static constexpr bool kSupports = kIsReal<T>;
//     template <typename T> T operator()(const T& a, const T& b) const { return WrapMul(a, b); }
//   };
//
// and BinaryKernel<MulOp> / UnaryKernel<...> do the rest: dtype checks and
// dispatch, NumPy broadcasting, half/bfloat16 computed in float32, and tight
// loops for the common same-shape and scalar cases. The result type of
// operator() decides the output dtype (bool for comparisons). An op that can
// fail on particular values (integer division by zero) overrides Check(),
// which runs over the inputs before any output is computed, so the loops
// themselves have no error paths.
#pragma once

#include "ops/math/broadcast.h"
#include "ops/math/math_util.h"

namespace tfhost::ops::math {

struct BinaryOpBase {
  template <typename T>
  static Status Check(const KernelContext&, const Tensor&, const Tensor&) { return OkStatus(); }
};

struct UnaryOpBase {
  template <typename T>
  static Status Check(const KernelContext&, const Tensor&) { return OkStatus(); }
};

// z[i] = fn(x[.], y[.]) over bc's output, with Out the element type of z.
template <typename T, typename Out, typename Fn>
Tensor BinaryLoop(const KernelContext& ctx, const Broadcaster& bc, const Tensor& x,
                  const Tensor& y, Fn fn) {
  Tensor z(DTypeOf<Out>::value, bc.output_shape());
  const T* a = x.data<T>();
  const T* b = y.data<T>();
  Out* o = z.data<Out>();
  const int64_t n = bc.num_elements();
  if (n == 0) return z;
  if (bc.IsIdentity(0) && bc.IsIdentity(1)) {
    ParallelElementwise(ctx, n, [&](int64_t begin, int64_t end) {
      for (int64_t i = begin; i < end; ++i) o[i] = fn(a[i], b[i]);
    });
  } else if (bc.IsIdentity(0) && bc.IsScalar(1)) {
    const T bv = b[0];
    ParallelElementwise(ctx, n, [&](int64_t begin, int64_t end) {
      for (int64_t i = begin; i < end; ++i) o[i] = fn(a[i], bv);
    });
  } else if (bc.IsScalar(0) && bc.IsIdentity(1)) {
    const T av = a[0];
    ParallelElementwise(ctx, n, [&](int64_t begin, int64_t end) {
      for (int64_t i = begin; i < end; ++i) o[i] = fn(av, b[i]);
    });
  } else {
    ParallelElementwise(ctx, n, [&](int64_t begin, int64_t end) {
      bc.ForEach(begin, end, [&](int64_t i, const int64_t* off) { o[i] = fn(a[off[0]], b[off[1]]); });
    });
  }
  return z;
}

// Computes Op over inputs 0 and 1 into output 0.
template <typename Op>
Status BinaryKernel(KernelContext& ctx) {
  Tensor x = ctx.input(0);
  Tensor y = ctx.input(1);
  const DType dtype = x.dtype();
  if (y.dtype() != dtype) {
    return ctx.Error("both inputs must have the same dtype, got " + DTypeShortName(dtype) + " and " +
                     DTypeShortName(y.dtype()));
  }
  auto bc = Broadcaster::Make({x.shape(), y.shape()});
  if (!bc.ok()) return ctx.Error(bc.status().message());
  const bool half_like = IsHalfLike(dtype);
  if (half_like) {
    x = HalfLikeToFloat(x);
    y = HalfLikeToFloat(y);
  }
  Tensor z;
  TFHOST_RETURN_IF_ERROR(VisitDType(
      half_like ? DType::kFloat : dtype,
      [&](auto tag) -> Status {
        using T = typename decltype(tag)::type;
        if constexpr (Op::template kSupports<T>) {
          TFHOST_RETURN_IF_ERROR(Op::template Check<T>(ctx, x, y));
          using Out = decltype(Op{}(std::declval<const T&>(), std::declval<const T&>()));
          z = BinaryLoop<T, Out>(ctx, *bc, x, y, Op{});
          return OkStatus();
        } else {
          return UnsupportedDType(ctx, dtype);
        }
      },
      [&] { return UnsupportedDType(ctx, dtype); }));
  if (half_like && z.dtype() == DType::kFloat) z = FloatToHalfLike(z, dtype);
  ctx.set_output(0, std::move(z));
  return OkStatus();
}

// Computes Op over input 0 into output 0.
template <typename Op>
Status UnaryKernel(KernelContext& ctx) {
  Tensor x = ctx.input(0);
  const DType dtype = x.dtype();
  const bool half_like = IsHalfLike(dtype);
  if (half_like) x = HalfLikeToFloat(x);
  Tensor y;
  TFHOST_RETURN_IF_ERROR(VisitDType(
      half_like ? DType::kFloat : dtype,
      [&](auto tag) -> Status {
        using T = typename decltype(tag)::type;
        if constexpr (Op::template kSupports<T>) {
          TFHOST_RETURN_IF_ERROR(Op::template Check<T>(ctx, x));
          using Out = decltype(Op{}(std::declval<const T&>()));
          y = Tensor(DTypeOf<Out>::value, x.shape());
          const T* a = x.data<T>();
          Out* o = y.data<Out>();
          Op fn;
          ParallelElementwise(ctx, x.NumElements(), [&](int64_t begin, int64_t end) {
            for (int64_t i = begin; i < end; ++i) o[i] = fn(a[i]);
          });
          return OkStatus();
        } else {
          return UnsupportedDType(ctx, dtype);
        }
      },
      [&] { return UnsupportedDType(ctx, dtype); }));
  if (half_like && y.dtype() == DType::kFloat) y = FloatToHalfLike(y, dtype);
  ctx.set_output(0, std::move(y));
  return OkStatus();
}

}  // namespace tfhost::ops::math
