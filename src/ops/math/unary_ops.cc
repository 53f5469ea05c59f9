// Element-wise unary math: Neg, Abs, Sign, Square, roots, exponentials and
// logarithms, rounding (Round and Rint round half to even), trigonometric and
// hyperbolic functions, Sigmoid, Erf/Erfc, Lgamma. Integer dtypes are accepted
// where TensorFlow accepts them (Neg, Abs, Sign, Square wrap on overflow like
// TF; Round is the identity); the rest are float-only, except that Neg and Exp
// also take complex numbers (complex_ops.cc). The activation family (Relu,
// Softplus, ...) lives in nn.
#include <cmath>
#include <limits>

#include "ops/math/elementwise.h"
#include "ops/math/math_ops.h"

namespace tfhost::ops::math {
namespace {

// Declares a float-only op `Name` computing `expr` of `x`.
#define TFHOST_FLOAT_UNARY(Name, expr)                                      \
  struct Name : UnaryOpBase {                                               \
    template <typename T> static constexpr bool kSupports = kIsFloat<T>;    \
    template <typename T> T operator()(const T& x) const { return (expr); } \
  };

TFHOST_FLOAT_UNARY(SqrtOp, std::sqrt(x))
TFHOST_FLOAT_UNARY(RsqrtOp, T(1) / std::sqrt(x))
TFHOST_FLOAT_UNARY(ExpOp, std::exp(x))
TFHOST_FLOAT_UNARY(Expm1Op, std::expm1(x))
TFHOST_FLOAT_UNARY(LogOp, std::log(x))
TFHOST_FLOAT_UNARY(Log1pOp, std::log1p(x))
TFHOST_FLOAT_UNARY(ReciprocalOp, T(1) / x)
TFHOST_FLOAT_UNARY(FloorOp, std::floor(x))
TFHOST_FLOAT_UNARY(CeilOp, std::ceil(x))
// nearbyint under the default rounding mode rounds half to even.
TFHOST_FLOAT_UNARY(RintOp, std::nearbyint(x))
TFHOST_FLOAT_UNARY(SinOp, std::sin(x))
TFHOST_FLOAT_UNARY(CosOp, std::cos(x))
TFHOST_FLOAT_UNARY(TanOp, std::tan(x))
TFHOST_FLOAT_UNARY(AsinOp, std::asin(x))
TFHOST_FLOAT_UNARY(AcosOp, std::acos(x))
TFHOST_FLOAT_UNARY(AtanOp, std::atan(x))
TFHOST_FLOAT_UNARY(SinhOp, std::sinh(x))
TFHOST_FLOAT_UNARY(CoshOp, std::cosh(x))
TFHOST_FLOAT_UNARY(TanhOp, std::tanh(x))
TFHOST_FLOAT_UNARY(AsinhOp, std::asinh(x))
TFHOST_FLOAT_UNARY(AcoshOp, std::acosh(x))
TFHOST_FLOAT_UNARY(AtanhOp, std::atanh(x))
TFHOST_FLOAT_UNARY(ErfOp, std::erf(x))
TFHOST_FLOAT_UNARY(ErfcOp, std::erfc(x))
TFHOST_FLOAT_UNARY(LgammaOp, std::lgamma(x))
#undef TFHOST_FLOAT_UNARY

// Written so that exp never overflows: for x < 0 use e^x / (1 + e^x).
struct SigmoidOp : UnaryOpBase {
  template <typename T> static constexpr bool kSupports = kIsFloat<T>;
  template <typename T> T operator()(const T& x) const {
    if (x >= 0) return T(1) / (T(1) + std::exp(-x));
    T e = std::exp(x);
    return e / (T(1) + e);
  }
};

struct NegOp : UnaryOpBase {
  template <typename T> static constexpr bool kSupports = kIsReal<T>;
  template <typename T> T operator()(const T& x) const { return WrapNeg(x); }
};

struct AbsOp : UnaryOpBase {
  template <typename T> static constexpr bool kSupports = kIsReal<T>;
  template <typename T> T operator()(const T& x) const {
    if constexpr (kIsFloat<T>) return std::fabs(x);
    else if constexpr (std::is_signed_v<T>) return x < 0 ? WrapNeg(x) : x;
    else return x;
  }
};

// -1, 0 or 1; NaN stays NaN.
struct SignOp : UnaryOpBase {
  template <typename T> static constexpr bool kSupports = kIsReal<T>;
  template <typename T> T operator()(const T& x) const {
    if constexpr (kIsFloat<T>) {
      if (std::isnan(x)) return x;
    }
    return static_cast<T>((T(0) < x) - (x < T(0)));
  }
};

struct SquareOp : UnaryOpBase {
  template <typename T> static constexpr bool kSupports = kIsReal<T>;
  template <typename T> T operator()(const T& x) const { return WrapMul(x, x); }
};

// Round half to even for floats; integers are already round.
struct RoundOp : UnaryOpBase {
  template <typename T> static constexpr bool kSupports = kIsReal<T>;
  template <typename T> T operator()(const T& x) const {
    if constexpr (kIsFloat<T>) return std::nearbyint(x);
    else return x;
  }
};

void RegisterUnary(OpRegistry& registry, const char* name, const char* types, KernelFn fn) {
  registry.Register(
      ir::OpDefBuilder(name).Input("x: T").Output("y: T").Attr(std::string("T: ") + types),
      std::move(fn));
}

}  // namespace

void RegisterUnaryOps(OpRegistry& registry) {
  const char* f = kFloatTypes;
  const std::string real = kRealTypes;
  const std::string with_complex = real.substr(0, real.size() - 1) + ", complex64, complex128}";
  const std::string floats = kFloatTypes;
  const std::string floats_and_complex = floats.substr(0, floats.size() - 1) + ", complex64, complex128}";
  RegisterUnary(registry, "Neg", with_complex.c_str(), WithComplexSupport(ComplexOp::kNeg, UnaryKernel<NegOp>));
  RegisterUnary(registry, "Abs", kRealTypes, UnaryKernel<AbsOp>);
  RegisterUnary(registry, "Sign", kRealTypes, UnaryKernel<SignOp>);
  RegisterUnary(registry, "Square", kRealTypes, UnaryKernel<SquareOp>);
  RegisterUnary(registry, "Round", kRealTypes, UnaryKernel<RoundOp>);
  RegisterUnary(registry, "Rint", f, UnaryKernel<RintOp>);
  RegisterUnary(registry, "Sqrt", f, UnaryKernel<SqrtOp>);
  RegisterUnary(registry, "Rsqrt", f, UnaryKernel<RsqrtOp>);
  RegisterUnary(registry, "Exp", floats_and_complex.c_str(), WithComplexSupport(ComplexOp::kExp, UnaryKernel<ExpOp>));
  RegisterUnary(registry, "Expm1", f, UnaryKernel<Expm1Op>);
  RegisterUnary(registry, "Log", f, UnaryKernel<LogOp>);
  RegisterUnary(registry, "Log1p", f, UnaryKernel<Log1pOp>);
  RegisterUnary(registry, "Reciprocal", f, UnaryKernel<ReciprocalOp>);
  registry.RegisterAlias("Inv", "Reciprocal");
  RegisterUnary(registry, "Floor", f, UnaryKernel<FloorOp>);
  RegisterUnary(registry, "Ceil", f, UnaryKernel<CeilOp>);
  RegisterUnary(registry, "Sin", f, UnaryKernel<SinOp>);
  RegisterUnary(registry, "Cos", f, UnaryKernel<CosOp>);
  RegisterUnary(registry, "Tan", f, UnaryKernel<TanOp>);
  RegisterUnary(registry, "Asin", f, UnaryKernel<AsinOp>);
  RegisterUnary(registry, "Acos", f, UnaryKernel<AcosOp>);
  RegisterUnary(registry, "Atan", f, UnaryKernel<AtanOp>);
  RegisterUnary(registry, "Sinh", f, UnaryKernel<SinhOp>);
  RegisterUnary(registry, "Cosh", f, UnaryKernel<CoshOp>);
  RegisterUnary(registry, "Tanh", f, UnaryKernel<TanhOp>);
  RegisterUnary(registry, "Asinh", f, UnaryKernel<AsinhOp>);
  RegisterUnary(registry, "Acosh", f, UnaryKernel<AcoshOp>);
  RegisterUnary(registry, "Atanh", f, UnaryKernel<AtanhOp>);
  RegisterUnary(registry, "Sigmoid", f, UnaryKernel<SigmoidOp>);
  RegisterUnary(registry, "Erf", f, UnaryKernel<ErfOp>);
  RegisterUnary(registry, "Erfc", f, UnaryKernel<ErfcOp>);
  RegisterUnary(registry, "Lgamma", f, UnaryKernel<LgammaOp>);
}

}  // namespace tfhost::ops::math
