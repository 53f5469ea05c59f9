// Depthwise convolution with a 3x3 filter at stride 1 or 2, or a 5x5 one at
// stride 2, NHWC float32 (DepthwiseConv2dNative and FusedDepthwiseConv2dNative with an
// optional BiasAdd and Relu, Relu6, Sigmoid or Swish), for the layers the
// flat stride-1 3x3 kernel (simd_depthwise_conv.cc) does not take: strided
// ones (MobileNetV2's and EfficientNet's downsampling blocks) and wide ones,
// up to 1 MiB of input (DepthwisePixelsTake says why). oneDNN 2.6's kernel for these (brdgmm_dw)
// ran MobileNetV2's 112x112x96 stride-2 layer in 0.135 ms where OpenVINO's
// newer oneDNN takes 0.08, and its Swish post-op doubled EfficientNet's.
//
// A vector is 16 channels of one output pixel: its window's K x K input
// vectors (16 channels of each input pixel, contiguous in NHWC whatever the
// stride) times the K x K weight vectors of those channels. Pixels whose
// window lies inside the input's columns go P at a time (P independent sums
// share each weight load and hide the FMA latency), every channel block of
// the group in turn; those at the row's ends check each tap. Input
// rows outside the image (the padding) are skipped. A channel count that is
// not a multiple of 16 ends in a masked vector, loads and stores alike.
// Bias and activation are applied in registers before the only store.
//
// A unit of parallel work is one output row of one image, all channels.
// Everything else goes to the kernel registered after this one (oneDNN's):
// other filter sizes and strides, dilation, depth multipliers, NCHW, bf16,
// batch-norm epilogues and CPUs without AVX-512.
#include <algorithm>
#include <cstring>
#include <memory>
#include <vector>

#include "backends/cpu/simd/cpu_features.h"
#include "backends/cpu/simd/simd_conv_epilogue.h"
#include "backends/cpu/simd/simd_depthwise_pixels.h"
#include "backends/cpu/simd/simd_kernels.h"
#include "backends/cpu/simd/simd_util.h"
#include "backends/cpu/simd/simd_weight_cache.h"
#include "ir/precision_attrs.h"
#include "ops/nn/conv_geometry.h"

