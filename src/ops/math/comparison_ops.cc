// Comparisons and logic, all producing bool: Equal/NotEqual (any dtype,
// including string and bool), Less/LessEqual/Greater/GreaterEqual (real
// numbers), LogicalAnd/Or/Not, and the float classifiers IsNan/IsInf/IsFinite.
// Floats compare as IEEE does: NaN is unequal to everything, itself included.
#include <cmath>

#include "ops/math/broadcast.h"
#include "ops/math/elementwise.h"
#include "ops/math/math_ops.h"

namespace tfhost::ops::math {
namespace {

struct EqualOp : BinaryOpBase {
  template <typename T> static constexpr bool kSupports = true;
  template <typename T> bool operator()(const T& a, const T& b) const { return a == b; }
};
struct NotEqualOp : BinaryOpBase {
  template <typename T> static constexpr bool kSupports = true;
  template <typename T> bool operator()(const T& a, const T& b) const { return a != b; }
};
struct LessOp : BinaryOpBase {
  template <typename T> static constexpr bool kSupports = kIsReal<T>;
  template <typename T> bool operator()(const T& a, const T& b) const { return a < b; }
};
struct LessEqualOp : BinaryOpBase {
  template <typename T> static constexpr bool kSupports = kIsReal<T>;
  template <typename T> bool operator()(const T& a, const T& b) const { return a <= b; }
};
struct GreaterOp : BinaryOpBase {
  template <typename T> static constexpr bool kSupports = kIsReal<T>;
  template <typename T> bool operator()(const T& a, const T& b) const { return a > b; }
};
struct GreaterEqualOp : BinaryOpBase {
  template <typename T> static constexpr bool kSupports = kIsReal<T>;
  template <typename T> bool operator()(const T& a, const T& b) const { return a >= b; }
};
struct LogicalAndOp : BinaryOpBase {
  template <typename T> static constexpr bool kSupports = kIsBool<T>;
  template <typename T> bool operator()(const T& a, const T& b) const { return a && b; }
};
struct LogicalOrOp : BinaryOpBase {
  template <typename T> static constexpr bool kSupports = kIsBool<T>;
  template <typename T> bool operator()(const T& a, const T& b) const { return a || b; }
};
struct LogicalNotOp : UnaryOpBase {
  template <typename T> static constexpr bool kSupports = kIsBool<T>;
  template <typename T> bool operator()(const T& a) const { return !a; }
};
struct IsNanOp : UnaryOpBase {
  template <typename T> static constexpr bool kSupports = kIsFloat<T>;
  template <typename T> bool operator()(const T& a) const { return std::isnan(a); }
};
struct IsInfOp : UnaryOpBase {
  template <typename T> static constexpr bool kSupports = kIsFloat<T>;
  template <typename T> bool operator()(const T& a) const { return std::isinf(a); }
};
struct IsFiniteOp : UnaryOpBase {
  template <typename T> static constexpr bool kSupports = kIsFloat<T>;
  template <typename T> bool operator()(const T& a) const { return std::isfinite(a); }
};

// Equal/NotEqual of complex numbers: both parts equal (conformance cases
// Equal/tf/complex64*). kNotEqual flips the answer.
template <bool kNotEqual>
Status ComplexEquality(KernelContext& ctx) {
  const Tensor& a = ctx.input(0);
  const Tensor& b = ctx.input(1);
  if (b.dtype() != a.dtype()) return ctx.Error("x and y must have one dtype");
  auto bc = Broadcaster::Make({a.shape(), b.shape()});
  if (!bc.ok()) return ctx.Error(std::string(bc.status().message()));
  Tensor out(DType::kBool, bc->output_shape());
  const bool single = a.dtype() == DType::kComplex64;
  auto part = [single](const Tensor& t, int64_t k) {
    return single ? static_cast<double>(t.data<float>()[k]) : t.data<double>()[k];
  };
  bc->ForEach(0, bc->num_elements(), [&](int64_t i, const int64_t* off) {
    const bool equal = part(a, 2 * off[0]) == part(b, 2 * off[1]) && part(a, 2 * off[0] + 1) == part(b, 2 * off[1] + 1);
    out.data<bool>()[i] = equal != kNotEqual;
  });
  ctx.set_output(0, std::move(out));
  return OkStatus();
}

// Equal/NotEqual with incompatible_shape_error=false answer a scalar
// (false/true) for shapes that do not broadcast, instead of failing.
template <typename Op, bool kIncompatibleValue>
Status EqualityKernel(KernelContext& ctx) {
  TFHOST_ASSIGN_OR_RETURN(bool shape_error, ctx.AttrOr<bool>("incompatible_shape_error", true));
  if (!shape_error && !BroadcastShapes(ctx.input(0).shape(), ctx.input(1).shape()).ok()) {
    ctx.set_output(0, Tensor::Scalar<bool>(kIncompatibleValue));
    return OkStatus();
  }
  const DType dtype = ctx.input(0).dtype();
  if (dtype == DType::kComplex64 || dtype == DType::kComplex128) return ComplexEquality<kIncompatibleValue>(ctx);
  return BinaryKernel<Op>(ctx);
}

void RegisterCompare(OpRegistry& registry, const char* name, KernelFn fn) {
  registry.Register(ir::OpDefBuilder(name)
                        .Input("x: T")
                        .Input("y: T")
                        .Output("z: bool")
                        .Attr(std::string("T: ") + kRealTypes),
                    std::move(fn));
}

void RegisterClassifier(OpRegistry& registry, const char* name, KernelFn fn) {
  registry.Register(ir::OpDefBuilder(name)
                        .Input("x: T")
                        .Output("y: bool")
                        .Attr(std::string("T: ") + kFloatTypes),
                    std::move(fn));
}

}  // namespace

void RegisterComparisonOps(OpRegistry& registry) {
  registry.Register(ir::OpDefBuilder("Equal")
                        .Input("x: T")
                        .Input("y: T")
                        .Output("z: bool")
                        .Attr("T: type")
                        .Attr("incompatible_shape_error: bool = true"),
                    EqualityKernel<EqualOp, false>);
  registry.Register(ir::OpDefBuilder("NotEqual")
                        .Input("x: T")
                        .Input("y: T")
                        .Output("z: bool")
                        .Attr("T: type")
                        .Attr("incompatible_shape_error: bool = true"),
                    EqualityKernel<NotEqualOp, true>);
  RegisterCompare(registry, "Less", BinaryKernel<LessOp>);
  RegisterCompare(registry, "LessEqual", BinaryKernel<LessEqualOp>);
  RegisterCompare(registry, "Greater", BinaryKernel<GreaterOp>);
  RegisterCompare(registry, "GreaterEqual", BinaryKernel<GreaterEqualOp>);
  registry.Register(
      ir::OpDefBuilder("LogicalAnd").Input("x: bool").Input("y: bool").Output("z: bool"),
      BinaryKernel<LogicalAndOp>);
  registry.Register(
      ir::OpDefBuilder("LogicalOr").Input("x: bool").Input("y: bool").Output("z: bool"),
      BinaryKernel<LogicalOrOp>);
  registry.Register(ir::OpDefBuilder("LogicalNot").Input("x: bool").Output("y: bool"),
                    UnaryKernel<LogicalNotOp>);
  RegisterClassifier(registry, "IsNan", UnaryKernel<IsNanOp>);
  RegisterClassifier(registry, "IsInf", UnaryKernel<IsInfOp>);
  RegisterClassifier(registry, "IsFinite", UnaryKernel<IsFiniteOp>);
}

}  // namespace tfhost::ops::math
