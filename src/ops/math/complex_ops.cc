// Complex64 and complex128 element-wise arithmetic for ops whose real-number
// kernels live in binary_ops.cc / unary_ops.cc: Add, AddV2, Sub, Mul, Div,
// RealDiv (NumPy broadcasting) and Neg, Exp. Signal-processing graphs need
// them: tf.signal.dct (inside mfccs_from_log_mel_spectrograms) multiplies an
// RFFT by 2 * exp(-i * pi * k / (2n)).
//
// Tensors hold interleaved (real, imaginary) pairs, which is std::complex's
// layout. Products use the textbook formula in the element type, (ac - bd) +
// (ad + bc)i, as TensorFlow's vectorized Eigen kernels do (no C99 Annex G
// infinity recovery). Quotients and complex64 exp are computed through
// std::complex<double> and rounded once, the accurate result TensorFlow's
// float32 kernels come within an ulp or two of.
#include <complex>

#include "ops/math/broadcast.h"
#include "ops/math/math_ops.h"
#include "ops/math/math_util.h"

namespace tfhost::ops::math {
namespace {

bool IsComplex(DType d) { return d == DType::kComplex64 || d == DType::kComplex128; }

template <typename T>
std::complex<T> Apply(ComplexOp op, std::complex<T> a, std::complex<T> b) {
  switch (op) {
    case ComplexOp::kAdd: return {a.real() + b.real(), a.imag() + b.imag()};
    case ComplexOp::kSub: return {a.real() - b.real(), a.imag() - b.imag()};
    case ComplexOp::kMul:
      return {a.real() * b.real() - a.imag() * b.imag(), a.real() * b.imag() + a.imag() * b.real()};
    case ComplexOp::kDiv: {
      const std::complex<double> q = std::complex<double>(a) / std::complex<double>(b);
      return {static_cast<T>(q.real()), static_cast<T>(q.imag())};
    }
    case ComplexOp::kNeg: return {-a.real(), -a.imag()};
    case ComplexOp::kExp: {
      const std::complex<double> e = std::exp(std::complex<double>(a));
      return {static_cast<T>(e.real()), static_cast<T>(e.imag())};
    }
  }
  return {};
}

template <typename T>
const std::complex<T>* Elements(const Tensor& t) {
  return reinterpret_cast<const std::complex<T>*>(t.data<T>());
}
template <typename T>
std::complex<T>* Elements(Tensor& t) {
  return reinterpret_cast<std::complex<T>*>(t.data<T>());
}

template <typename T>
Tensor ComplexBinary(const KernelContext& ctx, ComplexOp op, const Broadcaster& bc, const Tensor& x, const Tensor& y) {
  Tensor z(x.dtype(), bc.output_shape());
  const std::complex<T>* a = Elements<T>(x);
  const std::complex<T>* b = Elements<T>(y);
  std::complex<T>* o = Elements<T>(z);
  ParallelElementwise(ctx, bc.num_elements(), [&](int64_t begin, int64_t end) {
    bc.ForEach(begin, end, [&](int64_t i, const int64_t* off) { o[i] = Apply(op, a[off[0]], b[off[1]]); });
  });
  return z;
}

Status ComplexBinaryKernel(KernelContext& ctx, ComplexOp op) {
  const Tensor& x = ctx.input(0);
  const Tensor& y = ctx.input(1);
  if (y.dtype() != x.dtype()) {
    return ctx.Error("both inputs must have the same dtype, got " + DTypeShortName(x.dtype()) + " and " +
                     DTypeShortName(y.dtype()));
  }
  auto bc = Broadcaster::Make({x.shape(), y.shape()});
  if (!bc.ok()) return ctx.Error(bc.status().message());
  ctx.set_output(0, x.dtype() == DType::kComplex64 ? ComplexBinary<float>(ctx, op, *bc, x, y)
                                                   : ComplexBinary<double>(ctx, op, *bc, x, y));
  return OkStatus();
}

template <typename T>
Tensor ComplexUnary(const KernelContext& ctx, ComplexOp op, const Tensor& x) {
  Tensor y(x.dtype(), x.shape());
  const std::complex<T>* a = Elements<T>(x);
  std::complex<T>* o = Elements<T>(y);
  ParallelElementwise(ctx, x.NumElements(), [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) o[i] = Apply(op, a[i], std::complex<T>());
  });
  return y;
}

Status ComplexUnaryKernel(KernelContext& ctx, ComplexOp op) {
  const Tensor& x = ctx.input(0);
  ctx.set_output(0, x.dtype() == DType::kComplex64 ? ComplexUnary<float>(ctx, op, x) : ComplexUnary<double>(ctx, op, x));
  return OkStatus();
}

}  // namespace

KernelFn WithComplexSupport(ComplexOp op, KernelFn real) {
  const bool unary = op == ComplexOp::kNeg || op == ComplexOp::kExp;
  return [op, unary, real = std::move(real)](KernelContext& ctx) -> Status {
    if (ctx.num_inputs() == 0 || !IsComplex(ctx.input(0).dtype())) return real(ctx);
    return unary ? ComplexUnaryKernel(ctx, op) : ComplexBinaryKernel(ctx, op);
  };
}

}  // namespace tfhost::ops::math