namespace tfhost::backends::simd {
namespace {

using ops::nn::Activation;

constexpr int kLanes = 16;

struct PixelArgs {
  const float* x = nullptr;
  float* y = nullptr;
  const float* pattern = nullptr;
  ops::nn::ConvGeometry g;
  int64_t channels = 0, blocks = 0;
  Activation act = Activation::kNone;
};

#ifdef TFHOST_SIMD_X86
#define TFHOST_DWP_TARGET __attribute__((target("avx512f,avx512bw,avx512dq,avx512vl,avx2,fma")))
#define TFHOST_DWP_INLINE inline __attribute__((always_inline)) TFHOST_DWP_TARGET

// The channel block starting at c0: its lane mask and its taps and bias.
struct Block {
  __mmask16 mask;
  const float* pattern;  // K*K tap vectors, then the bias vector
};

template <int K>
TFHOST_DWP_INLINE Block BlockAt(const PixelArgs& a, int64_t cb) {
  const int64_t left = a.channels - cb * kLanes;
  return {left >= kLanes ? static_cast<__mmask16>(0xffff) : static_cast<__mmask16>((1u << left) - 1),
          a.pattern + cb * (K * K + 1) * kLanes};
}

// Output pixel `ox` of a row at the row's ends, where some taps fall in the
// padding: the taps inside are found once, then four channel blocks at a
// time take them (four independent sums: one block alone is a chain of K * K
// dependent multiply-adds, and on EfficientNet's 7x7 maps a 5x5 filter puts
// most pixels here). rows[ky]: the tap row's input row, or null in padding.
template <int K>
TFHOST_DWP_INLINE void EdgePixel(const PixelArgs& a, const float* const* rows, float* out, int64_t ox) {
  constexpr int kBlocks = 4;
  int taps[K * K], offsets[K * K];  // tap index, and its input pixel's offset in floats from rows[0]'s row
  const float* tap_rows[K * K];
  int count = 0;
  for (int ky = 0; ky < K; ++ky) {
    if (rows[ky] == nullptr) continue;
    for (int kx = 0; kx < K; ++kx) {
      const int64_t ix = ox * a.g.stride_w - a.g.pad_left + kx;
      if (ix < 0 || ix >= a.g.in_w) continue;
      taps[count] = ky * K + kx;
      tap_rows[count] = rows[ky];
      offsets[count] = static_cast<int>(ix * a.channels);
      ++count;
    }
  }
  for (int64_t cb0 = 0; cb0 < a.blocks; cb0 += kBlocks) {
    const int n = static_cast<int>(std::min<int64_t>(kBlocks, a.blocks - cb0));
    Block b[kBlocks];
    __m512 acc[kBlocks];
    for (int i = 0; i < kBlocks; ++i) {
      b[i] = BlockAt<K>(a, std::min<int64_t>(cb0 + i, a.blocks - 1));
      acc[i] = _mm512_loadu_ps(b[i].pattern + K * K * kLanes);
    }
    for (int t = 0; t < count; ++t) {
      const float* in = tap_rows[t] + offsets[t] + cb0 * kLanes;
#pragma GCC unroll 4
      for (int i = 0; i < kBlocks; ++i) {
        if (i < n) {
          acc[i] = _mm512_fmadd_ps(_mm512_maskz_loadu_ps(b[i].mask, in + i * kLanes),
                                   _mm512_loadu_ps(b[i].pattern + taps[t] * kLanes), acc[i]);
        }
      }
    }
    for (int i = 0; i < n; ++i) {
      _mm512_mask_storeu_ps(out + ox * a.channels + (cb0 + i) * kLanes, b[i].mask, ApplyConvActivation(acc[i], a.act));
    }
  }
}

// One output row `oy` of image `n`, for a K x K filter at stride S. Pixels
// go P at a time and, for each group, every channel block in turn, so the
// input is read in address order. Along a tap row the group's windows span
// J = (P - 1) * S + K input pixels: each is loaded once and feeds every
// pixel whose window holds it (at S = 1, K of them). With the stride and
// the tap offsets computed per load from run-time values, integer work and
// register spills ran MobileNetV2's stride-2 112x112x96 layer 2.3x slower
// than oneDNN.
template <int K, int S, int P>
TFHOST_DWP_INLINE void PixelRowFrom(const PixelArgs& a, const float* const* rows, float* out) {
  const ops::nn::ConvGeometry& g = a.g;
  const int64_t c = a.channels;
  // Output columns whose window lies inside the input's columns.
  const int64_t inner_begin = std::min(g.out_w, (g.pad_left + S - 1) / S);
  const int64_t last_start = g.in_w - K + g.pad_left;  // the last window inside starts here, over S
  const int64_t inner_end =
      last_start < 0 ? inner_begin : std::max(inner_begin, std::min(g.out_w, last_start / S + 1));
  for (int64_t ox = 0; ox < inner_begin; ++ox) EdgePixel<K>(a, rows, out, ox);
  constexpr int J = (P - 1) * S + K;
  int64_t ox = inner_begin;
  for (; ox + P <= inner_end; ox += P) {
    const int64_t ix0 = ox * S - g.pad_left;
    for (int64_t cb = 0; cb < a.blocks; ++cb) {
      const Block b = BlockAt<K>(a, cb);
      const int64_t c0 = cb * kLanes;
      __m512 acc[P];
      const __m512 bias = _mm512_loadu_ps(b.pattern + K * K * kLanes);
#pragma GCC unroll 8
      for (int p = 0; p < P; ++p) acc[p] = bias;
#pragma GCC unroll 5
      for (int ky = 0; ky < K; ++ky) {
        if (rows[ky] == nullptr) continue;
        __m512 w[K];
#pragma GCC unroll 5
        for (int kx = 0; kx < K; ++kx) w[kx] = _mm512_loadu_ps(b.pattern + (ky * K + kx) * kLanes);
        const float* q = rows[ky] + ix0 * c + c0;
#pragma GCC unroll 16
        for (int j = 0; j < J; ++j, q += c) {
          const __m512 v = _mm512_maskz_loadu_ps(b.mask, q);
#pragma GCC unroll 8
          for (int p = 0; p < P; ++p) {
            const int kx = j - p * S;
            if (kx >= 0 && kx < K) acc[p] = _mm512_fmadd_ps(v, w[kx], acc[p]);
          }
        }
      }
#pragma GCC unroll 8
      for (int p = 0; p < P; ++p) _mm512_mask_storeu_ps(out + (ox + p) * c + c0, b.mask, ApplyConvActivation(acc[p], a.act));
    }
  }
  for (; ox < g.out_w; ++ox) EdgePixel<K>(a, rows, out, ox);
}

template <int K, int S, int P>
TFHOST_DWP_INLINE void PixelRow(const PixelArgs& a, int64_t n, int64_t oy) {
  const ops::nn::ConvGeometry& g = a.g;
  const float* rows[K];
  for (int ky = 0; ky < K; ++ky) {
    const int64_t iy = oy * S - g.pad_top + ky;
    rows[ky] = iy >= 0 && iy < g.in_h ? a.x + ((n * g.in_h + iy) * g.in_w) * a.channels : nullptr;
  }
  PixelRowFrom<K, S, P>(a, rows, a.y + ((n * g.out_h + oy) * g.out_w) * a.channels);
}

// Units [begin, end) of (image, output row).
template <int K, int S, int P>
TFHOST_DWP_TARGET void PixelRows(const PixelArgs& a, int64_t begin, int64_t end) {
  for (int64_t unit = begin; unit < end; ++unit) PixelRow<K, S, P>(a, unit / a.g.out_h, unit % a.g.out_h);
}

TFHOST_DWP_TARGET void Row3x3Avx512(const PixelArgs& a, const float* const rows[3], float* out) {
  if (a.g.stride_w == 1) {
    PixelRowFrom<3, 1, 4>(a, rows, out);
  } else {
    PixelRowFrom<3, 2, 4>(a, rows, out);
  }
}
#endif  // TFHOST_SIMD_X86

class DepthwisePixelKernel {
 public:
  DepthwisePixelKernel(ops::nn::Window2D window, ConvEpilogue epilogue, ops::KernelFn fallback)
      : window_(window),
        epilogue_(epilogue),
        fallback_(std::move(fallback)),
        patterns_(std::make_shared<WeightCache<depthwise_pixels::Pattern>>()) {}

