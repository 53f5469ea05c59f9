// _TfhostLayerNorm (ops/nn/layer_norm.h) on float32, row by row: the sum of
// the row, then of its squared differences from the mean, in double across
// blocks of 8 vectors (each block's lanes summed in float), then
// y = x * m + (-mean * m + beta) with m = inv * gamma, in float32 in the
// reference's order. Only the sums differ from the reference's (a double
// sum in row order), by a float rounding or two in the mean and variance.
// A row of BERT-base (768 floats) stays in L1 across its three passes, so
// the node reads and writes the tensor once, where the ops it replaces read
// it five times. Rows are split over the intra-op pool.
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
  const float* residual;  // _TfhostAddLayerNorm: x's row + this row is normalized
  const float* gamma;
  const float* beta;
  float* y;
  int64_t channels;
  float epsilon;
};

constexpr int64_t kBlock = 8;  // vectors summed in float before a double add

template <int W>
TFHOST_SIMD_INLINE void LayerNormRows(const LayerNormArgs& a, int64_t begin, int64_t end) {
  const int64_t n = a.channels;
  const int64_t full = n - n % W;
  for (int64_t row = begin; row < end; ++row) {
    const float* x = a.x + row * n;
    float* y = a.y + row * n;
    if (a.residual != nullptr) {
      // The residual sum, as AddV2 computes it, into y's row (in L1 for
      // the passes below, which read it as x).
      const float* r = a.residual + row * n;
      int64_t i = 0;
      for (; i < full; i += W) Store<W>(y + i, Load<W>(x + i) + Load<W>(r + i));
      for (; i < n; ++i) y[i] = x[i] + r[i];
      x = y;
    }
    // Sums in blocks of kBlock vectors: float lanes within a block (a few
    // values each), double across blocks, so converting to double costs a
    // fraction of a step per vector.
    VD<W> s{};
    int64_t i = 0;
    while (i < full) {
      const int64_t stop = std::min(full, i + kBlock * W);
      VF<W> b0{}, b1{};
      for (; i + 2 * W <= stop; i += 2 * W) {
        b0 += Load<W>(x + i);
        b1 += Load<W>(x + i + W);
      }
      if (i < stop) {
        b0 += Load<W>(x + i);
        i += W;
      }
      s += ToDouble<W>(b0 + b1);
    }
    double sum = HorizontalSum<W>(s);
    for (; i < n; ++i) sum += static_cast<double>(x[i]);
    const float mean = static_cast<float>(sum / static_cast<double>(n));

    const VF<W> vmean = Splat<W>(mean);
    VD<W> q{};
    i = 0;
    while (i < full) {
      const int64_t stop = std::min(full, i + kBlock * W);
      VF<W> b0{}, b1{};
      for (; i + 2 * W <= stop; i += 2 * W) {
        const VF<W> d0 = Load<W>(x + i) - vmean;
        const VF<W> d1 = Load<W>(x + i + W) - vmean;
        b0 += d0 * d0;
        b1 += d1 * d1;
      }
      if (i < stop) {
        const VF<W> d = Load<W>(x + i) - vmean;
        b0 += d * d;
        i += W;
      }
      q += ToDouble<W>(b0 + b1);
    }
    double squares = HorizontalSum<W>(q);
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

// _TfhostLayerNorm (x, gamma, beta), or with kResidual _TfhostAddLayerNorm
// (a, b, gamma, beta) where a and b have one shape (a residual sum;
// broadcasting ones go to the reference kernel, the fallback).
template <bool kResidual>
ops::KernelFn MakeLayerNormKernel(const ir::Node& node, const ops::KernelFn& fallback) {
  if (!IsFloatNode(node)) return {};
  auto epsilon = ir::GetAttr<float>(node, "epsilon");
  if (!epsilon.ok()) return {};
  const LayerNormFn fn = IsaTable<LayerNormFn>{&LayerNormAvx512, &LayerNormAvx2, &LayerNormGeneric}.Pick();
  const float eps = *epsilon;
  return [fn, eps, fallback](ops::KernelContext& ctx) -> Status {
    constexpr int kGamma = kResidual ? 2 : 1;
    if (ctx.num_inputs() != kGamma + 2) return fallback(ctx);
    if (kResidual && (ctx.input(1).dtype() != DType::kFloat || !(ctx.input(0).shape() == ctx.input(1).shape()))) {
      return fallback(ctx);
    }
    TFHOST_ASSIGN_OR_RETURN(ops::nn::LayerNormGeometry g, ops::nn::CheckLayerNormOperands(
                                                              ctx, ctx.input(0), ctx.input(kGamma),
                                                              ctx.input(kGamma + 1)));
    Tensor x = ctx.TakeInput(0);
    Tensor r = kResidual ? ctx.TakeInput(1) : Tensor();
    const float* xp = x.data<float>();
    const float* rp = kResidual ? r.data<float>() : nullptr;
    const Shape shape = x.shape();
    // Row by row, each read before its slot is written: an input's buffer
    // can hold the output when nothing else holds it.
    Tensor y = kResidual && r.RefCountIsOne() && !x.RefCountIsOne() ? ReuseOrAllocate(r, shape)
                                                                     : ReuseOrAllocate(x, shape);
    if (g.rows > 0) {
      const LayerNormArgs a{xp, rp, ctx.input(kGamma).data<float>(), ctx.input(kGamma + 1).data<float>(),
                            y.data<float>(), g.channels, eps};
      const int64_t min_rows = std::max<int64_t>(1, kMinChunkExpensive / std::max<int64_t>(1, g.channels));
      ParallelRange(ctx.intra_op(), g.rows, min_rows, [&](int64_t b, int64_t e) { fn(a, b, e); });
    }
    ctx.set_output(0, std::move(y));
    return OkStatus();
  };
}

}  // namespace

void RegisterLayerNormKernels(KernelTable& table) {
  table.Add(ops::nn::kLayerNormOp, MakeLayerNormKernel<false>);
  table.Add(ops::nn::kAddLayerNormOp, MakeLayerNormKernel<true>);
}

}  // namespace tfhost::backends::simd
