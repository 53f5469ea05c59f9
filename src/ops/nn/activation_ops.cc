// Element-wise activation ops: Relu, Relu6, Elu, Selu, LeakyRelu, Softplus,
// Softsign, and TF.js's Prelu (x, alpha). The math lives in
// fused_activation.cc so that fused convolutions apply exactly the same
// functions.
#include <algorithm>
#include <type_traits>

#include "ops/nn/fused_activation.h"
#include "ops/nn/nn_registrations.h"
#include "ops/nn/nn_util.h"

namespace tfhost::ops::nn {

namespace {

Status UnsupportedDType(const KernelContext& ctx, DType d) {
  return Unimplemented(ir::NodeContext(ctx.node()) + ": dtype " + DTypeShortName(d) +
                       " is not supported");
}

template <typename T>
void IntegerRelu(T* p, int64_t n, bool cap_at_six) {
  if constexpr (std::is_signed_v<T>) {
    for (int64_t i = 0; i < n; ++i) p[i] = p[i] < T(0) ? T(0) : p[i];
  }
  if (cap_at_six) {
    for (int64_t i = 0; i < n; ++i) p[i] = p[i] > T(6) ? T(6) : p[i];
  }
}

// Relu and Relu6 also run on integers; the rest need a floating type.
Status ActivationImpl(const KernelContext& ctx, const std::vector<Tensor>& in,
                      std::vector<Tensor>& out, Activation act) {
  const Tensor& x = in[0];
  Tensor y = x.Clone();
  const int64_t n = x.NumElements();
  if (x.dtype() == DType::kFloat || x.dtype() == DType::kDouble) {
    double alpha = 0.2;
    if (act == Activation::kLeakyRelu) {
      TFHOST_ASSIGN_OR_RETURN(float a, ctx.AttrOr<float>("alpha", 0.2f));
      alpha = a;
    }
    if (x.dtype() == DType::kFloat) {
      ApplyActivation<float>(act, static_cast<float>(alpha), y.data<float>(), n);
    } else {
      ApplyActivation<double>(act, alpha, y.data<double>(), n);
    }
  } else if ((act == Activation::kRelu || act == Activation::kRelu6) && IsInteger(x.dtype())) {
    bool ok = true;
    TFHOST_SWITCH_REAL_TYPES(x.dtype(), {
      IntegerRelu<T>(y.data<T>(), n, act == Activation::kRelu6);
    }, { ok = false; });
    if (!ok) return UnsupportedDType(ctx, x.dtype());
  } else {
    return UnsupportedDType(ctx, x.dtype());
  }
  out[0] = y;
  return OkStatus();
}

KernelFn MakeActivationKernel(Activation act) {
  return [act](KernelContext& ctx) {
    return RunWidened(ctx, 1, 0, {0},
                      [act](const KernelContext& c, const std::vector<Tensor>& in,
                            std::vector<Tensor>& out) { return ActivationImpl(c, in, out, act); });
  };
}

// Prelu(x, alpha) = x < 0 ? alpha * x : x, alpha broadcast to x's shape.
Status PreluImpl(const KernelContext& ctx, const std::vector<Tensor>& in,
                 std::vector<Tensor>& out) {
  const Tensor& x = in[0];
  const Tensor& alpha = in[1];
  if (x.dtype() != DType::kFloat && x.dtype() != DType::kDouble) {
    return UnsupportedDType(ctx, x.dtype());
  }
  auto a = BroadcastValues(alpha, x.shape());
  if (!a.ok()) return ctx.Error("alpha: " + a.status().message());
  Tensor y = x.Clone();
  const int64_t n = x.NumElements();
  if (x.dtype() == DType::kFloat) {
    float* p = y.data<float>();
    for (int64_t i = 0; i < n; ++i) p[i] = p[i] < 0 ? static_cast<float>((*a)[i]) * p[i] : p[i];
  } else {
    double* p = y.data<double>();
    for (int64_t i = 0; i < n; ++i) p[i] = p[i] < 0 ? (*a)[i] * p[i] : p[i];
  }
  out[0] = y;
  return OkStatus();
}

ir::OpDefBuilder UnarySchema(const char* name, const char* types) {
  ir::OpDefBuilder b(name);
  b.Input("features: T").Output("activations: T").Attr(types);
  return b;
}

}  // namespace

void RegisterActivationOps(OpRegistry& registry) {
  const char* kReal =
      "T: {float, double, int32, uint8, int16, int8, int64, bfloat16, uint16, half, uint32, "
      "uint64}";
  const char* kFloat = "T: {half, bfloat16, float, double}";
  registry.Register(UnarySchema("Relu", kReal), MakeActivationKernel(Activation::kRelu));
  registry.Register(UnarySchema("Relu6", kReal), MakeActivationKernel(Activation::kRelu6));
  registry.Register(UnarySchema("Elu", kFloat), MakeActivationKernel(Activation::kElu));
  registry.Register(UnarySchema("Selu", kFloat), MakeActivationKernel(Activation::kSelu));
  registry.Register(UnarySchema("Softplus", kFloat), MakeActivationKernel(Activation::kSoftplus));
  registry.Register(UnarySchema("Softsign", kFloat), MakeActivationKernel(Activation::kSoftsign));
  registry.Register(ir::OpDefBuilder("LeakyRelu")
                        .Input("features: T")
                        .Output("activations: T")
                        .Attr("alpha: float = 0.2")
                        .Attr("T: {half, bfloat16, float, double} = DT_FLOAT"),
                    MakeActivationKernel(Activation::kLeakyRelu));
  // TF.js-only op (no TensorFlow registry entry); arg names follow TF.js.
  registry.Register(ir::OpDefBuilder("Prelu")
                        .Input("x: T")
                        .Input("alpha: T")
                        .Output("y: T")
                        .Attr("T: {half, bfloat16, float, double}"),
                    [](KernelContext& ctx) { return RunWidened(ctx, 2, 0, {0}, PreluImpl); });
}

}  // namespace tfhost::ops::nn
