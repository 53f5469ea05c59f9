// A network's first convolution: Conv2D and _FusedConv2D on an image of 1-4
// channels (RGB), a 3x3 filter at stride 1 or 2, 16-64 output channels in
// whole vectors, NHWC float32, with the SIMD epilogues (BiasAdd, Relu,
// Relu6, Sigmoid, Swish). MobileNetV2's and EfficientNet's stems (224x224x3
// to 112x112x32 at stride 2) ran 0.17-0.30 ms on oneDNN 2.6's brgconv at
// batch 1, about 40 GFLOP/s on a core that does 275: 27 multiply-adds per
// output channel is too short a reduction for its blocking.
//
// Direct: a tile of P output pixels x NV vectors of output channels keeps its
// sums in registers over the window's 9 taps x C input channels; each step
// loads the tap's NV weight vectors once for the P pixels and broadcasts one
// input value per pixel. Pixels whose window lies inside the image's columns
// go P at a time; those at a row's ends, and rows whose window leaves the
// image, check each tap. The epilogue is applied to the sums before the only
// store. Rows are split over the intra-op threads.
//
// Everything else goes to the kernel registered after this one (oneDNN's).
#include <algorithm>
#include <memory>
#include <vector>

#include "backends/cpu/simd/cpu_features.h"
#include "backends/cpu/simd/simd_conv_epilogue.h"
#include "backends/cpu/simd/simd_kernels.h"
#include "backends/cpu/simd/simd_util.h"
#include "backends/cpu/simd/simd_weight_cache.h"
#include "ir/precision_attrs.h"
#include "ops/nn/conv_geometry.h"

