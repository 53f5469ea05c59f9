// ResizeBilinear and ResizeNearestNeighbor over NHWC images, with the
// align_corners / half_pixel_centers coordinate mappings of docs/formats.md §6.3.
// Coordinates and interpolation are computed in float32 as TensorFlow's CPU
// kernels do, so results match bit for bit on ordinary inputs.
#include <algorithm>
#include <cmath>
#include <cstring>

#include "ops/nn/image_resize.h"
#include "ops/nn/nn_registrations.h"
#include "ops/nn/nn_util.h"

namespace tfhost::ops::nn {

StatusOr<ResizeSetup> ParseResize(const KernelContext& ctx, const Tensor& images,
                                  const Tensor& size) {
  ResizeSetup s;
  TFHOST_ASSIGN_OR_RETURN(s.align_corners, ctx.AttrOr<bool>("align_corners", false));
  TFHOST_ASSIGN_OR_RETURN(s.half_pixel_centers, ctx.AttrOr<bool>("half_pixel_centers", false));
  if (s.align_corners && s.half_pixel_centers) {
    return ctx.Error("align_corners and half_pixel_centers cannot both be true");
  }
  if (images.rank() != 4) {
    return ctx.Error("images must be 4-D [batch, height, width, channels], got shape " +
                     images.shape().ToString());
  }
  if (size.rank() != 1 || size.NumElements() != 2 || size.dtype() != DType::kInt32) {
    return ctx.Error("size must be an int32 vector of 2 values [height, width], got " +
                     DTypeShortName(size.dtype()) + size.shape().ToString());
  }
  s.batch = images.dim(0);
  s.in_h = images.dim(1);
  s.in_w = images.dim(2);
  s.channels = images.dim(3);
  s.out_h = size.data<int32_t>()[0];
  s.out_w = size.data<int32_t>()[1];
  if (s.out_h <= 0 || s.out_w <= 0) {
    return ctx.Error("size must be positive, got [" + std::to_string(s.out_h) + ", " +
                     std::to_string(s.out_w) + "]");
  }
  if (s.in_h <= 0 || s.in_w <= 0) {
    return ctx.Error("images must have positive height and width, got shape " +
                     images.shape().ToString());
  }
  return s;
}

namespace {

float ResizeScale(int64_t in, int64_t out, bool align_corners) {
  return (align_corners && out > 1) ? static_cast<float>(in - 1) / static_cast<float>(out - 1)
                                    : static_cast<float>(in) / static_cast<float>(out);
}

// Source rows/columns and the interpolation weight of one output index.
struct Weight {
  int64_t lo, hi;
  float t;
};

template <typename T>
void BilinearLoop(const ResizeSetup& s, const Weight* wy, const Weight* wx, const T* x, float* yp) {
  const int64_t c_n = s.channels;
  auto at = [&](int64_t b, int64_t iy, int64_t ix, int64_t c) {
    return static_cast<float>(x[((b * s.in_h + iy) * s.in_w + ix) * c_n + c]);
  };
  for (int64_t b = 0; b < s.batch; ++b)
    for (int64_t oy = 0; oy < s.out_h; ++oy)
      for (int64_t ox = 0; ox < s.out_w; ++ox)
        for (int64_t c = 0; c < c_n; ++c) {
          const Weight& v = wy[oy];
          const Weight& h = wx[ox];
          const float tl = at(b, v.lo, h.lo, c), tr = at(b, v.lo, h.hi, c);
          const float bl = at(b, v.hi, h.lo, c), br = at(b, v.hi, h.hi, c);
          const float top = tl + (tr - tl) * h.t;
          const float bottom = bl + (br - bl) * h.t;
          *yp++ = top + (bottom - top) * v.t;
        }
}

Status BilinearImpl(const KernelContext& ctx, const std::vector<Tensor>& in,
                    std::vector<Tensor>& out) {
  const Tensor& images = in[0];
  TFHOST_ASSIGN_OR_RETURN(ResizeSetup s, ParseResize(ctx, images, in[1]));
  auto y_or = AllocateChecked(DType::kFloat, {s.batch, s.out_h, s.out_w, s.channels}, "output");
  if (!y_or.ok()) return ctx.Error(y_or.status().message());
  Tensor y = std::move(*y_or);
  // Per-axis source indices and weights, as TF's compute_interpolation_weights.
  auto weights = [&](int64_t in_size, int64_t out_size) {
    const float scale = ResizeScale(in_size, out_size, s.align_corners);
    std::vector<Weight> w(out_size);
    for (int64_t o = 0; o < out_size; ++o) {
      const float c = s.half_pixel_centers ? (static_cast<float>(o) + 0.5f) * scale - 0.5f
                                           : static_cast<float>(o) * scale;
      const float f = std::floor(c);
      w[o].lo = std::max<int64_t>(static_cast<int64_t>(f), 0);
      w[o].hi = std::min<int64_t>(static_cast<int64_t>(std::ceil(c)), in_size - 1);
      w[o].t = c - f;
    }
    return w;
  };
  const std::vector<Weight> wy = weights(s.in_h, s.out_h);
  const std::vector<Weight> wx = weights(s.in_w, s.out_w);
  bool supported = images.dtype() != DType::kBool;
  if (supported) {
    TFHOST_SWITCH_REAL_TYPES(images.dtype(), {
      BilinearLoop<T>(s, wy.data(), wx.data(), images.data<T>(), y.data<float>());
    }, { supported = false; });
  }
  if (!supported) {
    return Unimplemented(ir::NodeContext(ctx.node()) + ": dtype " +
                         DTypeShortName(images.dtype()) + " is not supported");
  }
  out[0] = y;
  return OkStatus();
}

Status NearestKernel(KernelContext& ctx) {
  if (ctx.num_inputs() < 2) return ctx.Error("expected 2 inputs (images, size)");
  const Tensor& images = ctx.input(0);
  TFHOST_ASSIGN_OR_RETURN(ResizeSetup s, ParseResize(ctx, images, ctx.input(1)));
  auto y_or = AllocateChecked(images.dtype(), {s.batch, s.out_h, s.out_w, s.channels}, "output");
  if (!y_or.ok()) return ctx.Error(y_or.status().message());
  Tensor y = std::move(*y_or);
  auto indices = [&](int64_t in_size, int64_t out_size) {
    const float scale = ResizeScale(in_size, out_size, s.align_corners);
    std::vector<int64_t> idx(out_size);
    for (int64_t o = 0; o < out_size; ++o) {
      const float c = s.half_pixel_centers ? (static_cast<float>(o) + 0.5f) * scale
                                           : static_cast<float>(o) * scale;
      int64_t i = static_cast<int64_t>(s.align_corners ? std::round(c) : std::floor(c));
      i = std::min(i, in_size - 1);
      if (s.half_pixel_centers) i = std::max<int64_t>(i, 0);
      idx[o] = i;
    }
    return idx;
  };
  const std::vector<int64_t> iy = indices(s.in_h, s.out_h);
  const std::vector<int64_t> ix = indices(s.in_w, s.out_w);
  // Nearest only moves elements, so any fixed-size dtype works.
  const size_t es = DTypeSize(images.dtype());
  if (es == 0 || images.dtype() == DType::kBool) {
    return Unimplemented(ir::NodeContext(ctx.node()) + ": dtype " +
                         DTypeShortName(images.dtype()) + " is not supported");
  }
  const char* src = static_cast<const char*>(images.raw_data());
  char* dst = static_cast<char*>(y.raw_data());
  const size_t px_bytes = static_cast<size_t>(s.channels) * es;
  for (int64_t b = 0; b < s.batch; ++b)
    for (int64_t oy = 0; oy < s.out_h; ++oy)
      for (int64_t ox = 0; ox < s.out_w; ++ox) {
        const int64_t in_px = (b * s.in_h + iy[oy]) * s.in_w + ix[ox];
        std::memcpy(dst, src + in_px * px_bytes, px_bytes);
        dst += px_bytes;
      }
  ctx.set_output(0, y);
  return OkStatus();
}

}  // namespace

void RegisterImageResizeOps(OpRegistry& registry) {
  registry.Register(ir::OpDefBuilder("ResizeBilinear")
                        .Input("images: T")
                        .Input("size: int32")
                        .Output("resized_images: float")
                        .Attr("T: {int8, uint8, int16, uint16, int32, int64, bfloat16, half, "
                              "float, double}")
                        .Attr("align_corners: bool = false")
                        .Attr("half_pixel_centers: bool = false"),
                    [](KernelContext& ctx) { return RunWidened(ctx, 2, 0, {}, BilinearImpl); });
  registry.Register(ir::OpDefBuilder("ResizeNearestNeighbor")
                        .Input("images: T")
                        .Input("size: int32")
                        .Output("resized_images: T")
                        .Attr("T: {int8, uint8, int16, uint16, int32, int64, half, float, "
                              "double, bfloat16}")
                        .Attr("align_corners: bool = false")
                        .Attr("half_pixel_centers: bool = false"),
                    NearestKernel);
}

}  // namespace tfhost::ops::nn
