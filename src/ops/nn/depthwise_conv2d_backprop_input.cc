// DepthwiseConv2dNativeBackpropInput: the gradient of DepthwiseConv2dNative
// with respect to its input, which Keras's DepthwiseConv2DTranspose-style
// decoders (and tf.nn.depthwise_conv2d_backprop_input) put in inference
// graphs as a transposed depthwise convolution.
//   dx[b, iy, ix, c] = sum over (ky, kx, q) of
//       dy[b, oy, ox, c * multiplier + q] * filter[ky, kx, c, q]
// over the output pixels (oy, ox) whose forward window tap (ky, kx) lands on
// (iy, ix). Written as a gather over input pixels, summed in double.
#include "ops/nn/conv_geometry.h"
#include "ops/nn/nn_registrations.h"
#include "ops/nn/nn_util.h"

namespace tfhost::ops::nn {
namespace {

Status DepthwiseBackpropImpl(const KernelContext& ctx, const std::vector<Tensor>& in, std::vector<Tensor>& out) {
  const Tensor& sizes = in[0];
  const Tensor& filter = in[1];
  const Tensor& out_backprop = in[2];
  TFHOST_ASSIGN_OR_RETURN(Window2D w, ParseWindowAttrs(ctx, /*has_dilations=*/true, /*allow_explicit=*/true));
  if (filter.rank() != 4) {
    return ctx.Error("filter must be 4-D [kh, kw, in_c, multiplier], got shape " + filter.shape().ToString());
  }
  if (out_backprop.rank() != 4) {
    return ctx.Error("out_backprop must be 4-D, got shape " + out_backprop.shape().ToString());
  }
  if (filter.dtype() != out_backprop.dtype()) {
    return ctx.Error("filter and out_backprop dtypes differ: " + DTypeShortName(filter.dtype()) + " vs " +
                     DTypeShortName(out_backprop.dtype()));
  }
  if (sizes.rank() != 1 || sizes.NumElements() != 4) {
    return ctx.Error("input_sizes must be a vector of 4 sizes, got shape " + sizes.shape().ToString());
  }
  TFHOST_ASSIGN_OR_RETURN(std::vector<int64_t> s, sizes.ToInt64Vector());
  const std::vector<int64_t> x_dims =
      w.format == DataFormat::kNchw ? std::vector<int64_t>{s[0], s[2], s[3], s[1]} : s;
  for (int64_t d : x_dims) {
    if (d < 0) return ctx.Error("input_sizes must be non-negative, got [" + std::to_string(s[0]) + ", ...]");
  }
  const Tensor dy = ToNhwc(out_backprop, w.format);
  const int64_t in_c = filter.dim(2), multiplier = filter.dim(3);
  if (x_dims[0] != dy.dim(0)) {
    return ctx.Error("input_sizes batch " + std::to_string(x_dims[0]) + " differs from out_backprop batch " +
                     std::to_string(dy.dim(0)));
  }
  if (x_dims[3] != in_c) {
    return ctx.Error("input_sizes depth " + std::to_string(x_dims[3]) + " differs from the filter's in_c " +
                     std::to_string(in_c));
  }
  if (dy.dim(3) != in_c * multiplier) {
    return ctx.Error("out_backprop depth " + std::to_string(dy.dim(3)) + " must be in_c * multiplier = " +
                     std::to_string(in_c * multiplier) + " (filter shape " + filter.shape().ToString() + ")");
  }
  auto dx_or = AllocateChecked(dy.dtype(), x_dims, "input_sizes");
  if (!dx_or.ok()) return ctx.Error(dx_or.status().message());
  Tensor dx = std::move(*dx_or);
  auto geometry = ComputeConvGeometry(w, dx.shape(), filter.dim(0), filter.dim(1));
  if (!geometry.ok()) return ctx.Error(geometry.status().message());
  const ConvGeometry& g = *geometry;
  if (g.out_h != dy.dim(1) || g.out_w != dy.dim(2)) {
    return ctx.Error("out_backprop spatial size " + std::to_string(dy.dim(1)) + "x" + std::to_string(dy.dim(2)) +
                     " does not match the forward depthwise conv output " + std::to_string(g.out_h) + "x" +
                     std::to_string(g.out_w) + " for input_sizes " + dx.shape().ToString());
  }
  const int64_t out_c = in_c * multiplier;
  TFHOST_RETURN_IF_ERROR(DispatchFloatOrDouble(ctx, dy.dtype(), [&](auto zero) {
    using T = decltype(zero);
    const T* fp = filter.data<T>();
    const T* dyp = dy.data<T>();
    T* dxp = dx.data<T>();
    ParallelRows(ctx, g.batch * g.in_h, [&](int64_t begin, int64_t end) {
      std::vector<double> acc(static_cast<size_t>(g.in_c));
      for (int64_t row = begin; row < end; ++row) {
        const int64_t b = row / g.in_h, iy = row % g.in_h;
        for (int64_t ix = 0; ix < g.in_w; ++ix) {
          std::fill(acc.begin(), acc.end(), 0.0);
          for (int64_t ky = 0; ky < g.k_h; ++ky) {
            const int64_t ty = iy + g.pad_top - ky * g.dilation_h;
            if (ty < 0 || ty % g.stride_h != 0 || ty / g.stride_h >= g.out_h) continue;
            const int64_t oy = ty / g.stride_h;
            for (int64_t kx = 0; kx < g.k_w; ++kx) {
              const int64_t tx = ix + g.pad_left - kx * g.dilation_w;
              if (tx < 0 || tx % g.stride_w != 0 || tx / g.stride_w >= g.out_w) continue;
              const int64_t ox = tx / g.stride_w;
              const T* grad = dyp + ((b * g.out_h + oy) * g.out_w + ox) * out_c;
              const T* f = fp + (ky * g.k_w + kx) * out_c;
              for (int64_t k = 0; k < out_c; ++k) {
                acc[k / multiplier] += static_cast<double>(grad[k]) * static_cast<double>(f[k]);
              }
            }
          }
          T* dst = dxp + (row * g.in_w + ix) * g.in_c;
          for (int64_t c = 0; c < g.in_c; ++c) dst[c] = static_cast<T>(acc[c]);
        }
      }
    });
    return OkStatus();
  }));
  out[0] = FromNhwc(dx, w.format);
  return OkStatus();
}

}  // namespace

void RegisterDepthwiseConvBackpropOps(OpRegistry& registry) {
  registry.Register(ir::OpDefBuilder("DepthwiseConv2dNativeBackpropInput")
                        .Input("input_sizes: int32")
                        .Input("filter: T")
                        .Input("out_backprop: T")
                        .Output("output: T")
                        .Attr("T: {half, bfloat16, float, double}")
                        .Attr("strides: list(int)")
                        .Attr("padding: {'SAME', 'VALID', 'EXPLICIT'}")
                        .Attr("explicit_paddings: list(int) = []")
                        .Attr("data_format: {'NHWC', 'NCHW'} = 'NHWC'")
                        .Attr("dilations: list(int) = [1, 1, 1, 1]"),
                    [](KernelContext& ctx) { return RunWidened(ctx, 3, 1, {0}, DepthwiseBackpropImpl); });
}

}  // namespace tfhost::ops::nn
