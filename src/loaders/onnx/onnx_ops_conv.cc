// Convolutions and pooling over NCHW tensors. A 2-D convolution with
// constant weights runs NHWC on its input's NHWC form and keeps its output
// NHWC (onnx_graph_builder.h), where TensorFlow's fast kernels and fusions
// are; the others run as TensorFlow's Conv2D / Conv2DBackpropInput /
// MaxPool / AvgPool with data_format NCHW. 1-D variants get a unit height:
// [N, C, L] -> [N, C, 1, L].
// Filters are permuted once at load from ONNX's [M, C/group, kH, kW] to
// TensorFlow's [kH, kW, C/group, M]; a grouped or depthwise convolution is
// a Conv2D whose input has `group` times the filter's input channels.
#include <algorithm>
#include <map>

#include "loaders/onnx/onnx_ops.h"

namespace tfhost::loaders::onnx {

namespace {

// The spatial attributes of a convolution or pooling node, 2-D (1-D nodes
// are lifted to 2-D with a unit first dimension).
struct Window {
  bool one_d = false;
  std::vector<int64_t> kernel, strides, dilations;
  std::vector<int64_t> pads;  // [top, left, bottom, right] (ONNX order)
  std::string padding;        // "EXPLICIT", "VALID" or "SAME"
};

// The input's spatial dims as 2-D (1-D inputs get a leading 1).
std::vector<int64_t> Spatial2D(const ir::PartialShape& s, bool one_d) {
  const int r = s.rank();
  if (one_d) return {1, r == 3 ? s.dim(2) : -1};
  return {r == 4 ? s.dim(2) : -1, r == 4 ? s.dim(3) : -1};
}

// Reads kernel_shape/strides/dilations/pads/auto_pad for `spatial` (1 or 2)
// dimensions. SAME_LOWER puts the odd padding row first, which TensorFlow's
// SAME does not; it is turned into explicit pads when the input's spatial
// size is known at load.
StatusOr<Window> ReadWindow(const NodeContext& ctx, int spatial, std::vector<int64_t> kernel,
                            const ir::PartialShape& x_shape) {
  Window w;
  w.one_d = spatial == 1;
  TFHOST_ASSIGN_OR_RETURN(std::vector<int64_t> ks, ctx.Ints("kernel_shape", kernel));
  TFHOST_ASSIGN_OR_RETURN(std::vector<int64_t> strides, ctx.Ints("strides", std::vector<int64_t>(spatial, 1)));
  TFHOST_ASSIGN_OR_RETURN(std::vector<int64_t> dilations, ctx.Ints("dilations", std::vector<int64_t>(spatial, 1)));
  TFHOST_ASSIGN_OR_RETURN(std::vector<int64_t> pads, ctx.Ints("pads", std::vector<int64_t>(2 * spatial, 0)));
  TFHOST_ASSIGN_OR_RETURN(std::string auto_pad, ctx.String("auto_pad", "NOTSET"));
  auto check = [&](const std::vector<int64_t>& v, size_t n, const char* name, int64_t min) -> Status {
    if (v.size() != n) {
      return ctx.Error(std::string(name) + " has " + std::to_string(v.size()) + " entries; expected " +
                       std::to_string(n) + " for " + std::to_string(spatial) + " spatial dimensions");
    }
    for (int64_t x : v) {
      if (x < min) return ctx.Error(std::string(name) + " holds " + std::to_string(x) + "; expected >= " + std::to_string(min));
    }
    return OkStatus();
  };
  TFHOST_RETURN_IF_ERROR(check(ks, spatial, "kernel_shape", 1));
  TFHOST_RETURN_IF_ERROR(check(strides, spatial, "strides", 1));
  TFHOST_RETURN_IF_ERROR(check(dilations, spatial, "dilations", 1));
  TFHOST_RETURN_IF_ERROR(check(pads, 2 * spatial, "pads", 0));
  if (w.one_d) {
    ks.insert(ks.begin(), 1);
    strides.insert(strides.begin(), 1);
    dilations.insert(dilations.begin(), 1);
    pads = {0, pads[0], 0, pads[1]};
  }
  w.kernel = ks;
  w.strides = strides;
  w.dilations = dilations;
  w.pads = pads;
  if (auto_pad == "NOTSET") {
    w.padding = std::all_of(pads.begin(), pads.end(), [](int64_t p) { return p == 0; }) ? "VALID" : "EXPLICIT";
  } else if (auto_pad == "VALID") {
    w.padding = "VALID";
    w.pads = {0, 0, 0, 0};
  } else if (auto_pad == "SAME_UPPER") {
    w.padding = "SAME";
  } else if (auto_pad == "SAME_LOWER") {
    const std::vector<int64_t> spatial_in = Spatial2D(x_shape, w.one_d);
    for (int i = 0; i < 2; ++i) {
      const int64_t in = spatial_in[i];
      if (in < 0) return ctx.Unsupported("auto_pad SAME_LOWER needs the input's spatial size at load");
      const int64_t out = (in + w.strides[i] - 1) / w.strides[i];
      const int64_t total = std::max<int64_t>(0, (out - 1) * w.strides[i] + (w.kernel[i] - 1) * w.dilations[i] + 1 - in);
      w.pads[i] = total - total / 2;
      w.pads[i + 2] = total / 2;
    }
    w.padding = "EXPLICIT";
  } else {
    return ctx.Error("auto_pad is '" + auto_pad + "'; expected NOTSET, SAME_UPPER, SAME_LOWER or VALID");
  }
  return w;
}

// The output spatial size of one dimension, or -1 when not known at load.
int64_t OutSize(const Window& w, int i, int64_t in) {
  if (in < 0) return -1;
  if (w.padding == "SAME") return (in + w.strides[i] - 1) / w.strides[i];
  const int64_t eff = (w.kernel[i] - 1) * w.dilations[i] + 1;
  const int64_t padded = in + w.pads[i] + w.pads[i + 2];
  return padded < eff ? -1 : (padded - eff) / w.strides[i] + 1;
}

ir::AttrMap WindowAttrs(const Window& w, bool with_dilations) {
  ir::AttrMap attrs;
  attrs["strides"] = IntListAttr({1, 1, w.strides[0], w.strides[1]});
  if (with_dilations) attrs["dilations"] = IntListAttr({1, 1, w.dilations[0], w.dilations[1]});
  attrs["padding"] = StringAttr(w.padding);
  if (w.padding == "EXPLICIT") attrs["explicit_paddings"] = IntListAttr({0, 0, 0, 0, w.pads[0], w.pads[2], w.pads[1], w.pads[3]});
  attrs["data_format"] = StringAttr("NCHW");
  return attrs;
}

// x lifted to 4-D for a 1-D window.
StatusOr<ir::TensorRef> Lift(const NodeContext& ctx, ir::TensorRef x, bool one_d) {
  if (!one_d) return x;
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef axis, ctx.Const("lift_axis", Tensor::Scalar<int32_t>(2)));
  return ctx.Helper("lift", "ExpandDims", {x, axis});
}

// Emits `op` on the 4-D input, dropping the unit dimension again for 1-D.
Status EmitWindowed(const NodeContext& ctx, bool one_d, const std::string& op, std::vector<ir::TensorRef> inputs,
                    ir::AttrMap attrs, DType dtype, ir::PartialShape out4) {
  if (!one_d) return ctx.Emit(op, std::move(inputs), std::move(attrs), dtype, std::move(out4));
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef y, ctx.Helper(op, op, std::move(inputs), std::move(attrs)));
  ir::AttrMap squeeze;
  squeeze["squeeze_dims"] = IntListAttr({2});
  ir::PartialShape out3 = out4;
  if (out3.rank() == 4) out3.dims.erase(out3.dims.begin() + 2);
  return ctx.Emit("Squeeze", {y}, std::move(squeeze), dtype, std::move(out3));
}