  Status operator()(ops::KernelContext& ctx) const {
    if (ctx.num_inputs() != (epilogue_.bias ? 3 : 2)) return fallback_(ctx);
    const Tensor& x = ctx.input(0);
    const Tensor& f = ctx.input(1);
    if (x.dtype() != DType::kFloat || f.dtype() != DType::kFloat || x.rank() != 4 || f.rank() != 4) {
      return fallback_(ctx);
    }
    const int64_t c = x.dim(3), k = f.dim(0);
    if ((k != 3 && k != 5) || f.dim(1) != k || f.dim(2) != c || f.dim(3) != 1 || c == 0) return fallback_(ctx);
    if (!DepthwisePixelsTake(k, window_.stride_h, x.ByteSize())) return fallback_(ctx);
    const Tensor* bias = epilogue_.bias ? &ctx.input(2) : nullptr;
    if (bias != nullptr && (bias->dtype() != DType::kFloat || bias->NumElements() != c)) return fallback_(ctx);
    auto geo = ops::nn::ComputeConvGeometry(window_, x.shape(), k, k);
    if (!geo.ok()) return fallback_(ctx);  // its error, with the node named
    if (x.NumElements() == 0 || geo->out_h <= 0 || geo->out_w <= 0) return fallback_(ctx);

    PixelArgs a;
    a.g = *geo;
    a.channels = c;
    a.blocks = (c + kLanes - 1) / kLanes;
    a.act = epilogue_.act;
    std::shared_ptr<const depthwise_pixels::Pattern> pattern =
        patterns_->Get(f, bias, {k, c}, [&] { return depthwise_pixels::BuildPattern(f, bias, k, c); });
    a.pattern = pattern->taps_and_bias.data();
    a.x = x.data<float>();
    Tensor y = Tensor::Uninitialized(DType::kFloat, Shape({geo->batch, geo->out_h, geo->out_w, c}));
    a.y = y.data<float>();
    // A unit is one output row: k * k multiply-adds per output float. Waking
    // a pool thread costs about 2^21 of them (as for the other kernels).
    const int64_t unit_work = k * k * geo->out_w * c;
    const int64_t min_units = std::max<int64_t>(1, (int64_t{1} << 21) / std::max<int64_t>(1, unit_work));
#ifdef TFHOST_SIMD_X86
    ParallelRange(ctx.intra_op(), geo->batch * geo->out_h, min_units, [&](int64_t b, int64_t e) {
      if (k == 5) {
        PixelRows<5, 2, 4>(a, b, e);  // stride 2 only (DepthwisePixelsTake)
      } else if (geo->stride_w == 1) {
        PixelRows<3, 1, 4>(a, b, e);
      } else {
        PixelRows<3, 2, 4>(a, b, e);
      }
    });
#endif
    ctx.set_output(0, std::move(y));
    return OkStatus();
  }

