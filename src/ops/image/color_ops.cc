// Colour-space and contrast ops of tf.image: RGBToHSV, HSVToRGB and
// AdjustContrastv2, each computed with the operations, in the order and at the
// precision of TensorFlow's CPU kernels, so results match bit for bit.
//
// RGBToHSV, per pixel (r, g, b) in the last dimension of size 3:
//   v = max(r, g, b), range = v - min(r, g, b), s = v > 0 ? range / v : 0,
//   norm = (1 / range) * (1 / 6),
//   h = r == v ? norm * (g - b) : g == v ? norm * (b - r) + 2/6 : norm * (r - g) + 4/6,
//   h = range > 0 ? h : 0, then h += 1 when h < 0.
// HSVToRGB, per pixel (h, s, v), with dh = h * 6:
//   dr = clamp(|dh - 3| - 1, 0, 1), dg = clamp(2 - |dh - 2|, 0, 1),
//   db = clamp(2 - |dh - 4|, 0, 1), r = ((1 - s) + s * dr) * v (g, b alike).
// Half and bfloat16 round after every operation, as TensorFlow's Eigen
// arithmetic on those types does.
//
// AdjustContrastv2(images [..., h, w, c], contrast_factor): per image and
// channel, mean = sum * (1 / (h * w)) with the sum folded pairwise the way
// TensorFlow's CPU kernel folds it (the upper half of the rows added onto
// the lower half until one row is left); out = mean + factor * (x - mean).
// TensorFlow has only a float32 CPU kernel; half is computed in float32 and
// rounded once at the end, as its GPU kernel does.
#include <algorithm>
#include <cmath>

#include "ops/op_registry.h"
#include "ops/image/image_ops.h"

