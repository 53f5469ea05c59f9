// Softmax and LogSoftmax over the last axis of a float32 tensor. Per row: the
// maximum, then e^(x - max) (vector exp, simd_math.h) summed in double, then
// a scale by 1/sum (Softmax) or x - max - log(sum) (LogSoftmax). Rows are
// split over the intra-op pool. Special values follow the reference: a row
// holding +inf or NaN, or only -inf, becomes NaN. Also _TfhostMaskedSoftmax
// (ops/math/masked_softmax.h) on AVX-512: the mask applied as each row is
// read.
#include <algorithm>
#include <cmath>

#include "backends/cpu/simd/simd_kernels.h"
#include "backends/cpu/simd/simd_math.h"
#include "backends/cpu/simd/simd_util.h"
#include "ops/math/broadcast.h"
#include "ops/math/masked_softmax.h"

namespace tfhost::backends::simd {
namespace {

struct SoftmaxArgs {
  const float* in;
  float* out;
  int64_t depth;
};

// Rows shorter than a few vectors (blazeface's [896, 2] scores): per-row
// vector loops would be all tails, so a block of rows is handled as one flat
// run: scalar row maxima, x - max, one vector exp over the whole block into a
// scratch buffer, then scalar row sums and the final scale or shift.
template <int W, bool kLog>
TFHOST_SIMD_INLINE void NarrowSoftmaxRows(const SoftmaxArgs& a, int64_t begin, int64_t end) {
  constexpr int64_t kScratch = 1024;
  float e[kScratch];
  const int64_t n = a.depth;
  const int64_t block_rows = std::max<int64_t>(1, kScratch / n);
  for (int64_t r0 = begin; r0 < end; r0 += block_rows) {
    const int64_t r1 = std::min(end, r0 + block_rows);
    const float* x = a.in + r0 * n;
    float* y = a.out + r0 * n;
    const int64_t count = (r1 - r0) * n;
    for (int64_t r = 0; r < r1 - r0; ++r) {
      float max = -std::numeric_limits<float>::infinity();
      for (int64_t i = 0; i < n; ++i) max = x[r * n + i] > max ? x[r * n + i] : max;
      for (int64_t i = 0; i < n; ++i) y[r * n + i] = x[r * n + i] - max;
    }
    int64_t i = 0;
    for (; i + W <= count; i += W) Store<W>(e + i, Exp<W>(Load<W>(y + i)));
    if (i < count) StorePartial<W>(e + i, Exp<W>(LoadPartial<W>(y + i, count - i)), count - i);
    for (int64_t r = 0; r < r1 - r0; ++r) {
      double sum = 0;
      for (int64_t j = 0; j < n; ++j) sum += static_cast<double>(e[r * n + j]);
      if constexpr (kLog) {
        const float log_sum = static_cast<float>(std::log(sum));
        for (int64_t j = 0; j < n; ++j) y[r * n + j] = y[r * n + j] - log_sum;
      } else {
        const float scale = static_cast<float>(1.0 / sum);
        for (int64_t j = 0; j < n; ++j) y[r * n + j] = e[r * n + j] * scale;
      }
    }
  }
}

template <int W, bool kLog>
TFHOST_SIMD_INLINE void SoftmaxBody(const SoftmaxArgs& a, int64_t begin, int64_t end) {
  const int64_t n = a.depth;
  if (n < 2 * W) {
    NarrowSoftmaxRows<W, kLog>(a, begin, end);
    return;
  }
  for (int64_t row = begin; row < end; ++row) {
    const float* x = a.in + row * n;
    float* y = a.out + row * n;
    VF<W> vmax = Splat<W>(-std::numeric_limits<float>::infinity());
    int64_t i = 0;
    for (; i + W <= n; i += W) {
      const VF<W> v = Load<W>(x + i);
      vmax = v > vmax ? v : vmax;
    }
    float max = HorizontalMax<W>(vmax);
    for (; i < n; ++i) max = x[i] > max ? x[i] : max;
    const VF<W> m = Splat<W>(max);
    VD<W> sum0{}, sum1{};
    i = 0;
    for (; i + W <= n; i += W) {
      const VF<W> e = Exp<W>(Load<W>(x + i) - m);
      if constexpr (!kLog) Store<W>(y + i, e);
      sum0 += ToDouble<W>(e);
    }
    if (i < n) {
      // Padding lanes are -inf, whose exp adds 0.
      const VF<W> e = Exp<W>(LoadPartial<W>(x + i, n - i, -std::numeric_limits<float>::infinity()) - m);
      if constexpr (!kLog) StorePartial<W>(y + i, e, n - i);
      sum1 += ToDouble<W>(e);
    }
    const double sum = HorizontalSum<W>(sum0 + sum1);
    if constexpr (kLog) {
      // (x - max) first: exact for x near max, so large logits lose nothing.
      const VF<W> log_sum = Splat<W>(static_cast<float>(std::log(sum)));
      i = 0;
      for (; i + W <= n; i += W) Store<W>(y + i, (Load<W>(x + i) - m) - log_sum);
      if (i < n) StorePartial<W>(y + i, (LoadPartial<W>(x + i, n - i) - m) - log_sum, n - i);
    } else {
      const VF<W> scale = Splat<W>(static_cast<float>(1.0 / sum));
      i = 0;
      for (; i + W <= n; i += W) Store<W>(y + i, Load<W>(y + i) * scale);
      if (i < n) StorePartial<W>(y + i, LoadPartial<W>(y + i, n - i) * scale, n - i);
    }
  }
}

using SoftmaxFn = void (*)(const SoftmaxArgs&, int64_t, int64_t);

#ifdef TFHOST_SIMD_X86
// Wide rows on AVX-512 (attention's [B, H, T, T] scores): x - max is never
// positive, so e^(x - max) is ExpNonPositiveAvx512, in FMAs and without the
// overflow and NaN checks of Exp; max(x - max, -110) bounds its reduction
// (e^-110 is 0 in float) and keeps a NaN (max returns its second operand).
// The masked tail loads -inf, whose e^ is 0. BERT-base's 128-long rows:
// 2.2x the row loop above.
#define TFHOST_SOFTMAX_INLINE \
  inline __attribute__((always_inline, target("avx512f,avx512bw,avx512dq,avx512vl,avx2,fma")))

// e^(v - m). (All-lanes masked forms: GCC 12 warns about the plain ones'
// undefined pass-through operand.)
TFHOST_SOFTMAX_INLINE __m512 ExpOfDifference(__m512 v, __m512 m) {
  const __m512 d = _mm512_sub_ps(v, m);
  return ExpNonPositiveAvx512(_mm512_mask_max_ps(d, 0xffff, _mm512_set1_ps(-110.0f), d));
}

// `block`'s lanes added to the double sums.
TFHOST_SOFTMAX_INLINE void AddToSums(__m512 block, __m512d& sum0, __m512d& sum1) {
  sum0 = _mm512_add_pd(sum0, _mm512_maskz_cvtps_pd(0xff, _mm512_extractf32x8_ps(block, 0)));
  sum1 = _mm512_add_pd(sum1, _mm512_maskz_cvtps_pd(0xff, _mm512_extractf32x8_ps(block, 1)));
}

// A row's logits, 16 at i; lanes off the row (`lanes` clear) are -inf.
struct PlainLogits {
  const float* x;
  TFHOST_SOFTMAX_INLINE __mmask16 Kept(int64_t, __mmask16 lanes) const { return lanes; }
  TFHOST_SOFTMAX_INLINE __m512 operator()(int64_t i, __mmask16 lanes) const {
    return _mm512_mask_loadu_ps(_mm512_set1_ps(-std::numeric_limits<float>::infinity()), lanes, x + i);
  }
};

// The same with SelectV2(mask, logits, fill) applied: a mask row of bytes
// (any non-zero byte is true, as SelectV2 reads a bool), or one mask value
// for the whole row.
struct MaskedLogits {
  const float* x;
  const bool* mask;
  bool mask_row;  // one mask byte per logit, else mask[0] for all
  float fill;
  // The lanes whose mask is true.
  TFHOST_SOFTMAX_INLINE __mmask16 Kept(int64_t i, __mmask16 lanes) const {
    return mask_row ? _mm_mask_test_epi8_mask(lanes, _mm_maskz_loadu_epi8(lanes, mask + i), _mm_set1_epi8(-1))
                    : (mask[0] ? lanes : static_cast<__mmask16>(0));
  }
  TFHOST_SOFTMAX_INLINE __m512 operator()(int64_t i, __mmask16 lanes) const {
    const __mmask16 keep = Kept(i, lanes);
    const __m512 minus_inf = _mm512_set1_ps(-std::numeric_limits<float>::infinity());
    const __m512 filled = _mm512_mask_mov_ps(minus_inf, lanes, _mm512_set1_ps(fill));
    return _mm512_mask_loadu_ps(filled, keep, x + i);
  }
};

// One row of n >= 1 logits into y (which may be the logits' own buffer:
// each pass reads a logit before it writes that slot). kZeroMasked: the
// lanes the loader does not keep are 0 in the output.
template <bool kLog, bool kZeroMasked = false, typename Logits>
TFHOST_SOFTMAX_INLINE void SoftmaxRowAvx512(const Logits& logits, float* y, int64_t n) {
  const int64_t full = n - n % 16;
  const __mmask16 tail = static_cast<__mmask16>((1u << (n - full)) - 1);
  __m512 vmax = _mm512_set1_ps(-std::numeric_limits<float>::infinity());
  for (int64_t i = 0; i < full; i += 16) vmax = _mm512_mask_max_ps(vmax, 0xffff, vmax, logits(i, 0xffff));
  if (tail != 0) vmax = _mm512_mask_max_ps(vmax, 0xffff, vmax, logits(full, tail));
  const __m512 m = _mm512_set1_ps(HorizontalMax<16>(vmax));
  // The e^ values (in [0, 1]) summed in float lanes over blocks of 8
  // vectors, the blocks in double.
  __m512d sum0 = _mm512_setzero_pd(), sum1 = _mm512_setzero_pd();
  __m512 block = _mm512_setzero_ps();
  for (int64_t i = 0; i < full; i += 16) {
    const __m512 e = ExpOfDifference(logits(i, 0xffff), m);
    if constexpr (!kLog) _mm512_storeu_ps(y + i, e);
    block = _mm512_add_ps(block, e);
    if ((i / 16) % 8 == 7) {
      AddToSums(block, sum0, sum1);
      block = _mm512_setzero_ps();
    }
  }
  if (tail != 0) {
    const __m512 e = ExpOfDifference(logits(full, tail), m);
    if constexpr (!kLog) _mm512_mask_storeu_ps(y + full, tail, e);
    block = _mm512_add_ps(block, e);
  }
  AddToSums(block, sum0, sum1);
  double lanes[8];
  _mm512_storeu_pd(lanes, _mm512_add_pd(sum0, sum1));
  double sum = 0;
  for (double lane : lanes) sum += lane;
  if constexpr (kLog) {
    // (x - max) first: exact for x near max, so large logits lose nothing.
    const __m512 log_sum = _mm512_set1_ps(static_cast<float>(std::log(sum)));
    for (int64_t i = 0; i < full; i += 16) {
      _mm512_storeu_ps(y + i, _mm512_sub_ps(_mm512_sub_ps(logits(i, 0xffff), m), log_sum));
    }
    if (tail != 0) _mm512_mask_storeu_ps(y + full, tail, _mm512_sub_ps(_mm512_sub_ps(logits(full, tail), m), log_sum));
  } else {
    const __m512 scale = _mm512_set1_ps(static_cast<float>(1.0 / sum));
    for (int64_t i = 0; i < full; i += 16) {
      const __m512 p = _mm512_mul_ps(_mm512_loadu_ps(y + i), scale);
      _mm512_storeu_ps(y + i, kZeroMasked ? _mm512_maskz_mov_ps(logits.Kept(i, 0xffff), p) : p);
    }
    if (tail != 0) {
      const __m512 p = _mm512_mul_ps(_mm512_maskz_loadu_ps(tail, y + full), scale);
      _mm512_mask_storeu_ps(y + full, tail, kZeroMasked ? _mm512_maskz_mov_ps(logits.Kept(full, tail), p) : p);
    }
  }
}

template <bool kLog>
TFHOST_SIMD_TARGET_AVX512 void WideSoftmaxRowsAvx512(const SoftmaxArgs& a, int64_t begin, int64_t end) {
  for (int64_t row = begin; row < end; ++row) {
    SoftmaxRowAvx512<kLog>(PlainLogits{a.in + row * a.depth}, a.out + row * a.depth, a.depth);
  }
}

struct MaskedSoftmaxArgs {
  const float* in;
  const bool* mask;
  bool mask_row;
  float fill;
  float* out;
  int64_t depth;
  const ops::math::Broadcaster* mask_rows;  // output row -> mask row
  bool zero_masked;
};

TFHOST_SIMD_TARGET_AVX512 void MaskedSoftmaxRowAvx512(const MaskedLogits& logits, float* y, int64_t n,
                                                      bool zero_masked) {
  if (zero_masked) {
    SoftmaxRowAvx512<false, true>(logits, y, n);
  } else {
    SoftmaxRowAvx512<false>(logits, y, n);
  }
}

void MaskedSoftmaxRows(const MaskedSoftmaxArgs& a, int64_t begin, int64_t end) {
  const int64_t mask_step = a.mask_row ? a.depth : 1;
  a.mask_rows->ForEach(begin, end, [&](int64_t row, const int64_t* off) {
    const MaskedLogits logits{a.in + row * a.depth, a.mask + off[0] * mask_step, a.mask_row, a.fill};
    MaskedSoftmaxRowAvx512(logits, a.out + row * a.depth, a.depth, a.zero_masked);
  });
}
#endif

template <bool kLog>
TFHOST_SIMD_TARGET_AVX512 void SoftmaxAvx512(const SoftmaxArgs& a, int64_t b, int64_t e) {
#ifdef TFHOST_SIMD_X86
  if (a.depth >= 2 * kWidthAvx512) {
    WideSoftmaxRowsAvx512<kLog>(a, b, e);
    return;
  }
#endif
  SoftmaxBody<kWidthAvx512, kLog>(a, b, e);
}
template <bool kLog>
TFHOST_SIMD_TARGET_AVX2 void SoftmaxAvx2(const SoftmaxArgs& a, int64_t b, int64_t e) {
  SoftmaxBody<kWidthAvx2, kLog>(a, b, e);
}
template <bool kLog>
void SoftmaxGeneric(const SoftmaxArgs& a, int64_t b, int64_t e) {
  SoftmaxBody<kWidthGeneric, kLog>(a, b, e);
}

template <bool kLog>
void RegisterSoftmax(KernelTable& table, const char* op) {
  table.Add(op, [](const ir::Node& node, const ops::KernelFn& reference) -> ops::KernelFn {
    if (!IsFloatNode(node)) return {};
    const SoftmaxFn fn = IsaTable<SoftmaxFn>{&SoftmaxAvx512<kLog>, &SoftmaxAvx2<kLog>, &SoftmaxGeneric<kLog>}.Pick();
    return [fn, reference](ops::KernelContext& ctx) -> Status {
      if (ctx.num_inputs() != 1 || ctx.input(0).dtype() != DType::kFloat || ctx.input(0).rank() < 1) {
        return reference(ctx);
      }
      Tensor x = ctx.TakeInput(0);
      const int64_t depth = x.dim(x.rank() - 1);
      const int64_t rows = depth == 0 ? 0 : x.NumElements() / depth;
      SoftmaxArgs a{x.data<float>(), nullptr, depth};
      const Shape shape = x.shape();
      // Each row is read fully before it is written, so the input buffer can
      // hold the output when nothing else holds it.
      Tensor y = ReuseOrAllocate(x, shape);
      a.out = y.data<float>();
      const int64_t min_rows = std::max<int64_t>(1, kMinChunkExpensive / std::max<int64_t>(1, depth));
      ParallelRange(ctx.intra_op(), rows, min_rows, [&](int64_t b, int64_t e) { fn(a, b, e); });
      ctx.set_output(0, std::move(y));
      return OkStatus();
    };
  });
}

#ifdef TFHOST_SIMD_X86
// _TfhostMaskedSoftmax where the mask and the scalar fill broadcast into the
// logits without enlarging them, each mask row either a row of the logits'
// length or one value (attention's [B, 1, T, T] or [B, 1, 1, T] mask against
// [B, H, T, T] scores); anything else goes to the reference kernel (the
// fallback), which runs SelectV2 and Softmax in turn.
Status MaskedSoftmaxKernel(ops::KernelContext& ctx, bool zero_masked, const ops::KernelFn& fallback) {
  if (ctx.num_inputs() != 3) return fallback(ctx);
  const Tensor& logits = ctx.input(0);
  const Tensor& mask = ctx.input(1);
  const Tensor& fill = ctx.input(2);
  if (logits.dtype() != DType::kFloat || mask.dtype() != DType::kBool || fill.dtype() != DType::kFloat ||
      fill.NumElements() != 1 || logits.rank() < 1) {
    return fallback(ctx);
  }
  auto all = ops::math::Broadcaster::Make({logits.shape(), mask.shape(), fill.shape()});
  if (!all.ok() || !(all->output_shape() == logits.shape())) return fallback(ctx);
  const int64_t depth = logits.dim(logits.rank() - 1);
  const int64_t mask_last = mask.rank() == 0 ? 1 : mask.dim(mask.rank() - 1);
  if (depth == 0 || (mask_last != depth && mask_last != 1)) return fallback(ctx);
  auto mask_rows = ops::math::Broadcaster::MakeTo({WithoutLastDim(mask.shape())}, WithoutLastDim(logits.shape()));
  if (!mask_rows.ok()) return fallback(ctx);
  Tensor x = ctx.TakeInput(0);
  MaskedSoftmaxArgs a{x.data<float>(), mask.data<bool>(), mask_last == depth && depth > 1, fill.data<float>()[0],
                      nullptr, depth, &*mask_rows, zero_masked};
  const Shape shape = x.shape();
  Tensor y = ReuseOrAllocate(x, shape);  // rows are read before written
  a.out = y.data<float>();
  const int64_t min_rows = std::max<int64_t>(1, kMinChunkExpensive / depth);
  ParallelRange(ctx.intra_op(), mask_rows->num_elements(), min_rows,
                [&](int64_t b, int64_t e) { MaskedSoftmaxRows(a, b, e); });
  ctx.set_output(0, std::move(y));
  return OkStatus();
}
#endif

ops::KernelFn MakeMaskedSoftmaxKernel(const ir::Node& node, const ops::KernelFn& fallback) {
#ifndef TFHOST_SIMD_X86
  return {};
#else
  auto zero_masked = ir::GetAttrOr<bool>(node, "zero_masked", false);
  if (ActiveIsaLevel() != IsaLevel::kAvx512 || !IsFloatNode(node) || !zero_masked.ok()) return {};
  return [zero = *zero_masked, fallback](ops::KernelContext& ctx) { return MaskedSoftmaxKernel(ctx, zero, fallback); };
#endif
}

}  // namespace

void RegisterSoftmaxKernels(KernelTable& table) {
  RegisterSoftmax<false>(table, "Softmax");
  RegisterSoftmax<true>(table, "LogSoftmax");
  table.Add(ops::math::kMaskedSoftmaxOp, MakeMaskedSoftmaxKernel);
}

}  // namespace tfhost::backends::simd