 private:
  ops::nn::Window2D window_;
  ConvEpilogue epilogue_;  // no residual: ParseConvEpilogue refused one
  ops::KernelFn fallback_;
  std::shared_ptr<WeightCache<depthwise_pixels::Pattern>> patterns_;
};

}  // namespace

// Which calls the kernel runs itself, from MobileNetV2's and EfficientNetB0's
// layers at batch 1 on one thread against oneDNN 2.6 (Zen 5 EPYC, `tfhost
// bench --profile`, 3 rounds, docs/backends.md): 3x3 layers with inputs up
// to 1 MiB ran 0.91-1.41x (stride 2: 1.09-1.41x); inputs of 1.8-4.8 MB,
// read from memory just after the expansion wrote them, 0.62-0.96x; 5x5
// layers 1.07x at stride 2 and 0.58-0.93x at stride 1, where oneDNN reuses
// each weight over the small maps' pixels and this kernel, walking pixel
// groups, reads it again for each.
bool DepthwisePixelsTake(int64_t k, int64_t stride, size_t input_bytes) {
  return input_bytes <= (size_t{1} << 20) && (k == 3 || stride == 2);
}

ops::KernelFn MakeDepthwisePixelKernel(const ir::Node& node, const ops::KernelFn& fallback) {
#ifndef TFHOST_SIMD_X86
  return {};
#endif
  if (ActiveIsaLevel() != IsaLevel::kAvx512 || !IsFloatNode(node)) return {};
  auto out_dtype = ir::GetAttrOr<DType>(node, ir::kOutputDtypeAttr, DType::kFloat);
  if (!out_dtype.ok() || *out_dtype != DType::kFloat) return {};
  auto window = ops::nn::ParseWindowAttrs(node, /*has_dilations=*/true, /*allow_explicit=*/true);
  if (!window.ok() || window->format != ops::nn::DataFormat::kNhwc || window->stride_h != window->stride_w ||
      (window->stride_h != 1 && window->stride_h != 2) || window->dilation_h != 1 || window->dilation_w != 1) {
    return {};
  }
  ConvEpilogue epilogue;
  if (node.op == "FusedDepthwiseConv2dNative" && !ParseConvEpilogue(node, /*allow_residual=*/false, &epilogue)) {
    return {};
  }
  return DepthwisePixelKernel(*window, epilogue, fallback);
}

namespace depthwise_pixels {

std::shared_ptr<const Pattern> BuildPattern(const Tensor& filter, const Tensor* bias, int64_t k, int64_t channels) {
  auto pattern = std::make_shared<Pattern>();
  const int64_t blocks = (channels + kLanes - 1) / kLanes;
  const int64_t per_block = (k * k + 1) * kLanes;
  pattern->taps_and_bias.assign(blocks * per_block, 0.0f);
  const float* f = filter.data<float>();  // [k][k][channels][1]
  for (int64_t b = 0; b < blocks; ++b) {
    float* dst = pattern->taps_and_bias.data() + b * per_block;
    for (int64_t j = 0; j < kLanes && b * kLanes + j < channels; ++j) {
      const int64_t c = b * kLanes + j;
      for (int64_t t = 0; t < k * k; ++t) dst[t * kLanes + j] = f[t * channels + c];
      if (bias != nullptr) dst[k * k * kLanes + j] = bias->data<float>()[c];
    }
  }
  return pattern;
}

void Row3x3(const RowArgs& r, const float* const rows[3], float* out) {
#ifdef TFHOST_SIMD_X86
  PixelArgs a;
  a.pattern = r.pattern;
  a.g = r.g;
  a.channels = r.channels;
  a.blocks = (r.channels + kLanes - 1) / kLanes;
  a.act = r.act;
  Row3x3Avx512(a, rows, out);
#endif
}

}  // namespace depthwise_pixels

void RegisterDepthwisePixelKernels(KernelTable& table) {
  for (const char* op : {"DepthwiseConv2dNative", "FusedDepthwiseConv2dNative"}) {
    table.Add(op, MakeDepthwisePixelKernel);
  }
}

}  // namespace tfhost::backends::simd
