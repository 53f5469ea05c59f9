// 3x3 depthwise convolution, stride 1, NHWC float32 (DepthwiseConv2dNative
// and FusedDepthwiseConv2dNative with an optional BiasAdd and Relu, Relu6,
// Sigmoid or Swish):
// the MobileNet/BlazeFace layer that oneDNN 2.6's NHWC kernel (brdgmm_dw)
// runs at 40-60 GFLOP/s on a core that does 230 (docs/perf.md, "3x3
// depthwise convolution").
//
// With stride 1 an output row and the input row it reads line up as flat
// arrays of width * channels floats: output element j takes input element
// j + (dx - pad_left) * channels of each of the three input rows, times the
// weight of channel j % channels. So a vector of any W consecutive output
// floats is nine multiply-adds of shifted input vectors by a weight vector
// that repeats with period lcm(W, channels): no per-pixel channel tails,
// whatever the channel count (24 channels are 1.5 vectors per pixel).
//
// A block computes two such vectors (one period apart) in four output rows
// at once: each of the six input rows' shifted vectors is loaded once and
// feeds up to three output rows, so the 8 accumulators, 9 weights and the
// loaded vectors stay in registers (written out with macros: the compiler
// spills arrays of vectors). Loads that reach past a row's ends (the
// left/right padding and the last vectors) take only their valid lanes,
// and rows outside the image read a zero row.
//
// Everything else goes to the kernel registered after this one (oneDNN's),
// which this kernel is given as its fallback: other strides and sizes,
// dilation, depth multipliers, NCHW, more than 256 channels or 8 MiB of
// input, bf16 activations, batch-norm or residual epilogues, CPUs without
// AVX-512.
#include <algorithm>
#include <cstring>
#include <numeric>
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

constexpr int kRows = 4;  // output rows per block (and per unit of parallel work)
constexpr int64_t kMaxChannels = 256;
constexpr size_t kMaxInputBytes = size_t{8} << 20;

// The helpers are templates on the lane count W (simd_math.h's vector types)
// but are only ever compiled for AVX-512 (W = 16, see DepthwiseAvx512): they
// carry its target so that the ragged ends can use masked loads and stores.
// Every function that passes a vector must carry it (clang rejects a call
// that passes a 512-bit vector between differently targeted functions), so
// this file has its own load, store and splat instead of simd_math.h's.
#define TFHOST_DW_INLINE TFHOST_SIMD_INLINE TFHOST_SIMD_TARGET_AVX512

template <int W>
TFHOST_DW_INLINE VF<W> LoadVec(const float* p) {
  VF<W> v;
  std::memcpy(&v, p, sizeof(v));
  return v;
}
template <int W>
TFHOST_DW_INLINE void StoreVec(float* p, const VF<W>& v) {
  std::memcpy(p, &v, sizeof(v));
}
template <int W>
TFHOST_DW_INLINE VF<W> SplatVec(float s) {
  VF<W> v;
  for (int i = 0; i < W; ++i) v[i] = s;
  return v;
}

struct DepthwiseArgs {
  const float* x = nullptr;
  float* y = nullptr;
  const float* pattern = nullptr;  // 9 taps then the bias, each `period` floats
  const float* zeros = nullptr;    // n_in zeros: rows above and below the image
  int64_t in_h = 0, out_h = 0;
  int64_t n_in = 0, n_out = 0;  // floats per input / output row
  int64_t period = 0;           // lcm(W, channels)
  int64_t groups = 0;           // periods per output row, rounded up
  int64_t strips = 0;           // blocks of kRows output rows per image
  int64_t pad_top = 0;
  int64_t off[3] = {0, 0, 0};  // flat input offset of each filter column
  Activation act = Activation::kNone;  // kNone, kRelu, kRelu6, kSigmoid or kSwish
};

// Keeps a loaded vector in a register: without it the compiler folds the
// load into each of the (up to three) multiply-adds that use it, tripling
// the loads, which are what bounds this kernel.
template <int W>
TFHOST_DW_INLINE void Pin(VF<W>& v) {
#ifdef TFHOST_SIMD_X86
  asm("" : "+v"(v));
#else
  (void)v;
#endif
}

