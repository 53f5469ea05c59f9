// Arithmetic element-wise binary ops with NumPy broadcasting: Add/AddV2 (also
// string concatenation), Sub, Mul, the division family, Maximum/Minimum, Pow,
// SquaredDifference, Atan2, the NoNan/xlogy variants, and the bitwise ops
// BitwiseAnd/Or/Xor, LeftShift and RightShift (shift counts clamped to
// [0, bits - 1] as TensorFlow's CPU kernels do; RightShift is arithmetic for
// signed types). Add, AddV2, Sub, Mul, Div and RealDiv also take complex
// numbers (complex_ops.cc).
//
// Integer semantics follow TensorFlow: +,-,* wrap; Div/RealDiv/TruncateDiv
// truncate toward zero; FloorDiv floors; FloorMod's result takes the divisor's
// sign and TruncateMod/Mod the dividend's; an integer zero divisor is an
// InvalidArgument error ("integer division by zero"), found before computing.
#include <cmath>
#include <limits>
#include <string>
#include <type_traits>

#include "ops/math/elementwise.h"
#include "ops/math/math_ops.h"

namespace tfhost::ops::math {
namespace {

template <typename T>
Status CheckNoZeroDivisor(const KernelContext& ctx, const Tensor& y) {
  if constexpr (kIsInt<T>) {
    const T* d = y.data<T>();
    for (int64_t i = 0, n = y.NumElements(); i < n; ++i) {
      if (d[i] == 0) return ctx.Error("integer division by zero");
    }
  }
  return OkStatus();
}

// a / b truncated toward zero; b != 0. INT_MIN / -1 wraps instead of trapping.
template <typename T>
T TruncDiv(T a, T b) {
  if constexpr (std::is_signed_v<T>) {
    if (b == -1) return WrapNeg(a);
  }
  return static_cast<T>(a / b);
}

template <typename T>
T TruncMod(T a, T b) {
  if constexpr (std::is_signed_v<T>) {
    if (b == -1) return 0;
  }
  return static_cast<T>(a % b);
}

struct AddOp : BinaryOpBase {
  template <typename T> static constexpr bool kSupports = kIsReal<T> || kIsString<T>;
  template <typename T> T operator()(const T& a, const T& b) const {
    if constexpr (kIsString<T>) return a + b;
    else return WrapAdd(a, b);
  }
};

struct SubOp : BinaryOpBase {
  template <typename T> static constexpr bool kSupports = kIsReal<T>;
  template <typename T> T operator()(const T& a, const T& b) const { return WrapSub(a, b); }
};

struct MulOp : BinaryOpBase {
  template <typename T> static constexpr bool kSupports = kIsReal<T>;
  template <typename T> T operator()(const T& a, const T& b) const { return WrapMul(a, b); }
};

// Base of the division family: an integer zero divisor anywhere in y is an
// error, found before computing.
struct DivisionOpBase {
  template <typename T>
  static Status Check(const KernelContext& ctx, const Tensor&, const Tensor& y) {
    return CheckNoZeroDivisor<T>(ctx, y);
  }
};

// Div and RealDiv: true division for floats, truncation for integers.
struct DivOp : DivisionOpBase {
  template <typename T> static constexpr bool kSupports = kIsReal<T>;
  template <typename T> T operator()(const T& a, const T& b) const {
    if constexpr (kIsInt<T>) return TruncDiv(a, b);
    else return a / b;
  }
};

struct TruncateDivOp : DivOp {
  template <typename T> static constexpr bool kSupports = kIsInt<T>;
};

struct FloorDivOp : DivisionOpBase {
  template <typename T> static constexpr bool kSupports = kIsReal<T>;
  template <typename T> T operator()(const T& a, const T& b) const {
    if constexpr (kIsFloat<T>) {
      return std::floor(a / b);
    } else {
      T q = TruncDiv(a, b);
      if constexpr (std::is_signed_v<T>) {
        if (TruncMod(a, b) != 0 && ((a < 0) != (b < 0))) q = static_cast<T>(q - 1);
      }
      return q;
    }
  }
};

struct FloorModOp : DivisionOpBase {
  template <typename T> static constexpr bool kSupports = kIsReal<T>;
  template <typename T> T operator()(const T& a, const T& b) const {
    if constexpr (kIsFloat<T>) {
      T r = std::fmod(a, b);
      if (r != 0 && ((r < 0) != (b < 0))) r += b;
      return r;
    } else {
      T r = TruncMod(a, b);
      if constexpr (std::is_signed_v<T>) {
        if (r != 0 && ((r < 0) != (b < 0))) r = static_cast<T>(r + b);
      }
      return r;
    }
  }
};

// Mod and TruncateMod: C's fmod / %, result has the dividend's sign.
struct TruncateModOp : DivisionOpBase {
  template <typename T> static constexpr bool kSupports = kIsReal<T>;
  template <typename T> T operator()(const T& a, const T& b) const {
    if constexpr (kIsFloat<T>) return std::fmod(a, b);
    else return TruncMod(a, b);
  }
};

// Maximum (kMax) and Minimum; NaN-propagating, as TensorFlow's.
template <bool kMax>
struct ExtremumOp : BinaryOpBase {
  template <typename T> static constexpr bool kSupports = kIsReal<T>;
  template <typename T> T operator()(const T& a, const T& b) const {
    if constexpr (kIsFloat<T>) {
      if (std::isnan(a) || std::isnan(b)) return std::numeric_limits<T>::quiet_NaN();
    }
    if constexpr (kMax) {
      return a > b ? a : b;
    } else {
      return a < b ? a : b;
    }
  }
};
using MaximumOp = ExtremumOp<true>;
using MinimumOp = ExtremumOp<false>;

struct PowOp {
  template <typename T> static constexpr bool kSupports = kIsReal<T>;
  template <typename T>
  static Status Check(const KernelContext& ctx, const Tensor&, const Tensor& y) {
    if constexpr (kIsInt<T> && std::is_signed_v<T>) {
      const T* e = y.data<T>();
      for (int64_t i = 0, n = y.NumElements(); i < n; ++i) {
        if (e[i] < 0) return ctx.Error("integers to negative integer powers are not allowed");
      }
    }
    return OkStatus();
  }
  template <typename T> T operator()(const T& a, const T& b) const {
    if constexpr (kIsFloat<T>) {
      return std::pow(a, b);
    } else {
      T result = 1, base = a;
      for (T e = b; e != 0; e = static_cast<T>(e >> 1)) {
        if (e & 1) result = WrapMul(result, base);
        base = WrapMul(base, base);
      }
      return result;
    }
  }
};

struct SquaredDifferenceOp : BinaryOpBase {
  template <typename T> static constexpr bool kSupports = kIsReal<T>;
  template <typename T> T operator()(const T& a, const T& b) const {
    T d = WrapSub(a, b);
    return WrapMul(d, d);
  }
};

// Atan2(y, x): the angle of the point (x, y).
struct Atan2Op : BinaryOpBase {
  template <typename T> static constexpr bool kSupports = kIsFloat<T>;
  template <typename T> T operator()(const T& y, const T& x) const { return std::atan2(y, x); }
};

struct DivNoNanOp : BinaryOpBase {
  template <typename T> static constexpr bool kSupports = kIsFloat<T>;
  template <typename T> T operator()(const T& a, const T& b) const { return b == 0 ? T(0) : a / b; }
};

struct MulNoNanOp : BinaryOpBase {
  template <typename T> static constexpr bool kSupports = kIsFloat<T>;
  template <typename T> T operator()(const T& a, const T& b) const { return b == 0 ? T(0) : a * b; }
};

// x == 0 gives 0 whatever y is, NaN included, as TensorFlow's CPU kernels
// do (conformance cases Xlogy/tf/*_edges, Xdivy/tf/*_edges).
struct XlogyOp : BinaryOpBase {
  template <typename T> static constexpr bool kSupports = kIsFloat<T>;
  template <typename T> T operator()(const T& x, const T& y) const { return x == 0 ? T(0) : x * std::log(y); }
};

struct XdivyOp : BinaryOpBase {
  template <typename T> static constexpr bool kSupports = kIsFloat<T>;
  template <typename T> T operator()(const T& x, const T& y) const { return x == 0 ? T(0) : x / y; }
};

template <int kOp>  // 0 and, 1 or, 2 xor
struct BitwiseOp : BinaryOpBase {
  template <typename T> static constexpr bool kSupports = kIsInt<T>;
  template <typename T> T operator()(const T& a, const T& b) const {
    if constexpr (kOp == 0) return static_cast<T>(a & b);
    else if constexpr (kOp == 1) return static_cast<T>(a | b);
    else return static_cast<T>(a ^ b);
  }
};

template <bool kLeft>
struct ShiftOp : BinaryOpBase {
  template <typename T> static constexpr bool kSupports = kIsInt<T>;
  template <typename T> T operator()(const T& a, const T& b) const {
    constexpr int bits = static_cast<int>(sizeof(T) * 8);
    // Clamped to [0, bits - 1], comparing in T itself: through int64, a
    // uint64 shift of 2^64 - 1 became -1.
    int n;
    if constexpr (std::is_signed_v<T>) {
      n = b < 0 ? 0 : (b >= static_cast<T>(bits - 1) ? bits - 1 : static_cast<int>(b));
    } else {
      n = b >= static_cast<T>(bits - 1) ? bits - 1 : static_cast<int>(b);
    }
    using U = std::make_unsigned_t<T>;
    if constexpr (kLeft) return static_cast<T>(static_cast<U>(static_cast<U>(a) << n));
    else return static_cast<T>(a >> n);
  }
};

void RegisterBinary(OpRegistry& registry, const char* name, const std::string& types, KernelFn fn,
                    const char* x = "x", const char* y = "y") {
  registry.Register(ir::OpDefBuilder(name)
                        .Input(std::string(x) + ": T")
                        .Input(std::string(y) + ": T")
                        .Output("z: T")
                        .Attr("T: " + types),
                    std::move(fn));
}

}  // namespace

void RegisterBinaryOps(OpRegistry& registry) {
  const std::string real = kRealTypes;
  const std::string floats = kFloatTypes;
  const std::string real_and_complex = real.substr(0, real.size() - 1) + ", complex64, complex128}";
  const std::string real_complex_string = real.substr(0, real.size() - 1) + ", complex64, complex128, string}";
  RegisterBinary(registry, "Add", real_complex_string, WithComplexSupport(ComplexOp::kAdd, BinaryKernel<AddOp>));
  RegisterBinary(registry, "AddV2", real_and_complex, WithComplexSupport(ComplexOp::kAdd, BinaryKernel<AddOp>));
  RegisterBinary(registry, "Sub", real_and_complex, WithComplexSupport(ComplexOp::kSub, BinaryKernel<SubOp>));
  RegisterBinary(registry, "Mul", real_and_complex, WithComplexSupport(ComplexOp::kMul, BinaryKernel<MulOp>));
  RegisterBinary(registry, "Div", real_and_complex, WithComplexSupport(ComplexOp::kDiv, BinaryKernel<DivOp>));
  RegisterBinary(registry, "RealDiv", real_and_complex, WithComplexSupport(ComplexOp::kDiv, BinaryKernel<DivOp>));
  RegisterBinary(registry, "TruncateDiv", "{int8, int16, int32, int64, uint8, uint16, uint32, uint64}",
                 BinaryKernel<TruncateDivOp>);
  RegisterBinary(registry, "FloorDiv", real, BinaryKernel<FloorDivOp>);
  RegisterBinary(registry, "FloorMod", real, BinaryKernel<FloorModOp>);
  RegisterBinary(registry, "TruncateMod", real, BinaryKernel<TruncateModOp>);
  RegisterBinary(registry, "Mod", real, BinaryKernel<TruncateModOp>);
  RegisterBinary(registry, "Maximum", real, BinaryKernel<MaximumOp>);
  RegisterBinary(registry, "Minimum", real, BinaryKernel<MinimumOp>);
  RegisterBinary(registry, "Pow", real, BinaryKernel<PowOp>);
  RegisterBinary(registry, "SquaredDifference", real, BinaryKernel<SquaredDifferenceOp>);
  RegisterBinary(registry, "Atan2", floats, BinaryKernel<Atan2Op>, "y", "x");
  RegisterBinary(registry, "DivNoNan", floats, BinaryKernel<DivNoNanOp>);
  RegisterBinary(registry, "MulNoNan", floats, BinaryKernel<MulNoNanOp>);
  RegisterBinary(registry, "Xlogy", floats, BinaryKernel<XlogyOp>);
  RegisterBinary(registry, "Xdivy", floats, BinaryKernel<XdivyOp>);
  const std::string ints = "{int8, int16, int32, int64, uint8, uint16, uint32, uint64}";
  RegisterBinary(registry, "BitwiseAnd", ints, BinaryKernel<BitwiseOp<0>>);
  RegisterBinary(registry, "BitwiseOr", ints, BinaryKernel<BitwiseOp<1>>);
  RegisterBinary(registry, "BitwiseXor", ints, BinaryKernel<BitwiseOp<2>>);
  RegisterBinary(registry, "LeftShift", ints, BinaryKernel<ShiftOp<true>>);
  RegisterBinary(registry, "RightShift", ints, BinaryKernel<ShiftOp<false>>);
}

}  // namespace tfhost::ops::math
