// Conv2D and _FusedConv2D: direct NHWC convolution with a [kh, kw, in_c,
// out_c] filter. For each output pixel the kernel walks kh, kw, in_c and
// accumulates a contiguous out_c vector (the filter's innermost dim), so the
// hot loop is a vectorizable axpy. Rows (batch * out_h) run in parallel.
// Grouped convolution (input channels a multiple of the filter's in_c) is
// supported as TensorFlow does. _FusedConv2D's epilogue (bias or batch norm,
// residual Add, activation: ops/nn/fused_activation.h) runs on each row
// while it is still in cache.
#include <algorithm>
#include <type_traits>

#include "ops/nn/conv_common.h"
#include "ops/nn/nn_registrations.h"

namespace tfhost::ops::nn {

namespace {

template <typename T>
void Conv2DRows(const ConvGeometry& g, const T* input, const T* filter, int64_t filter_in_c,
                int64_t out_c, const FusedEpilogue<T>& epi, T* output, int64_t row_begin,
                int64_t row_end) {
  const int64_t groups = g.in_c / filter_in_c;
  const int64_t group_out = out_c / groups;
  const int64_t row_elems = g.out_w * out_c;
  for (int64_t row = row_begin; row < row_end; ++row) {
    const int64_t b = row / g.out_h;
    const int64_t oy = row % g.out_h;
    T* out_row = output + row * row_elems;
    for (int64_t ox = 0; ox < g.out_w; ++ox) {
      T* __restrict acc = out_row + ox * out_c;
      ForEachWindowTap(g, input, b, oy, ox, [&](const T* in_px, int64_t ky, int64_t kx) {
        const T* f = filter + (ky * g.k_w + kx) * filter_in_c * out_c;
        if (groups == 1) {
          for (int64_t ic = 0; ic < g.in_c; ++ic) {
            const T v = in_px[ic];
            const T* __restrict f_row = f + ic * out_c;
            for (int64_t oc = 0; oc < out_c; ++oc) acc[oc] += v * f_row[oc];
          }
        } else {
          for (int64_t grp = 0; grp < groups; ++grp) {
            T* __restrict acc_g = acc + grp * group_out;
            for (int64_t ic = 0; ic < filter_in_c; ++ic) {
              const T v = in_px[grp * filter_in_c + ic];
              const T* __restrict f_row = f + ic * out_c + grp * group_out;
              for (int64_t oc = 0; oc < group_out; ++oc) acc_g[oc] += v * f_row[oc];
            }
          }
        }
      });
    }
    if (!epi.IsIdentity()) epi.Apply(out_row, row * row_elems, row_elems);
  }
}

// Shared body of Conv2D (fused = false) and _FusedConv2D.
Status Conv2DImpl(const KernelContext& ctx, const std::vector<Tensor>& in,
                  std::vector<Tensor>& out, bool fused) {
  const Tensor& input = in[0];
  const Tensor& filter = in[1];
  TFHOST_RETURN_IF_ERROR(CheckConvOperands(ctx, input, filter, "[kh, kw, in_c, out_c]"));
  if (fused) {
    TFHOST_ASSIGN_OR_RETURN(std::string filter_format,
                            ctx.AttrOr<std::string>("filter_format", "HWIO"));
    if (filter_format != "HWIO") {
      return Unimplemented(ir::NodeContext(ctx.node()) + ": filter_format '" + filter_format +
                           "' is not supported (expected HWIO)");
    }
  }
  TFHOST_ASSIGN_OR_RETURN(Window2D w, ParseWindowAttrs(ctx, /*has_dilations=*/true,
                                                       /*allow_explicit=*/true));
  const Tensor x = ToNhwc(input, w.format);
  const int64_t k_h = filter.dim(0), k_w = filter.dim(1);
  const int64_t filter_in_c = filter.dim(2), out_c = filter.dim(3);
  const int64_t in_c = x.dim(3);
  if (filter_in_c <= 0 || in_c % filter_in_c != 0) {
    return ctx.Error("input has " + std::to_string(in_c) +
                     " channels, which is not a multiple of the filter's in_c " +
                     std::to_string(filter_in_c) + " (filter shape " + filter.shape().ToString() +
                     ")");
  }
  const int64_t groups = in_c / filter_in_c;
  if (groups == 0) {
    return ctx.Error("input has 0 channels; expected a positive multiple of the filter's in_c " +
                     std::to_string(filter_in_c) + " (filter shape " + filter.shape().ToString() + ")");
  }
  if (out_c % groups != 0) {
    return ctx.Error("filter out_c " + std::to_string(out_c) + " is not a multiple of the " +
                     std::to_string(groups) + " groups");
  }
  auto geometry = ComputeConvGeometry(w, x.shape(), k_h, k_w);
  if (!geometry.ok()) return ctx.Error(geometry.status().message());
  const ConvGeometry& g = *geometry;
  auto output = AllocateChecked(x.dtype(), {g.batch, g.out_h, g.out_w, out_c}, "output");
  if (!output.ok()) return ctx.Error(output.status().message());
  Tensor y = std::move(*output);

  TFHOST_RETURN_IF_ERROR(RunConvRows(
      ctx, in, fused, g, y, [&](const auto& epi, auto* yp, int64_t begin, int64_t end) {
        using T = std::remove_pointer_t<decltype(yp)>;
        Conv2DRows<T>(g, x.data<T>(), filter.data<T>(), filter_in_c, out_c, epi, yp, begin, end);
      }));
  out[0] = FromNhwc(y, w.format);
  return OkStatus();
}

}  // namespace

void RegisterConv2DOps(OpRegistry& registry) {
  registry.Register(ir::OpDefBuilder("Conv2D")
                        .Input("input: T")
                        .Input("filter: T")
                        .Output("output: T")
                        .Attr("T: {half, bfloat16, float, double, int32}")
                        .Attr("strides: list(int)")
                        .Attr("use_cudnn_on_gpu: bool = true")
                        .Attr("padding: {'SAME', 'VALID', 'EXPLICIT'}")
                        .Attr("explicit_paddings: list(int) = []")
                        .Attr("data_format: {'NHWC', 'NCHW'} = 'NHWC'")
                        .Attr("dilations: list(int) = [1, 1, 1, 1]"),
                    MakeConvKernel(Conv2DImpl, /*fused=*/false));
  // Accepts both generations of the grappler/TF.js schema: older graphs carry
  // `args: num_args * T`; newer ones add TArgs and host_args (num_host_args
  // defaults to 0, so older graphs have no host args).
  registry.Register(ir::OpDefBuilder("_FusedConv2D")
                        .Input("input: T")
                        .Input("filter: T")
                        .Input("args: num_args * T")
                        .Input("host_args: num_host_args * float")
                        .Output("output: T")
                        .Attr("T: {half, bfloat16, float, double}")
                        .Attr("num_args: int >= 0")
                        .Attr("num_host_args: int >= 0 = 0")
                        .Attr("TArgs: list(type) = []")
                        .Attr("strides: list(int)")
                        .Attr("padding: {'SAME', 'VALID', 'EXPLICIT'}")
                        .Attr("explicit_paddings: list(int) = []")
                        .Attr("data_format: {'NHWC', 'NCHW'} = 'NHWC'")
                        .Attr("filter_format: {'HWIO', 'OIHW', 'OIHW_VECT_I'} = 'HWIO'")
                        .Attr("dilations: list(int) = [1, 1, 1, 1]")
                        .Attr("use_cudnn_on_gpu: bool = true")
                        .Attr("fused_ops: list(string) = []")
                        .Attr("epsilon: float = 0.0001")
                        .Attr("leakyrelu_alpha: float = 0.2"),
                    MakeConvKernel(Conv2DImpl, /*fused=*/true));
}

}  // namespace tfhost::ops::nn
