// MatMul of one row by a large float32 matrix: the recurrent product h x U
// of an LSTM or GRU step at batch 1, and a dense layer at batch 1. Such a
// product does one multiply-add per weight it loads, so it runs at the
// speed the weights stream from L2 or L3, not at the FMA peak. Read row by
// row, a [K, N] matrix is K strided pieces of N floats; oneDNN 2.6's kernel
// for it took 10.5-11 us for 256 x 1024 (1 MiB) on the Zen 4 core this was
// written on.
//
// The weights are packed once per buffer (a Const or a variable's value: no
// kernel writes into a buffer another tensor shares, base/tensor.h) into
// panels of 32 columns, each panel its K x 32 floats in one run, zero-padded
// past the last column. The kernel then reads every weight in address order.
// It keeps 2 vectors of sums for even k and 2 for odd k (two chains, so the
// FMA latency hides behind the loads) and adds them at the end. On that
// core the packed read took 6.7-7.5 us for the same matrix, and
// bench/peers' LSTM at batch 1 (two such products a step, 100 steps) ran
// 1.78 -> 1.56 ms p50 with this kernel (interleaved A/B, 4 rounds).
//
// One row only (kGemvMaxRows): `tfhost bench` on single-MatMul graphs, this
// kernel against oneDNN's, p50 of 3,000 runs twice each, gave
//   1 row:  256x1024 8 vs 10-11 us, 1024x1024 40 vs 41, 2048x1000 64-67 vs
//           74, 512x4096 66-67 vs 75-78, 768x3072 76 vs 85-86;
//   2 rows: 0.89-1.0x oneDNN's speed; 4 rows: 0.82-1.2x
// (the rows' extra multiply-adds per load make it compute-bound where
// oneDNN's blocked kernel is not), so 2 rows and more go to oneDNN.
//
// Declined, to the kernel registered after this one (oneDNN's): more rows,
// transpose_a, weights under 64 KiB (they stay in L1/L2, where oneDNN's
// reordered copy reads as fast), other dtypes, bf16 nodes, and CPUs without
// AVX-512.
#include <algorithm>
#include <cstring>
#include <memory>
#include <vector>

#include "backends/cpu/simd/cpu_features.h"
#include "backends/cpu/simd/simd_kernels.h"
#include "backends/cpu/simd/simd_math.h"
#include "backends/cpu/simd/simd_util.h"
#include "backends/cpu/simd/simd_weight_cache.h"
#include "ir/attrs.h"
#include "ir/precision_attrs.h"

namespace tfhost::backends::simd {

namespace {

constexpr int64_t kPanel = 32;  // columns per panel: two AVX-512 vectors

struct PackedWeights {
  std::vector<float> panels;  // [panel][k][kPanel]
};

// b is [K, N], or [N, K] when `transposed`.
std::shared_ptr<const PackedWeights> Pack(const Tensor& b, int64_t k_dim, int64_t n_dim, bool transposed) {
  auto packed = std::make_shared<PackedWeights>();
  const int64_t panels = (n_dim + kPanel - 1) / kPanel;
  packed->panels.assign(panels * k_dim * kPanel, 0.0f);
  const float* src = b.data<float>();
  float* dst = packed->panels.data();
  for (int64_t p = 0; p < panels; ++p) {
    const int64_t n0 = p * kPanel;
    const int64_t width = std::min(kPanel, n_dim - n0);
    for (int64_t k = 0; k < k_dim; ++k, dst += kPanel) {
      if (transposed) {
        for (int64_t j = 0; j < width; ++j) dst[j] = src[(n0 + j) * k_dim + k];
      } else {
        std::memcpy(dst, src + k * n_dim + n0, width * sizeof(float));
      }
    }
  }
  return packed;
}

#ifdef TFHOST_SIMD_X86
#define TFHOST_GEMV_TARGET __attribute__((target("avx512f,avx2,fma")))

// Panels [p0, p1) of y = a x b for the one row of a ([1, K]).
TFHOST_GEMV_TARGET void RunPanels(const float* a, const float* packed, float* y, int64_t k_dim, int64_t n_dim,
                                  int64_t p0, int64_t p1) {
  for (int64_t p = p0; p < p1; ++p) {
    const float* w = packed + p * k_dim * kPanel;
    // Even k into even0/even1 (columns 0-15 and 16-31), odd k into odd0/odd1.
    __m512 even0 = _mm512_setzero_ps(), even1 = _mm512_setzero_ps();
    __m512 odd0 = _mm512_setzero_ps(), odd1 = _mm512_setzero_ps();
    int64_t k = 0;
    for (; k + 2 <= k_dim; k += 2, w += 2 * kPanel) {
      const __m512 x0 = _mm512_set1_ps(a[k]), x1 = _mm512_set1_ps(a[k + 1]);
      even0 = _mm512_fmadd_ps(x0, _mm512_loadu_ps(w), even0);
      even1 = _mm512_fmadd_ps(x0, _mm512_loadu_ps(w + 16), even1);
      odd0 = _mm512_fmadd_ps(x1, _mm512_loadu_ps(w + kPanel), odd0);
      odd1 = _mm512_fmadd_ps(x1, _mm512_loadu_ps(w + kPanel + 16), odd1);
    }
    if (k < k_dim) {
      const __m512 x0 = _mm512_set1_ps(a[k]);
      even0 = _mm512_fmadd_ps(x0, _mm512_loadu_ps(w), even0);
      even1 = _mm512_fmadd_ps(x0, _mm512_loadu_ps(w + 16), even1);
    }
    const int64_t n0 = p * kPanel;
    const int64_t width = std::min(kPanel, n_dim - n0);
    const __mmask16 lo = width >= 16 ? __mmask16(0xffff) : __mmask16((1u << width) - 1);
    const __mmask16 hi = width >= 32 ? __mmask16(0xffff) : width <= 16 ? __mmask16(0) : __mmask16((1u << (width - 16)) - 1);
    _mm512_mask_storeu_ps(y + n0, lo, _mm512_add_ps(even0, odd0));
    _mm512_mask_storeu_ps(y + n0 + 16, hi, _mm512_add_ps(even1, odd1));
  }
}
#endif  // TFHOST_SIMD_X86

class GemvKernel {
 public:
  GemvKernel(bool transpose_b, ops::KernelFn fallback)
      : transpose_b_(transpose_b),
        fallback_(std::move(fallback)),
        weights_(std::make_shared<WeightCache<PackedWeights>>()) {}