namespace tfhost::ops::image {
namespace {

// A half or bfloat16 value carried in a float, rounded back to its type after
// every operation.
template <DType kType>
struct Narrow {
  float v = 0;
  Narrow() = default;
  explicit Narrow(float x) : v(RoundTo(x)) {}
  static float RoundTo(float x) {
    if constexpr (kType == DType::kHalf) return HalfToFloat(FloatToHalf(x));
    else return BFloat16ToFloat(FloatToBFloat16(x));
  }
  friend Narrow operator+(Narrow a, Narrow b) { return Narrow(a.v + b.v); }
  friend Narrow operator-(Narrow a, Narrow b) { return Narrow(a.v - b.v); }
  friend Narrow operator*(Narrow a, Narrow b) { return Narrow(a.v * b.v); }
  friend Narrow operator/(Narrow a, Narrow b) { return Narrow(a.v / b.v); }
  friend Narrow operator-(Narrow a) { return Narrow(-a.v); }
  friend bool operator<(Narrow a, Narrow b) { return a.v < b.v; }
  friend bool operator>(Narrow a, Narrow b) { return a.v > b.v; }
  friend bool operator==(Narrow a, Narrow b) { return a.v == b.v; }
};

template <typename S> S Abs(S x) { return x < S(0) ? -x : x; }
// Eigen's cwiseMax / cwiseMin: the first operand unless the second wins.
template <typename S> S Max(S a, S b) { return a < b ? b : a; }
template <typename S> S Min(S a, S b) { return b < a ? b : a; }

template <typename S>
void RgbToHsv(const S* in, S* out) {
  const S r = in[0], g = in[1], b = in[2];
  const S v = Max(Max(r, g), b);
  const S range = v - Min(Min(r, g), b);
  const S s = v > S(0) ? range / v : S(0);
  const S norm = (S(1) / range) * (S(1) / S(6));
  S h = r == v ? norm * (g - b) : g == v ? norm * (b - r) + S(2) / S(6) : norm * (r - g) + S(4) / S(6);
  if (!(range > S(0))) h = S(0);
  if (h < S(0)) h = h + S(1);
  out[0] = h;
  out[1] = s;
  out[2] = v;
}

template <typename S>
void HsvToRgb(const S* in, S* out) {
  const S h = in[0], s = in[1], v = in[2];
  const S dh = h * S(6);
  const S channel[3] = {Min(Max(Abs(dh - S(3)) - S(1), S(0)), S(1)),
                        Min(Max(-Abs(dh - S(2)) + S(2), S(0)), S(1)),
                        Min(Max(-Abs(dh - S(4)) + S(2), S(0)), S(1))};
  const S one_s = -s + S(1);
  for (int c = 0; c < 3; ++c) out[c] = (one_s + s * channel[c]) * v;
}

// Runs `pixel` over every 3-value pixel with the scalar type S matching the
// tensor's dtype.
template <typename S, typename Stored, typename Load, typename StoreFn>
void MapPixels(const Tensor& in, Tensor& out, void (*pixel)(const S*, S*), Load load, StoreFn store) {
  const Stored* src = in.data<Stored>();
  Stored* dst = out.data<Stored>();
  for (int64_t p = 0, n = in.NumElements() / 3; p < n; ++p) {
    S x[3], y[3];
    for (int c = 0; c < 3; ++c) x[c] = load(src[3 * p + c]);
    pixel(x, y);
    for (int c = 0; c < 3; ++c) dst[3 * p + c] = store(y[c]);
  }
}

template <template <typename> class Pixel>
Status ColorSpaceKernel(KernelContext& ctx) {
  const Tensor& in = ctx.input(0);
  if (in.rank() < 1) return ctx.Error("images must be at least 1-D, got a scalar");
  if (in.dim(in.rank() - 1) != 3) {
    return FailedPrecondition(ir::NodeContext(ctx.node()) + ": images must have 3 channels in the last dimension, got shape " +
                              in.shape().ToString());
  }
  Tensor out(in.dtype(), in.shape());
  switch (in.dtype()) {
    case DType::kFloat:
      MapPixels<float, float>(in, out, Pixel<float>::fn, [](float x) { return x; }, [](float x) { return x; });
      break;
    case DType::kDouble:
      MapPixels<double, double>(in, out, Pixel<double>::fn, [](double x) { return x; }, [](double x) { return x; });
      break;
    case DType::kHalf: {
      using H = Narrow<DType::kHalf>;
      MapPixels<H, uint16_t>(in, out, Pixel<H>::fn, [](uint16_t x) { return H(HalfToFloat(x)); },
                             [](H x) { return FloatToHalf(x.v); });
      break;
    }
    case DType::kBFloat16: {
      using B = Narrow<DType::kBFloat16>;
      MapPixels<B, uint16_t>(in, out, Pixel<B>::fn, [](uint16_t x) { return B(BFloat16ToFloat(x)); },
                             [](B x) { return FloatToBFloat16(x.v); });
      break;
    }
    default:
      return ctx.Error("images must be half, bfloat16, float or double, got " + DTypeShortName(in.dtype()));
  }
  ctx.set_output(0, std::move(out));
  return OkStatus();
}

template <typename S> struct RgbToHsvPixel { static constexpr void (*fn)(const S*, S*) = RgbToHsv<S>; };
template <typename S> struct HsvToRgbPixel { static constexpr void (*fn)(const S*, S*) = HsvToRgb<S>; };

// Sums plane[:, c] (rows x channels, row-major) for every channel the way
// TensorFlow's AdjustContrastv2 does: rows [left, rows) are added onto rows
// [0, right), then the kept half is folded again, until one row is left.
void FoldedChannelSums(const float* plane, int64_t rows, int64_t channels, std::vector<float>& scratch) {
  scratch.assign(plane, plane + rows * channels);
  int64_t remaining = rows;
  while (remaining > 1) {
    const int64_t right = remaining / 2, left = remaining - right;
    for (int64_t j = 0; j < right * channels; ++j) scratch[j] += scratch[left * channels + j];
    remaining = left;
  }
}

Status AdjustContrastv2(KernelContext& ctx) {
  const Tensor& images = ctx.input(0);
  const Tensor& factor_t = ctx.input(1);
  if (images.rank() < 3) {
    return ctx.Error("images must be at least 3-D [..., height, width, channels], got shape " + images.shape().ToString());
  }
  if (factor_t.rank() != 0) {
    return ctx.Error("contrast_factor must be a scalar, got shape " + factor_t.shape().ToString());
  }
  if (images.dtype() != DType::kFloat && images.dtype() != DType::kHalf) {
    return ctx.Error("images must be half or float, got " + DTypeShortName(images.dtype()));
  }
  const float factor = factor_t.data<float>()[0];
  const int r = images.rank();
  const int64_t rows = images.dim(r - 3) * images.dim(r - 2), channels = images.dim(r - 1);
  Tensor out(images.dtype(), images.shape());
  const int64_t n = images.NumElements();
  if (n == 0) {
    ctx.set_output(0, std::move(out));
    return OkStatus();
  }
  const std::vector<float> x = ImageAsFloats(images);
  std::vector<float> y(x.size()), scratch;
  const int64_t plane = rows * channels;
  const float mean_scaling = 1.0f / static_cast<float>(rows);
  for (int64_t b = 0; b < n / plane; ++b) {
    const float* src = x.data() + b * plane;
    float* dst = y.data() + b * plane;
    FoldedChannelSums(src, rows, channels, scratch);
    for (int64_t i = 0; i < plane; ++i) {
      const float mean = scratch[i % channels] * mean_scaling;
      dst[i] = mean + factor * (src[i] - mean);
    }
  }
  if (images.dtype() == DType::kFloat) {
    std::copy(y.begin(), y.end(), out.data<float>());
  } else {
    uint16_t* o = out.data<uint16_t>();
    for (int64_t i = 0; i < n; ++i) o[i] = FloatToHalf(y[i]);
  }
  ctx.set_output(0, std::move(out));
  return OkStatus();
}

}  // namespace

void RegisterColorOps(OpRegistry& registry) {
  for (const char* name : {"RGBToHSV", "HSVToRGB"}) {
    const bool to_hsv = std::string(name) == "RGBToHSV";
    registry.Register(ir::OpDefBuilder(name)
                          .Input("images: T")
                          .Output("output: T")
                          .Attr("T: {half, bfloat16, float, double} = DT_FLOAT"),
                      to_hsv ? KernelFn(ColorSpaceKernel<RgbToHsvPixel>) : KernelFn(ColorSpaceKernel<HsvToRgbPixel>));
  }
  registry.Register(ir::OpDefBuilder("AdjustContrastv2")
                        .Input("images: T")
                        .Input("contrast_factor: float")
                        .Output("output: T")
                        .Attr("T: {half, float} = DT_FLOAT"),
                    AdjustContrastv2);
}

}  // namespace tfhost::ops::image
