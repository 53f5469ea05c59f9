// Dilation2D: grayscale morphological dilation of NHWC images, as
// tf.nn.dilation2d (and Keras-free morphology layers) write it:
//   out[b, y, x, c] = max over (dy, dx) of
//       in[b, y * stride_h + dy * rate_h - pad_top, x * stride_w + dx * rate_w - pad_left, c]
//       + filter[dy, dx, c]
// Taps that fall in the padding take no part (TensorFlow starts each maximum
// at the dtype's lowest value and skips them). Output sizes follow the conv
// arithmetic with the effective filter size (k - 1) * rate + 1.
#include <limits>

#include "ops/array/array_util.h"
#include "ops/nn/conv_geometry.h"
#include "ops/nn/nn_registrations.h"
#include "ops/nn/nn_util.h"

namespace tfhost::ops::nn {
namespace {

struct DilationGeometry {
  int64_t batch, in_h, in_w, depth, k_h, k_w;
  int64_t stride_h, stride_w, rate_h, rate_w;
  WindowDim h, w;
};

// strides/rates must be [1, s_h, s_w, 1].
StatusOr<std::pair<int64_t, int64_t>> ReadHw(const KernelContext& ctx, const char* name) {
  TFHOST_ASSIGN_OR_RETURN(std::vector<int64_t> v, ctx.Attr<std::vector<int64_t>>(name));
  if (v.size() != 4 || v[0] != 1 || v[3] != 1 || v[1] < 1 || v[2] < 1) {
    return ctx.Error(std::string(name) + " must be [1, h, w, 1] with positive h and w, got [" + array::JoinInts(v) +
                     "]");
  }
  return std::make_pair(v[1], v[2]);
}

StatusOr<DilationGeometry> ParseDilation(const KernelContext& ctx, const Tensor& input, const Tensor& filter) {
  if (input.rank() != 4) return ctx.Error("input must be 4-D NHWC, got shape " + input.shape().ToString());
  if (filter.rank() != 3) {
    return ctx.Error("filter must be 3-D [filter_height, filter_width, depth], got shape " +
                     filter.shape().ToString());
  }
  if (filter.dim(2) != input.dim(3)) {
    return ctx.Error("filter depth " + std::to_string(filter.dim(2)) + " must equal the input depth " +
                     std::to_string(input.dim(3)));
  }
  if (input.dtype() != filter.dtype()) {
    return ctx.Error("input and filter dtypes differ: " + DTypeShortName(input.dtype()) + " vs " +
                     DTypeShortName(filter.dtype()));
  }
  DilationGeometry g;
  TFHOST_ASSIGN_OR_RETURN(auto strides, ReadHw(ctx, "strides"));
  TFHOST_ASSIGN_OR_RETURN(auto rates, ReadHw(ctx, "rates"));
  TFHOST_ASSIGN_OR_RETURN(std::string padding_s, ctx.Attr<std::string>("padding"));
  auto padding = ParsePadding(padding_s, /*allow_explicit=*/false);
  if (!padding.ok()) return ctx.Error(padding.status().message());
  g.batch = input.dim(0);
  g.in_h = input.dim(1);
  g.in_w = input.dim(2);
  g.depth = input.dim(3);
  g.k_h = filter.dim(0);
  g.k_w = filter.dim(1);
  g.stride_h = strides.first;
  g.stride_w = strides.second;
  g.rate_h = rates.first;
  g.rate_w = rates.second;
  auto h = ComputeWindowDim(g.in_h, g.k_h, g.stride_h, g.rate_h, *padding, 0, 0);
  if (!h.ok()) return ctx.Error("height: " + std::string(h.status().message()));
  auto w = ComputeWindowDim(g.in_w, g.k_w, g.stride_w, g.rate_w, *padding, 0, 0);
  if (!w.ok()) return ctx.Error("width: " + std::string(w.status().message()));
  g.h = *h;
  g.w = *w;
  return g;
}

template <typename T>
void DilationLoop(const DilationGeometry& g, const T* x, const T* f, T* y) {
  for (int64_t b = 0; b < g.batch; ++b)
    for (int64_t oy = 0; oy < g.h.out; ++oy)
      for (int64_t ox = 0; ox < g.w.out; ++ox)
        for (int64_t c = 0; c < g.depth; ++c) {
          T best = std::numeric_limits<T>::lowest();
          for (int64_t ky = 0; ky < g.k_h; ++ky) {
            const int64_t iy = oy * g.stride_h + ky * g.rate_h - g.h.pad_before;
            if (iy < 0 || iy >= g.in_h) continue;
            for (int64_t kx = 0; kx < g.k_w; ++kx) {
              const int64_t ix = ox * g.stride_w + kx * g.rate_w - g.w.pad_before;
              if (ix < 0 || ix >= g.in_w) continue;
              // Integer sums wrap as TensorFlow's do (computed unsigned to stay defined).
              T v;
              if constexpr (std::is_integral_v<T>) {
                using U = std::make_unsigned_t<T>;
                v = static_cast<T>(static_cast<U>(x[((b * g.in_h + iy) * g.in_w + ix) * g.depth + c]) +
                                   static_cast<U>(f[(ky * g.k_w + kx) * g.depth + c]));
              } else {
                v = x[((b * g.in_h + iy) * g.in_w + ix) * g.depth + c] + f[(ky * g.k_w + kx) * g.depth + c];
              }
              if (v > best) best = v;
            }
          }
          *y++ = best;
        }
}

Status DilationImpl(const KernelContext& ctx, const std::vector<Tensor>& in, std::vector<Tensor>& out) {
  TFHOST_ASSIGN_OR_RETURN(DilationGeometry g, ParseDilation(ctx, in[0], in[1]));
  auto y_or = AllocateChecked(in[0].dtype(), {g.batch, g.h.out, g.w.out, g.depth}, "output");
  if (!y_or.ok()) return ctx.Error(y_or.status().message());
  Tensor y = std::move(*y_or);
  bool supported = in[0].dtype() != DType::kBool;
  if (supported) {
    TFHOST_SWITCH_REAL_TYPES(in[0].dtype(), {
      if constexpr (!std::is_same_v<T, bool>) DilationLoop<T>(g, in[0].data<T>(), in[1].data<T>(), y.data<T>());
    }, { supported = false; });
  }
  if (!supported) {
    return Unimplemented(ir::NodeContext(ctx.node()) + ": dtype " + DTypeShortName(in[0].dtype()) +
                         " is not supported");
  }
  out[0] = std::move(y);
  return OkStatus();
}

}  // namespace

void RegisterDilation2DOps(OpRegistry& registry) {
  registry.Register(ir::OpDefBuilder("Dilation2D")
                        .Input("input: T")
                        .Input("filter: T")
                        .Output("output: T")
                        .Attr("T: {float, double, int32, uint8, int16, int8, int64, bfloat16, uint16, half, "
                              "uint32, uint64}")
                        .Attr("strides: list(int) >= 4")
                        .Attr("rates: list(int) >= 4")
                        .Attr("padding: {'SAME', 'VALID'}"),
                    [](KernelContext& ctx) { return RunWidened(ctx, 2, 0, {0}, DilationImpl); });
}

}  // namespace tfhost::ops::nn
