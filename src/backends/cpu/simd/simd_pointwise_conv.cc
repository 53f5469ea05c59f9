// 1x1 convolution, stride 1, NHWC float32 (Conv2D and _FusedConv2D with an
// optional BiasAdd, residual Add and Relu/Relu6): MobileNetV2's expansions
// and projections and BlazeFace's 1x1 layers, where oneDNN 2.6's NHWC kernel
// (brgconv_1x1) reaches 40-75% of the FMA peak on the narrow ones (few input
// channels: little work per output float stored) and wakes its second
// OpenMP thread for layers shorter than the wake-up (docs/perf.md, session 9).
//
// It is a matrix product: pixels x input channels times the filter
// (input x output channels). The filter is packed once per filter buffer into
// panels of up to 4 vectors of output channels (as even as that allows),
// zero-padded past the last channel, with the bias beside it. A tile of MR
// pixels x NV vectors keeps its MR * NV <= 24 sums in registers over every
// input channel; each step loads the panel's NV weight vectors and
// broadcasts MR input values. The sums start from the bias; the residual and
// the activation are applied in registers before the only store, and the last
// vector of a row is a masked load/store, so any channel count works.
//
// A unit of parallel work is (block of pixels, panel): a block's inputs (at
// most kBlockInputBytes) stay in L2 while each panel's weights (in_c x NV x
// 64 bytes) pass over them. Inputs larger than L2 are prefetched a tile
// ahead.
//
// bf16 activations (the reader's end of a bf16 edge: a float32 node whose
// input a bf16 convolution stored in bf16) are read as they are, at half the
// bytes: a bf16 is a float32's upper half, so each broadcast loads the 32
// bits that end with the value and clears the lower half, one more vector
// operation per broadcast. The node still multiplies in float32 with float32
// weights. (Widening a block into a float32 buffer first ran slower: the
// widening pass and the tiles no longer overlapped memory with compute.)
// A float32 node whose output is a bf16 edge (its readers are bf16
// convolutions, which would round it anyway) stores bf16 from the same
// registers, rounded as those readers round, into a new buffer.
//
// Everything else goes to the kernel registered after this one (oneDNN's):
// other filter sizes, strides, padding, NCHW, bf16-marked nodes, batch
// norm and other activations, CPUs without AVX-512, and inputs of more than
// 2048 channels (PointwiseConvTakes).
#include <algorithm>
#include <array>
#include <cstring>
#include <memory>
#include <vector>

#include "backends/cpu/simd/simd_conv_epilogue.h"
#include "backends/cpu/simd/simd_kernels.h"
#include "backends/cpu/simd/simd_math.h"
#include "backends/cpu/simd/simd_util.h"
#include "backends/cpu/simd/simd_weight_cache.h"
#include "ir/precision_attrs.h"
#include "ops/nn/conv_geometry.h"

