// Run-time checks that pass their input through: EnsureShape (Keras 3 and
// tf.function signatures pin shapes with it) and CheckNumerics/V2
// (tf.debugging.check_numerics, left in some exported graphs).
#include <cmath>

#include "ops/array/array_util.h"

namespace tfhost::ops::array {
namespace {

Status EnsureShape(KernelContext& ctx) {
  TFHOST_ASSIGN_OR_RETURN(ir::PartialShape want, ctx.Attr<ir::PartialShape>("shape"));
  const Tensor& input = ctx.input(0);
  if (!want.IsCompatibleWith(input.shape())) {
    return ctx.Error("Shape of tensor " + input.shape().ToString() + " is not compatible with expected shape " +
                     want.ToString());
  }
  ctx.set_output(0, input);
  return OkStatus();
}

template <typename T>
void CountNonFinite(const Tensor& t, bool* nan, bool* inf) {
  const T* p = t.data<T>();
  for (int64_t i = 0; i < t.NumElements(); ++i) {
    const float v = [&] {
      if constexpr (std::is_same_v<T, uint16_t>) {
        return t.dtype() == DType::kHalf ? HalfToFloat(p[i]) : BFloat16ToFloat(p[i]);
      } else {
        return static_cast<float>(p[i]);
      }
    }();
    if (std::isnan(v)) *nan = true;
    if (std::isinf(v)) *inf = true;
  }
}

// TensorFlow's message: "<message> : Tensor had NaN values" (or Inf, or
// "NaN and Inf" for V2, which distinguishes +Inf and -Inf only in text).
Status CheckNumerics(KernelContext& ctx) {
  TFHOST_ASSIGN_OR_RETURN(std::string message, ctx.AttrOr<std::string>("message", ""));
  const Tensor& t = ctx.input(0);
  bool nan = false, inf = false;
  switch (t.dtype()) {
    case DType::kFloat: CountNonFinite<float>(t, &nan, &inf); break;
    case DType::kDouble: CountNonFinite<double>(t, &nan, &inf); break;
    case DType::kHalf:
    case DType::kBFloat16: CountNonFinite<uint16_t>(t, &nan, &inf); break;
    default: return ctx.Error("CheckNumerics needs a floating-point tensor, got " + DTypeShortName(t.dtype()));
  }
  if (nan || inf) {
    const std::string what = nan && inf ? "NaN and Inf" : nan ? "NaN" : "Inf";
    return ctx.Error(message + " : Tensor had " + what + " values");
  }
  ctx.set_output(0, t);
  return OkStatus();
}

}  // namespace

void RegisterCheckOps(OpRegistry& registry) {
  registry.Register(ir::OpDefBuilder("EnsureShape").Input("input: T").Output("output: T").Attr("shape: shape").Attr("T: type"),
                    EnsureShape);
  for (const char* name : {"CheckNumerics", "CheckNumericsV2"}) {
    registry.Register(ir::OpDefBuilder(name)
                          .Input("tensor: T")
                          .Output("output: T")
                          .Attr("T: {bfloat16, half, float, double}")
                          .Attr("message: string")
                          .SetIsStateful(),
                      CheckNumerics);
  }
}

}  // namespace tfhost::ops::array
