#include "backends/cpu/simd/simd_pointwise_tiles.h"

#include <array>
#include <cstring>
#include <type_traits>
#include <utility>

#include "backends/cpu/simd/simd_conv_epilogue.h"
#include "backends/cpu/simd/simd_math.h"

namespace tfhost::backends::simd::pointwise {

#ifdef TFHOST_SIMD_X86
namespace {

// The tiles may use avx512_bf16: bf16 nodes' dot products and bf16 outputs'
// conversion, which the kernel sets up only where the CPU has it
// (ActiveIsaHasBf16). The compiler emits bf16 instructions only for those
// intrinsics, so float32 tiles run on any AVX-512 CPU. (A bf16 rounding in
// integer operations ran 10% slower on the narrow layers, whose stores are a
// large part of their work.)
#define TFHOST_PW_TARGET __attribute__((target("avx512f,avx512bw,avx512dq,avx512vl,avx2,fma,avx512bf16")))
#define TFHOST_PW_INLINE TFHOST_SIMD_INLINE TFHOST_PW_TARGET

// Input channel k of row `row` (a float32 or a bf16 one) in every lane.
TFHOST_PW_INLINE __m512 BroadcastInput(const float* row, int64_t k) { return _mm512_set1_ps(row[k]); }
TFHOST_PW_INLINE __m512 BroadcastInput(const uint16_t* row, int64_t k) {
  if (k == 0) return _mm512_castsi512_ps(_mm512_set1_epi32(static_cast<int32_t>(uint32_t{row[0]} << 16)));
  // The 32 bits ending with row[k] (row[k - 1] below it): always inside the
  // row, whatever the channel count.
  int32_t bits;
  std::memcpy(&bits, row + k - 1, sizeof(bits));
  return _mm512_castsi512_ps(_mm512_and_si512(_mm512_set1_epi32(bits), _mm512_set1_epi32(~0xffff)));
}

TFHOST_PW_INLINE void StoreOutput(float* y, __mmask16 mask, __m512 v) { _mm512_mask_storeu_ps(y, mask, v); }
// bf16 outputs are rounded by VCVTNEPS2BF16, the conversion a bf16 reader
// applies to float32 activations (nearest even, NaN made quiet, denormals
// flushed to a signed zero): the reader sees what it would have made.
TFHOST_PW_INLINE void StoreOutput(uint16_t* y, __mmask16 mask, __m512 v) {
  _mm256_mask_storeu_epi16(y, mask, (__m256i)_mm512_cvtneps_pbh(v));
}

// The dot products of input channel pair kp (2kp, 2kp + 1) of MR rows with
// its weight pairs. Each row's pair is 32 bits of the row; `kLastOfOdd`: the
// last pair of an odd channel count, the row's last value beside a zero (the
// next 16 bits are past the row).
template <int NV, int MR, bool kLastOfOdd>
TFHOST_PW_INLINE void DpStep(const PointwiseArgs& a, const uint16_t* x, const uint32_t* w, int64_t kp,
                             __m512 (&s)[MR][NV]) {
  __m512bh wv[NV];
#pragma GCC unroll 4
  for (int v = 0; v < NV; ++v) wv[v] = (__m512bh)_mm512_loadu_si512(w + (kp * NV + v) * kLanes);
#pragma GCC unroll 12
  for (int m = 0; m < MR; ++m) {
    int32_t bits;
    if constexpr (kLastOfOdd) {
      bits = x[m * a.in_c + a.in_c - 1];
    } else {
      std::memcpy(&bits, x + m * a.in_c + 2 * kp, sizeof(bits));
    }
    const __m512bh xv = (__m512bh)_mm512_set1_epi32(bits);
#pragma GCC unroll 4
    for (int v = 0; v < NV; ++v) s[m][v] = _mm512_dpbf16_ps(s[m][v], xv, wv[v]);
  }
}

// Pixels [p0, p0 + MR) x the panel's NV vectors of output channels, whose
// input rows start at `x`: sums from the bias over every input channel, then
// the residual and the activation, then the only store. `tail` masks the
// lanes of the last vector inside the output row. X and Y are the
// activations' and the output's elements: float, or uint16_t for bf16 (a
// bf16 edge). `kDp`: a bf16 node, whose sums are VDPBF16PS dot products of
// input channel pairs with weight_pairs (float32 accumulation).
template <int NV, int MR, typename X, typename Y, bool kDp>
TFHOST_PW_INLINE void Tile(const PointwiseArgs& a, const X* x, Y* y_base, int64_t p0, int64_t first_vector,
                           __mmask16 tail) {
  constexpr int kStride = NV * kLanes;
  const int64_t c0 = first_vector * kLanes;
  Y* y = y_base + p0 * a.out_c + c0;
  __m512 s[MR][NV];
  auto mask_of = [&](int v) { return v == NV - 1 ? tail : static_cast<__mmask16>(0xffff); };
#pragma GCC unroll 4
  for (int v = 0; v < NV; ++v) {
    const __m512 b = _mm512_loadu_ps(a.filter->bias.data() + c0 + v * kLanes);
#pragma GCC unroll 12
    for (int m = 0; m < MR; ++m) s[m][v] = b;
  }
  if (a.prefetch && p0 + 2 * MR <= a.pixels) {
    // The next tile's inputs, while this one computes: they come from
    // memory, and its rows are read as MR interleaved streams, which the
    // hardware prefetchers follow poorly.
    const char* next = reinterpret_cast<const char*>(x + MR * a.in_c);
    for (int64_t off = 0; off < MR * a.in_c * static_cast<int64_t>(sizeof(X)); off += 64) {
      _mm_prefetch(next + off, _MM_HINT_T0);
    }
  }
  if constexpr (kDp) {
    static_assert(std::is_same_v<X, uint16_t>, "bf16 nodes read bf16 activations");
    const uint32_t* w = a.filter->weight_pairs.data() + first_vector * ((a.in_c + 1) / 2) * kLanes;
    const int64_t full_pairs = a.in_c / 2;
    for (int64_t kp = 0; kp < full_pairs; ++kp) DpStep<NV, MR, false>(a, x, w, kp, s);
    if (a.in_c % 2 != 0) DpStep<NV, MR, true>(a, x, w, full_pairs, s);
  } else {
    const float* w = a.filter->weights.data() + first_vector * a.in_c * kLanes;
    for (int64_t k = 0; k < a.in_c; ++k) {
      __m512 wv[NV];
#pragma GCC unroll 4
      for (int v = 0; v < NV; ++v) wv[v] = _mm512_loadu_ps(w + k * kStride + v * kLanes);
#pragma GCC unroll 12
      for (int m = 0; m < MR; ++m) {
        const __m512 xv = BroadcastInput(x + m * a.in_c, k);
#pragma GCC unroll 4
        for (int v = 0; v < NV; ++v) s[m][v] = _mm512_fmadd_ps(xv, wv[v], s[m][v]);
      }
    }
  }
  if (a.residual != nullptr) {
    // Every residual load before the first store: y is often the residual's
    // own buffer, and a load right behind a masked store to the same cache
    // line stalls (0.8x oneDNN on blazeface's 24-channel layers, measured).
    // Added after the products, as the reference adds it.
    const float* r = a.residual + p0 * a.out_c + c0;
#pragma GCC unroll 12
    for (int m = 0; m < MR; ++m) {
#pragma GCC unroll 4
      for (int v = 0; v < NV; ++v) {
        s[m][v] = _mm512_add_ps(s[m][v], _mm512_maskz_loadu_ps(mask_of(v), r + m * a.out_c + v * kLanes));
      }
    }
  }
#pragma GCC unroll 12
  for (int m = 0; m < MR; ++m) {
    __m512 o[NV];
#pragma GCC unroll 4
    for (int v = 0; v < NV; ++v) {
      o[v] = ApplyConvActivation(s[m][v], a.act);
    }
    Y* row = y + m * a.out_c;
    int v = 0;
    if constexpr (std::is_same_v<Y, uint16_t>) {
      // Two adjacent vectors in one conversion and one 64-byte store.
#pragma GCC unroll 2
      for (; v + 1 < NV; v += 2) {
        const __mmask32 mask = static_cast<__mmask32>(mask_of(v + 1)) << 16 | mask_of(v);
        _mm512_mask_storeu_epi16(row + v * kLanes, mask, (__m512i)_mm512_cvtne2ps_pbh(o[v + 1], o[v]));
      }
    }
#pragma GCC unroll 4
    for (; v < NV; ++v) StoreOutput(row + v * kLanes, mask_of(v), o[v]);
  }
}

template <typename X, typename Y>
using TileFn = void (*)(const PointwiseArgs&, const X*, Y*, int64_t, int64_t, __mmask16);

template <int NV, int MR, typename X, typename Y, bool kDp>
TFHOST_PW_TARGET void TileAvx512(const PointwiseArgs& a, const X* x, Y* y, int64_t p0, int64_t first_vector,
                                 __mmask16 tail) {
  Tile<NV, MR, X, Y, kDp>(a, x, y, p0, first_vector, tail);
}

// kTiles<X, Y, kDp>[nv - 1][mr - 1] for mr <= MaxMr(nv).
template <typename X, typename Y, bool kDp, int NV, size_t... I>
constexpr std::array<TileFn<X, Y>, kMaxMr> TileRow(std::index_sequence<I...>) {
  return {((I + 1 <= static_cast<size_t>(MaxMr(NV))) ? &TileAvx512<NV, std::min<int>(I + 1, MaxMr(NV)), X, Y, kDp>
                                                      : nullptr)...};
}
template <typename X, typename Y, bool kDp>
constexpr std::array<std::array<TileFn<X, Y>, kMaxMr>, kMaxNv> kTiles = {
    TileRow<X, Y, kDp, 1>(std::make_index_sequence<kMaxMr>()),
    TileRow<X, Y, kDp, 2>(std::make_index_sequence<kMaxMr>()),
    TileRow<X, Y, kDp, 3>(std::make_index_sequence<kMaxMr>()),
    TileRow<X, Y, kDp, 4>(std::make_index_sequence<kMaxMr>())};

// n float32 values to bf16, rounded as VCVTNEPS2BF16 rounds.
TFHOST_PW_TARGET void ConvertToBf16(const float* src, int64_t n, uint16_t* dst) {
  for (int64_t i = 0; i < n; i += kLanes) {
    const __mmask16 m = n - i >= kLanes ? static_cast<__mmask16>(0xffff)
                                        : static_cast<__mmask16>((1u << (n - i)) - 1);
    _mm256_mask_storeu_epi16(dst + i, m, (__m256i)_mm512_cvtneps_pbh(_mm512_maskz_loadu_ps(m, src + i)));
  }
}

// One unit: the panel's tiles over the block's pixels, whose input rows
// start at x_block.
template <typename X, typename Y, bool kDp>
void BlockUnit(const PointwiseArgs& a, const X* x_block, Y* y, int64_t block, int64_t panel) {
  const int64_t p_begin = block * a.block_pixels;
  const int64_t p_end = std::min(a.pixels, p_begin + a.block_pixels);
  const int64_t first_vector = PanelBegin(a.vectors, a.panels, panel);
  const int nv = static_cast<int>(PanelBegin(a.vectors, a.panels, panel + 1) - first_vector);
  const int64_t tail_lanes = std::min<int64_t>(kLanes, a.out_c - (first_vector + nv - 1) * kLanes);
  const __mmask16 tail = static_cast<__mmask16>((1u << tail_lanes) - 1);
  // Tiles as even as MaxMr allows: 49 pixels are 7 tiles of 7, not 6 of 8 and one of 1.
  const int64_t n = p_end - p_begin;
  const int64_t tiles = (n + MaxMr(nv) - 1) / MaxMr(nv);
  int64_t p = p_begin;
  for (int64_t t = 0; t < tiles; ++t) {
    const int64_t mr = (n * (t + 1)) / tiles - (n * t) / tiles;
    kTiles<X, Y, kDp>[nv - 1][mr - 1](a, x_block + (p - p_begin) * a.in_c, y, p, first_vector, tail);
    p += mr;
  }
}

// Units [begin, end) of (pixel block, panel), panel-minor, from activations
// x to outputs y. A bf16 node given float32 activations converts each block
// to bf16 once per thread (a thread's consecutive units share a block), as
// oneDNN's bf16 kernels convert them.
template <typename X, typename Y, bool kDp>
void PointwiseRange(const PointwiseArgs& a, const X* x, Y* y, int64_t begin, int64_t end) {
  if constexpr (kDp && std::is_same_v<X, float>) {
    thread_local std::vector<uint16_t> converted;
    converted.resize(a.block_pixels * a.in_c);
    int64_t converted_block = -1;
    for (int64_t unit = begin; unit < end; ++unit) {
      const int64_t block = unit / a.panels;
      if (block != converted_block) {
        const int64_t p_begin = block * a.block_pixels;
        const int64_t p_end = std::min(a.pixels, p_begin + a.block_pixels);
        ConvertToBf16(x + p_begin * a.in_c, (p_end - p_begin) * a.in_c, converted.data());
        converted_block = block;
      }
      BlockUnit<uint16_t, Y, true>(a, converted.data(), y, block, unit % a.panels);
    }
  } else {
    for (int64_t unit = begin; unit < end; ++unit) {
      const int64_t block = unit / a.panels;
      BlockUnit<X, Y, kDp>(a, x + block * a.block_pixels * a.in_c, y, block, unit % a.panels);
    }
  }
}

template <bool kDp>
void RunUnitsOf(const PointwiseArgs& a, int64_t begin, int64_t end) {
  if (a.x_bf16 != nullptr && a.y_bf16 != nullptr) {
    return PointwiseRange<uint16_t, uint16_t, kDp>(a, a.x_bf16, a.y_bf16, begin, end);
  }
  if (a.x_bf16 != nullptr) return PointwiseRange<uint16_t, float, kDp>(a, a.x_bf16, a.y, begin, end);
  if (a.y_bf16 != nullptr) return PointwiseRange<float, uint16_t, kDp>(a, a.x, a.y_bf16, begin, end);
  PointwiseRange<float, float, kDp>(a, a.x, a.y, begin, end);
}

}  // namespace

// The four activation/output dtype pairs, float32 or bf16 weights.
void RunUnits(const PointwiseArgs& a, int64_t begin, int64_t end) {
  if (a.filter->weight_pairs.empty()) return RunUnitsOf<false>(a, begin, end);
  RunUnitsOf<true>(a, begin, end);
}

#else

void RunUnits(const PointwiseArgs&, int64_t, int64_t) {}

#endif  // TFHOST_SIMD_X86

}  // namespace tfhost::backends::simd::pointwise