namespace tfhost::backends::simd {
namespace {

using ops::nn::Activation;

constexpr int kLanes = 16;
constexpr int kMaxNv = 4;          // vectors of output channels per panel
constexpr int kMaxSums = 24;       // MR * NV: the sums a tile keeps in registers
constexpr int kMaxMr = 12;         // pixels per tile
constexpr int64_t kBlockInputBytes = 128 << 10;
constexpr int64_t kL2Bytes = 1 << 20;

constexpr int MaxMr(int nv) { return std::min(kMaxMr, kMaxSums / nv); }

// Panel p of `panels` covers output vectors [PanelBegin(p), PanelBegin(p + 1)):
// as even as 4-vector panels allow (9 vectors are panels of 3, 3 and 3, not
// 4, 4 and 1: a 1-vector tile spends a load on every multiply-add).
int64_t PanelBegin(int64_t vectors, int64_t panels, int64_t p) { return vectors * p / panels; }

// The filter as the tiles read it: panel by panel, each k-major with
// nv * 16 floats per input channel (panel p starts at in_c * 16 *
// PanelBegin(p)), zero past out_c; the bias beside it, padded the same way.
struct PackedFilter {
  std::vector<float> weights;
  std::vector<float> bias;  // vectors * 16 floats (zeros without bias)
};

struct PointwiseArgs {
  const float* x = nullptr;          // pixels x in_c, or null when x_bf16 holds them
  const uint16_t* x_bf16 = nullptr;  // pixels x in_c in bf16, or null
  const float* residual = nullptr;  // pixels x out_c, or null
  float* y = nullptr;               // pixels x out_c (may be `residual` itself), or null when y_bf16 is
  uint16_t* y_bf16 = nullptr;       // pixels x out_c in bf16, or null
  const PackedFilter* filter = nullptr;
  int64_t pixels = 0, in_c = 0, out_c = 0;
  int64_t panels = 0;      // ceil(vectors / kMaxNv), see PanelBegin
  int64_t vectors = 0;     // ceil(out_c / 16)
  int64_t block_pixels = 0;
  Activation act = Activation::kNone;
  bool prefetch = false;  // inputs larger than L2: software prefetch
};

#ifdef TFHOST_SIMD_X86

// The tiles may use avx512_bf16's conversion (bf16 outputs only, made only
// where the CPU has it: ActiveIsaHasBf16). A rounding in integer operations
// ran 10% slower on the narrow layers, whose stores are a large part of their
// work. The compiler emits bf16 instructions only for those intrinsics.
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

// Pixels [p0, p0 + MR) x the panel's NV vectors of output channels, whose
// input rows start at `x`: sums from the bias over every input channel, then
// the residual and the activation, then the only store. `tail` masks the
// lanes of the last vector inside the output row.
// `Y` is the output's element: float, or uint16_t for bf16 (a bf16 edge's
// writer).
template <int NV, int MR, typename X, typename Y>
TFHOST_PW_INLINE void Tile(const PointwiseArgs& a, const X* x, Y* y_base, int64_t p0, int64_t first_vector,
                           __mmask16 tail) {
  constexpr int kStride = NV * kLanes;
  const float* w = a.filter->weights.data() + first_vector * a.in_c * kLanes;
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
  const __m512 zero = _mm512_setzero_ps(), six = _mm512_set1_ps(6.0f);
#pragma GCC unroll 12
  for (int m = 0; m < MR; ++m) {
#pragma GCC unroll 4
    for (int v = 0; v < NV; ++v) {
      __m512 o = s[m][v];
      // max(0, o) and min(6, o) return o when o is NaN, as the reference.
      // (The all-lanes masked forms: GCC 12 warns about the plain ones'
      // undefined pass-through operand.)
      if (a.act != Activation::kNone) o = _mm512_mask_max_ps(o, 0xffff, zero, o);
      if (a.act == Activation::kRelu6) o = _mm512_mask_min_ps(o, 0xffff, six, o);
      StoreOutput(y + m * a.out_c + v * kLanes, mask_of(v), o);
    }
  }
}

template <typename X, typename Y>
using TileFn = void (*)(const PointwiseArgs&, const X*, Y*, int64_t, int64_t, __mmask16);

template <int NV, int MR, typename X, typename Y>
TFHOST_PW_TARGET void TileAvx512(const PointwiseArgs& a, const X* x, Y* y, int64_t p0, int64_t first_vector,
                                          __mmask16 tail) {
  Tile<NV, MR>(a, x, y, p0, first_vector, tail);
}

// kTiles<X, Y>[nv - 1][mr - 1] for mr <= MaxMr(nv).
template <typename X, typename Y, int NV, size_t... I>
constexpr std::array<TileFn<X, Y>, kMaxMr> TileRow(std::index_sequence<I...>) {
  return {((I + 1 <= static_cast<size_t>(MaxMr(NV))) ? &TileAvx512<NV, std::min<int>(I + 1, MaxMr(NV)), X, Y>
                                                      : nullptr)...};
}
template <typename X, typename Y>
constexpr std::array<std::array<TileFn<X, Y>, kMaxMr>, kMaxNv> kTiles = {
    TileRow<X, Y, 1>(std::make_index_sequence<kMaxMr>()), TileRow<X, Y, 2>(std::make_index_sequence<kMaxMr>()),
    TileRow<X, Y, 3>(std::make_index_sequence<kMaxMr>()), TileRow<X, Y, 4>(std::make_index_sequence<kMaxMr>())};

// Units [begin, end) of (pixel block, panel), panel-minor, from activations
// x to outputs y.
template <typename X, typename Y>
void PointwiseRange(const PointwiseArgs& a, const X* x, Y* y, int64_t begin, int64_t end) {
  for (int64_t unit = begin; unit < end; ++unit) {
    const int64_t block = unit / a.panels, panel = unit % a.panels;
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
      kTiles<X, Y>[nv - 1][mr - 1](a, x + p * a.in_c, y, p, first_vector, tail);
      p += mr;
    }
  }
}

// The four activation/output dtype pairs.
void RunUnits(const PointwiseArgs& a, int64_t begin, int64_t end) {
  if (a.x_bf16 != nullptr && a.y_bf16 != nullptr) return PointwiseRange(a, a.x_bf16, a.y_bf16, begin, end);
  if (a.x_bf16 != nullptr) return PointwiseRange(a, a.x_bf16, a.y, begin, end);
  if (a.y_bf16 != nullptr) return PointwiseRange(a, a.x, a.y_bf16, begin, end);
  PointwiseRange(a, a.x, a.y, begin, end);
}

#endif  // TFHOST_SIMD_X86

std::shared_ptr<const PackedFilter> PackFilter(const Tensor& filter, const Tensor* bias, int64_t in_c, int64_t out_c) {
  auto packed = std::make_shared<PackedFilter>();
  const int64_t vectors = (out_c + kLanes - 1) / kLanes;
  const int64_t panels = (vectors + kMaxNv - 1) / kMaxNv;
  packed->weights.assign(vectors * in_c * kLanes, 0.0f);
  packed->bias.assign(vectors * kLanes, 0.0f);
  const float* f = filter.data<float>();  // [1][1][in_c][out_c]
  for (int64_t panel = 0; panel < panels; ++panel) {
    const int64_t first_vector = PanelBegin(vectors, panels, panel);
    const int64_t c0 = first_vector * kLanes;
    const int64_t width = (PanelBegin(vectors, panels, panel + 1) - first_vector) * kLanes;
    float* dst = packed->weights.data() + first_vector * in_c * kLanes;
    for (int64_t k = 0; k < in_c; ++k) {
      for (int64_t j = 0; j < width && c0 + j < out_c; ++j) dst[k * width + j] = f[k * out_c + c0 + j];
    }
  }
  if (bias != nullptr) std::memcpy(packed->bias.data(), bias->data<float>(), out_c * sizeof(float));
  return packed;
}

class PointwiseConvKernel {
 public:
  PointwiseConvKernel(ConvEpilogue epilogue, bool bf16_output, ops::KernelFn fallback, bool apply_shape_rule)
      : epilogue_(epilogue),
        bf16_output_(bf16_output),
        apply_shape_rule_(apply_shape_rule),
        fallback_(std::move(fallback)),
        filters_(std::make_shared<WeightCache<PackedFilter>>()) {}