// Filter input `i` in TensorFlow's layout: [M, C/g, (kH,) kW] -> [kH, kW, C/g, M]
// for a convolution, [C, M/g, ...] -> [kH, kW, M/g, C] for a transposed one
// (the same permutation).
StatusOr<ir::TensorRef> Filter(const NodeContext& ctx, int i, int spatial) {
  TFHOST_ASSIGN_OR_RETURN(std::optional<Tensor> w, ctx.ConstIn(i));
  if (w.has_value()) {
    if (w->rank() != spatial + 2) return ctx.Error("weights have shape " + w->shape().ToString() + "; expected rank " + std::to_string(spatial + 2));
    Tensor v = *w;
    if (spatial == 1) {
      TFHOST_ASSIGN_OR_RETURN(v, v.Reshaped(Shape({v.dim(0), v.dim(1), 1, v.dim(2)})));
    }
    return ctx.Const("filter", TransposeConstant(v, {2, 3, 1, 0}));
  }
  if (spatial == 1) return ctx.Unsupported("1-D convolution weights computed at run time");
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef f, ctx.In(i));
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef perm, ctx.Const("filter_perm", Int32Vector({2, 3, 1, 0})));
  return ctx.Helper("filter", "Transpose", {f, perm});
}

// The spatial rank from the weights (or the input) and the kernel from the
// weights' shape when it is known.
StatusOr<std::pair<int, std::vector<int64_t>>> ConvRank(const NodeContext& ctx) {
  TFHOST_ASSIGN_OR_RETURN(const ValueInfo* w, ctx.Info(1));
  TFHOST_ASSIGN_OR_RETURN(const ValueInfo* x, ctx.Info(0));
  const int rank = w->rank() >= 0 ? w->rank() : x->rank();
  if (rank != 3 && rank != 4) {
    return ctx.Unsupported(rank < 0 ? std::string("the weights' rank is not known at load")
                                    : std::to_string(rank - 2) + "-D convolutions (1-D and 2-D are supported)");
  }
  std::vector<int64_t> kernel;
  for (int d = 2; d < rank && w->rank() == rank; ++d) kernel.push_back(w->shape.dim(d));
  if (std::any_of(kernel.begin(), kernel.end(), [](int64_t k) { return k < 0; })) kernel.clear();
  return std::pair(rank - 2, kernel);
}