// Ends one input row's work: its multiply-adds are done before the next
// row's loads start. Left to itself the compiler hoists every load of the
// block to the top and runs each accumulator's nine multiply-adds as one
// dependent chain, spilling the weights (half the speed, measured).
template <int W>
TFHOST_DW_INLINE void Fence(VF<W>& a0, VF<W>& a1, VF<W>& a2, VF<W>& a3, VF<W>& a4, VF<W>& a5, VF<W>& a6,
                            VF<W>& a7) {
#ifdef TFHOST_SIMD_X86
  asm volatile("" : "+v"(a0), "+v"(a1), "+v"(a2), "+v"(a3), "+v"(a4), "+v"(a5), "+v"(a6), "+v"(a7) : : "memory");
#else
  (void)a0, (void)a1, (void)a2, (void)a3, (void)a4, (void)a5, (void)a6, (void)a7;
#endif
}

// Lanes l of [0, W) with 0 <= i + l < n.
template <int W>
TFHOST_DW_INLINE uint32_t LaneMask(int64_t i, int64_t n) {
  const int64_t lo = std::clamp<int64_t>(-i, 0, W);
  const int64_t hi = std::clamp<int64_t>(n - i, 0, W);
  if (hi <= lo) return 0;
  return static_cast<uint32_t>(((uint64_t{1} << hi) - 1) & ~((uint64_t{1} << lo) - 1));
}

// W floats of an input row at flat index i; with kChecked, lanes outside
// [0, n) read as 0 (a masked load: no call and no branch, so the block's
// vectors stay in registers).
template <int W, bool kChecked>
TFHOST_DW_INLINE VF<W> RowLoad(const float* row, int64_t i, int64_t n) {
  if constexpr (kChecked) {
#ifdef TFHOST_SIMD_X86
    static_assert(W == 16, "AVX-512 only");
    return (VF<W>)_mm512_maskz_loadu_ps(static_cast<__mmask16>(LaneMask<W>(i, n)), row + i);
#else
    const int64_t lo = std::max<int64_t>(0, -i);
    const int64_t hi = std::min<int64_t>(W, n - i);
    float buf[W] = {};
    if (hi > lo) std::memcpy(buf + lo, row + i + lo, static_cast<size_t>(hi - lo) * sizeof(float));
    return LoadVec<W>(buf);
#endif
  }
  return LoadVec<W>(row + i);
}

template <int W>
TFHOST_DW_INLINE VF<W> Activate(VF<W> v, Activation act) {
  // As the reference: NaN passes through both. (Sigmoid and Swish are
  // applied after the blocks, by DepthwiseBody.)
  if (act == Activation::kRelu || act == Activation::kRelu6) v = v < SplatVec<W>(0.0f) ? SplatVec<W>(0.0f) : v;
  if (act == Activation::kRelu6) v = SplatVec<W>(6.0f) < v ? SplatVec<W>(6.0f) : v;
  return v;
}

template <int W, bool kChecked>
TFHOST_DW_INLINE void RowStore(float* row, int64_t i, int64_t n, const VF<W>& v) {
  if constexpr (kChecked) {
#ifdef TFHOST_SIMD_X86
    _mm512_mask_storeu_ps(row + i, static_cast<__mmask16>(LaneMask<W>(i, n)), (__m512)v);
#else
    if (i < n) StorePartial<W>(row + i, v, std::min<int64_t>(W, n - i));
#endif
    return;
  }
  StoreVec<W>(row + i, v);
}

