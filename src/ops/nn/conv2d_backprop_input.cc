// Conv2DBackpropInput, the "transposed convolution" of decoder models: the
// gradient of Conv2D with respect to its input. Written as a gather over
// input pixels (each input pixel sums the output pixels whose windows cover
// it), so rows are independent and run in parallel without write conflicts.
#include "ops/nn/conv_geometry.h"
#include "ops/nn/nn_registrations.h"
#include "ops/nn/nn_util.h"

namespace tfhost::ops::nn {

namespace {

template <typename T>
void BackpropRows(const ConvGeometry& g, const T* filter, const T* dy, int64_t out_c, T* dx,
                  int64_t row_begin, int64_t row_end) {
  for (int64_t row = row_begin; row < row_end; ++row) {
    const int64_t b = row / g.in_h;
    const int64_t iy = row % g.in_h;
    for (int64_t ix = 0; ix < g.in_w; ++ix) {
      T* __restrict acc = dx + (row * g.in_w + ix) * g.in_c;
      for (int64_t ky = 0; ky < g.k_h; ++ky) {
        // iy = oy * stride - pad_top + ky * dilation  =>  oy = (iy + pad_top - ky * d) / stride.
        const int64_t ty = iy + g.pad_top - ky * g.dilation_h;
        if (ty < 0 || ty % g.stride_h != 0) continue;
        const int64_t oy = ty / g.stride_h;
        if (oy >= g.out_h) continue;
        for (int64_t kx = 0; kx < g.k_w; ++kx) {
          const int64_t tx = ix + g.pad_left - kx * g.dilation_w;
          if (tx < 0 || tx % g.stride_w != 0) continue;
          const int64_t ox = tx / g.stride_w;
          if (ox >= g.out_w) continue;
          const T* __restrict grad = dy + ((b * g.out_h + oy) * g.out_w + ox) * out_c;
          const T* f = filter + (ky * g.k_w + kx) * g.in_c * out_c;
          for (int64_t c = 0; c < g.in_c; ++c) {
            const T* __restrict f_row = f + c * out_c;
            T sum = 0;
            for (int64_t oc = 0; oc < out_c; ++oc) sum += f_row[oc] * grad[oc];
            acc[c] += sum;
          }
        }
      }
    }
  }
}

Status BackpropImpl(const KernelContext& ctx, const std::vector<Tensor>& in,
                    std::vector<Tensor>& out) {
  const Tensor& sizes = in[0];
  const Tensor& filter = in[1];
  const Tensor& out_backprop = in[2];
  TFHOST_ASSIGN_OR_RETURN(Window2D w, ParseWindowAttrs(ctx, /*has_dilations=*/true,
                                                       /*allow_explicit=*/true));
  if (filter.rank() != 4) {
    return ctx.Error("filter must be 4-D [kh, kw, in_c, out_c], got shape " +
                     filter.shape().ToString());
  }
  if (out_backprop.rank() != 4) {
    return ctx.Error("out_backprop must be 4-D, got shape " + out_backprop.shape().ToString());
  }
  if (filter.dtype() != out_backprop.dtype()) {
    return ctx.Error("filter and out_backprop dtypes differ: " + DTypeShortName(filter.dtype()) +
                     " vs " + DTypeShortName(out_backprop.dtype()));
  }
  if (sizes.rank() != 1 || (sizes.NumElements() != 4 && sizes.NumElements() != 2)) {
    return ctx.Error("input_sizes must be a vector of 4 (or 2 spatial) sizes, got shape " +
                     sizes.shape().ToString());
  }
  const Tensor dy = ToNhwc(out_backprop, w.format);
  TFHOST_ASSIGN_OR_RETURN(std::vector<int64_t> s, sizes.ToInt64Vector());
  // Input shape in NHWC.
  std::vector<int64_t> x_dims;
  if (s.size() == 2) {
    x_dims = {dy.dim(0), s[0], s[1], filter.dim(2)};
  } else if (w.format == DataFormat::kNchw) {
    x_dims = {s[0], s[2], s[3], s[1]};
  } else {
    x_dims = s;
  }
  if (x_dims[0] != dy.dim(0)) {
    return ctx.Error("input_sizes batch " + std::to_string(x_dims[0]) +
                     " differs from out_backprop batch " + std::to_string(dy.dim(0)));
  }
  if (x_dims[3] != filter.dim(2)) {
    return ctx.Error("input_sizes channels " + std::to_string(x_dims[3]) +
                     " differ from the filter's in_c " + std::to_string(filter.dim(2)));
  }
  if (dy.dim(3) != filter.dim(3)) {
    return ctx.Error("out_backprop channels " + std::to_string(dy.dim(3)) +
                     " differ from the filter's out_c " + std::to_string(filter.dim(3)));
  }
  auto dx_or = AllocateChecked(dy.dtype(), x_dims, "input_sizes");
  if (!dx_or.ok()) return ctx.Error(dx_or.status().message());
  Tensor dx = std::move(*dx_or);
  auto geometry = ComputeConvGeometry(w, dx.shape(), filter.dim(0), filter.dim(1));
  if (!geometry.ok()) return ctx.Error(geometry.status().message());
  const ConvGeometry& g = *geometry;
  if (g.out_h != dy.dim(1) || g.out_w != dy.dim(2)) {
    return ctx.Error("out_backprop spatial size " + std::to_string(dy.dim(1)) + "x" +
                     std::to_string(dy.dim(2)) + " does not match the forward conv output " +
                     std::to_string(g.out_h) + "x" + std::to_string(g.out_w) +
                     " for input_sizes " + dx.shape().ToString());
  }
  const int64_t out_c = dy.dim(3);
  TFHOST_RETURN_IF_ERROR(DispatchFloatOrDouble(ctx, dy.dtype(), [&](auto zero) {
    using T = decltype(zero);
    const T* fp = filter.data<T>();
    const T* dyp = dy.data<T>();
    T* dxp = dx.data<T>();
    ParallelRows(ctx, g.batch * g.in_h, [&](int64_t begin, int64_t end) {
      BackpropRows<T>(g, fp, dyp, out_c, dxp, begin, end);
    });
    return OkStatus();
  }));
  out[0] = FromNhwc(dx, w.format);
  return OkStatus();
}

Status BackpropKernel(KernelContext& ctx) {
  return RunWidened(ctx, 3, 1, {0}, BackpropImpl);
}

}  // namespace

void RegisterConv2DBackpropOps(OpRegistry& registry) {
  registry.Register(ir::OpDefBuilder("Conv2DBackpropInput")
                        .Input("input_sizes: int32")
                        .Input("filter: T")
                        .Input("out_backprop: T")
                        .Output("output: T")
                        .Attr("T: {half, bfloat16, float, double, int32}")
                        .Attr("strides: list(int)")
                        .Attr("use_cudnn_on_gpu: bool = true")
                        .Attr("padding: {'SAME', 'VALID', 'EXPLICIT'}")
                        .Attr("explicit_paddings: list(int) = []")
                        .Attr("data_format: {'NHWC', 'NCHW'} = 'NHWC'")
                        .Attr("dilations: list(int) = [1, 1, 1, 1]"),
                    BackpropKernel);
}

}  // namespace tfhost::ops::nn