// The NHWC attrs of a 2-D window.
ir::AttrMap NhwcWindowAttrs(const Window& w, bool with_dilations) {
  ir::AttrMap attrs;
  attrs["strides"] = IntListAttr({1, w.strides[0], w.strides[1], 1});
  if (with_dilations) attrs["dilations"] = IntListAttr({1, w.dilations[0], w.dilations[1], 1});
  attrs["padding"] = StringAttr(w.padding);
  if (w.padding == "EXPLICIT") attrs["explicit_paddings"] = IntListAttr({0, 0, w.pads[0], w.pads[2], w.pads[1], w.pads[3], 0, 0});
  attrs["data_format"] = StringAttr("NHWC");
  return attrs;
}

// A 2-D convolution with constant weights on the NHWC form of its input
// (onnx_graph_builder.h), its output kept NHWC: Conv2D for one group,
// DepthwiseConv2dNative for one group per input channel. False (nothing
// emitted) for the other cases, which run NCHW.
StatusOr<bool> MapConvNhwc(const NodeContext& ctx, const Window& w, int64_t group) {
  TFHOST_ASSIGN_OR_RETURN(const ValueInfo* xi, ctx.Info(0));
  TFHOST_ASSIGN_OR_RETURN(std::optional<Tensor> weights, ctx.ConstIn(1));
  if (!weights.has_value() || weights->rank() != 4 || xi->rank() != 4) return false;
  // One input channel per group: the input has `group` channels.
  const int64_t out_c = weights->dim(0);
  const bool depthwise = group > 1 && weights->dim(1) == 1 && out_c % group == 0;
  if (group != 1 && !depthwise) return false;
  Tensor filter = TransposeConstant(*weights, {2, 3, 1, 0});  // [kH, kW, C/group, M]
  if (depthwise) {
    // [kH, kW, 1, C * k] -> [kH, kW, C, k]: output channel c * k + j comes from input channel c
    // in both TensorFlow's depthwise convolution and ONNX's grouped one.
    TFHOST_ASSIGN_OR_RETURN(filter, filter.Reshaped(Shape({filter.dim(0), filter.dim(1), group, out_c / group})));
  }
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef x, ctx.InNhwc(0));
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef f, ctx.Const("filter", std::move(filter)));
  const std::vector<int64_t> in = Spatial2D(xi->shape, false);
  const ir::PartialShape out4 =
      ir::PartialShape::Known({xi->shape.dim(0), out_c, OutSize(w, 0, in[0]), OutSize(w, 1, in[1])});
  const std::string op = depthwise ? "DepthwiseConv2dNative" : "Conv2D";
  ir::AttrMap attrs = NhwcWindowAttrs(w, true);
  attrs["T"] = TypeAttr(xi->dtype);
  if (!ctx.Has(2)) {
    TFHOST_RETURN_IF_ERROR(ctx.EmitNhwc(op, {x, f}, std::move(attrs), xi->dtype, out4));
    return true;
  }
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef y, ctx.Helper(op, op, {x, f}, std::move(attrs)));
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef bias, ctx.In(2));
  ir::AttrMap bias_attrs;
  bias_attrs["data_format"] = StringAttr("NHWC");
  bias_attrs["T"] = TypeAttr(xi->dtype);
  TFHOST_RETURN_IF_ERROR(ctx.EmitNhwc("BiasAdd", {y, bias}, std::move(bias_attrs), xi->dtype, out4));
  return true;
}

