// DepthwiseConv2dNative and TF.js's FusedDepthwiseConv2dNative: each input
// channel c is convolved with its own `multiplier` filters [kh, kw, c, q] and
// lands in output channel c * multiplier + q. The filter's (c, q) layout
// matches the output's channel order, so the inner loop over in_c*multiplier
// is contiguous in filter and output alike.
#include <type_traits>

#include "ops/nn/conv_common.h"
#include "ops/nn/nn_registrations.h"

namespace tfhost::ops::nn {

namespace {

template <typename T>
void DepthwiseRows(const ConvGeometry& g, const T* input, const T* filter, int64_t multiplier,
                   const FusedEpilogue<T>& epi, T* output, int64_t row_begin, int64_t row_end) {
  const int64_t out_c = g.in_c * multiplier;
  const int64_t row_elems = g.out_w * out_c;
  for (int64_t row = row_begin; row < row_end; ++row) {
    const int64_t b = row / g.out_h;
    const int64_t oy = row % g.out_h;
    T* out_row = output + row * row_elems;
    for (int64_t ox = 0; ox < g.out_w; ++ox) {
      T* __restrict acc = out_row + ox * out_c;
      ForEachWindowTap(g, input, b, oy, ox, [&](const T* __restrict in_px, int64_t ky, int64_t kx) {
        const T* __restrict f = filter + (ky * g.k_w + kx) * out_c;
        if (multiplier == 1) {
          for (int64_t c = 0; c < g.in_c; ++c) acc[c] += in_px[c] * f[c];
        } else {
          for (int64_t c = 0; c < g.in_c; ++c) {
            const T v = in_px[c];
            for (int64_t q = 0; q < multiplier; ++q) {
              acc[c * multiplier + q] += v * f[c * multiplier + q];
            }
          }
        }
      });
    }
    if (!epi.IsIdentity()) epi.Apply(out_row, row * row_elems, row_elems);
  }
}

Status DepthwiseImpl(const KernelContext& ctx, const std::vector<Tensor>& in,
                     std::vector<Tensor>& out, bool fused) {
  const Tensor& input = in[0];
  const Tensor& filter = in[1];
  TFHOST_RETURN_IF_ERROR(CheckConvOperands(ctx, input, filter, "[kh, kw, in_c, multiplier]"));
  TFHOST_ASSIGN_OR_RETURN(Window2D w, ParseWindowAttrs(ctx, /*has_dilations=*/true,
                                                       /*allow_explicit=*/true));
  const Tensor x = ToNhwc(input, w.format);
  if (filter.dim(2) != x.dim(3)) {
    return ctx.Error("filter in_c " + std::to_string(filter.dim(2)) +
                     " must equal the input's channels " + std::to_string(x.dim(3)) +
                     " (filter shape " + filter.shape().ToString() + ")");
  }
  const int64_t multiplier = filter.dim(3);
  auto geometry = ComputeConvGeometry(w, x.shape(), filter.dim(0), filter.dim(1));
  if (!geometry.ok()) return ctx.Error(geometry.status().message());
  const ConvGeometry& g = *geometry;
  auto output =
      AllocateChecked(x.dtype(), {g.batch, g.out_h, g.out_w, g.in_c * multiplier}, "output");
  if (!output.ok()) return ctx.Error(output.status().message());
  Tensor y = std::move(*output);

  TFHOST_RETURN_IF_ERROR(RunConvRows(
      ctx, in, fused, g, y, [&](const auto& epi, auto* yp, int64_t begin, int64_t end) {
        using T = std::remove_pointer_t<decltype(yp)>;
        DepthwiseRows<T>(g, x.data<T>(), filter.data<T>(), multiplier, epi, yp, begin, end);
      }));
  out[0] = FromNhwc(y, w.format);
  return OkStatus();
}

}  // namespace

void RegisterDepthwiseConvOps(OpRegistry& registry) {
  registry.Register(ir::OpDefBuilder("DepthwiseConv2dNative")
                        .Input("input: T")
                        .Input("filter: T")
                        .Output("output: T")
                        .Attr("T: {half, bfloat16, float, double}")
                        .Attr("strides: list(int)")
                        .Attr("padding: {'SAME', 'VALID', 'EXPLICIT'}")
                        .Attr("explicit_paddings: list(int) = []")
                        .Attr("data_format: {'NHWC', 'NCHW'} = 'NHWC'")
                        .Attr("dilations: list(int) = [1, 1, 1, 1]"),
                    MakeConvKernel(DepthwiseImpl, /*fused=*/false));
  // TF.js's name for a depthwise conv with a fused epilogue (docs/formats.md §5);
  // same fused_ops grammar as _FusedConv2D.
  registry.Register(ir::OpDefBuilder("FusedDepthwiseConv2dNative")
                        .Input("input: T")
                        .Input("filter: T")
                        .Input("args: num_args * T")
                        .Output("output: T")
                        .Attr("T: {half, bfloat16, float, double}")
                        .Attr("num_args: int >= 0")
                        .Attr("strides: list(int)")
                        .Attr("padding: {'SAME', 'VALID', 'EXPLICIT'}")
                        .Attr("explicit_paddings: list(int) = []")
                        .Attr("data_format: {'NHWC', 'NCHW'} = 'NHWC'")
                        .Attr("dilations: list(int) = [1, 1, 1, 1]")
                        .Attr("fused_ops: list(string) = []")
                        .Attr("epsilon: float = 0.0001")
                        .Attr("leakyrelu_alpha: float = 0.2"),
                    MakeConvKernel(DepthwiseImpl, /*fused=*/true));
}

}  // namespace tfhost::ops::nn