  Status operator()(ops::KernelContext& ctx) const {
    if (ctx.num_inputs() != 2) return fallback_(ctx);
    const Tensor& a = ctx.input(0);
    const Tensor& b = ctx.input(1);
    if (a.dtype() != DType::kFloat || b.dtype() != DType::kFloat || a.rank() != 2 || b.rank() != 2) {
      return fallback_(ctx);
    }
    const int64_t m_dim = a.dim(0), k_dim = a.dim(1);
    const int64_t n_dim = transpose_b_ ? b.dim(0) : b.dim(1);
    if ((transpose_b_ ? b.dim(1) : b.dim(0)) != k_dim) return fallback_(ctx);  // its error names the shapes
    if (m_dim < 1 || m_dim > kGemvMaxRows || k_dim == 0 || n_dim == 0 || k_dim * n_dim < kGemvMinWeightElements) {
      return fallback_(ctx);
    }
    std::shared_ptr<const PackedWeights> packed =
        weights_->Get(b, nullptr, {k_dim, n_dim}, [&] { return Pack(b, k_dim, n_dim, transpose_b_); });
    Tensor y = Tensor::Uninitialized(DType::kFloat, Shape({m_dim, n_dim}));
#ifdef TFHOST_SIMD_X86
    const float* x = a.data<float>();
    const float* w = packed->panels.data();
    float* out = y.data<float>();
    const int64_t panels = (n_dim + kPanel - 1) / kPanel;
    // A thread's share is worth waking it for from about 2^17 multiply-adds.
    const int64_t min_panels = std::max<int64_t>(1, (int64_t{1} << 17) / (k_dim * kPanel));
    ParallelRange(ctx.intra_op(), panels, min_panels,
                  [&](int64_t p0, int64_t p1) { RunPanels(x, w, out, k_dim, n_dim, p0, p1); });
#endif
    ctx.set_output(0, std::move(y));
    return OkStatus();
  }

 private:
  bool transpose_b_;
  ops::KernelFn fallback_;
  std::shared_ptr<WeightCache<PackedWeights>> weights_;
};

ops::KernelFn MakeGemvKernel(const ir::Node& node, const ops::KernelFn& fallback) {
#ifndef TFHOST_SIMD_X86
  return {};
#endif
  if (ActiveIsaLevel() != IsaLevel::kAvx512 || !IsFloatNode(node)) return {};
  auto precision = ir::GetAttrOr<std::string>(node, ir::kPrecisionAttr, "");
  if (!precision.ok() || !precision->empty()) return {};
  auto transpose_a = ir::GetAttrOr<bool>(node, "transpose_a", false);
  auto transpose_b = ir::GetAttrOr<bool>(node, "transpose_b", false);
  if (!transpose_a.ok() || !transpose_b.ok() || *transpose_a) return {};
  return GemvKernel(*transpose_b, fallback);
}

}  // namespace

void RegisterGemvKernels(KernelTable& table) { table.Add("MatMul", MakeGemvKernel); }

}  // namespace tfhost::backends::simd