Status MapConv(const NodeContext& ctx) {
  TFHOST_ASSIGN_OR_RETURN(auto spatial_kernel, ConvRank(ctx));
  auto [spatial, kernel] = spatial_kernel;
  TFHOST_ASSIGN_OR_RETURN(const ValueInfo* xi, ctx.Info(0));
  TFHOST_ASSIGN_OR_RETURN(const ValueInfo* wi, ctx.Info(1));
  TFHOST_ASSIGN_OR_RETURN(Window w, ReadWindow(ctx, spatial, kernel, xi->shape));
  TFHOST_ASSIGN_OR_RETURN(int64_t group, ctx.Int("group", 1));
  if (group < 1) return ctx.Error("group is " + std::to_string(group) + "; expected >= 1");
  const int64_t out_c = wi->rank() == spatial + 2 ? wi->shape.dim(0) : -1;
  if (out_c > 0 && out_c % group != 0) return ctx.Error("weights have " + std::to_string(out_c) + " output channels, not a multiple of group " + std::to_string(group));
  if (!w.one_d) {
    TFHOST_ASSIGN_OR_RETURN(bool done, MapConvNhwc(ctx, w, group));
    if (done) return OkStatus();
  }
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef x, ctx.In(0));
  TFHOST_ASSIGN_OR_RETURN(x, Lift(ctx, x, w.one_d));
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef f, Filter(ctx, 1, spatial));
  // TensorFlow infers the groups from the input's channels over the filter's.
  const std::vector<int64_t> in = Spatial2D(xi->shape, w.one_d);
  ir::PartialShape out4 = ir::PartialShape::Known({xi->rank() > 0 ? xi->shape.dim(0) : -1, out_c, OutSize(w, 0, in[0]), OutSize(w, 1, in[1])});
  ir::AttrMap attrs = WindowAttrs(w, true);
  if (!ctx.Has(2)) return EmitWindowed(ctx, w.one_d, "Conv2D", {x, f}, std::move(attrs), xi->dtype, out4);
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef y, ctx.Helper("Conv2D", "Conv2D", {x, f}, std::move(attrs)));
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef bias, ctx.In(2));
  ir::AttrMap bias_attrs;
  bias_attrs["data_format"] = StringAttr("NCHW");
  return EmitWindowed(ctx, w.one_d, "BiasAdd", {y, bias}, std::move(bias_attrs), xi->dtype, out4);
}

