#include "ops/nn/conv_geometry.h"

#include "ops/nn/nn_util.h"

namespace tfhost::ops::nn {

namespace {

std::string ListToString(const std::vector<int64_t>& v) {
  std::string s = "[";
  for (size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + std::to_string(v[i]);
  return s + "]";
}

}  // namespace

StatusOr<Padding> ParsePadding(const std::string& s, bool allow_explicit) {
  if (s == "SAME") return Padding::kSame;
  if (s == "VALID") return Padding::kValid;
  if (s == "EXPLICIT" && allow_explicit) return Padding::kExplicit;
  return InvalidArgument("padding must be " +
                         std::string(allow_explicit ? "SAME, VALID or EXPLICIT" : "SAME or VALID") +
                         ", got '" + s + "'");
}

StatusOr<DataFormat> ParseDataFormat(const std::string& s) {
  if (s == "NHWC") return DataFormat::kNhwc;
  if (s == "NCHW") return DataFormat::kNchw;
  return Unimplemented("data_format '" + s + "' is not supported (expected NHWC or NCHW)");
}

StatusOr<WindowDim> ComputeWindowDim(int64_t in, int64_t k, int64_t stride, int64_t dilation,
                                     Padding padding, int64_t explicit_before,
                                     int64_t explicit_after) {
  if (k <= 0 || k > kMaxWindowValue) {
    return InvalidArgument("window size must be in [1, 2^24], got " + std::to_string(k));
  }
  if (stride <= 0 || stride > kMaxWindowValue) {
    return InvalidArgument("stride must be in [1, 2^24], got " + std::to_string(stride));
  }
  if (dilation <= 0 || dilation > kMaxWindowValue) {
    return InvalidArgument("dilation must be in [1, 2^24], got " + std::to_string(dilation));
  }
  const int64_t ke = (k - 1) * dilation + 1;
  WindowDim d;
  switch (padding) {
    case Padding::kValid:
      // TF computes (in - ke + s) / s with C division and rejects negatives.
      d.out = (in - ke + stride) / stride;
      break;
    case Padding::kSame: {
      d.out = (in + stride - 1) / stride;
      const int64_t total = std::max<int64_t>((d.out - 1) * stride + ke - in, 0);
      d.pad_before = total / 2;
      d.pad_after = total - d.pad_before;
      break;
    }
    case Padding::kExplicit:
      d.pad_before = explicit_before;
      d.pad_after = explicit_after;
      d.out = (in + explicit_before + explicit_after - ke + stride) / stride;
      break;
  }
  if (d.out < 0) {
    return InvalidArgument("window of effective size " + std::to_string(ke) +
                           " does not fit input size " + std::to_string(in) +
                           " (computed output size would be negative)");
  }
  return d;
}

StatusOr<Window2D> MakeWindow2D(const std::vector<int64_t>& strides, const std::string& padding,
                                const std::vector<int64_t>& explicit_paddings,
                                const std::string& data_format,
                                const std::vector<int64_t>& dilations, bool allow_explicit) {
  Window2D w;
  TFHOST_ASSIGN_OR_RETURN(w.format, ParseDataFormat(data_format));
  TFHOST_ASSIGN_OR_RETURN(w.padding, ParsePadding(padding, allow_explicit));
  const int h_dim = w.format == DataFormat::kNhwc ? 1 : 2;
  const int w_dim = h_dim + 1;
  const int c_dim = w.format == DataFormat::kNhwc ? 3 : 1;
  if (strides.size() != 4) {
    return InvalidArgument("strides must have 4 entries, got " + ListToString(strides));
  }
  if (strides[0] != 1 || strides[c_dim] != 1) {
    return Unimplemented("strides in the batch and channel dimensions must be 1, got " +
                         ListToString(strides));
  }
  w.stride_h = strides[h_dim];
  w.stride_w = strides[w_dim];
  if (!dilations.empty()) {
    if (dilations.size() != 4) {
      return InvalidArgument("dilations must have 4 entries, got " + ListToString(dilations));
    }
    if (dilations[0] != 1 || dilations[c_dim] != 1) {
      return Unimplemented("dilations in the batch and channel dimensions must be 1, got " +
                           ListToString(dilations));
    }
    w.dilation_h = dilations[h_dim];
    w.dilation_w = dilations[w_dim];
  }
  for (int64_t v : {w.stride_h, w.stride_w, w.dilation_h, w.dilation_w}) {
    if (v <= 0 || v > kMaxWindowValue) {
      return InvalidArgument("strides and dilations must be in [1, 2^24], got strides " +
                             ListToString(strides) + ", dilations " + ListToString(dilations));
    }
  }
  if (w.padding == Padding::kExplicit) {
    if (explicit_paddings.size() != 8) {
      return InvalidArgument("explicit_paddings must have 8 entries for EXPLICIT padding, got " +
                             ListToString(explicit_paddings));
    }
    for (int64_t p : explicit_paddings) {
      if (p < 0 || p > kMaxWindowValue) {
        return InvalidArgument("explicit_paddings must be in [0, 2^24], got " +
                               ListToString(explicit_paddings));
      }
    }
    if (explicit_paddings[0] || explicit_paddings[1] || explicit_paddings[2 * c_dim] ||
        explicit_paddings[2 * c_dim + 1]) {
      return Unimplemented("explicit_paddings in the batch and channel dimensions must be 0, got " +
                           ListToString(explicit_paddings));
    }
    w.pad_top = explicit_paddings[2 * h_dim];
    w.pad_bottom = explicit_paddings[2 * h_dim + 1];
    w.pad_left = explicit_paddings[2 * w_dim];
    w.pad_right = explicit_paddings[2 * w_dim + 1];
  } else if (!explicit_paddings.empty()) {
    return InvalidArgument("explicit_paddings must be empty unless padding is EXPLICIT, got " +
                           ListToString(explicit_paddings));
  }
  return w;
}

StatusOr<Window2D> ParseWindowAttrs(const ir::Node& node, bool has_dilations, bool allow_explicit) {
  auto strides = ir::GetAttr<std::vector<int64_t>>(node, "strides");
  if (!strides.ok()) return strides.status();
  auto padding = ir::GetAttr<std::string>(node, "padding");
  if (!padding.ok()) return padding.status();
  auto explicit_paddings = ir::GetAttrOr<std::vector<int64_t>>(node, "explicit_paddings", {});
  if (!explicit_paddings.ok()) return explicit_paddings.status();
  auto data_format = ir::GetAttrOr<std::string>(node, "data_format", "NHWC");
  if (!data_format.ok()) return data_format.status();
  std::vector<int64_t> dilations;
  if (has_dilations) {
    auto d = ir::GetAttrOr<std::vector<int64_t>>(node, "dilations", {1, 1, 1, 1});
    if (!d.ok()) return d.status();
    dilations = *d;
  }
  auto w = MakeWindow2D(*strides, *padding, *explicit_paddings, *data_format, dilations,
                        allow_explicit);
  if (!w.ok()) return w.status().WithContext(ir::NodeContext(node));
  return w;
}

StatusOr<Window2D> ParseWindowAttrs(const KernelContext& ctx, bool has_dilations,
                                    bool allow_explicit) {
  return ParseWindowAttrs(ctx.node(), has_dilations, allow_explicit);
}

StatusOr<ConvGeometry> ComputeConvGeometry(const Window2D& w, const Shape& nhwc_input,
                                           int64_t k_h, int64_t k_w) {
  if (nhwc_input.rank() != 4) {
    return InvalidArgument("input must be 4-D, got shape " + nhwc_input.ToString());
  }
  ConvGeometry g;
  g.batch = nhwc_input.dim(0);
  g.in_h = nhwc_input.dim(1);
  g.in_w = nhwc_input.dim(2);
  g.in_c = nhwc_input.dim(3);
  g.k_h = k_h;
  g.k_w = k_w;
  g.stride_h = w.stride_h;
  g.stride_w = w.stride_w;
  g.dilation_h = w.dilation_h;
  g.dilation_w = w.dilation_w;
  auto rows = ComputeWindowDim(g.in_h, k_h, w.stride_h, w.dilation_h, w.padding, w.pad_top,
                               w.pad_bottom);
  if (!rows.ok()) return rows.status().WithContext("height");
  auto cols = ComputeWindowDim(g.in_w, k_w, w.stride_w, w.dilation_w, w.padding, w.pad_left,
                               w.pad_right);
  if (!cols.ok()) return cols.status().WithContext("width");
  g.out_h = rows->out;
  g.out_w = cols->out;
  g.pad_top = rows->pad_before;
  g.pad_left = cols->pad_before;
  return g;
}

Tensor ToNhwc(const Tensor& t, DataFormat format) {
  return format == DataFormat::kNchw ? NchwToNhwc(t) : t;
}

Tensor FromNhwc(const Tensor& t, DataFormat format) {
  return format == DataFormat::kNchw ? NhwcToNchw(t) : t;
}

}  // namespace tfhost::ops::nn
