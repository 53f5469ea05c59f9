// Volumetric ops of video / 3-D models (Keras Conv3D, MaxPooling3D,
// AveragePooling3D): Conv3D, MaxPool3D and AvgPool3D in NDHWC.
//
// Geometry per spatial dim as the 2-D ops (ComputeWindowDim: SAME pads
// total = max((out - 1) * stride + (k - 1) * dilation + 1 - in, 0), half
// before). Conv3D sums in double; AvgPool3D divides by the number of
// in-bounds elements of each window (padding excluded, as TensorFlow).
// NCDHW is not supported (TensorFlow's CPU kernels reject it too).
#include <cmath>
#include <limits>

#include "ops/array/array_util.h"
#include "ops/nn/conv_geometry.h"
#include "ops/nn/nn_registrations.h"

namespace tfhost::ops::nn {
namespace {

struct Geometry3D {
  WindowDim dims[3];
  int64_t k[3] = {1, 1, 1};
  int64_t stride[3] = {1, 1, 1};
  int64_t dilation[3] = {1, 1, 1};
};

StatusOr<Geometry3D> ReadGeometry(const KernelContext& ctx, const Tensor& input, const int64_t kernel[3],
                                  bool has_dilations) {
  TFHOST_ASSIGN_OR_RETURN(std::string format, ctx.AttrOr<std::string>("data_format", "NDHWC"));
  if (format != "NDHWC") return Unimplemented(ir::NodeContext(ctx.node()) + ": data_format " + format + " is not supported");
  TFHOST_ASSIGN_OR_RETURN(std::vector<int64_t> strides, ctx.Attr<std::vector<int64_t>>("strides"));
  TFHOST_ASSIGN_OR_RETURN(std::string padding_s, ctx.Attr<std::string>("padding"));
  TFHOST_ASSIGN_OR_RETURN(Padding padding, ParsePadding(padding_s, false));
  std::vector<int64_t> dilations = {1, 1, 1, 1, 1};
  if (has_dilations) {
    TFHOST_ASSIGN_OR_RETURN(dilations, ctx.AttrOr<std::vector<int64_t>>("dilations", dilations));
  }
  if (strides.size() != 5 || strides[0] != 1 || strides[4] != 1) {
    return ctx.Error("strides must have 5 entries with 1 for batch and channels, got " + array::JoinInts(strides));
  }
  if (dilations.size() != 5 || dilations[0] != 1 || dilations[4] != 1) {
    return ctx.Error("dilations must have 5 entries with 1 for batch and channels, got " + array::JoinInts(dilations));
  }
  if (input.rank() != 5) return ctx.Error("input must be 5-D NDHWC, got " + input.shape().ToString());
  Geometry3D g;
  for (int d = 0; d < 3; ++d) {
    g.k[d] = kernel[d];
    g.stride[d] = strides[d + 1];
    g.dilation[d] = dilations[d + 1];
    auto w = ComputeWindowDim(input.dim(d + 1), kernel[d], g.stride[d], g.dilation[d], padding, 0, 0);
    if (!w.ok()) return ctx.Error(w.status().message());
    g.dims[d] = *w;
  }
  return g;
}

std::vector<double> ToDoubles(const Tensor& t) { return t.ToDoubleVector(); }

void StoreAs(Tensor& out, const std::vector<double>& v) {
  for (size_t i = 0; i < v.size(); ++i) {
    switch (out.dtype()) {
      case DType::kFloat: out.data<float>()[i] = static_cast<float>(v[i]); break;
      case DType::kDouble: out.data<double>()[i] = v[i]; break;
      case DType::kHalf: out.data<uint16_t>()[i] = FloatToHalf(static_cast<float>(v[i])); break;
      case DType::kBFloat16: out.data<uint16_t>()[i] = FloatToBFloat16(static_cast<float>(v[i])); break;
      default: break;
    }
  }
}

Status Conv3D(KernelContext& ctx) {
  const Tensor& input = ctx.input(0);
  const Tensor& filter = ctx.input(1);
  if (filter.rank() != 5) return ctx.Error("filter must be 5-D [kd, kh, kw, in, out], got " + filter.shape().ToString());
  const int64_t kernel[3] = {filter.dim(0), filter.dim(1), filter.dim(2)};
  TFHOST_ASSIGN_OR_RETURN(Geometry3D g, ReadGeometry(ctx, input, kernel, true));
  const int64_t n = input.dim(0), ci = input.dim(4), co = filter.dim(4);
  if (filter.dim(3) <= 0 || ci % filter.dim(3) != 0) {
    return ctx.Error("input depth " + std::to_string(ci) + " must be a multiple of the filter's in-depth " +
                     std::to_string(filter.dim(3)));
  }
  if (filter.dim(3) != ci) return Unimplemented(ir::NodeContext(ctx.node()) + ": grouped Conv3D is not supported");
  TFHOST_ASSIGN_OR_RETURN(Shape shape, array::OutputShape(ctx, {n, g.dims[0].out, g.dims[1].out, g.dims[2].out, co}, "output"));
  const std::vector<double> x = ToDoubles(input), w = ToDoubles(filter);
  std::vector<double> y(static_cast<size_t>(shape.num_elements()), 0.0);
  const int64_t D = input.dim(1), H = input.dim(2), W = input.dim(3);
  size_t o = 0;
  for (int64_t b = 0; b < n; ++b) {
    for (int64_t od = 0; od < g.dims[0].out; ++od) {
      for (int64_t oh = 0; oh < g.dims[1].out; ++oh) {
        for (int64_t ow = 0; ow < g.dims[2].out; ++ow, o += co) {
          for (int64_t kd = 0; kd < g.k[0]; ++kd) {
            const int64_t id = od * g.stride[0] - g.dims[0].pad_before + kd * g.dilation[0];
            if (id < 0 || id >= D) continue;
            for (int64_t kh = 0; kh < g.k[1]; ++kh) {
              const int64_t ih = oh * g.stride[1] - g.dims[1].pad_before + kh * g.dilation[1];
              if (ih < 0 || ih >= H) continue;
              for (int64_t kw = 0; kw < g.k[2]; ++kw) {
                const int64_t iw = ow * g.stride[2] - g.dims[2].pad_before + kw * g.dilation[2];
                if (iw < 0 || iw >= W) continue;
                const double* xp = &x[(((b * D + id) * H + ih) * W + iw) * ci];
                const double* wp = &w[((kd * g.k[1] + kh) * g.k[2] + kw) * ci * co];
                for (int64_t c = 0; c < ci; ++c) {
                  for (int64_t f = 0; f < co; ++f) y[o + f] += xp[c] * wp[c * co + f];
                }
              }
            }
          }
        }
      }
    }
  }
  Tensor out(input.dtype(), shape);
  StoreAs(out, y);
  ctx.set_output(0, std::move(out));
  return OkStatus();
}

Status Pool3D(KernelContext& ctx, bool max) {
  const Tensor& input = ctx.input(0);
  TFHOST_ASSIGN_OR_RETURN(std::vector<int64_t> ksize, ctx.Attr<std::vector<int64_t>>("ksize"));
  if (ksize.size() != 5 || ksize[0] != 1 || ksize[4] != 1) {
    return ctx.Error("ksize must have 5 entries with 1 for batch and channels, got " + array::JoinInts(ksize));
  }
  const int64_t kernel[3] = {ksize[1], ksize[2], ksize[3]};
  TFHOST_ASSIGN_OR_RETURN(Geometry3D g, ReadGeometry(ctx, input, kernel, false));
  const int64_t n = input.dim(0), c = input.dim(4), D = input.dim(1), H = input.dim(2), W = input.dim(3);
  TFHOST_ASSIGN_OR_RETURN(Shape shape, array::OutputShape(ctx, {n, g.dims[0].out, g.dims[1].out, g.dims[2].out, c}, "output"));
  const std::vector<double> x = ToDoubles(input);
  std::vector<double> y(static_cast<size_t>(shape.num_elements()), 0.0);
  size_t o = 0;
  for (int64_t b = 0; b < n; ++b) {
    for (int64_t od = 0; od < g.dims[0].out; ++od) {
      for (int64_t oh = 0; oh < g.dims[1].out; ++oh) {
        for (int64_t ow = 0; ow < g.dims[2].out; ++ow, o += c) {
          for (int64_t ch = 0; ch < c; ++ch) {
            double acc = max ? -std::numeric_limits<double>::infinity() : 0.0;
            int64_t count = 0;
            for (int64_t kd = 0; kd < g.k[0]; ++kd) {
              const int64_t id = od * g.stride[0] - g.dims[0].pad_before + kd;
              if (id < 0 || id >= D) continue;
              for (int64_t kh = 0; kh < g.k[1]; ++kh) {
                const int64_t ih = oh * g.stride[1] - g.dims[1].pad_before + kh;
                if (ih < 0 || ih >= H) continue;
                for (int64_t kw = 0; kw < g.k[2]; ++kw) {
                  const int64_t iw = ow * g.stride[2] - g.dims[2].pad_before + kw;
                  if (iw < 0 || iw >= W) continue;
                  const double v = x[(((b * D + id) * H + ih) * W + iw) * c + ch];
                  acc = max ? ((std::isnan(v) || v > acc) ? v : acc) : acc + v;
                  ++count;
                }
              }
            }
            y[o + ch] = max ? acc : (count > 0 ? acc / static_cast<double>(count) : 0.0);
          }
        }
      }
    }
  }
  Tensor out(input.dtype(), shape);
  StoreAs(out, y);
  ctx.set_output(0, std::move(out));
  return OkStatus();
}

}  // namespace

void RegisterConv3DPool3DOps(OpRegistry& registry) {
  registry.Register(ir::OpDefBuilder("Conv3D")
                        .Input("input: T")
                        .Input("filter: T")
                        .Output("output: T")
                        .Attr("T: {half, bfloat16, float, double}")
                        .Attr("strides: list(int) >= 5")
                        .Attr("padding: {'SAME', 'VALID'}")
                        .Attr("data_format: {'NDHWC', 'NCDHW'} = 'NDHWC'")
                        .Attr("dilations: list(int) = [1, 1, 1, 1, 1]"),
                    Conv3D);
  for (const char* name : {"MaxPool3D", "AvgPool3D"}) {
    const bool max = std::string(name) == "MaxPool3D";
    registry.Register(ir::OpDefBuilder(name)
                          .Input("input: T")
                          .Output("output: T")
                          .Attr("ksize: list(int) >= 5")
                          .Attr("strides: list(int) >= 5")
                          .Attr("padding: {'SAME', 'VALID'}")
                          .Attr("data_format: {'NDHWC', 'NCDHW'} = 'NDHWC'")
                          .Attr("T: {half, bfloat16, float, double}"),
                      [max](KernelContext& ctx) { return Pool3D(ctx, max); });
  }
}

}  // namespace tfhost::ops::nn