// ConvTranspose is the gradient of a convolution with respect to its input:
// Conv2DBackpropInput(sizes, filter, x), with the ONNX pads as that forward
// convolution's pads. The output size, s * (in - 1) + output_padding +
// effective kernel - pads, is computed from Shape(x) at run time, so the
// batch and spatial sizes need not be known at load.
Status MapConvTranspose(const NodeContext& ctx) {
  TFHOST_ASSIGN_OR_RETURN(auto spatial_kernel, ConvRank(ctx));
  auto [spatial, kernel] = spatial_kernel;
  if (spatial != 2) return ctx.Unsupported("1-D transposed convolutions");
  TFHOST_ASSIGN_OR_RETURN(const ValueInfo* xi, ctx.Info(0));
  TFHOST_ASSIGN_OR_RETURN(const ValueInfo* wi, ctx.Info(1));
  TFHOST_ASSIGN_OR_RETURN(int64_t group, ctx.Int("group", 1));
  if (group != 1) return ctx.Unsupported("grouped transposed convolutions (group " + std::to_string(group) + ")");
  TFHOST_ASSIGN_OR_RETURN(std::string auto_pad, ctx.String("auto_pad", "NOTSET"));
  TFHOST_ASSIGN_OR_RETURN(std::vector<int64_t> output_padding, ctx.Ints("output_padding", {0, 0}));
  TFHOST_ASSIGN_OR_RETURN(std::vector<int64_t> output_shape, ctx.Ints("output_shape"));
  if (output_padding.size() != 2) return ctx.Error("output_padding must have 2 entries");
  // ReadWindow would turn SAME_LOWER into pads of a forward convolution;
  // transposed padding is derived below instead.
  Window w;
  {
    TFHOST_ASSIGN_OR_RETURN(std::vector<int64_t> ks, ctx.Ints("kernel_shape", kernel));
    TFHOST_ASSIGN_OR_RETURN(w.strides, ctx.Ints("strides", {1, 1}));
    TFHOST_ASSIGN_OR_RETURN(w.dilations, ctx.Ints("dilations", {1, 1}));
    TFHOST_ASSIGN_OR_RETURN(w.pads, ctx.Ints("pads", {0, 0, 0, 0}));
    w.kernel = ks;
    if (ks.size() != 2 || w.strides.size() != 2 || w.dilations.size() != 2 || w.pads.size() != 4) {
      return ctx.Error("kernel_shape, strides, dilations and pads must describe 2 spatial dimensions");
    }
  }
  const std::vector<int64_t> in = Spatial2D(xi->shape, false);
  int64_t out_dims[2] = {-1, -1};
  for (int i = 0; i < 2; ++i) {
    const int64_t s = w.strides[i], eff = (w.kernel[i] - 1) * w.dilations[i] + 1;
    if (s < 1 || w.dilations[i] < 1 || w.kernel[i] < 1) return ctx.Error("strides, dilations and kernel_shape must be positive");
    if (output_padding[i] < 0 || output_padding[i] >= std::max(s, w.dilations[i])) {
      return ctx.Error("output_padding " + std::to_string(output_padding[i]) + " must be below the stride or dilation");
    }
    int64_t total = -1;
    if (!output_shape.empty()) {
      if (output_shape.size() != 2) return ctx.Error("output_shape must have 2 entries");
      if (in[i] < 0) return ctx.Unsupported("output_shape needs the input's spatial size at load");
      total = s * (in[i] - 1) + output_padding[i] + eff - output_shape[i];
    } else if (auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER") {
      total = output_padding[i] + eff - s;  // output = input * stride
    } else if (auto_pad == "VALID") {
      total = 0;
    } else if (auto_pad != "NOTSET") {
      return ctx.Error("auto_pad is '" + auto_pad + "'; expected NOTSET, SAME_UPPER, SAME_LOWER or VALID");
    }
    if (total >= 0) {
      const bool upper = auto_pad == "SAME_UPPER";
      w.pads[i] = upper ? total / 2 : total - total / 2;
      w.pads[i + 2] = total - w.pads[i];
    } else if (!output_shape.empty() || auto_pad != "NOTSET") {
      return ctx.Unsupported("an output larger than the transposed convolution produces (negative padding)");
    }
    if (in[i] >= 0) out_dims[i] = s * (in[i] - 1) + output_padding[i] + eff - w.pads[i] - w.pads[i + 2];
  }
  const int64_t out_c = wi->rank() == 4 ? wi->shape.dim(1) : -1;
  if (out_c < 0) return ctx.Unsupported("weights whose output channels are not known at load");
  w.padding = std::all_of(w.pads.begin(), w.pads.end(), [](int64_t p) { return p == 0; }) ? "VALID" : "EXPLICIT";
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef x, ctx.In(0));
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef f, Filter(ctx, 1, 2));
  // sizes = Shape(x) * [1, 0, sh, sw] + [0, M, ch, cw].
  std::vector<int32_t> mul = {1, 0, static_cast<int32_t>(w.strides[0]), static_cast<int32_t>(w.strides[1])};
  std::vector<int32_t> add = {0, static_cast<int32_t>(out_c), 0, 0};
  for (int i = 0; i < 2; ++i) {
    add[2 + i] = static_cast<int32_t>(output_padding[i] + (w.kernel[i] - 1) * w.dilations[i] + 1 - w.strides[i] -
                                      w.pads[i] - w.pads[i + 2]);
  }
  ir::AttrMap shape_attrs;
  shape_attrs["out_type"] = TypeAttr(DType::kInt32);
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef xs, ctx.Helper("input_shape", "Shape", {x}, std::move(shape_attrs)));
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef mr, ctx.Const("size_scale", Int32Vector(mul)));
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef ar, ctx.Const("size_offset", Int32Vector(add)));
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef scaled, ctx.Helper("scaled_shape", "Mul", {xs, mr}));
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef sizes, ctx.Helper("output_size", "AddV2", {scaled, ar}));
  ir::AttrMap attrs = WindowAttrs(w, true);
  const ir::PartialShape out4 = ir::PartialShape::Known({xi->shape.dim(0), out_c, out_dims[0], out_dims[1]});
  if (!ctx.Has(2)) return ctx.Emit("Conv2DBackpropInput", {sizes, f, x}, std::move(attrs), xi->dtype, out4);
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef y, ctx.Helper("Conv2DBackpropInput", "Conv2DBackpropInput", {sizes, f, x},
                                                      std::move(attrs)));
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef bias, ctx.In(2));
  ir::AttrMap bias_attrs;
  bias_attrs["data_format"] = StringAttr("NCHW");
  return ctx.Emit("BiasAdd", {y, bias}, std::move(bias_attrs), xi->dtype, out4);
}

