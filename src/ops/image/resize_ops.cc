// ResizeBicubic and ResizeArea over NHWC images (float32 output), computed
// in float32 the way TensorFlow's CPU kernels compute them, so results match
// to the last bit or two on ordinary inputs.
//
// Coordinates (both ops): scale = (in - 1) / (out - 1) with align_corners and
// out > 1, else in / out. Bicubic samples source coordinate
// (o + 0.5) * scale - 0.5 with half_pixel_centers, else o * scale.
//
// Bicubic: cubic convolution with TensorFlow's coefficient tables of 1025
// entries per unit step (the fractional offset is rounded to the nearest
// 1/1024): a = -0.5 (Keys) with half_pixel_centers, a = -0.75 otherwise.
//   w(t) = ((a + 2) t - (a + 3)) t^2 + 1            for |t| <= 1
//   w(t) = ((a t - 5a) t + 8a) t - 4a               for 1 < |t| < 2
// Taps outside the image clamp to the edge; with half_pixel_centers they
// instead get weight 0 and the four weights are renormalised to sum to 1.
// Rows are interpolated first (along y for each of the 4 x taps), then x.
//
// Area: each output pixel is the average of the input area it covers, with
// partially covered input pixels weighted by their covered fraction.
#include <cmath>
#include <limits>

#include "ops/array/array_util.h"
#include "ops/image/image_ops.h"

