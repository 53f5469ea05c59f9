// ScaleAndTranslate(images [N, H, W, C], size [2], scale [2], translation
// [2]) -> float32 [N, size[0], size[1], C]: separable resampling with one of
// eight kernels, the op behind tf.image.resize with antialias=True and its
// lanczos3/lanczos5/gaussian/mitchellcubic methods (and scale_and_translate).
//
// Per dimension (rows with scale[0]/translation[0], columns with [1]), output
// pixel x samples input position s = (x + 0.5) / scale - translation / scale
// (in float32: inv_scale = float(1.0 / scale), s = (x + 0.5f) * inv_scale +
// (-inv_scale * translation)). With antialias and scale < 1 the kernel is
// stretched by ks = 1 / scale (a low-pass filter), else ks = 1. A sample with
// s < 0 or s > in_size gets no weights (output 0). Otherwise its span covers
// input pixels ceil(s - r * ks - 0.5) .. floor(s + r * ks - 0.5), clamped to
// the image (r the kernel's radius); pixel i weighs kernel(|i + 0.5 - s| / ks),
// and the weights are scaled by 1 / their sum unless that sum is below
// 1000 * FLT_MIN (then all stay 0). Every span is span_size = min(2 *
// ceil(r * ks) + 1, in_size) slots wide; slots past a span's end weigh 0 but
// still multiply their pixel, as TensorFlow's kernel does.
//
// Rows are resampled first into a float32 [N, out_h, W, C] buffer, then
// columns, each output accumulated in float32 from 0 in span order: the
// arithmetic of TensorFlow's CPU kernel, so results match bit for bit.
#include <algorithm>
#include <cctype>
#include <cmath>
#include <limits>

#include "ops/array/array_util.h"
#include "ops/image/image_ops.h"