Status MapMaxPool(const NodeContext& ctx) {
  if (ctx.node->output_size() > 1 && !ctx.node->output(1).empty()) return ctx.Unsupported("the Indices output");
  TFHOST_ASSIGN_OR_RETURN(int rank, ctx.Rank(0, "pooling"));
  if (rank != 3 && rank != 4) return ctx.Unsupported(std::to_string(rank - 2) + "-D pooling (1-D and 2-D are supported)");
  TFHOST_ASSIGN_OR_RETURN(const ValueInfo* xi, ctx.Info(0));
  TFHOST_ASSIGN_OR_RETURN(Window w, ReadWindow(ctx, rank - 2, {}, xi->shape));
  if (w.dilations[0] != 1 || w.dilations[1] != 1) return ctx.Unsupported("dilated pooling");
  TFHOST_ASSIGN_OR_RETURN(int64_t ceil_mode, ctx.Int("ceil_mode", 0));
  const std::vector<int64_t> in = Spatial2D(xi->shape, w.one_d);
  if (ceil_mode != 0) {
    // Ceil mode adds output positions at the end whose windows start inside
    // the (begin-padded) input; extra end padding makes them explicit.
    if (w.padding == "SAME") {
      // SAME already rounds up; ceil_mode changes nothing.
    } else {
      for (int i = 0; i < 2; ++i) {
        if (in[i] < 0) return ctx.Unsupported("ceil_mode needs the input's spatial size at load");
        const int64_t padded = in[i] + w.pads[i] + w.pads[i + 2];
        int64_t out = (padded - w.kernel[i] + w.strides[i] - 1) / w.strides[i] + 1;
        if ((out - 1) * w.strides[i] >= in[i] + w.pads[i]) --out;
        const int64_t extra = (out - 1) * w.strides[i] + w.kernel[i] - padded;
        if (extra > 0) w.pads[i + 2] += extra;
      }
      if (std::any_of(w.pads.begin(), w.pads.end(), [](int64_t p) { return p != 0; })) w.padding = "EXPLICIT";
    }
  }
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef x, ctx.In(0));
  TFHOST_ASSIGN_OR_RETURN(x, Lift(ctx, x, w.one_d));
  ir::AttrMap attrs = WindowAttrs(w, false);
  attrs["ksize"] = IntListAttr({1, 1, w.kernel[0], w.kernel[1]});
  ir::PartialShape out4 = ir::PartialShape::Known({xi->shape.dim(0), xi->shape.dim(1), OutSize(w, 0, in[0]), OutSize(w, 1, in[1])});
  return EmitWindowed(ctx, w.one_d, "MaxPool", {x}, std::move(attrs), xi->dtype, out4);
}