// Output vectors at flat q and q + period of kRows rows (`rows` of them
// stored). `taps` and `bias` point at this vector's lanes of the pattern.
template <int W, bool kChecked>
TFHOST_DW_INLINE void DepthwiseBlock(const DepthwiseArgs& a, const float* const* in, float* const* out,
                                     int64_t rows, int64_t q, const float* taps, const float* bias) {
  const int64_t p = a.period;
  const VF<W> w00 = LoadVec<W>(taps), w01 = LoadVec<W>(taps + p), w02 = LoadVec<W>(taps + 2 * p);
  const VF<W> w10 = LoadVec<W>(taps + 3 * p), w11 = LoadVec<W>(taps + 4 * p), w12 = LoadVec<W>(taps + 5 * p);
  const VF<W> w20 = LoadVec<W>(taps + 6 * p), w21 = LoadVec<W>(taps + 7 * p), w22 = LoadVec<W>(taps + 8 * p);
  const VF<W> b = LoadVec<W>(bias);
  // a<g><r>: vector g (0: at q, 1: at q + p) of output row r.
  VF<W> a00 = b, a01 = b, a02 = b, a03 = b, a10 = b, a11 = b, a12 = b, a13 = b;
  // Input row I, filter column DX: load both vectors once, then FMAS (input
  // row I feeds output row R through filter row I - R).
#define TFHOST_DW_TAP(I, DX, FMAS)                                          \
  {                                                                         \
    VF<W> l0 = RowLoad<W, kChecked>(in[I], q + a.off[DX], a.n_in);          \
    VF<W> l1 = RowLoad<W, kChecked>(in[I], q + p + a.off[DX], a.n_in);      \
    Pin<W>(l0);                                                             \
    Pin<W>(l1);                                                             \
    FMAS                                                                    \
  }
#define TFHOST_DW_FMA(R, DY, DX)       \
  a0##R = l0 * w##DY##DX + a0##R;      \
  a1##R = l1 * w##DY##DX + a1##R;
#define TFHOST_DW_INPUT_ROW(I, FMAS_OF) \
  TFHOST_DW_TAP(I, 0, FMAS_OF(0)) TFHOST_DW_TAP(I, 1, FMAS_OF(1)) TFHOST_DW_TAP(I, 2, FMAS_OF(2))
#define TFHOST_DW_ROW0(DX) TFHOST_DW_FMA(0, 0, DX)
#define TFHOST_DW_ROW1(DX) TFHOST_DW_FMA(0, 1, DX) TFHOST_DW_FMA(1, 0, DX)
#define TFHOST_DW_ROW2(DX) TFHOST_DW_FMA(0, 2, DX) TFHOST_DW_FMA(1, 1, DX) TFHOST_DW_FMA(2, 0, DX)
#define TFHOST_DW_ROW3(DX) TFHOST_DW_FMA(1, 2, DX) TFHOST_DW_FMA(2, 1, DX) TFHOST_DW_FMA(3, 0, DX)
#define TFHOST_DW_ROW4(DX) TFHOST_DW_FMA(2, 2, DX) TFHOST_DW_FMA(3, 1, DX)
#define TFHOST_DW_ROW5(DX) TFHOST_DW_FMA(3, 2, DX)
  TFHOST_DW_INPUT_ROW(0, TFHOST_DW_ROW0)
  Fence<W>(a00, a01, a02, a03, a10, a11, a12, a13);
  TFHOST_DW_INPUT_ROW(1, TFHOST_DW_ROW1)
  Fence<W>(a00, a01, a02, a03, a10, a11, a12, a13);
  TFHOST_DW_INPUT_ROW(2, TFHOST_DW_ROW2)
  Fence<W>(a00, a01, a02, a03, a10, a11, a12, a13);
  TFHOST_DW_INPUT_ROW(3, TFHOST_DW_ROW3)
  Fence<W>(a00, a01, a02, a03, a10, a11, a12, a13);
  TFHOST_DW_INPUT_ROW(4, TFHOST_DW_ROW4)
  Fence<W>(a00, a01, a02, a03, a10, a11, a12, a13);
  TFHOST_DW_INPUT_ROW(5, TFHOST_DW_ROW5)
#undef TFHOST_DW_ROW5
#undef TFHOST_DW_ROW4
#undef TFHOST_DW_ROW3
#undef TFHOST_DW_ROW2
#undef TFHOST_DW_ROW1
#undef TFHOST_DW_ROW0
#undef TFHOST_DW_INPUT_ROW
#undef TFHOST_DW_FMA
#undef TFHOST_DW_TAP
#define TFHOST_DW_STORE(R)                                                   \
  if (rows > R) {                                                            \
    RowStore<W, kChecked>(out[R], q, a.n_out, Activate<W>(a0##R, a.act));     \
    RowStore<W, kChecked>(out[R], q + p, a.n_out, Activate<W>(a1##R, a.act)); \
  }
  TFHOST_DW_STORE(0)
  TFHOST_DW_STORE(1)
  TFHOST_DW_STORE(2)
  TFHOST_DW_STORE(3)
#undef TFHOST_DW_STORE
}

// Units [begin, end) of (image, strip of kRows output rows).
template <int W>
TFHOST_DW_INLINE void DepthwiseBody(const DepthwiseArgs& a, int64_t begin, int64_t end) {
  const int64_t p = a.period;
  const int64_t off_min = std::min({a.off[0], a.off[1], a.off[2]});
  const int64_t off_max = std::max({a.off[0], a.off[1], a.off[2]});
  for (int64_t unit = begin; unit < end; ++unit) {
    const int64_t image = unit / a.strips;
    const int64_t oy = (unit % a.strips) * kRows;
    const int64_t rows = std::min<int64_t>(kRows, a.out_h - oy);
    const float* x = a.x + image * a.in_h * a.n_in;
    const float* in[kRows + 2];
    for (int64_t i = 0; i < kRows + 2; ++i) {
      const int64_t iy = oy - a.pad_top + i;
      in[i] = iy >= 0 && iy < a.in_h ? x + iy * a.n_in : a.zeros;
    }
    float* out[kRows];
    for (int64_t r = 0; r < kRows; ++r) out[r] = a.y + (image * a.out_h + oy + std::min(r, rows - 1)) * a.n_out;
    for (int64_t v = 0; v * W < p; ++v) {
      const float* taps = a.pattern + v * W;
      const float* bias = a.pattern + 9 * p + v * W;
      for (int64_t g = 0; g < a.groups; g += 2) {
        const int64_t q = g * p + v * W;
        const bool inside = q + off_min >= 0 && q + p + off_max + W <= a.n_in && q + p + W <= a.n_out;
        if (inside) {
          DepthwiseBlock<W, false>(a, in, out, rows, q, taps, bias);
        } else {
          DepthwiseBlock<W, true>(a, in, out, rows, q, taps, bias);
        }
      }
    }
    // Sigmoid and Swish over the rows just written, still in cache: in the
    // blocks their polynomials would crowd out the accumulators.
    if (IsLogisticActivation(a.act)) ApplyLogisticActivationAvx512(out[0], rows * a.n_out, a.act);
  }
}

// AVX-512 only: a block holds 8 accumulators, 9 weights and 2 loaded vectors
// in registers, which AVX2's 16 cannot, and its AVX2 copy measured 0.5-0.9x
// oneDNN's AVX2 kernel (bench/depthwise_conv); there oneDNN keeps the node.
TFHOST_SIMD_TARGET_AVX512 void DepthwiseAvx512(const DepthwiseArgs& a, int64_t begin, int64_t end) {
  DepthwiseBody<kWidthAvx512>(a, begin, end);
}

// What a call reads besides the activations: the filter and bias laid out as
// the kernel reads them, and a zero row at least as wide as an input row.
struct Pattern {
  std::vector<float> taps_and_bias;
  std::vector<float> zeros;
};

std::shared_ptr<const Pattern> BuildPattern(const Tensor& filter, const Tensor* bias, int64_t channels,
                                            int64_t period, int64_t row_floats) {
  auto pattern = std::make_shared<Pattern>();
  pattern->taps_and_bias.assign(10 * period, 0.0f);
  float* p = pattern->taps_and_bias.data();
  const float* f = filter.data<float>();
  for (int64_t t = 0; t < 9; ++t) {
    for (int64_t j = 0; j < period; ++j) p[t * period + j] = f[t * channels + j % channels];
  }
  if (bias != nullptr) {
    const float* bv = bias->data<float>();
    for (int64_t j = 0; j < period; ++j) p[9 * period + j] = bv[j % channels];
  }
  pattern->zeros.assign(row_floats, 0.0f);
  return pattern;
}

class DepthwiseConvKernel {
 public:
  DepthwiseConvKernel(ops::nn::Window2D window, ConvEpilogue epilogue, ops::KernelFn fallback)
      : window_(window),
        epilogue_(epilogue),
        fallback_(std::move(fallback)),
        patterns_(std::make_shared<WeightCache<Pattern>>()) {}

  Status operator()(ops::KernelContext& ctx) const {
    if (ctx.num_inputs() != (epilogue_.bias ? 3 : 2)) return fallback_(ctx);
    const Tensor& x = ctx.input(0);
    const Tensor& f = ctx.input(1);
    if (x.dtype() != DType::kFloat || f.dtype() != DType::kFloat || x.rank() != 4 || f.rank() != 4) {
      return fallback_(ctx);  // bf16 activations included: oneDNN's bf16 kernel was faster
    }
    const int64_t c = x.dim(3);
    if (f.dim(0) != 3 || f.dim(1) != 3 || f.dim(2) != c || f.dim(3) != 1) return fallback_(ctx);
    // Wider layers (nsfw's 288-1344 channels at 28x28 to 7x7) ran 0.75-0.95x
    // oneDNN's kernel (bench/depthwise_conv); up to 256 it was 1.0-2.0x. And
    // activations bigger than the caches make both kernels wait on memory:
    // nsfw at batch 32 ran 3-6% slower end to end on this kernel.
    if (c > kMaxChannels || x.ByteSize() > kMaxInputBytes) return fallback_(ctx);
    const Tensor* bias = epilogue_.bias ? &ctx.input(2) : nullptr;
    if (bias != nullptr && (bias->dtype() != DType::kFloat || bias->NumElements() != c)) return fallback_(ctx);
    auto geo = ops::nn::ComputeConvGeometry(window_, x.shape(), 3, 3);
    if (!geo.ok()) return fallback_(ctx);  // its error, with the node named
    if (x.NumElements() == 0 || geo->out_h <= 0 || geo->out_w <= 0) return fallback_(ctx);

    DepthwiseArgs a;
    a.period = std::lcm<int64_t>(kWidthAvx512, c);
    const int64_t row_floats = geo->in_w * c;
    std::shared_ptr<const Pattern> pattern = patterns_->Get(
        f, bias, {a.period, row_floats}, [&] { return BuildPattern(f, bias, c, a.period, row_floats); });
    a.pattern = pattern->taps_and_bias.data();
    a.zeros = pattern->zeros.data();
    a.in_h = geo->in_h;
    a.out_h = geo->out_h;
    a.n_in = geo->in_w * c;
    a.n_out = geo->out_w * c;
    a.groups = (a.n_out + a.period - 1) / a.period;
    a.strips = (a.out_h + kRows - 1) / kRows;
    a.pad_top = geo->pad_top;
    for (int dx = 0; dx < 3; ++dx) a.off[dx] = (dx - geo->pad_left) * c;
    a.act = epilogue_.act;
    a.x = x.data<float>();
    Tensor y = Tensor::Uninitialized(DType::kFloat, Shape({geo->batch, geo->out_h, geo->out_w, c}));
    a.y = y.data<float>();
    // A unit is kRows output rows: 9 multiply-adds per output float. Waking
    // a pool thread costs about as much as 2^21 of them on the machines
    // measured (bench/depthwise_conv), so smaller convolutions run inline.
    const int64_t unit_work = 9 * kRows * a.n_out;
    const int64_t min_units = std::max<int64_t>(1, (int64_t{1} << 21) / std::max<int64_t>(1, unit_work));
    ParallelRange(ctx.intra_op(), geo->batch * a.strips, min_units,
                  [&](int64_t b, int64_t e) { DepthwiseAvx512(a, b, e); });
    ctx.set_output(0, std::move(y));
    return OkStatus();
  }

 private:
  ops::nn::Window2D window_;
  ConvEpilogue epilogue_;  // no residual: ParseConvEpilogue refused one
  ops::KernelFn fallback_;
  std::shared_ptr<WeightCache<Pattern>> patterns_;
};

ops::KernelFn MakeDepthwiseConvKernel(const ir::Node& node, const ops::KernelFn& fallback) {
  if (ActiveIsaLevel() != IsaLevel::kAvx512 || !IsFloatNode(node)) return {};
  // Nodes writing a bf16 edge keep oneDNN's kernel: with bf16 activations its
  // native bf16 kernel ran 1.3-1.8x this one widening them (docs/perf.md,
  // "Measured and not adopted").
  auto out_dtype = ir::GetAttrOr<DType>(node, ir::kOutputDtypeAttr, DType::kFloat);
  if (!out_dtype.ok() || *out_dtype != DType::kFloat) return {};
  auto window = ops::nn::ParseWindowAttrs(node, /*has_dilations=*/true, /*allow_explicit=*/true);
  if (!window.ok() || window->format != ops::nn::DataFormat::kNhwc || window->stride_h != 1 ||
      window->stride_w != 1 || window->dilation_h != 1 || window->dilation_w != 1) {
    return {};
  }
  ConvEpilogue epilogue;
  if (node.op == "FusedDepthwiseConv2dNative" && !ParseConvEpilogue(node, /*allow_residual=*/false, &epilogue)) {
    return {};
  }
  return DepthwiseConvKernel(*window, epilogue, fallback);
}

}  // namespace

void RegisterDepthwiseConvKernels(KernelTable& table) {
  for (const char* op : {"DepthwiseConv2dNative", "FusedDepthwiseConv2dNative"}) {
    table.Add(op, MakeDepthwiseConvKernel);
  }
}

}  // namespace tfhost::backends::simd