  Status operator()(ops::KernelContext& ctx) const {
    const int num_inputs = 2 + (epilogue_.bias ? 1 : 0) + (epilogue_.residual ? 1 : 0);
    if (ctx.num_inputs() != num_inputs) return fallback_(ctx);
    const Tensor& x = ctx.input(0);
    const Tensor& f = ctx.input(1);
    const bool x_bf16 = x.dtype() == DType::kBFloat16;
    if ((x.dtype() != DType::kFloat && !x_bf16) || f.dtype() != DType::kFloat || x.rank() != 4 || f.rank() != 4) {
      return fallback_(ctx);
    }
    const int64_t in_c = x.dim(3), out_c = f.dim(3);
    if (f.dim(0) != 1 || f.dim(1) != 1 || f.dim(2) != in_c || in_c == 0 || out_c == 0) return fallback_(ctx);
    const Shape out_shape({x.dim(0), x.dim(1), x.dim(2), out_c});
    const Tensor* bias = epilogue_.bias ? &ctx.input(2) : nullptr;
    if (bias != nullptr && (bias->dtype() != DType::kFloat || bias->NumElements() != out_c)) return fallback_(ctx);
    const int residual_arg = num_inputs - 1;
    if (epilogue_.residual && (ctx.input(residual_arg).dtype() != DType::kFloat ||
                               ctx.input(residual_arg).shape() != out_shape)) {
      return fallback_(ctx);
    }
    if (apply_shape_rule_ && !PointwiseConvTakes(in_c)) return fallback_(ctx);

    PointwiseArgs a;
    std::shared_ptr<const PackedFilter> packed =
        filters_->Get(f, bias, {in_c, out_c}, [&] { return PackFilter(f, bias, in_c, out_c); });
    a.filter = packed.get();
    a.pixels = out_shape.dim(0) * out_shape.dim(1) * out_shape.dim(2);
    a.in_c = in_c;
    a.out_c = out_c;
    a.vectors = (out_c + kLanes - 1) / kLanes;
    a.panels = (a.vectors + kMaxNv - 1) / kMaxNv;
    a.act = epilogue_.act;
    const int64_t x_bytes = x_bf16 ? 2 : 4;
    if (x_bf16) {
      a.x_bf16 = x.data<uint16_t>();
    } else {
      a.x = x.data<float>();
    }
    a.prefetch = a.pixels * in_c * x_bytes > kL2Bytes;
    // Blocks small enough for L2, and at least four per thread where the
    // panels alone would not give the pool enough units.
    const int threads = ctx.intra_op() != nullptr ? ctx.intra_op()->num_threads() + 1 : 1;
    const int64_t want_blocks = std::max<int64_t>(1, (4 * threads + a.panels - 1) / a.panels);
    const int64_t max_block = std::max<int64_t>(kMaxMr, kBlockInputBytes / (in_c * x_bytes));
    const int64_t target_blocks = std::max((a.pixels + max_block - 1) / max_block,
                                         std::min(want_blocks, (a.pixels + kMaxMr - 1) / kMaxMr));
    // Even blocks: 49 pixels in 3 blocks are 17, 17, 15, not 24, 24, 1.
    a.block_pixels = (a.pixels + target_blocks - 1) / target_blocks;
    const int64_t blocks = (a.pixels + a.block_pixels - 1) / a.block_pixels;
    Tensor y, residual;
    if (bf16_output_) {
      y = Tensor::Uninitialized(DType::kBFloat16, out_shape);
      a.y_bf16 = y.data<uint16_t>();
      if (epilogue_.residual) a.residual = ctx.input(residual_arg).data<float>();
    } else if (epilogue_.residual) {
      // The residual's own buffer when this node is its last reader: each
      // output float is written after its residual float is read.
      residual = ctx.TakeInput(residual_arg);
      y = ReuseOrAllocate(residual, out_shape);
      a.residual = residual.valid() ? residual.data<float>() : y.data<float>();
    } else {
      y = Tensor::Uninitialized(DType::kFloat, out_shape);
    }
    if (!bf16_output_) a.y = y.data<float>();
    // Units are (pixel block, panel), up to in_c * 64 multiply-adds a pixel.
    // Below about 2^21 multiply-adds waking a pool thread costs more than it
    // saves (as for the depthwise kernel).
    const int64_t unit_work = a.block_pixels * in_c * kMaxNv * kLanes;
    const int64_t min_units = std::max<int64_t>(1, (int64_t{1} << 21) / std::max<int64_t>(1, unit_work));
#ifdef TFHOST_SIMD_X86
    ParallelRange(ctx.intra_op(), blocks * a.panels, min_units,
                  [&](int64_t b, int64_t e) { RunUnits(a, b, e); });
#endif
    ctx.set_output(0, std::move(y));
    return OkStatus();
  }