namespace tfhost::ops::image {
namespace {

enum class SamplingKernel { kLanczos1, kLanczos3, kLanczos5, kGaussian, kBox, kTriangle, kKeysCubic, kMitchellCubic };

StatusOr<SamplingKernel> ParseKernel(const KernelContext& ctx, std::string name) {
  for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (name == "lanczos1") return SamplingKernel::kLanczos1;
  if (name == "lanczos3") return SamplingKernel::kLanczos3;
  if (name == "lanczos5") return SamplingKernel::kLanczos5;
  if (name == "gaussian") return SamplingKernel::kGaussian;
  if (name == "box") return SamplingKernel::kBox;
  if (name == "triangle") return SamplingKernel::kTriangle;
  if (name == "keyscubic") return SamplingKernel::kKeysCubic;
  if (name == "mitchellcubic") return SamplingKernel::kMitchellCubic;
  return ctx.Error("kernel_type must be one of lanczos1, lanczos3, lanczos5, gaussian, box, triangle, keyscubic, "
                   "mitchellcubic; got '" + name + "'");
}

float Radius(SamplingKernel k) {
  switch (k) {
    case SamplingKernel::kLanczos1: return 1.0f;
    case SamplingKernel::kLanczos3: return 3.0f;
    case SamplingKernel::kLanczos5: return 5.0f;
    case SamplingKernel::kGaussian: return 1.5f;
    case SamplingKernel::kKeysCubic:
    case SamplingKernel::kMitchellCubic: return 2.0f;
    default: return 1.0f;  // box, triangle
  }
}

// The kernels' values at distance x >= 0, in TensorFlow's float32 formulas.
float Evaluate(SamplingKernel k, float x) {
  switch (k) {
    case SamplingKernel::kLanczos1:
    case SamplingKernel::kLanczos3:
    case SamplingKernel::kLanczos5: {
      constexpr float kPi = 3.14159265359f;
      const float radius = Radius(k);
      if (x > radius) return 0.0f;
      if (static_cast<double>(x) <= 1e-3) return 1.0f;  // the limit of sin(x) / x at 0
      return radius * std::sin(kPi * x) * std::sin(kPi * x / radius) / (kPi * kPi * x * x);
    }
    case SamplingKernel::kGaussian: {
      // sigma = radius / 3; the exponent is evaluated in double.
      constexpr float kRadius = 1.5f, kSigma = kRadius / 3.0f;
      if (x >= kRadius) return 0.0f;
      return static_cast<float>(std::exp(-x * x / (2.0 * kSigma * kSigma)));
    }
    case SamplingKernel::kBox: return x < 0.5f ? 1.0f : x == 0.5f ? 0.5f : 0.0f;
    case SamplingKernel::kTriangle: return x < 1.0f ? 1.0f - x : 0.0f;
    case SamplingKernel::kKeysCubic:
      if (x >= 2.0f) return 0.0f;
      if (x >= 1.0f) return ((-0.5f * x + 2.5f) * x - 4.0f) * x + 2.0f;
      return ((1.5f * x - 2.5f) * x) * x + 1.0f;
    case SamplingKernel::kMitchellCubic:
      if (x >= 2.0f) return 0.0f;
      if (x >= 1.0f) return (((-7.0f / 18.0f) * x + 2.0f) * x - 10.0f / 3.0f) * x + 16.0f / 9.0f;
      return (((7.0f / 6.0f) * x - 2.0f) * x) * x + 8.0f / 9.0f;
  }
  return 0.0f;
}

// Where each output pixel of one dimension reads: `size` input pixels from
// starts[o], weighted by weights[o * size ...].
struct Spans {
  int64_t size = 0;
  std::vector<int64_t> starts;
  std::vector<float> weights;
};

StatusOr<Spans> ComputeSpans(const KernelContext& ctx, SamplingKernel kernel, int64_t out_size, int64_t in_size,
                             float scale, float translate, bool antialias) {
  const float inv_scale = static_cast<float>(1.0 / scale);
  const float inv_translate = -inv_scale * translate;
  const float kernel_scale = antialias ? std::max(inv_scale, 1.0f) : 1.0f;
  const float radius = Radius(kernel);
  Spans spans;
  spans.size = std::min<int64_t>(2 * static_cast<int64_t>(std::ceil(radius * kernel_scale)) + 1, in_size);
  spans.starts.assign(out_size, 0);
  spans.weights.assign(spans.size * out_size, 0.0f);
  const float one_over_kernel_scale = 1.0f / kernel_scale;
  std::vector<float> w;
  for (int64_t x = 0; x < out_size; ++x) {
    const float sample = (static_cast<float>(x) + 0.5f) * inv_scale + inv_translate;
    if (sample < 0 || sample > static_cast<float>(in_size)) continue;  // outside the image: no weights
    int64_t start = static_cast<int64_t>(std::ceil(sample - radius * kernel_scale - 0.5f));
    int64_t end = static_cast<int64_t>(std::floor(sample + radius * kernel_scale - 0.5f));
    start = std::clamp<int64_t>(start, 0, in_size - 1);
    end = std::clamp<int64_t>(end, 0, in_size - 1) + 1;
    if (end - start > spans.size) {
      return Internal(ir::NodeContext(ctx.node()) + ": span of " + std::to_string(end - start) +
                      " pixels exceeds the computed span size " + std::to_string(spans.size));
    }
    float total = 0.0f;
    w.clear();
    for (int64_t i = start; i < end; ++i) {
      const float pos = static_cast<float>(i) + 0.5f - sample;
      const float weight = Evaluate(kernel, std::abs(pos * one_over_kernel_scale));
      total += weight;
      w.push_back(weight);
    }
    if (std::abs(total) >= 1000.0f * std::numeric_limits<float>::min()) {
      const float inv_total = 1.0f / total;
      for (size_t k = 0; k < w.size(); ++k) spans.weights[x * spans.size + k] = w[k] * inv_total;
    }
    spans.starts[x] = start;
  }
  return spans;
}

// Reads a float32 [2] input (scale, translation) as (rows, columns).
StatusOr<std::pair<float, float>> ReadPair(const KernelContext& ctx, int i, const char* what) {
  const Tensor& t = ctx.input(i);
  if (t.rank() != 1 || t.NumElements() != 2) {
    return ctx.Error(std::string(what) + " must be a vector of 2 values [rows, columns], got shape " +
                     t.shape().ToString());
  }
  return std::pair{t.data<float>()[0], t.data<float>()[1]};
}

Status ScaleAndTranslate(KernelContext& ctx) {
  TFHOST_ASSIGN_OR_RETURN(std::string kernel_name, ctx.AttrOr<std::string>("kernel_type", "lanczos3"));
  TFHOST_ASSIGN_OR_RETURN(SamplingKernel kernel, ParseKernel(ctx, kernel_name));
  TFHOST_ASSIGN_OR_RETURN(bool antialias, ctx.AttrOr<bool>("antialias", true));
  const Tensor& images = ctx.input(0);
  const Tensor& size = ctx.input(1);
  if (images.rank() != 4) {
    return ctx.Error("images must be 4-D [batch, height, width, channels], got shape " + images.shape().ToString());
  }
  if (size.rank() != 1 || size.NumElements() != 2) {
    return ctx.Error("size must be a vector of 2 values [height, width], got shape " + size.shape().ToString());
  }
  const int64_t batch = images.dim(0), in_h = images.dim(1), in_w = images.dim(2), channels = images.dim(3);
  constexpr int64_t kInt32Max = std::numeric_limits<int32_t>::max();
  if (in_h >= kInt32Max || in_w >= kInt32Max) return ctx.Error("image height and width must be below 2^31 - 1");
  const int64_t out_h = size.data<int32_t>()[0], out_w = size.data<int32_t>()[1];
  if (out_h <= 0 || out_w <= 0) {
    return ctx.Error("size must be positive, got [" + std::to_string(out_h) + ", " + std::to_string(out_w) + "]");
  }
  if (channels <= 0) return ctx.Error("images must have at least one channel, got shape " + images.shape().ToString());
  if (in_h <= 0 || in_w <= 0) {
    return ctx.Error("images must have positive height and width, got shape " + images.shape().ToString());
  }
  TFHOST_ASSIGN_OR_RETURN(auto scale, ReadPair(ctx, 2, "scale"));
  if (!(scale.first > 0 && scale.second > 0)) {
    return ctx.Error("scale must be greater than zero, got [" + std::to_string(scale.first) + ", " +
                     std::to_string(scale.second) + "]");
  }
  TFHOST_ASSIGN_OR_RETURN(auto translation, ReadPair(ctx, 3, "translation"));
  TFHOST_ASSIGN_OR_RETURN(Shape out_shape, array::OutputShape(ctx, {batch, out_h, out_w, channels}, "resized_images"));
  Tensor out(DType::kFloat, out_shape);
  if (out.NumElements() == 0) {
    ctx.set_output(0, std::move(out));
    return OkStatus();
  }
  TFHOST_ASSIGN_OR_RETURN(Spans cols,
                          ComputeSpans(ctx, kernel, out_w, in_w, scale.second, translation.second, antialias));
  TFHOST_ASSIGN_OR_RETURN(Spans rows, ComputeSpans(ctx, kernel, out_h, in_h, scale.first, translation.first, antialias));

  const std::vector<float> in = ImageAsFloats(images);
  const int64_t in_row = in_w * channels, out_row = out_w * channels;
  std::vector<float> mid(static_cast<size_t>(out_h * in_row));
  float* o = out.data<float>();
  for (int64_t b = 0; b < batch; ++b) {
    const float* image = in.data() + b * in_h * in_row;
    // Rows: mid[y] = sum over the span of weight * input row.
    for (int64_t y = 0; y < out_h; ++y) {
      float* dst = mid.data() + y * in_row;
      std::fill(dst, dst + in_row, 0.0f);
      const int64_t start = rows.starts[y], n = std::min(start + rows.size, in_h) - start;
      for (int64_t k = 0; k < n; ++k) {
        const float weight = rows.weights[y * rows.size + k];
        const float* src = image + (start + k) * in_row;
        for (int64_t j = 0; j < in_row; ++j) dst[j] += weight * src[j];
      }
    }
    // Columns: out[y, x] = sum over the span of weight * mid[y, column].
    for (int64_t y = 0; y < out_h; ++y) {
      const float* src_row = mid.data() + y * in_row;
      float* dst_row = o + (b * out_h + y) * out_row;
      for (int64_t x = 0; x < out_w; ++x) {
        float* dst = dst_row + x * channels;
        std::fill(dst, dst + channels, 0.0f);
        const int64_t start = cols.starts[x], n = std::min(start + cols.size, in_w) - start;
        for (int64_t k = 0; k < n; ++k) {
          const float weight = cols.weights[x * cols.size + k];
          const float* src = src_row + (start + k) * channels;
          for (int64_t c = 0; c < channels; ++c) dst[c] += weight * src[c];
        }
      }
    }
  }
  ctx.set_output(0, std::move(out));
  return OkStatus();
}

}  // namespace

void RegisterScaleAndTranslateOp(OpRegistry& registry) {
  registry.Register(ir::OpDefBuilder("ScaleAndTranslate")
                        .Input("images: T")
                        .Input("size: int32")
                        .Input("scale: float")
                        .Input("translation: float")
                        .Output("resized_images: float")
                        .Attr("T: {int8, uint8, int16, uint16, int32, int64, bfloat16, half, float, double}")
                        .Attr("kernel_type: string = 'lanczos3'")
                        .Attr("antialias: bool = true"),
                    ScaleAndTranslate);
}

}  // namespace tfhost::ops::image
