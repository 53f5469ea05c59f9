// _TfhostLayerNorm (ops/nn/layer_norm.h) on float32, row by row: the sum of
// the row, then of its squared differences from the mean, each in double
// as the reference's Mean sums, then y = x * m + (-mean * m + beta) with
// m = inv * gamma, in float32 in the reference's order. Only the order of
// the double sums differs from the reference, which rounds to the same
// float all but rarely. A row of BERT-base (768 floats) stays in L1 across
// its three passes, so the node reads and writes the tensor once, where
// the ops it replaces read it five times. Rows are split over the intra-op
// pool.
#include <algorithm>
#include <cmath>

#include "backends/cpu/simd/simd_kernels.h"
#include "backends/cpu/simd/simd_math.h"
#include "backends/cpu/simd/simd_util.h"
#include "ops/nn/layer_norm.h"

namespace tfhost::backends::simd {
namespace {

struct LayerNormArgs {
  const float* x;
  const float* gamma;
  const float* beta;
  float* y;
  int64_t channels;
  float epsilon;
};

template <int W>
TFHOST_SIMD_INLINE void LayerNormRows(const LayerNormArgs& a, int64_t begin, int64_t end) {
  const int64_t n = a.channels;
  const int64_t full = n - n % W;
  for (int64_t row = begin; row < end; ++row) {
    const float* x = a.x + row * n;
    float* y = a.y + row * n;
    VD<W> s0{}, s1{};
    int64_t i = 0;
    for (; i + 2 * W <= full; i += 2 * W) {
      s0 += ToDouble<W>(Load<W>(x + i));
      s1 += ToDouble<W>(Load<W>(x + i + W));
    }
    for (; i < full; i += W) s0 += ToDouble<W>(Load<W>(x + i));
    double sum = HorizontalSum<W>(s0 + s1);
    for (; i < n; ++i) sum += static_cast<double>(x[i]);
    const float mean = static_cast<float>(sum / static_cast<double>(n));

    const VF<W> vmean = Splat<W>(mean);
    VD<W> q0{}, q1{};
    i = 0;
    for (; i + 2 * W <= full; i += 2 * W) {
      const VF<W> d0 = Load<W>(x + i) - vmean;
      const VF<W> d1 = Load<W>(x + i + W) - vmean;
      q0 += ToDouble<W>(d0 * d0);
      q1 += ToDouble<W>(d1 * d1);
    }
    for (; i < full; i += W) {
      const VF<W> d = Load<W>(x + i) - vmean;
      q0 += ToDouble<W>(d * d);
    }
    double squares = HorizontalSum<W>(q0 + q1);
    for (; i < n; ++i) {
      const float d = x[i] - mean;
      squares += static_cast<double>(d * d);
    }
    const float var = static_cast<float>(squares / static_cast<double>(n));
    const float inv = 1.0f / std::sqrt(var + a.epsilon);

    const VF<W> vinv = Splat<W>(inv), vneg = Splat<W>(-mean);
    i = 0;
    for (; i < full; i += W) {
      const VF<W> m = vinv * Load<W>(a.gamma + i);
      Store<W>(y + i, Load<W>(x + i) * m + (vneg * m + Load<W>(a.beta + i)));
    }
    for (; i < n; ++i) {
      const float m = inv * a.gamma[i];
      y[i] = x[i] * m + (-mean * m + a.beta[i]);
    }
  }
}

using LayerNormFn = void (*)(const LayerNormArgs&, int64_t, int64_t);

TFHOST_SIMD_TARGET_AVX512 void LayerNormAvx512(const LayerNormArgs& a, int64_t b, int64_t e) {
  LayerNormRows<kWidthAvx512>(a, b, e);
}
TFHOST_SIMD_TARGET_AVX2 void LayerNormAvx2(const LayerNormArgs& a, int64_t b, int64_t e) {
  LayerNormRows<kWidthAvx2>(a, b, e);
}
void LayerNormGeneric(const LayerNormArgs& a, int64_t b, int64_t e) { LayerNormRows<kWidthGeneric>(a, b, e); }

ops::KernelFn MakeLayerNormKernel(const ir::Node& node, const ops::KernelFn& fallback) {
  if (!IsFloatNode(node)) return {};
  auto epsilon = ir::GetAttr<float>(node, "epsilon");
  if (!epsilon.ok()) return {};
  const LayerNormFn fn = IsaTable<LayerNormFn>{&LayerNormAvx512, &LayerNormAvx2, &LayerNormGeneric}.Pick();
  const float eps = *epsilon;
  return [fn, eps, fallback](ops::KernelContext& ctx) -> Status {
    if (ctx.num_inputs() != 3) return fallback(ctx);
    TFHOST_ASSIGN_OR_RETURN(ops::nn::LayerNormGeometry g, ops::nn::CheckLayerNormInputs(ctx));
    Tensor x = ctx.TakeInput(0);
    const float* xp = x.data<float>();
    const Shape shape = x.shape();
    // Each row is read fully before it is written, so the input's buffer can
    // hold the output when nothing else holds it (x is moved into y then).
    Tensor y = ReuseOrAllocate(x, shape);
    if (g.rows > 0) {
      const LayerNormArgs a{xp, ctx.input(1).data<float>(), ctx.input(2).data<float>(), y.data<float>(), g.channels,
                            eps};
      const int64_t min_rows = std::max<int64_t>(1, kMinChunkExpensive / std::max<int64_t>(1, g.channels));
      ParallelRange(ctx.intra_op(), g.rows, min_rows, [&](int64_t b, int64_t e) { fn(a, b, e); });
    }
    ctx.set_output(0, std::move(y));
    return OkStatus();
  };
}

}  // namespace

void RegisterLayerNormKernels(KernelTable& table) { table.Add(ops::nn::kLayerNormOp, MakeLayerNormKernel); }

}  // namespace tfhost::backends::simd