// AvgPool's own padding (SAME) leaves the padding out of the count; padding
// that must count (count_include_pad) or that SAME cannot express is
// explicit zeros, divided by the count of real elements where it must not.
Status MapAveragePool(const NodeContext& ctx) {
  TFHOST_ASSIGN_OR_RETURN(int rank, ctx.Rank(0, "pooling"));
  if (rank != 3 && rank != 4) return ctx.Unsupported(std::to_string(rank - 2) + "-D pooling (1-D and 2-D are supported)");
  TFHOST_ASSIGN_OR_RETURN(const ValueInfo* xi, ctx.Info(0));
  TFHOST_ASSIGN_OR_RETURN(Window w, ReadWindow(ctx, rank - 2, {}, xi->shape));
  if (w.dilations[0] != 1 || w.dilations[1] != 1) return ctx.Unsupported("dilated pooling");
  TFHOST_ASSIGN_OR_RETURN(int64_t ceil_mode, ctx.Int("ceil_mode", 0));
  TFHOST_ASSIGN_OR_RETURN(int64_t count_pad, ctx.Int("count_include_pad", 0));
  const std::vector<int64_t> in = Spatial2D(xi->shape, w.one_d);
  if (ceil_mode != 0 && w.padding != "SAME") {
    for (int i = 0; i < 2; ++i) {
      const int64_t padded = in[i] + w.pads[i] + w.pads[i + 2];
      if (in[i] < 0 || (padded - w.kernel[i]) % w.strides[i] != 0) {
        return ctx.Unsupported("ceil_mode where it changes the output size");
      }
    }
  }
  if (w.padding == "SAME" && count_pad != 0) {
    for (int i = 0; i < 2; ++i) {
      if (in[i] < 0) return ctx.Unsupported("auto_pad SAME with count_include_pad needs the input's spatial size at load");
      const int64_t out = (in[i] + w.strides[i] - 1) / w.strides[i];
      const int64_t total = std::max<int64_t>(0, (out - 1) * w.strides[i] + w.kernel[i] - in[i]);
      w.pads[i] = total / 2;
      w.pads[i + 2] = total - total / 2;
    }
    w.padding = "EXPLICIT";
  }
  ir::PartialShape out4 = ir::PartialShape::Known({xi->shape.dim(0), xi->shape.dim(1), OutSize(w, 0, in[0]), OutSize(w, 1, in[1])});
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef x, ctx.In(0));
  TFHOST_ASSIGN_OR_RETURN(x, Lift(ctx, x, w.one_d));
  const bool explicit_pads = w.padding == "EXPLICIT";
  Window valid = w;
  if (explicit_pads) valid.padding = "VALID";
  ir::AttrMap attrs = WindowAttrs(valid, false);
  attrs["ksize"] = IntListAttr({1, 1, w.kernel[0], w.kernel[1]});
  if (!explicit_pads) return EmitWindowed(ctx, w.one_d, "AvgPool", {x}, std::move(attrs), xi->dtype, out4);
  Tensor paddings = Tensor::FromVector<int64_t>({0, 0, 0, 0, w.pads[0], w.pads[2], w.pads[1], w.pads[3]}, Shape({4, 2}));
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef pads, ctx.Const("paddings", paddings));
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef padded, ctx.Helper("pad", "Pad", {x, pads}));
  if (count_pad != 0) return EmitWindowed(ctx, w.one_d, "AvgPool", {padded}, std::move(attrs), xi->dtype, out4);
  // The mean over real elements: AvgPool of the padded input over AvgPool
  // of a padded mask of ones (both divide by the window size, which cancels).
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef sum, ctx.Helper("sum", "AvgPool", {padded}, attrs));
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef ones, ctx.Helper("ones", "OnesLike", {x}));
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef mask, ctx.Helper("mask", "Pad", {ones, pads}));
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef count, ctx.Helper("count", "AvgPool", {mask}, std::move(attrs)));
  return EmitWindowed(ctx, w.one_d, "RealDiv", {sum, count}, {}, xi->dtype, out4);
}

