// MatMul of one row by a large float32 matrix: the recurrent product h x U
// of an LSTM or GRU step at batch 1, and a dense layer at batch 1. Such a
// product does one multiply-add per weight it loads, so it runs at the
// speed the weights stream from L2 or L3, not at the FMA peak. Read row by
// row, a [K, N] matrix is K strided pieces of N floats; oneDNN 2.6's kernel
// for it took 10.5-11 us for 256 x 1024 (1 MiB) on the Zen 5 core this was
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
#include "backends/cpu/simd/simd_gemv.h"
#include "backends/cpu/simd/simd_kernels.h"
#include "backends/cpu/simd/simd_math.h"
#include "backends/cpu/simd/simd_util.h"
#include "backends/cpu/simd/simd_weight_cache.h"
#include "ir/attrs.h"
#include "ir/precision_attrs.h"

namespace tfhost::backends::simd {

namespace gemv {

std::shared_ptr<const PackedWeights> PackPanels(const Tensor& b, int64_t k_dim, int64_t n_dim, bool transposed) {
  auto packed = std::make_shared<PackedWeights>();
  const int64_t panels = NumPanels(n_dim);
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

namespace {

struct PanelMasks {
  __mmask16 lo, hi;
};

TFHOST_GEMV_TARGET PanelMasks MasksFor(int64_t width) {
  return {width >= 16 ? __mmask16(0xffff) : __mmask16((1u << width) - 1),
          width >= 32 ? __mmask16(0xffff) : width <= 16 ? __mmask16(0) : __mmask16((1u << (width - 16)) - 1)};
}

// One row: even k into even0/even1 (columns 0-15 and 16-31), odd k into
// odd0/odd1, two chains so the FMA latency hides behind the loads.
TFHOST_GEMV_TARGET void PanelOneRow(const float* a, const float* w, float* y, int64_t k_dim, PanelMasks m) {
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
  _mm512_mask_storeu_ps(y, m.lo, _mm512_add_ps(even0, odd0));
  _mm512_mask_storeu_ps(y + 16, m.hi, _mm512_add_ps(even1, odd1));
}

// R rows (2..8) at once: each pair of weight vectors loaded feeds 2R
// multiply-adds into 2R of the 32 vector registers, R independent chains per
// column half.
template <int R>
TFHOST_GEMV_TARGET void PanelRows(const float* a, int64_t a_stride, const float* w, float* y, int64_t y_stride,
                                  int64_t k_dim, PanelMasks m) {
  __m512 lo[R], hi[R];
  for (int r = 0; r < R; ++r) lo[r] = hi[r] = _mm512_setzero_ps();
  for (int64_t k = 0; k < k_dim; ++k, w += kPanel) {
    const __m512 w0 = _mm512_loadu_ps(w), w1 = _mm512_loadu_ps(w + 16);
    for (int r = 0; r < R; ++r) {
      const __m512 x = _mm512_set1_ps(a[r * a_stride + k]);
      lo[r] = _mm512_fmadd_ps(x, w0, lo[r]);
      hi[r] = _mm512_fmadd_ps(x, w1, hi[r]);
    }
  }
  for (int r = 0; r < R; ++r) {
    _mm512_mask_storeu_ps(y + r * y_stride, m.lo, lo[r]);
    _mm512_mask_storeu_ps(y + r * y_stride + 16, m.hi, hi[r]);
  }
}

inline constexpr int64_t kMaxTileRows = 8;

// One tile of `rows` (1..kMaxTileRows) rows of one panel.
TFHOST_GEMV_TARGET void PanelTile(const float* a, int64_t rows, const float* w, float* y, int64_t k_dim,
                                  int64_t n_dim, PanelMasks m) {
  switch (rows) {
    case 8: PanelRows<8>(a, k_dim, w, y, n_dim, k_dim, m); break;
    case 7: PanelRows<7>(a, k_dim, w, y, n_dim, k_dim, m); break;
    case 6: PanelRows<6>(a, k_dim, w, y, n_dim, k_dim, m); break;
    case 5: PanelRows<5>(a, k_dim, w, y, n_dim, k_dim, m); break;
    case 4: PanelRows<4>(a, k_dim, w, y, n_dim, k_dim, m); break;
    case 3: PanelRows<3>(a, k_dim, w, y, n_dim, k_dim, m); break;
    case 2: PanelRows<2>(a, k_dim, w, y, n_dim, k_dim, m); break;
    default: PanelOneRow(a, w, y, k_dim, m); break;
  }
}

TFHOST_GEMV_TARGET void RunPanelsAvx512(const float* a, int64_t rows, const PackedWeights& b, float* y,
                                        int64_t k_dim, int64_t n_dim, int64_t p0, int64_t p1) {
  for (int64_t p = p0; p < p1; ++p) {
    const float* w = b.panels.data() + p * k_dim * kPanel;
    const int64_t n0 = p * kPanel;
    const PanelMasks m = MasksFor(std::min(kPanel, n_dim - n0));
    // Tiles as even as kMaxTileRows allows (32 rows: 4 of 8; 13: 7 and 6),
    // so no tile is left with one or two rows doing few multiply-adds per load.
    const int64_t tiles = (rows + kMaxTileRows - 1) / kMaxTileRows;
    for (int64_t t = 0, r = 0; t < tiles; ++t) {
      const int64_t n = rows / tiles + (t < rows % tiles ? 1 : 0);
      PanelTile(a + r * k_dim, n, w, y + r * n_dim + n0, k_dim, n_dim, m);
      r += n;
    }
  }
}

}  // namespace

bool PanelKernelsAvailable() { return ActiveIsaLevel() == IsaLevel::kAvx512; }

void RunPanels(const float* a, int64_t rows, const PackedWeights& b, float* y, int64_t k_dim, int64_t n_dim,
               int64_t p0, int64_t p1) {
  RunPanelsAvx512(a, rows, b, y, k_dim, n_dim, p0, p1);
}
#else
bool PanelKernelsAvailable() { return false; }
void RunPanels(const float*, int64_t, const PackedWeights&, float*, int64_t, int64_t, int64_t, int64_t) {}
#endif  // TFHOST_SIMD_X86

}  // namespace gemv

namespace {

using gemv::kPanel;
using gemv::PackedWeights;

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
        weights_->Get(b, nullptr, {k_dim, n_dim}, [&] { return gemv::PackPanels(b, k_dim, n_dim, transpose_b_); });
    Tensor y = Tensor::Uninitialized(DType::kFloat, Shape({m_dim, n_dim}));
    const float* x = a.data<float>();
    float* out = y.data<float>();
    // A share is worth a worker from about 2^20 multiply-adds: the product
    // streams its weights at 100-150 GB/s, so 4 MiB take about as long as
    // waking a sleeping worker does (about 25 us, base/thread_pool.cc). With
    // 2^17 (half a MiB, 4 us), bench/peers' unfused LSTM at batch 1 ran
    // slower on 2 threads than on 1.
    const int64_t min_panels = std::max<int64_t>(1, (int64_t{1} << 20) / (k_dim * kPanel));
    ParallelRange(ctx.intra_op(), gemv::NumPanels(n_dim), min_panels,
                  [&](int64_t p0, int64_t p1) { gemv::RunPanels(x, m_dim, *packed, out, k_dim, n_dim, p0, p1); });
    ctx.set_output(0, std::move(y));
    return OkStatus();
  }

 private:
  bool transpose_b_;
  ops::KernelFn fallback_;
  std::shared_ptr<WeightCache<PackedWeights>> weights_;
};

ops::KernelFn MakeGemvKernel(const ir::Node& node, const ops::KernelFn& fallback) {
  if (!gemv::PanelKernelsAvailable() || !IsFloatNode(node)) return {};
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
