// Element-wise unary float32 kernels: the activations (Relu, Relu6, Elu,
// LeakyRelu, Sigmoid, Tanh, Softplus), Exp, Neg, Abs, Square, Sqrt, Rsqrt, and
// GELU as passes/gelu_fusion.cc leaves it (a one-instruction
// _TfhostFusedElementwise "GeluExact" / "GeluApproximate"). The
// input buffer is reused for the output when nothing else holds it. NaN and
// infinities follow the reference kernels (see simd_math.h for the
// transcendental approximations and their error).
#include <string>
#include <vector>

#include "backends/cpu/simd/simd_kernels.h"
#include "backends/cpu/simd/simd_math.h"
#include "backends/cpu/simd/simd_util.h"
#include "ops/math/fused_elementwise.h"

namespace tfhost::backends::simd {
namespace {

// `alpha` is LeakyRelu's slope; the other functors ignore it.
struct ReluF {
  template <int W> static TFHOST_SIMD_INLINE VF<W> Apply(const VF<W>& x, float) { return x < 0.0f ? Splat<W>(0.0f) : x; }
};
// std::min(std::max(x, 0), 6) as the reference computes it (NaN stays NaN).
struct Relu6F {
  template <int W> static TFHOST_SIMD_INLINE VF<W> Apply(const VF<W>& x, float) {
    const VF<W> lo = x < 0.0f ? Splat<W>(0.0f) : x;
    return 6.0f < lo ? Splat<W>(6.0f) : lo;
  }
};
// expm1 as e^x - 1: the absolute error near 0 (~1e-7) is inside the tolerance.
struct EluF {
  template <int W> static TFHOST_SIMD_INLINE VF<W> Apply(const VF<W>& x, float) {
    return x < 0.0f ? Exp<W>(x) - 1.0f : x;
  }
};
struct LeakyReluF {
  template <int W> static TFHOST_SIMD_INLINE VF<W> Apply(const VF<W>& x, float alpha) { return x < 0.0f ? x * alpha : x; }
};
struct SigmoidF {
  template <int W> static TFHOST_SIMD_INLINE VF<W> Apply(const VF<W>& x, float) { return Sigmoid<W>(x); }
};
struct TanhF {
  template <int W> static TFHOST_SIMD_INLINE VF<W> Apply(const VF<W>& x, float) { return Tanh<W>(x); }
};
struct ExpF {
  template <int W> static TFHOST_SIMD_INLINE VF<W> Apply(const VF<W>& x, float) { return Exp<W>(x); }
};
struct SoftplusF {
  template <int W> static TFHOST_SIMD_INLINE VF<W> Apply(const VF<W>& x, float) { return Softplus<W>(x); }
};
struct NegF {
  template <int W> static TFHOST_SIMD_INLINE VF<W> Apply(const VF<W>& x, float) { return -x; }
};
struct AbsF {
  template <int W> static TFHOST_SIMD_INLINE VF<W> Apply(const VF<W>& x, float) { return Abs<W>(x); }
};
struct SquareF {
  template <int W> static TFHOST_SIMD_INLINE VF<W> Apply(const VF<W>& x, float) { return x * x; }
};
struct SqrtF {
  template <int W> static TFHOST_SIMD_INLINE VF<W> Apply(const VF<W>& x, float) { return SqrtV<W>(x); }
};
struct RsqrtF {
  template <int W> static TFHOST_SIMD_INLINE VF<W> Apply(const VF<W>& x, float) { return 1.0f / SqrtV<W>(x); }
};

// 0.5 x (1 + erf(x / sqrt(2))) as 0.5 x erfc(-x / sqrt(2)): erfc(z) for z >= 0
// is Numerical Recipes' Chebyshev fit t exp(-z^2 + P(t)), t = 1 / (1 + z/2),
// relative error < 1.2e-7 over the whole range, so the negative tail (where
// 1 + erf would cancel) keeps its relative accuracy; for x >= 0 erfc(-z) =
// 2 - erfc(z).
struct GeluExactF {
  template <int W> static TFHOST_SIMD_INLINE VF<W> Apply(const VF<W>& x, float) {
    const VF<W> z = Abs<W>(x) * 0.70710678118654752f;
    const VF<W> t = 1.0f / (1.0f + 0.5f * z);
    VF<W> p = Splat<W>(0.17087277f);
    p = p * t - 0.82215223f;
    p = p * t + 1.48851587f;
    p = p * t - 1.13520398f;
    p = p * t + 0.27886807f;
    p = p * t - 0.18628806f;
    p = p * t + 0.09678418f;
    p = p * t + 0.37409196f;
    p = p * t + 1.00002368f;
    p = p * t - 1.26551223f;
    const VF<W> erfc_z = t * Exp<W>(p - z * z);
    const VF<W> half_x = 0.5f * x;
    return x < 0.0f ? half_x * erfc_z : half_x * (2.0f - erfc_z);
  }
};
// 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))), the formula of the
// reference kernel, with the vector tanh.
struct GeluApproximateF {
  template <int W> static TFHOST_SIMD_INLINE VF<W> Apply(const VF<W>& x, float) {
    const VF<W> inner = 0.7978845608028654f * (x + 0.044715f * x * x * x);
    return 0.5f * x * (1.0f + Tanh<W>(inner));
  }
};

template <int W, typename Op>
TFHOST_SIMD_INLINE void UnaryBody(const float* in, float* out, int64_t n, float alpha) {
  int64_t i = 0;
  for (; i + 2 * W <= n; i += 2 * W) {
    const VF<W> x0 = Load<W>(in + i);
    const VF<W> x1 = Load<W>(in + i + W);
    Store<W>(out + i, Op::template Apply<W>(x0, alpha));
    Store<W>(out + i + W, Op::template Apply<W>(x1, alpha));
  }
  for (; i + W <= n; i += W) Store<W>(out + i, Op::template Apply<W>(Load<W>(in + i), alpha));
  if (i < n) StorePartial<W>(out + i, Op::template Apply<W>(LoadPartial<W>(in + i, n - i), alpha), n - i);
}

using UnaryFn = void (*)(const float*, float*, int64_t, float);

template <typename Op>
TFHOST_SIMD_TARGET_AVX512 void UnaryAvx512(const float* in, float* out, int64_t n, float alpha) {
  UnaryBody<kWidthAvx512, Op>(in, out, n, alpha);
}
template <typename Op>
TFHOST_SIMD_TARGET_AVX2 void UnaryAvx2(const float* in, float* out, int64_t n, float alpha) {
  UnaryBody<kWidthAvx2, Op>(in, out, n, alpha);
}
template <typename Op>
void UnaryGeneric(const float* in, float* out, int64_t n, float alpha) {
  UnaryBody<kWidthGeneric, Op>(in, out, n, alpha);
}

template <typename Op>
UnaryFn PickUnary() {
  return IsaTable<UnaryFn>{&UnaryAvx512<Op>, &UnaryAvx2<Op>, &UnaryGeneric<Op>}.Pick();
}

// The kernel running `fn` over the one float input, reusing its buffer.
ops::KernelFn MakeUnaryKernel(UnaryFn fn, const ops::KernelFn& reference, float alpha, int64_t min_chunk) {
  return [fn, reference, alpha, min_chunk](ops::KernelContext& ctx) -> Status {
    if (ctx.num_inputs() != 1 || ctx.input(0).dtype() != DType::kFloat) return reference(ctx);
    Tensor x = ctx.TakeInput(0);
    const float* in = x.data<float>();
    const Shape shape = x.shape();
    Tensor y = ReuseOrAllocate(x, shape);
    float* out = y.data<float>();
    ParallelRange(ctx.intra_op(), y.NumElements(), min_chunk,
                  [&](int64_t begin, int64_t end) { fn(in + begin, out + begin, end - begin, alpha); });
    ctx.set_output(0, std::move(y));
    return OkStatus();
  };
}

// The transcendental ops of a longer fused program: the reference
// interpreter calls libm per element for them, several times slower than
// these, which a program made of separate ops would have used.
const ops::math::FusedUnaryOverrides& FusedTranscendentals() {
  static const ops::math::FusedUnaryOverrides kOverrides = {
      {"Sigmoid", PickUnary<SigmoidF>()},     {"Tanh", PickUnary<TanhF>()},
      {"Exp", PickUnary<ExpF>()},             {"Elu", PickUnary<EluF>()},
      {"Softplus", PickUnary<SoftplusF>()},   {"GeluExact", PickUnary<GeluExactF>()},
      {"GeluApproximate", PickUnary<GeluApproximateF>()}};
  return kOverrides;
}

// _TfhostFusedElementwise: the one-instruction GELU nodes as unary kernels;
// longer programs on the reference interpreter with the transcendental
// instructions above.
void RegisterGelu(KernelTable& table) {
  table.Add("_TfhostFusedElementwise", [](const ir::Node& node, const ops::KernelFn& reference) -> ops::KernelFn {
                      auto ops = ir::GetAttrOr<std::vector<std::string>>(node, "ops", {});
                      auto operands = ir::GetAttrOr<std::vector<int64_t>>(node, "operands", {});
                      if (!IsFloatNode(node) || !ops.ok() || !operands.ok()) return {};
                      if (ops->size() != 1 || *operands != std::vector<int64_t>{0, -1}) {
                        bool transcendental = false;
                        for (const std::string& op : *ops) transcendental |= FusedTranscendentals().count(op) > 0;
                        if (!transcendental) return {};
                        auto kernel = ops::math::MakeFusedElementwiseKernel(node, FusedTranscendentals());
                        return kernel.ok() ? *kernel : ops::KernelFn();
                      }
                      if ((*ops)[0] == "GeluExact") {
                        return MakeUnaryKernel(PickUnary<GeluExactF>(), reference, 0, kMinChunkExpensive);
                      }
                      if ((*ops)[0] == "GeluApproximate") {
                        return MakeUnaryKernel(PickUnary<GeluApproximateF>(), reference, 0, kMinChunkExpensive);
                      }
                      return {};
                    });
}

template <typename Op>
void RegisterUnary(KernelTable& table, const char* op, bool expensive) {
  table.Add(op, [expensive](const ir::Node& node, const ops::KernelFn& reference) -> ops::KernelFn {
    if (!IsFloatNode(node)) return {};
    float alpha = 0;
    if (node.op == "LeakyRelu") {
      auto a = ir::GetAttrOr<float>(node, "alpha", 0.2f);
      if (!a.ok()) return {};
      alpha = *a;
    }
    return MakeUnaryKernel(PickUnary<Op>(), reference, alpha, expensive ? kMinChunkExpensive : kMinChunkCheap);
  });
}

}  // namespace

void RegisterUnaryKernels(KernelTable& table) {
  RegisterUnary<ReluF>(table, "Relu", false);
  RegisterUnary<Relu6F>(table, "Relu6", false);
  RegisterUnary<EluF>(table, "Elu", true);
  RegisterUnary<LeakyReluF>(table, "LeakyRelu", false);
  RegisterUnary<SigmoidF>(table, "Sigmoid", true);
  RegisterUnary<TanhF>(table, "Tanh", true);
  RegisterUnary<ExpF>(table, "Exp", true);
  RegisterUnary<SoftplusF>(table, "Softplus", true);
  RegisterUnary<NegF>(table, "Neg", false);
  RegisterUnary<AbsF>(table, "Abs", false);
  RegisterUnary<SquareF>(table, "Square", false);
  RegisterUnary<SqrtF>(table, "Sqrt", true);
  RegisterUnary<RsqrtF>(table, "Rsqrt", true);
  RegisterGelu(table);
}

}  // namespace tfhost::backends::simd