namespace tfhost::backends::simd {
namespace {

using ops::nn::Activation;

constexpr int kLanes = 16;
constexpr int kTaps = 9;  // 3x3

// The filter as the tiles read it: for each tap (ky-major) and input channel,
// the output channels' vectors; then the bias vectors (zeros without one).
struct StemPattern {
  std::vector<float> weights;  // [9][in_c][out_c]
  std::vector<float> bias;     // [out_c]
};

std::shared_ptr<const StemPattern> BuildStemPattern(const Tensor& filter, const Tensor* bias, int64_t out_c) {
  auto p = std::make_shared<StemPattern>();
  // [3][3][in_c][out_c] is already tap-major, input channel, output channel.
  p->weights.assign(filter.data<float>(), filter.data<float>() + filter.NumElements());
  p->bias.assign(out_c, 0.0f);
  if (bias != nullptr) std::copy_n(bias->data<float>(), out_c, p->bias.begin());
  return p;
}

struct StemArgs {
  const float* x = nullptr;
  float* y = nullptr;
  const StemPattern* pattern = nullptr;
  ops::nn::ConvGeometry g;
  int64_t in_c = 0, out_c = 0;
  Activation act = Activation::kNone;
};

#ifdef TFHOST_SIMD_X86
#define TFHOST_STEM_TARGET __attribute__((target("avx512f,avx512bw,avx512dq,avx512vl,avx2,fma")))
#define TFHOST_STEM_INLINE inline __attribute__((always_inline)) TFHOST_STEM_TARGET

// One output pixel whose window may leave the image: each tap checked.
template <int NV>
TFHOST_STEM_INLINE void EdgePixel(const StemArgs& a, const float* image, int64_t oy, int64_t ox, float* out) {
  const ops::nn::ConvGeometry& g = a.g;
  __m512 acc[NV];
  for (int v = 0; v < NV; ++v) acc[v] = _mm512_loadu_ps(a.pattern->bias.data() + v * kLanes);
  for (int ky = 0; ky < 3; ++ky) {
    const int64_t iy = oy * g.stride_h - g.pad_top + ky;
    if (iy < 0 || iy >= g.in_h) continue;
    for (int kx = 0; kx < 3; ++kx) {
      const int64_t ix = ox * g.stride_w - g.pad_left + kx;
      if (ix < 0 || ix >= g.in_w) continue;
      const float* px = image + (iy * g.in_w + ix) * a.in_c;
      const float* w = a.pattern->weights.data() + (ky * 3 + kx) * a.in_c * a.out_c;
      for (int64_t ci = 0; ci < a.in_c; ++ci) {
        const __m512 xv = _mm512_set1_ps(px[ci]);
        for (int v = 0; v < NV; ++v) acc[v] = _mm512_fmadd_ps(xv, _mm512_loadu_ps(w + ci * a.out_c + v * kLanes), acc[v]);
      }
    }
  }
  for (int v = 0; v < NV; ++v) _mm512_storeu_ps(out + v * kLanes, ApplyConvActivation(acc[v], a.act));
}

// Output row `oy` of image `n`.
template <int NV, int P>
TFHOST_STEM_INLINE void StemRow(const StemArgs& a, int64_t n, int64_t oy) {
  const ops::nn::ConvGeometry& g = a.g;
  const float* image = a.x + n * g.in_h * g.in_w * a.in_c;
  float* out = a.y + ((n * g.out_h + oy) * g.out_w) * a.out_c;
  const int64_t s = g.stride_w;
  const int64_t iy0 = oy * g.stride_h - g.pad_top;
  const bool rows_inside = iy0 >= 0 && iy0 + 3 <= g.in_h;
  // Output columns whose window lies inside the image's columns.
  const int64_t inner_begin = std::min(g.out_w, (g.pad_left + s - 1) / s);
  const int64_t last_start = g.in_w - 3 + g.pad_left;
  const int64_t inner_end =
      !rows_inside || last_start < 0 ? inner_begin : std::max(inner_begin, std::min(g.out_w, last_start / s + 1));
  int64_t ox = 0;
  for (; ox < inner_begin; ++ox) EdgePixel<NV>(a, image, oy, ox, out + ox * a.out_c);
  const float* bias = a.pattern->bias.data();
  for (; ox + P <= inner_end; ox += P) {
    __m512 acc[P][NV];
#pragma GCC unroll 4
    for (int v = 0; v < NV; ++v) {
      const __m512 b = _mm512_loadu_ps(bias + v * kLanes);
#pragma GCC unroll 8
      for (int p = 0; p < P; ++p) acc[p][v] = b;
    }
    const int64_t ix0 = ox * s - g.pad_left;
    for (int ky = 0; ky < 3; ++ky) {
      const float* row = image + ((iy0 + ky) * g.in_w + ix0) * a.in_c;
      for (int kx = 0; kx < 3; ++kx) {
        const float* w = a.pattern->weights.data() + (ky * 3 + kx) * a.in_c * a.out_c;
        for (int64_t ci = 0; ci < a.in_c; ++ci, w += a.out_c) {
          __m512 wv[NV];
#pragma GCC unroll 4
          for (int v = 0; v < NV; ++v) wv[v] = _mm512_loadu_ps(w + v * kLanes);
#pragma GCC unroll 8
          for (int p = 0; p < P; ++p) {
            const __m512 xv = _mm512_set1_ps(row[(p * s + kx) * a.in_c + ci]);
#pragma GCC unroll 4
            for (int v = 0; v < NV; ++v) acc[p][v] = _mm512_fmadd_ps(xv, wv[v], acc[p][v]);
          }
        }
      }
    }
#pragma GCC unroll 8
    for (int p = 0; p < P; ++p) {
#pragma GCC unroll 4
      for (int v = 0; v < NV; ++v) _mm512_storeu_ps(out + (ox + p) * a.out_c + v * kLanes, ApplyConvActivation(acc[p][v], a.act));
    }
  }
  for (; ox < g.out_w; ++ox) EdgePixel<NV>(a, image, oy, ox, out + ox * a.out_c);
}

template <int NV, int P>
TFHOST_STEM_TARGET void StemRows(const StemArgs& a, int64_t begin, int64_t end) {
  for (int64_t unit = begin; unit < end; ++unit) StemRow<NV, P>(a, unit / a.g.out_h, unit % a.g.out_h);
}
#endif  // TFHOST_SIMD_X86

class StemConvKernel {
 public:
  StemConvKernel(ops::nn::Window2D window, ConvEpilogue epilogue, ops::KernelFn fallback)
      : window_(window),
        epilogue_(epilogue),
        fallback_(std::move(fallback)),
        patterns_(std::make_shared<WeightCache<StemPattern>>()) {}