// GlobalAveragePool / GlobalMaxPool: a reduction over every spatial axis.
template <bool kMax>
Status MapGlobalPool(const NodeContext& ctx) {
  TFHOST_ASSIGN_OR_RETURN(const ValueInfo* xi, ctx.Info(0));
  const int rank = xi->rank();
  ir::AttrMap reduce_attrs;
  reduce_attrs["keep_dims"] = BoolAttr(true);
  if (rank == 4 && ctx.IsNhwc(0)) {
    TFHOST_ASSIGN_OR_RETURN(ir::TensorRef xn, ctx.InNhwc(0));
    TFHOST_ASSIGN_OR_RETURN(ir::TensorRef hw, ctx.Const("axes", Int32Vector({1, 2})));
    return ctx.EmitNhwc(kMax ? "Max" : "Mean", {xn, hw}, std::move(reduce_attrs), xi->dtype,
                        ir::PartialShape::Known({xi->shape.dim(0), xi->shape.dim(1), 1, 1}));
  }
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef x, ctx.In(0));
  if (rank < 0) {
    // tf2onnx writes a layer norm's mean over the last axis as a Transpose
    // then GlobalAveragePool, and the rank may be unknown at load: the
    // spatial axes, 2 .. rank-1, are then computed when it runs.
    TFHOST_ASSIGN_OR_RETURN(ir::TensorRef r, ctx.Helper("rank", "Rank", {x}, {{"T", TypeAttr(xi->dtype)}}));
    TFHOST_ASSIGN_OR_RETURN(ir::TensorRef two, ctx.Const("first_spatial", Tensor::Scalar<int32_t>(2)));
    TFHOST_ASSIGN_OR_RETURN(ir::TensorRef one, ctx.Const("step", Tensor::Scalar<int32_t>(1)));
    const ir::AttrMap range_attrs = {{"Tidx", TypeAttr(DType::kInt32)}};
    TFHOST_ASSIGN_OR_RETURN(ir::TensorRef axes, ctx.Helper("axes", "Range", {two, r, one}, range_attrs));
    return ctx.Emit(kMax ? "Max" : "Mean", {x, axes}, std::move(reduce_attrs), xi->dtype, ir::PartialShape::Unknown());
  }
  if (rank < 3) return ctx.Error("input has rank " + std::to_string(rank) + "; expected [N, C, spatial...]");
  std::vector<int64_t> axes;
  ir::PartialShape out = ir::PartialShape::Known({xi->shape.dim(0), xi->shape.dim(1)});
  for (int i = 2; i < rank; ++i) {
    axes.push_back(i);
    out.dims.push_back(1);
  }
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef axes_ref, ctx.Const("axes", Int64Vector(axes)));
  return ctx.Emit(kMax ? "Max" : "Mean", {x, axes_ref}, std::move(reduce_attrs), xi->dtype, out);
}

}  // namespace

MapFn FindConvMapper(const std::string& op_type) {
  static const auto* table = new std::map<std::string, MapFn>{
      {"Conv", MapConv},
      {"ConvTranspose", MapConvTranspose},
      {"MaxPool", MapMaxPool},
      {"AveragePool", MapAveragePool},
      {"GlobalAveragePool", MapGlobalPool<false>},
      {"GlobalMaxPool", MapGlobalPool<true>},
  };
  auto it = table->find(op_type);
  return it == table->end() ? nullptr : it->second;
}

}  // namespace tfhost::loaders::onnx
