// MaxPool, MaxPoolV2 and AvgPool over NHWC (NCHW is transposed around the
// NHWC kernel). Padded cells never take part: MaxPool ignores them and
// AvgPool divides each window's sum by the number of real cells it covers
// (docs/formats.md §6.0). Each output pixel reduces a contiguous channel vector.
#include <limits>
#include <vector>

#include "ops/nn/conv_geometry.h"
#include "ops/nn/nn_registrations.h"
#include "ops/nn/nn_util.h"

namespace tfhost::ops::nn {

namespace {

template <typename T>
void MaxPoolRows(const ConvGeometry& g, const T* x, T* y, int64_t row_begin, int64_t row_end) {
  const int64_t c_n = g.in_c;
  for (int64_t row = row_begin; row < row_end; ++row) {
    const int64_t b = row / g.out_h;
    const int64_t oy = row % g.out_h;
    for (int64_t ox = 0; ox < g.out_w; ++ox) {
      T* __restrict out = y + (row * g.out_w + ox) * c_n;
      for (int64_t c = 0; c < c_n; ++c) out[c] = std::numeric_limits<T>::lowest();
      ForEachWindowTap(g, x, b, oy, ox, [&](const T* __restrict in, int64_t, int64_t) {
        for (int64_t c = 0; c < c_n; ++c) out[c] = in[c] > out[c] ? in[c] : out[c];
      });
    }
  }
}

template <typename T>
void AvgPoolRows(const ConvGeometry& g, const T* x, T* y, int64_t row_begin, int64_t row_end) {
  const int64_t c_n = g.in_c;
  std::vector<double> sum(static_cast<size_t>(c_n));
  for (int64_t row = row_begin; row < row_end; ++row) {
    const int64_t b = row / g.out_h;
    const int64_t oy = row % g.out_h;
    for (int64_t ox = 0; ox < g.out_w; ++ox) {
      std::fill(sum.begin(), sum.end(), 0.0);
      int64_t count = 0;
      ForEachWindowTap(g, x, b, oy, ox, [&](const T* __restrict in, int64_t, int64_t) {
        for (int64_t c = 0; c < c_n; ++c) sum[c] += in[c];
        ++count;
      });
      T* out = y + (row * g.out_w + ox) * c_n;
      if (count == 0) continue;  // window wholly in padding: stays 0
      for (int64_t c = 0; c < c_n; ++c) out[c] = static_cast<T>(sum[c] / double(count));
    }
  }
}

std::string ListToString(const std::vector<int64_t>& v) {
  std::string s = "[";
  for (size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + std::to_string(v[i]);
  return s + "]";
}

// Shared body; `ksize`/`strides` come from attrs (MaxPool, AvgPool) or from
// inputs 1 and 2 (MaxPoolV2).
Status PoolImpl(const KernelContext& ctx, const std::vector<Tensor>& in, std::vector<Tensor>& out,
                bool is_max, bool sizes_from_inputs) {
  const Tensor& input = in[0];
  std::vector<int64_t> ksize, strides;
  if (sizes_from_inputs) {
    for (int i : {1, 2}) {
      if (in[i].rank() != 1 || in[i].NumElements() != 4) {
        return ctx.Error(std::string(i == 1 ? "ksize" : "strides") +
                         " input must be a vector of 4 values, got shape " +
                         in[i].shape().ToString());
      }
    }
    TFHOST_ASSIGN_OR_RETURN(ksize, in[1].ToInt64Vector());
    TFHOST_ASSIGN_OR_RETURN(strides, in[2].ToInt64Vector());
  } else {
    TFHOST_ASSIGN_OR_RETURN(ksize, ctx.Attr<std::vector<int64_t>>("ksize"));
    TFHOST_ASSIGN_OR_RETURN(strides, ctx.Attr<std::vector<int64_t>>("strides"));
  }
  TFHOST_ASSIGN_OR_RETURN(std::string padding, ctx.Attr<std::string>("padding"));
  TFHOST_ASSIGN_OR_RETURN(auto explicit_paddings,
                          ctx.AttrOr<std::vector<int64_t>>("explicit_paddings", {}));
  TFHOST_ASSIGN_OR_RETURN(std::string data_format,
                          ctx.AttrOr<std::string>("data_format", "NHWC"));
  const bool allow_explicit = is_max && !sizes_from_inputs;
  auto window = MakeWindow2D(strides, padding, explicit_paddings, data_format, {}, allow_explicit);
  if (!window.ok()) return window.status().WithContext(ir::NodeContext(ctx.node()));
  const Window2D& w = *window;
  if (input.rank() != 4) {
    return ctx.Error("input must be 4-D, got shape " + input.shape().ToString());
  }
  if (ksize.size() != 4) return ctx.Error("ksize must have 4 entries, got " + ListToString(ksize));
  const int c_dim = w.format == DataFormat::kNhwc ? 3 : 1;
  const int h_dim = w.format == DataFormat::kNhwc ? 1 : 2;
  if (ksize[0] != 1 || ksize[c_dim] != 1) {
    return Unimplemented(ir::NodeContext(ctx.node()) +
                         ": pooling across the batch or channel dimension is not supported, "
                         "ksize " + ListToString(ksize));
  }
  const Tensor x = ToNhwc(input, w.format);
  auto geometry = ComputeConvGeometry(w, x.shape(), ksize[h_dim], ksize[h_dim + 1]);
  if (!geometry.ok()) return ctx.Error(geometry.status().message());
  const ConvGeometry& g = *geometry;
  auto y_or = AllocateChecked(x.dtype(), {g.batch, g.out_h, g.out_w, g.in_c}, "output");
  if (!y_or.ok()) return ctx.Error(y_or.status().message());
  Tensor y = std::move(*y_or);
  const int64_t rows = g.batch * g.out_h;
  bool supported = true;
  if (is_max) {
    supported = x.dtype() != DType::kBool;
    if (supported) {
      TFHOST_SWITCH_REAL_TYPES(x.dtype(), {
        ParallelRows(ctx, rows, [&](int64_t b, int64_t e) {
          MaxPoolRows<T>(g, x.data<T>(), y.data<T>(), b, e);
        });
      }, { supported = false; });
    }
  } else if (x.dtype() == DType::kFloat) {
    ParallelRows(ctx, rows, [&](int64_t b, int64_t e) {
      AvgPoolRows<float>(g, x.data<float>(), y.data<float>(), b, e);
    });
  } else if (x.dtype() == DType::kDouble) {
    ParallelRows(ctx, rows, [&](int64_t b, int64_t e) {
      AvgPoolRows<double>(g, x.data<double>(), y.data<double>(), b, e);
    });
  } else {
    supported = false;
  }
  if (!supported) {
    return Unimplemented(ir::NodeContext(ctx.node()) + ": dtype " + DTypeShortName(x.dtype()) +
                         " is not supported");
  }
  out[0] = FromNhwc(y, w.format);
  return OkStatus();
}

KernelFn MakePoolKernel(bool is_max, bool sizes_from_inputs) {
  return [is_max, sizes_from_inputs](KernelContext& ctx) {
    return RunWidened(ctx, sizes_from_inputs ? 3 : 1, 0, {0},
                      [is_max, sizes_from_inputs](const KernelContext& c,
                                                  const std::vector<Tensor>& in,
                                                  std::vector<Tensor>& out) {
                        return PoolImpl(c, in, out, is_max, sizes_from_inputs);
                      });
  };
}

}  // namespace

void RegisterPoolingOps(OpRegistry& registry) {
  const char* kMaxTypes =
      "T: {half, bfloat16, float, double, int32, int64, uint8, int16, int8, uint16, qint8} = "
      "DT_FLOAT";
  registry.Register(ir::OpDefBuilder("MaxPool")
                        .Input("input: T")
                        .Output("output: T")
                        .Attr(kMaxTypes)
                        .Attr("ksize: list(int) >= 4")
                        .Attr("strides: list(int) >= 4")
                        .Attr("padding: {'SAME', 'VALID', 'EXPLICIT'}")
                        .Attr("explicit_paddings: list(int) = []")
                        .Attr("data_format: {'NHWC', 'NCHW', 'NCHW_VECT_C'} = 'NHWC'"),
                    MakePoolKernel(true, false));
  registry.Register(ir::OpDefBuilder("MaxPoolV2")
                        .Input("input: T")
                        .Input("ksize: int32")
                        .Input("strides: int32")
                        .Output("output: T")
                        .Attr(kMaxTypes)
                        .Attr("padding: {'SAME', 'VALID'}")
                        .Attr("data_format: {'NHWC', 'NCHW', 'NCHW_VECT_C'} = 'NHWC'"),
                    MakePoolKernel(true, true));
  registry.Register(ir::OpDefBuilder("AvgPool")
                        .Input("value: T")
                        .Output("output: T")
                        .Attr("ksize: list(int) >= 4")
                        .Attr("strides: list(int) >= 4")
                        .Attr("padding: {'SAME', 'VALID'}")
                        .Attr("data_format: {'NHWC', 'NCHW'} = 'NHWC'")
                        .Attr("T: {half, bfloat16, float, double}"),
                    MakePoolKernel(false, false));
}

}  // namespace tfhost::ops::nn
