// Shape functions of the nn ops. Windowed ops (convolutions and pools) get
// their output sizes from conv_geometry's ComputeWindowDim, the same
// arithmetic the kernels run, so inference and execution cannot disagree.
#include "ops/nn/conv_geometry.h"
#include "ops/shape_inference.h"

namespace tfhost::ops {

namespace {

using nn::DataFormat;
using nn::Padding;
using nn::Window2D;

struct Layout {
  int h = 1, w = 2, c = 3;  // NHWC
};

Layout LayoutOf(DataFormat format) {
  return format == DataFormat::kNhwc ? Layout{1, 2, 3} : Layout{2, 3, 1};
}

// The window attrs of a conv or pool, or nullopt when they cannot be read
// (the kernel reports bad attrs at run time). Pools have no dilations.
std::optional<Window2D> WindowAttrs(const ShapeContext& ctx, bool has_dilations,
                                    std::optional<std::vector<int64_t>> strides = std::nullopt) {
  if (!strides.has_value()) strides = ctx.Attr<std::vector<int64_t>>("strides");
  auto padding = ctx.Attr<std::string>("padding");
  auto explicit_paddings = ctx.AttrOr<std::vector<int64_t>>("explicit_paddings", {});
  auto data_format = ctx.AttrOr<std::string>("data_format", "NHWC");
  std::optional<std::vector<int64_t>> dilations = std::vector<int64_t>();
  if (has_dilations) dilations = ctx.AttrOr<std::vector<int64_t>>("dilations", {1, 1, 1, 1});
  if (!strides || !padding || !explicit_paddings || !data_format || !dilations) return std::nullopt;
  auto w = nn::MakeWindow2D(*strides, *padding, *explicit_paddings, *data_format, *dilations,
                            /*allow_explicit=*/true);
  if (!w.ok()) return std::nullopt;
  return *w;
}

// One spatial output size: unknown when the input size is unknown, or when
// the window size is unknown and the result depends on it (SAME does not).
StatusOr<int64_t> OutputSize(const ShapeContext& ctx, int64_t in, int64_t k, int64_t stride, int64_t dilation,
                             Padding padding, int64_t pad_before, int64_t pad_after) {
  // Sizes beyond any real tensor stay unknown rather than risk overflow in
  // the window arithmetic (a model may declare anything in a placeholder).
  if (in < 0 || in > (int64_t{1} << 40)) return int64_t{-1};
  if (k < 0) {
    if (padding != Padding::kSame) return int64_t{-1};
    k = 1;
  }
  auto d = nn::ComputeWindowDim(in, k, stride, dilation, padding, pad_before, pad_after);
  if (!d.ok()) return ctx.Error(d.status().message());
  return d->out;
}

// [N, out_h, out_w, out_c] in the op's data_format, for window kh x kw.
Status SetWindowedOutput(ShapeContext& ctx, const Window2D& w, const ir::PartialShape& in, int64_t kh,
                         int64_t kw, int64_t out_c) {
  const Layout l = LayoutOf(w.format);
  TFHOST_ASSIGN_OR_RETURN(int64_t oh, OutputSize(ctx, in.dim(l.h), kh, w.stride_h, w.dilation_h, w.padding,
                                                 w.pad_top, w.pad_bottom));
  TFHOST_ASSIGN_OR_RETURN(int64_t ow, OutputSize(ctx, in.dim(l.w), kw, w.stride_w, w.dilation_w, w.padding,
                                                 w.pad_left, w.pad_right));
  std::vector<int64_t> dims(4);
  dims[0] = in.dim(0);
  dims[l.h] = oh;
  dims[l.w] = ow;
  dims[l.c] = out_c;
  ctx.set_output(0, ir::PartialShape::Known(std::move(dims)));
  return OkStatus();
}

Status CheckRank(const ShapeContext& ctx, const ir::PartialShape& s, int rank, const char* what) {
  if (s.rank_known() && s.rank() != rank) {
    return ctx.Error(std::string(what) + " must be " + std::to_string(rank) + "-D, got shape " + s.ToString());
  }
  return OkStatus();
}

// The fused convolutions' fused_ops "Add" residual (ops/nn/fused_activation.h)
// has exactly the output's shape: a known conflict fails, and what the
// residual knows refines the output. The residual is the arg after the
// BiasAdd (one) or FusedBatchNorm (four) args; ops without "Add" pass.
Status MergeFusedResidual(ShapeContext& ctx) {
  auto fused_ops = ctx.AttrOr<std::vector<std::string>>("fused_ops", {});
  if (!fused_ops) return OkStatus();
  int arg = 2;
  for (const std::string& op : *fused_ops) {
    if (op == "Add") {
      const ir::PartialShape& residual = ctx.input(arg);
      auto merged = ir::MergeShapes(ctx.output(0), residual);
      if (!merged.ok()) {
        return ctx.Error("fused_ops Add: the residual " + residual.ToString() + " must have the output's shape " +
                         ctx.output(0).ToString());
      }
      ctx.set_output(0, std::move(*merged));
      return OkStatus();
    }
    arg += op == "BiasAdd" ? 1 : op == "FusedBatchNorm" ? 4 : 0;
  }
  return OkStatus();
}

// Conv2D and _FusedConv2D: filter [kh, kw, in_c / groups, out_c] (HWIO) or
// [out_c, in_c / groups, kh, kw] (OIHW, _FusedConv2D only).
Status Conv2DShape(ShapeContext& ctx) {
  const ir::PartialShape& in = ctx.input(0);
  const ir::PartialShape& filter = ctx.input(1);
  TFHOST_RETURN_IF_ERROR(CheckRank(ctx, in, 4, "input"));
  TFHOST_RETURN_IF_ERROR(CheckRank(ctx, filter, 4, "filter"));
  auto w = WindowAttrs(ctx, /*has_dilations=*/true);
  auto filter_format = ctx.AttrOr<std::string>("filter_format", "HWIO");
  if (!w || !filter_format || (*filter_format != "HWIO" && *filter_format != "OIHW")) return OkStatus();
  const ir::PartialShape f = filter.rank_known() ? filter : ir::PartialShape::UnknownOfRank(4);
  const bool hwio = *filter_format == "HWIO";
  const int64_t kh = f.dim(hwio ? 0 : 2), kw = f.dim(hwio ? 1 : 3);
  const int64_t f_in = f.dim(hwio ? 2 : 1), out_c = f.dim(hwio ? 3 : 0);
  if (!in.rank_known()) {
    ctx.set_output(0, ir::PartialShape::UnknownOfRank(4));
    return OkStatus();
  }
  const int64_t in_c = in.dim(LayoutOf(w->format).c);
  if (in_c >= 0 && f_in > 0 && in_c % f_in != 0) {
    return ctx.Error("input depth " + std::to_string(in_c) + " is not a multiple of the filter's input depth " +
                     std::to_string(f_in) + " (input " + in.ToString() + ", filter " + filter.ToString() + ")");
  }
  TFHOST_RETURN_IF_ERROR(SetWindowedOutput(ctx, *w, in, kh, kw, out_c));
  return MergeFusedResidual(ctx);
}

// DepthwiseConv2dNative and FusedDepthwiseConv2dNative: filter
// [kh, kw, in_c, multiplier], output depth in_c * multiplier.
Status DepthwiseConv2DShape(ShapeContext& ctx) {
  const ir::PartialShape& in = ctx.input(0);
  const ir::PartialShape& filter = ctx.input(1);
  TFHOST_RETURN_IF_ERROR(CheckRank(ctx, in, 4, "input"));
  TFHOST_RETURN_IF_ERROR(CheckRank(ctx, filter, 4, "filter"));
  auto w = WindowAttrs(ctx, /*has_dilations=*/true);
  if (!w) return OkStatus();
  if (!in.rank_known()) {
    ctx.set_output(0, ir::PartialShape::UnknownOfRank(4));
    return OkStatus();
  }
  const ir::PartialShape f = filter.rank_known() ? filter : ir::PartialShape::UnknownOfRank(4);
  int64_t in_c = in.dim(LayoutOf(w->format).c);
  if (in_c >= 0 && f.dim(2) >= 0 && in_c != f.dim(2)) {
    return ctx.Error("input depth " + std::to_string(in_c) + " does not match the filter's input depth " +
                     std::to_string(f.dim(2)) + " (input " + in.ToString() + ", filter " + filter.ToString() + ")");
  }
  if (in_c < 0) in_c = f.dim(2);
  const int64_t out_c = in_c >= 0 && f.dim(3) >= 0 ? in_c * f.dim(3) : -1;
  TFHOST_RETURN_IF_ERROR(SetWindowedOutput(ctx, *w, in, f.dim(0), f.dim(1), out_c));
  return MergeFusedResidual(ctx);
}

// _TfhostExpandDepthwise (ops/nn/expand_depthwise.h): the depthwise
// convolution's output over the expansion's E = expand_filter[3] channels.
Status ExpandDepthwiseShape(ShapeContext& ctx) {
  const ir::PartialShape& in = ctx.input(0);
  TFHOST_RETURN_IF_ERROR(CheckRank(ctx, in, 4, "input"));
  TFHOST_RETURN_IF_ERROR(CheckRank(ctx, ctx.input(1), 4, "expand_filter"));
  TFHOST_RETURN_IF_ERROR(CheckRank(ctx, ctx.input(3), 4, "depthwise_filter"));
  auto w = WindowAttrs(ctx, /*has_dilations=*/true);
  if (!w) return OkStatus();
  if (!in.rank_known()) {
    ctx.set_output(0, ir::PartialShape::UnknownOfRank(4));
    return OkStatus();
  }
  const ir::PartialShape& e = ctx.input(1);
  const ir::PartialShape& d = ctx.input(3);
  const int64_t channels = e.rank_known() ? e.dim(3) : -1;
  return SetWindowedOutput(ctx, *w, in, d.rank_known() ? d.dim(0) : -1, d.rank_known() ? d.dim(1) : -1, channels);
}

// MaxPool, AvgPool (ksize/strides attrs) and MaxPoolV2 (const inputs).
Status PoolShape(ShapeContext& ctx, bool from_inputs) {
  const ir::PartialShape& in = ctx.input(0);
  TFHOST_RETURN_IF_ERROR(CheckRank(ctx, in, 4, "input"));
  std::optional<std::vector<int64_t>> ksize, strides;
  if (from_inputs) {
    ksize = ctx.InputInts(1);
    strides = ctx.InputInts(2);
  } else {
    ksize = ctx.Attr<std::vector<int64_t>>("ksize");
    strides = ctx.Attr<std::vector<int64_t>>("strides");
  }
  if (!in.rank_known()) {
    ctx.set_output(0, ir::PartialShape::UnknownOfRank(4));
    return OkStatus();
  }
  auto w = strides ? WindowAttrs(ctx, /*has_dilations=*/false, strides) : std::nullopt;
  if (!w || !ksize || ksize->size() != 4) {
    ctx.set_output(0, ir::PartialShape::UnknownOfRank(4));
    return OkStatus();
  }
  const Layout l = LayoutOf(w->format);
  return SetWindowedOutput(ctx, *w, in, (*ksize)[l.h], (*ksize)[l.w], in.dim(l.c));
}

// Conv2DBackpropInput(input_sizes, filter, out_backprop): the result has
// the shape `input_sizes` names.
Status Conv2DBackpropInputShape(ShapeContext& ctx) {
  ir::PartialShape out = ctx.InputAsShape(0);
  if (!out.rank_known()) out = ir::PartialShape::UnknownOfRank(4);
  ctx.set_output(0, std::move(out));
  return OkStatus();
}

// The channel dim of `x` in data_format, or -1 when unknown.
int ChannelDim(const ir::PartialShape& x, const std::string& data_format) {
  if (!x.rank_known() || x.rank() < 2) return -1;
  return data_format.rfind("NC", 0) == 0 ? 1 : x.rank() - 1;
}

// Merges dim `c` of `x` with the length of vector `v` (bias, scale, ...).
StatusOr<ir::PartialShape> MergeChannel(const ShapeContext& ctx, ir::PartialShape x, int c,
                                        const ir::PartialShape& v, const char* what) {
  if (c < 0 || !v.rank_known() || v.rank() != 1) return x;
  const int64_t a = x.dim(c), b = v.dim(0);
  if (a >= 0 && b >= 0 && a != b) {
    return ctx.Error(std::string(what) + " has " + std::to_string(b) + " elements but the input's channel " +
                     "dimension is " + std::to_string(a) + " (input " + x.ToString() + ")");
  }
  if (a < 0) x.dims[c] = b;
  return x;
}

Status BiasAddShape(ShapeContext& ctx, bool v1) {
  const std::string format = v1 ? "NHWC" : ctx.AttrOr<std::string>("data_format", "NHWC").value_or("");
  if (format != "NHWC" && format != "NCHW") return OkStatus();
  const ir::PartialShape& x = ctx.input(0);
  if (x.rank_known() && x.rank() < 2) return ctx.Error("input must have rank >= 2, got shape " + x.ToString());
  int c = ChannelDim(x, format);
  // For NCHW, TensorFlow's shape function checks dim rank-3 and the kernels
  // dim 1; they agree only for rank 4, so only that case is checked here.
  if (c >= 0 && format == "NCHW" && x.rank() != 4) c = -1;
  TFHOST_ASSIGN_OR_RETURN(ir::PartialShape out, MergeChannel(ctx, x, c, ctx.input(1), "bias"));
  ctx.set_output(0, std::move(out));
  return OkStatus();
}

// FusedBatchNorm{,V2,V3}: y has x's shape; batch_mean, batch_variance and
// the two reserve spaces are channel vectors (V3's third reserve space is
// implementation defined and stays unknown).
Status FusedBatchNormShape(ShapeContext& ctx) {
  const std::string format = ctx.AttrOr<std::string>("data_format", "NHWC").value_or("");
  if (format != "NHWC" && format != "NCHW" && format != "NDHWC" && format != "NCDHW") return OkStatus();
  ir::PartialShape x = ctx.input(0);
  const int rank = format.size() == 5 ? 5 : 4;
  TFHOST_RETURN_IF_ERROR(CheckRank(ctx, x, rank, "x"));
  const int c = ChannelDim(x, format);
  TFHOST_ASSIGN_OR_RETURN(x, MergeChannel(ctx, x, c, ctx.input(1), "scale"));
  TFHOST_ASSIGN_OR_RETURN(x, MergeChannel(ctx, x, c, ctx.input(2), "offset"));
  ctx.set_output(0, x);
  const ir::PartialShape channels = ir::PartialShape::Known({c >= 0 ? x.dim(c) : -1});
  for (int i = 1; i <= 4; ++i) ctx.set_output(i, channels);
  return OkStatus();
}

// ResizeBilinear / ResizeNearestNeighbor(images [N,H,W,C], size [2]).
Status ResizeShape(ShapeContext& ctx) {
  const ir::PartialShape& images = ctx.input(0);
  TFHOST_RETURN_IF_ERROR(CheckRank(ctx, images, 4, "images"));
  const ir::PartialShape in = images.rank_known() ? images : ir::PartialShape::UnknownOfRank(4);
  int64_t h = -1, w = -1;
  if (auto size = ctx.InputInts(1); size.has_value()) {
    if (size->size() != 2) return ctx.Error("size must have 2 elements, got " + std::to_string(size->size()));
    h = (*size)[0];
    w = (*size)[1];
  }
  ctx.set_output(0, ir::PartialShape::Known({in.dim(0), h, w, in.dim(3)}));
  return OkStatus();
}

// Conv3D / MaxPool3D / AvgPool3D (NDHWC): each spatial dim as SAME/VALID.
Status Window3DShape(ShapeContext& ctx, bool conv) {
  using ir::PartialShape;
  const PartialShape& in = ctx.input(0);
  auto strides = ctx.Attr<std::vector<int64_t>>("strides");
  auto padding = ctx.Attr<std::string>("padding");
  if (!in.rank_known() || in.rank() != 5 || !strides || strides->size() != 5 || !padding) return OkStatus();
  std::vector<int64_t> k(3, -1), dil = {1, 1, 1};
  int64_t out_c = in.dim(4);
  if (conv) {
    const PartialShape& f = ctx.input(1);
    if (!f.rank_known() || f.rank() != 5) return OkStatus();
    k = {f.dim(0), f.dim(1), f.dim(2)};
    out_c = f.dim(4);
    auto d = ctx.AttrOr<std::vector<int64_t>>("dilations", {1, 1, 1, 1, 1});
    if (d && d->size() == 5) dil = {(*d)[1], (*d)[2], (*d)[3]};
  } else {
    auto ks = ctx.Attr<std::vector<int64_t>>("ksize");
    if (!ks || ks->size() != 5) return OkStatus();
    k = {(*ks)[1], (*ks)[2], (*ks)[3]};
  }
  std::vector<int64_t> dims = {in.dim(0), -1, -1, -1, out_c};
  for (int d = 0; d < 3; ++d) {
    const int64_t size = in.dim(d + 1), s = (*strides)[d + 1];
    if (size < 0 || k[d] < 1 || s < 1 || dil[d] < 1) continue;
    const int64_t eff = (k[d] - 1) * dil[d] + 1;
    dims[d + 1] = *padding == "SAME" ? (size + s - 1) / s : (size >= eff ? (size - eff) / s + 1 : 0);
  }
  ctx.set_output(0, PartialShape::Known(dims));
  return OkStatus();
}

// Dilation2D(input NHWC, filter [kh, kw, depth]): a windowed op with
// rates as dilations. MaxPoolWithArgmax: both outputs are the pooled shape.
Status Dilation2DShape(ShapeContext& ctx) {
  const ir::PartialShape& in = ctx.input(0);
  const ir::PartialShape& filter = ctx.input(1);
  TFHOST_RETURN_IF_ERROR(CheckRank(ctx, in, 4, "input"));
  TFHOST_RETURN_IF_ERROR(CheckRank(ctx, filter, 3, "filter"));
  auto strides = ctx.Attr<std::vector<int64_t>>("strides");
  auto rates = ctx.Attr<std::vector<int64_t>>("rates");
  auto padding = ctx.Attr<std::string>("padding");
  if (!in.rank_known() || !strides || !rates || !padding || strides->size() != 4 || rates->size() != 4) {
    ctx.set_output(0, ir::PartialShape::UnknownOfRank(4));
    return OkStatus();
  }
  auto p = nn::ParsePadding(*padding, /*allow_explicit=*/false);
  if (!p.ok()) return OkStatus();
  const ir::PartialShape f = filter.rank_known() ? filter : ir::PartialShape::UnknownOfRank(3);
  TFHOST_ASSIGN_OR_RETURN(int64_t oh, OutputSize(ctx, in.dim(1), f.dim(0), (*strides)[1], (*rates)[1], *p, 0, 0));
  TFHOST_ASSIGN_OR_RETURN(int64_t ow, OutputSize(ctx, in.dim(2), f.dim(1), (*strides)[2], (*rates)[2], *p, 0, 0));
  ctx.set_output(0, ir::PartialShape::Known({in.dim(0), oh, ow, in.dim(3) >= 0 ? in.dim(3) : f.dim(2)}));
  return OkStatus();
}

Status MaxPoolWithArgmaxShape(ShapeContext& ctx) {
  TFHOST_RETURN_IF_ERROR(PoolShape(ctx, false));
  ctx.set_output(1, ctx.output(0));
  return OkStatus();
}

// Conv3DBackpropInputV2: the result has the shape `input_sizes` names.
Status Conv3DBackpropInputShape(ShapeContext& ctx) {
  ir::PartialShape out = ctx.InputAsShape(0);
  if (!out.rank_known()) out = ir::PartialShape::UnknownOfRank(5);
  ctx.set_output(0, std::move(out));
  return OkStatus();
}

// _TfhostLstmCell (ops/nn/lstm_cell.h): h and c_out are [batch, units],
// batch broadcast over x, y and c.
Status LstmCellShape(ShapeContext& ctx) {
  int64_t batch = -1, units = -1;
  bool all_rows_known = true;
  for (int i : {0, 1, 3}) {
    const ir::PartialShape& s = ctx.input(i);
    if (!s.rank_known() || s.rank() != 2) {
      all_rows_known = false;
      continue;
    }
    if (s.dim(0) < 0) all_rows_known = false;
    if (s.dim(0) > 1 || (s.dim(0) == 0)) batch = s.dim(0);
    if (i == 3 && s.dim(1) >= 0) units = s.dim(1);
    if (i != 3 && s.dim(1) >= 0 && s.dim(1) % 4 == 0) units = s.dim(1) / 4;
  }
  if (batch < 0 && all_rows_known) batch = 1;
  ctx.set_output(0, ir::PartialShape::Known({batch, units}));
  ctx.set_output(1, ir::PartialShape::Known({batch, units}));
  return OkStatus();
}

// _TfhostLstmLoop (ops/nn/lstm_loop.h): each output is its input, except
// h and c, [rows, units] with units from the recurrent kernel.
Status LstmLoopShape(ShapeContext& ctx) {
  for (int i = 0; i < ctx.num_outputs() && i < ctx.num_inputs(); ++i) ctx.set_output(i, ctx.input(i));
  auto h = ctx.Attr<int64_t>("h_index");
  auto c = ctx.Attr<int64_t>("c_index");
  auto kernel = ctx.Attr<int64_t>("kernel_index");
  if (!h || !c || !kernel) return OkStatus();
  int64_t units = -1;
  if (*kernel >= 0 && *kernel < ctx.num_inputs()) {
    const ir::PartialShape& k = ctx.input(static_cast<int>(*kernel));
    if (k.rank_known() && k.rank() == 2 && k.dim(1) >= 0 && k.dim(1) % 4 == 0) units = k.dim(1) / 4;
  }
  for (int64_t i : {*h, *c}) {
    if (i >= 0 && i < ctx.num_outputs()) ctx.set_output(static_cast<int>(i), ir::PartialShape::Known({-1, units}));
  }
  return OkStatus();
}

}  // namespace

void RegisterNnShapeFns(ShapeFnRegistry& registry) {
  registry.Register({"Relu", "Relu6", "Elu", "Selu", "Softplus", "Softsign", "LeakyRelu", "Prelu", "LRN"},
                    UnchangedShape);
  registry.Register({"Conv2D", "_FusedConv2D"}, Conv2DShape);
  registry.Register({"FakeQuantWithMinMaxArgs", "FakeQuantWithMinMaxVars", "FakeQuantWithMinMaxVarsPerChannel"},
                    UnchangedShape);
  registry.Register("Conv3D", [](ShapeContext& ctx) { return Window3DShape(ctx, true); });
  registry.Register({"MaxPool3D", "AvgPool3D"}, [](ShapeContext& ctx) { return Window3DShape(ctx, false); });
  registry.Register({"DepthwiseConv2dNative", "FusedDepthwiseConv2dNative"}, DepthwiseConv2DShape);
  registry.Register({"MaxPool", "AvgPool"}, [](ShapeContext& ctx) { return PoolShape(ctx, false); });
  registry.Register("MaxPoolV2", [](ShapeContext& ctx) { return PoolShape(ctx, true); });
  registry.Register({"Conv2DBackpropInput", "DepthwiseConv2dNativeBackpropInput"}, Conv2DBackpropInputShape);
  registry.Register("Conv3DBackpropInputV2", Conv3DBackpropInputShape);
  registry.Register("Dilation2D", Dilation2DShape);
  registry.Register("_TfhostExpandDepthwise", ExpandDepthwiseShape);
  registry.Register("_TfhostLayerNorm", UnchangedShape);
  // The layer norm of AddV2(a, b): their broadcast (per-channel gamma and
  // beta do not widen it).
  registry.Register("_TfhostAddLayerNorm", BroadcastingShape);
  registry.Register("_TfhostLstmCell", LstmCellShape);
  registry.Register("_TfhostLstmLoop", LstmLoopShape);
  registry.Register("MaxPoolWithArgmax", MaxPoolWithArgmaxShape);
  registry.Register("BiasAdd", [](ShapeContext& ctx) { return BiasAddShape(ctx, false); });
  registry.Register("BiasAddV1", [](ShapeContext& ctx) { return BiasAddShape(ctx, true); });
  registry.Register({"FusedBatchNorm", "FusedBatchNormV2", "FusedBatchNormV3"}, FusedBatchNormShape);
  registry.Register({"ResizeBilinear", "ResizeNearestNeighbor"}, ResizeShape);
}

}  // namespace tfhost::ops
