// Conv3DBackpropInputV2: the gradient of Conv3D with respect to its input,
// which Keras Conv3DTranspose layers write as a transposed 3-D convolution.
//   dx[b, id, ih, iw, ci] = sum over (kd, kh, kw, co) of
//       dy[b, od, oh, ow, co] * filter[kd, kh, kw, ci, co]
// over the output voxels whose forward window tap lands on (id, ih, iw).
// NDHWC only (TensorFlow's CPU kernel rejects NCDHW too); sums in double.
#include "ops/array/array_util.h"
#include "ops/nn/conv_geometry.h"
#include "ops/nn/nn_registrations.h"
#include "ops/nn/nn_util.h"

namespace tfhost::ops::nn {
namespace {

Status Conv3DBackpropImpl(const KernelContext& ctx, const std::vector<Tensor>& in, std::vector<Tensor>& out) {
  const Tensor& sizes = in[0];
  const Tensor& filter = in[1];
  const Tensor& dy = in[2];
  TFHOST_ASSIGN_OR_RETURN(std::string format, ctx.AttrOr<std::string>("data_format", "NDHWC"));
  if (format != "NDHWC") {
    return Unimplemented(ir::NodeContext(ctx.node()) + ": data_format " + format + " is not supported (NDHWC only)");
  }
  TFHOST_ASSIGN_OR_RETURN(std::vector<int64_t> strides, ctx.Attr<std::vector<int64_t>>("strides"));
  TFHOST_ASSIGN_OR_RETURN(std::vector<int64_t> dilations,
                          ctx.AttrOr<std::vector<int64_t>>("dilations", {1, 1, 1, 1, 1}));
  TFHOST_ASSIGN_OR_RETURN(std::string padding_s, ctx.Attr<std::string>("padding"));
  auto padding = ParsePadding(padding_s, /*allow_explicit=*/false);
  if (!padding.ok()) return ctx.Error(padding.status().message());
  if (strides.size() != 5 || strides[0] != 1 || strides[4] != 1) {
    return ctx.Error("strides must have 5 entries with 1 for batch and depth, got [" + array::JoinInts(strides) + "]");
  }
  if (dilations.size() != 5 || dilations[0] != 1 || dilations[4] != 1) {
    return ctx.Error("dilations must have 5 entries with 1 for batch and depth, got [" + array::JoinInts(dilations) +
                     "]");
  }
  if (filter.rank() != 5) {
    return ctx.Error("filter must be 5-D [kd, kh, kw, in_c, out_c], got shape " + filter.shape().ToString());
  }
  if (dy.rank() != 5) return ctx.Error("out_backprop must be 5-D NDHWC, got shape " + dy.shape().ToString());
  if (filter.dtype() != dy.dtype()) {
    return ctx.Error("filter and out_backprop dtypes differ: " + DTypeShortName(filter.dtype()) + " vs " +
                     DTypeShortName(dy.dtype()));
  }
  if (sizes.rank() != 1 || sizes.NumElements() != 5) {
    return ctx.Error("input_sizes must be a vector of 5 sizes [N, D, H, W, C], got shape " + sizes.shape().ToString());
  }
  TFHOST_ASSIGN_OR_RETURN(std::vector<int64_t> x_dims, sizes.ToInt64Vector());
  for (int64_t d : x_dims) {
    if (d < 0) return ctx.Error("input_sizes must be non-negative, got [" + array::JoinInts(x_dims) + "]");
  }
  const int64_t ci = filter.dim(3), co = filter.dim(4);
  if (x_dims[0] != dy.dim(0)) {
    return ctx.Error("input_sizes batch " + std::to_string(x_dims[0]) + " differs from out_backprop batch " +
                     std::to_string(dy.dim(0)));
  }
  if (x_dims[4] != ci) {
    return ctx.Error("input_sizes depth " + std::to_string(x_dims[4]) + " differs from the filter's in_c " +
                     std::to_string(ci));
  }
  if (dy.dim(4) != co) {
    return ctx.Error("out_backprop depth " + std::to_string(dy.dim(4)) + " differs from the filter's out_c " +
                     std::to_string(co));
  }
  WindowDim wd[3];
  int64_t k[3], stride[3], dil[3];
  for (int d = 0; d < 3; ++d) {
    k[d] = filter.dim(d);
    stride[d] = strides[d + 1];
    dil[d] = dilations[d + 1];
    auto w = ComputeWindowDim(x_dims[d + 1], k[d], stride[d], dil[d], *padding, 0, 0);
    if (!w.ok()) return ctx.Error(w.status().message());
    wd[d] = *w;
    if (wd[d].out != dy.dim(d + 1)) {
      return ctx.Error("out_backprop " + dy.shape().ToString() + " does not match the forward Conv3D output for " +
                       "input_sizes [" + array::JoinInts(x_dims) + "] (spatial dim " + std::to_string(d) +
                       ": expected " + std::to_string(wd[d].out) + ")");
    }
  }
  auto dx_or = AllocateChecked(dy.dtype(), x_dims, "input_sizes");
  if (!dx_or.ok()) return ctx.Error(dx_or.status().message());
  Tensor dx = std::move(*dx_or);
  const int64_t n = x_dims[0], D = x_dims[1], H = x_dims[2], W = x_dims[3];
  const int64_t OD = wd[0].out, OH = wd[1].out, OW = wd[2].out;
  // The output index along one dim whose tap t lands on input i, or -1.
  auto source = [&](int d, int64_t i, int64_t t, int64_t out_size) -> int64_t {
    const int64_t v = i + wd[d].pad_before - t * dil[d];
    if (v < 0 || v % stride[d] != 0 || v / stride[d] >= out_size) return -1;
    return v / stride[d];
  };
  TFHOST_RETURN_IF_ERROR(DispatchFloatOrDouble(ctx, dy.dtype(), [&](auto zero) {
    using T = decltype(zero);
    const T* fp = filter.data<T>();
    const T* dyp = dy.data<T>();
    T* dxp = dx.data<T>();
    ParallelRows(ctx, n * D, [&](int64_t begin, int64_t end) {
      std::vector<double> acc(static_cast<size_t>(ci));
      for (int64_t row = begin; row < end; ++row) {
        const int64_t b = row / D, id = row % D;
        for (int64_t ih = 0; ih < H; ++ih)
          for (int64_t iw = 0; iw < W; ++iw) {
            std::fill(acc.begin(), acc.end(), 0.0);
            for (int64_t kd = 0; kd < k[0]; ++kd) {
              const int64_t od = source(0, id, kd, OD);
              if (od < 0) continue;
              for (int64_t kh = 0; kh < k[1]; ++kh) {
                const int64_t oh = source(1, ih, kh, OH);
                if (oh < 0) continue;
                for (int64_t kw = 0; kw < k[2]; ++kw) {
                  const int64_t ow = source(2, iw, kw, OW);
                  if (ow < 0) continue;
                  const T* g = dyp + (((b * OD + od) * OH + oh) * OW + ow) * co;
                  const T* f = fp + ((kd * k[1] + kh) * k[2] + kw) * ci * co;
                  for (int64_t c = 0; c < ci; ++c)
                    for (int64_t o = 0; o < co; ++o) {
                      acc[c] += static_cast<double>(f[c * co + o]) * static_cast<double>(g[o]);
                    }
                }
              }
            }
            T* dst = dxp + (((b * D + id) * H + ih) * W + iw) * ci;
            for (int64_t c = 0; c < ci; ++c) dst[c] = static_cast<T>(acc[c]);
          }
      }
    });
    return OkStatus();
  }));
  out[0] = std::move(dx);
  return OkStatus();
}

}  // namespace

void RegisterConv3DBackpropOps(OpRegistry& registry) {
  registry.Register(ir::OpDefBuilder("Conv3DBackpropInputV2")
                        .Input("input_sizes: Tshape")
                        .Input("filter: T")
                        .Input("out_backprop: T")
                        .Output("output: T")
                        .Attr("T: {half, bfloat16, float, double}")
                        .Attr("strides: list(int) >= 5")
                        .Attr("padding: {'SAME', 'VALID'}")
                        .Attr("data_format: {'NDHWC', 'NCDHW'} = 'NDHWC'")
                        .Attr("dilations: list(int) = [1, 1, 1, 1, 1]")
                        .Attr("Tshape: {int32, int64} = DT_INT32"),
                    [](KernelContext& ctx) { return RunWidened(ctx, 3, 1, {0}, Conv3DBackpropImpl); });
}

}  // namespace tfhost::ops::nn