  Status operator()(ops::KernelContext& ctx) const {
    if (ctx.num_inputs() != (epilogue_.bias ? 3 : 2)) return fallback_(ctx);
    const Tensor& x = ctx.input(0);
    const Tensor& f = ctx.input(1);
    if (x.dtype() != DType::kFloat || f.dtype() != DType::kFloat || x.rank() != 4 || f.rank() != 4) {
      return fallback_(ctx);
    }
    const int64_t in_c = x.dim(3), out_c = f.dim(3);
    if (f.dim(0) != 3 || f.dim(1) != 3 || f.dim(2) != in_c || !StemConvTakes(in_c, out_c)) return fallback_(ctx);
    const Tensor* bias = epilogue_.bias ? &ctx.input(2) : nullptr;
    if (bias != nullptr && (bias->dtype() != DType::kFloat || bias->NumElements() != out_c)) return fallback_(ctx);
    auto geo = ops::nn::ComputeConvGeometry(window_, x.shape(), 3, 3);
    if (!geo.ok()) return fallback_(ctx);  // its error, with the node named
    if (x.NumElements() == 0 || geo->out_h <= 0 || geo->out_w <= 0) return fallback_(ctx);

    StemArgs a;
    a.g = *geo;
    a.in_c = in_c;
    a.out_c = out_c;
    a.act = epilogue_.act;
    std::shared_ptr<const StemPattern> pattern =
        patterns_->Get(f, bias, {in_c, out_c}, [&] { return BuildStemPattern(f, bias, out_c); });
    a.pattern = pattern.get();
    a.x = x.data<float>();
    Tensor y = Tensor::Uninitialized(DType::kFloat, Shape({geo->batch, geo->out_h, geo->out_w, out_c}));
    a.y = y.data<float>();
    // A unit is one output row: 9 * in_c multiply-adds per output float.
    // Waking a pool thread costs about 2^21 of them (as for the other kernels).
    const int64_t unit_work = kTaps * in_c * geo->out_w * out_c;
    const int64_t min_units = std::max<int64_t>(1, (int64_t{1} << 21) / std::max<int64_t>(1, unit_work));
#ifdef TFHOST_SIMD_X86
    ParallelRange(ctx.intra_op(), geo->batch * geo->out_h, min_units, [&](int64_t b, int64_t e) {
      switch (out_c / kLanes) {
        case 1: StemRows<1, 8>(a, b, e); break;
        case 2: StemRows<2, 6>(a, b, e); break;
        case 3: StemRows<3, 6>(a, b, e); break;
        default: StemRows<4, 4>(a, b, e); break;
      }
    });
#endif
    ctx.set_output(0, std::move(y));
    return OkStatus();
  }

 private:
  ops::nn::Window2D window_;
  ConvEpilogue epilogue_;
  ops::KernelFn fallback_;
  std::shared_ptr<WeightCache<StemPattern>> patterns_;
};

}  // namespace

bool StemConvTakes(int64_t in_c, int64_t out_c) {
  return in_c >= 1 && in_c <= 4 && out_c >= kLanes && out_c <= 4 * kLanes && out_c % kLanes == 0;
}

ops::KernelFn MakeStemConvKernel(const ir::Node& node, const ops::KernelFn& fallback) {
#ifndef TFHOST_SIMD_X86
  return {};
#endif
  if (ActiveIsaLevel() != IsaLevel::kAvx512 || !IsFloatNode(node)) return {};
  auto precision = ir::GetAttrOr<std::string>(node, ir::kPrecisionAttr, "");
  auto out_dtype = ir::GetAttrOr<DType>(node, ir::kOutputDtypeAttr, DType::kFloat);
  if (!precision.ok() || !precision->empty() || !out_dtype.ok() || *out_dtype != DType::kFloat) return {};
  auto window = ops::nn::ParseWindowAttrs(node, /*has_dilations=*/true, /*allow_explicit=*/true);
  if (!window.ok() || window->format != ops::nn::DataFormat::kNhwc || window->stride_h != window->stride_w ||
      (window->stride_h != 1 && window->stride_h != 2) || window->dilation_h != 1 || window->dilation_w != 1) {
    return {};
  }
  ConvEpilogue epilogue;
  if (node.op == "_FusedConv2D" && !ParseConvEpilogue(node, /*allow_residual=*/false, &epilogue)) return {};
  return StemConvKernel(*window, epilogue, fallback);
}

void RegisterStemConvKernels(KernelTable& table) {
  for (const char* op : {"Conv2D", "_FusedConv2D"}) table.Add(op, MakeStemConvKernel);
}

}  // namespace tfhost::backends::simd