namespace tfhost::ops::image {

std::vector<float> ImageAsFloats(const Tensor& t) {
  std::vector<float> v(static_cast<size_t>(t.NumElements()));
  if (t.dtype() == DType::kHalf || t.dtype() == DType::kBFloat16) {
    const uint16_t* p = t.data<uint16_t>();
    for (size_t i = 0; i < v.size(); ++i) v[i] = t.dtype() == DType::kHalf ? HalfToFloat(p[i]) : BFloat16ToFloat(p[i]);
    return v;
  }
  TFHOST_SWITCH_REAL_TYPES(t.dtype(), {
    const T* p = t.data<T>();
    for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<float>(p[i]);
  }, {});
  return v;
}

namespace {

struct ResizeArgs {
  int64_t batch, in_h, in_w, channels, out_h, out_w;
  bool align_corners, half_pixel_centers;
  float scale_h, scale_w;
};

float ResizeScale(int64_t in, int64_t out, bool align_corners) {
  return (align_corners && out > 1) ? static_cast<float>(in - 1) / static_cast<float>(out - 1)
                                    : static_cast<float>(in) / static_cast<float>(out);
}

StatusOr<ResizeArgs> ParseResize(const KernelContext& ctx, bool has_half_pixel_centers) {
  const Tensor& images = ctx.input(0);
  const Tensor& size = ctx.input(1);
  ResizeArgs a;
  TFHOST_ASSIGN_OR_RETURN(a.align_corners, ctx.AttrOr<bool>("align_corners", false));
  a.half_pixel_centers = false;
  if (has_half_pixel_centers) {
    TFHOST_ASSIGN_OR_RETURN(a.half_pixel_centers, ctx.AttrOr<bool>("half_pixel_centers", false));
  }
  if (a.align_corners && a.half_pixel_centers) {
    return ctx.Error("align_corners and half_pixel_centers cannot both be true");
  }
  if (images.rank() != 4) {
    return ctx.Error("images must be 4-D [batch, height, width, channels], got shape " + images.shape().ToString());
  }
  if (size.rank() != 1 || size.NumElements() != 2) {
    return ctx.Error("size must be a vector of 2 values [new_height, new_width], got shape " + size.shape().ToString());
  }
  a.batch = images.dim(0);
  a.in_h = images.dim(1);
  a.in_w = images.dim(2);
  a.channels = images.dim(3);
  a.out_h = size.data<int32_t>()[0];
  a.out_w = size.data<int32_t>()[1];
  if (a.out_h <= 0 || a.out_w <= 0) {
    return ctx.Error("size must be positive, got [" + std::to_string(a.out_h) + ", " + std::to_string(a.out_w) + "]");
  }
  if (a.in_h <= 0 || a.in_w <= 0) {
    return ctx.Error("images must have positive height and width, got shape " + images.shape().ToString());
  }
  a.scale_h = ResizeScale(a.in_h, a.out_h, a.align_corners);
  a.scale_w = ResizeScale(a.in_w, a.out_w, a.align_corners);
  return a;
}

StatusOr<Tensor> AllocateOutput(const KernelContext& ctx, const ResizeArgs& a) {
  TFHOST_ASSIGN_OR_RETURN(Shape shape, array::OutputShape(ctx, {a.batch, a.out_h, a.out_w, a.channels}, "resized_images"));
  return Tensor(DType::kFloat, shape);
}

// ---- bicubic

constexpr int64_t kTableSize = 1024;

// TensorFlow's table: entry 2i is w(i / 1024), entry 2i + 1 is w(i / 1024 + 1).
std::vector<float> CubicTable(double a) {
  std::vector<float> table((kTableSize + 1) * 2);
  for (int64_t i = 0; i <= kTableSize; ++i) {
    const float x = static_cast<float>(static_cast<double>(i) / kTableSize);
    table[i * 2] = static_cast<float>(((a + 2) * x - (a + 3)) * x * x + 1);
    const float x1 = x + 1.0f;
    table[i * 2 + 1] = static_cast<float>(((a * x1 - 5 * a) * x1 + 8 * a) * x1 - 4 * a);
  }
  return table;
}

struct CubicTaps {
  int64_t index[4];
  float weight[4];
};

CubicTaps BicubicTaps(const std::vector<float>& table, float scale, int64_t out_index, int64_t limit, bool keys) {
  const float in_f = keys ? (static_cast<float>(out_index) + 0.5f) * scale - 0.5f : static_cast<float>(out_index) * scale;
  const int64_t in_i = static_cast<int64_t>(std::floor(in_f));
  const float delta = in_f - static_cast<float>(in_i);
  const int64_t offset = std::lrintf(delta * static_cast<float>(kTableSize));
  const float w[4] = {table[offset * 2 + 1], table[offset * 2], table[(kTableSize - offset) * 2],
                      table[(kTableSize - offset) * 2 + 1]};
  CubicTaps t;
  for (int k = 0; k < 4; ++k) {
    const int64_t want = in_i - 1 + k;
    t.index[k] = std::clamp<int64_t>(want, 0, limit - 1);
    t.weight[k] = (keys && t.index[k] != want) ? 0.0f : w[k];
  }
  if (keys) {
    const float sum = t.weight[0] + t.weight[1] + t.weight[2] + t.weight[3];
    if (std::fabs(sum) >= 1000.0f * std::numeric_limits<float>::min()) {
      const float inv = 1.0f / sum;
      for (float& w_k : t.weight) w_k *= inv;
    }
  }
  return t;
}

Status ResizeBicubic(KernelContext& ctx) {
  TFHOST_ASSIGN_OR_RETURN(ResizeArgs a, ParseResize(ctx, /*has_half_pixel_centers=*/true));
  TFHOST_ASSIGN_OR_RETURN(Tensor out, AllocateOutput(ctx, a));
  const bool keys = a.half_pixel_centers;
  const std::vector<float> table = CubicTable(keys ? -0.5 : -0.75);
  std::vector<CubicTaps> xs(static_cast<size_t>(a.out_w));
  for (int64_t x = 0; x < a.out_w; ++x) xs[x] = BicubicTaps(table, a.scale_w, x, a.in_w, keys);
  const std::vector<float> in = ImageAsFloats(ctx.input(0));
  float* y_out = out.data<float>();
  const int64_t c_n = a.channels;
  for (int64_t b = 0; b < a.batch; ++b) {
    const float* image = in.data() + b * a.in_h * a.in_w * c_n;
    for (int64_t y = 0; y < a.out_h; ++y) {
      const CubicTaps ty = BicubicTaps(table, a.scale_h, y, a.in_h, keys);
      for (int64_t x = 0; x < a.out_w; ++x) {
        const CubicTaps& tx = xs[x];
        for (int64_t c = 0; c < c_n; ++c) {
          float column[4];
          for (int k = 0; k < 4; ++k) {
            auto at = [&](int r) { return image[(ty.index[r] * a.in_w + tx.index[k]) * c_n + c]; };
            column[k] = at(0) * ty.weight[0] + at(1) * ty.weight[1] + at(2) * ty.weight[2] + at(3) * ty.weight[3];
          }
          *y_out++ = column[0] * tx.weight[0] + column[1] * tx.weight[1] + column[2] * tx.weight[2] +
                     column[3] * tx.weight[3];
        }
      }
    }
  }
  ctx.set_output(0, std::move(out));
  return OkStatus();
}

// ---- area

// Input pixels [start, end) cover the output pixel; the first and last are
// weighted by their covered fraction (every one in between by 1).
struct AreaSpan {
  int64_t start, end;
  float start_scale, end_scale;
};

float Covered(int64_t v, float lo, float hi, float scale) {
  if (static_cast<float>(v) < lo) return static_cast<float>(v + 1) > hi ? scale : static_cast<float>(v + 1) - lo;
  return static_cast<float>(v + 1) > hi ? hi - static_cast<float>(v) : 1.0f;
}

AreaSpan Span(int64_t o, float scale) {
  const float lo = static_cast<float>(o) * scale;
  const float hi = static_cast<float>(o + 1) * scale;
  AreaSpan s;
  s.start = static_cast<int64_t>(std::floor(lo));
  s.end = static_cast<int64_t>(std::ceil(hi));
  s.start_scale = Covered(s.start, lo, hi, scale);
  s.end_scale = Covered(s.end - 1, lo, hi, scale);
  return s;
}

Status ResizeArea(KernelContext& ctx) {
  TFHOST_ASSIGN_OR_RETURN(ResizeArgs a, ParseResize(ctx, /*has_half_pixel_centers=*/false));
  TFHOST_ASSIGN_OR_RETURN(Tensor out, AllocateOutput(ctx, a));
  std::vector<AreaSpan> xs(static_cast<size_t>(a.out_w));
  for (int64_t x = 0; x < a.out_w; ++x) xs[x] = Span(x, a.scale_w);
  const std::vector<float> in = ImageAsFloats(ctx.input(0));
  const float norm = static_cast<float>(1.0 / (a.scale_h * a.scale_w));
  auto bound = [](int64_t v, int64_t limit) { return std::clamp<int64_t>(v, 0, limit - 1); };
  float* y_out = out.data<float>();
  const int64_t c_n = a.channels;
  for (int64_t b = 0; b < a.batch; ++b) {
    for (int64_t y = 0; y < a.out_h; ++y) {
      const float lo = static_cast<float>(y) * a.scale_h, hi = static_cast<float>(y + 1) * a.scale_h;
      const int64_t y_start = static_cast<int64_t>(std::floor(lo)), y_end = static_cast<int64_t>(std::ceil(hi));
      for (int64_t x = 0; x < a.out_w; ++x) {
        const AreaSpan& sx = xs[x];
        for (int64_t c = 0; c < c_n; ++c) {
          float sum = 0;
          for (int64_t i = y_start; i < y_end; ++i) {
            const float* row = in.data() + (b * a.in_h + bound(i, a.in_h)) * a.in_w * c_n;
            auto at = [&](int64_t v) { return row[bound(v, a.in_w) * c_n + c]; };
            float sum_y = at(sx.start) * sx.start_scale;
            if (sx.start + 1 != sx.end) {
              for (int64_t v = sx.start + 1; v < sx.end - 1; ++v) sum_y += at(v);
              sum_y += at(sx.end - 1) * sx.end_scale;
            }
            sum += sum_y * Covered(i, lo, hi, a.scale_h);
          }
          *y_out++ = sum * norm;
        }
      }
    }
  }
  ctx.set_output(0, std::move(out));
  return OkStatus();
}

}  // namespace

void RegisterResizeOps(OpRegistry& registry) {
  registry.Register(ir::OpDefBuilder("ResizeBicubic")
                        .Input("images: T")
                        .Input("size: int32")
                        .Output("resized_images: float")
                        .Attr("T: {int8, uint8, int16, uint16, int32, int64, half, float, double, bfloat16}")
                        .Attr("align_corners: bool = false")
                        .Attr("half_pixel_centers: bool = false"),
                    ResizeBicubic);
  registry.Register(ir::OpDefBuilder("ResizeArea")
                        .Input("images: T")
                        .Input("size: int32")
                        .Output("resized_images: float")
                        .Attr("T: {int8, uint8, int16, uint16, int32, int64, half, float, double, bfloat16}")
                        .Attr("align_corners: bool = false"),
                    ResizeArea);
}

}  // namespace tfhost::ops::image