 private:
  ConvEpilogue epilogue_;
  bool bf16_output_;  // output 0 is a bf16 edge
  bool apply_shape_rule_;
  ops::KernelFn fallback_;
  std::shared_ptr<WeightCache<PackedFilter>> filters_;
};

}  // namespace

// Every 1x1 shape of blazeface and nsfw_mobilenet_v2 ran at 0.94-19x
// oneDNN's speed (docs/perf.md, session 9: 8 of 72 rows below 1, by at most
// 6%). Up to 2048 input channels a panel's weights (in_c x 256 bytes) stay
// in L2 beside a block of inputs; wider ones were not measured.
bool PointwiseConvTakes(int64_t in_c) { return in_c <= 2048; }

ops::KernelFn MakePointwiseConvKernel(const ir::Node& node, const ops::KernelFn& fallback, bool apply_shape_rule) {
#ifndef TFHOST_SIMD_X86
  return {};
#endif
  if (ActiveIsaLevel() != IsaLevel::kAvx512 || !IsFloatNode(node)) return {};
  // bf16 nodes keep oneDNN's native bf16 kernels (the precision pass chose them).
  if (node.FindAttr(ir::kPrecisionAttr) != nullptr) return {};
  auto out_dtype = ir::GetAttrOr<DType>(node, ir::kOutputDtypeAttr, DType::kFloat);
  if (!out_dtype.ok() || (*out_dtype != DType::kFloat && *out_dtype != DType::kBFloat16)) return {};
  if (*out_dtype == DType::kBFloat16 && !ActiveIsaHasBf16()) return {};
  auto window = ops::nn::ParseWindowAttrs(node, /*has_dilations=*/true, /*allow_explicit=*/true);
  if (!window.ok() || window->format != ops::nn::DataFormat::kNhwc || window->stride_h != 1 ||
      window->stride_w != 1) {
    return {};
  }
  if (window->pad_top != 0 || window->pad_bottom != 0 || window->pad_left != 0 || window->pad_right != 0) return {};
  ConvEpilogue epilogue;
  if (node.op == "_FusedConv2D" && !ParseConvEpilogue(node, /*allow_residual=*/true, &epilogue)) return {};
  return PointwiseConvKernel(epilogue, *out_dtype == DType::kBFloat16, fallback, apply_shape_rule);
}

void RegisterPointwiseConvKernels(FastKernelRegistry& registry) {
  for (const char* op : {"Conv2D", "_FusedConv2D"}) {
    registry.Register(op, kBackendName, [](const ir::Node& node, const ops::KernelFn& fallback) {
      return MakePointwiseConvKernel(node, fallback, /*apply_shape_rule=*/true);
    });
  }
}

}  // namespace tfhost::backends::simd
