// Slice (the inputs form of opset 10+) as StridedSlice, Pad as PadV2 /
// MirrorPad, and Split as SplitV.
#include <algorithm>
#include <map>

#include "loaders/onnx/onnx_ops.h"

namespace tfhost::loaders::onnx {

namespace {

// Bounds at or past this magnitude mean "to the end" (exporters write
// INT64_MAX / INT64_MIN, or INT32 limits); they become StridedSlice masks so
// no huge value reaches index arithmetic.
constexpr int64_t kOpenBound = int64_t{1} << 31;

// The number of elements Python slicing [s:e:st] takes from a dimension of
// size n (-1 when n is unknown), with ONNX's clamping, which is Python's.
int64_t SliceLength(int64_t n, int64_t s, int64_t e, int64_t st) {
  if (n < 0) return -1;
  auto clamp = [&](int64_t v, bool is_end) {
    if (v < 0) v += n;
    if (st > 0) return std::clamp<int64_t>(v, 0, n);
    return std::clamp<int64_t>(v, -1, is_end ? n - 1 : n - 1);
  };
  const int64_t b = clamp(s, false), f = clamp(e, true);
  if (st > 0) return b < f ? (f - b + st - 1) / st : 0;
  return b > f ? (b - f - st - 1) / -st : 0;
}

Status MapSlice(const NodeContext& ctx) {
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef x, ctx.In(0));
  TFHOST_ASSIGN_OR_RETURN(const ValueInfo* xi, ctx.Info(0));
  const int rank = xi->rank();
  std::vector<int64_t> axes, steps;
  if (ctx.Has(3)) {
    TFHOST_ASSIGN_OR_RETURN(axes, ctx.ConstInts(3, "axes"));
  }
  if (ctx.Has(4)) {
    TFHOST_ASSIGN_OR_RETURN(steps, ctx.ConstInts(4, "steps"));
  }
  TFHOST_ASSIGN_OR_RETURN(std::optional<Tensor> starts_c, ctx.ConstIn(1));
  TFHOST_ASSIGN_OR_RETURN(std::optional<Tensor> ends_c, ctx.ConstIn(2));
  TFHOST_ASSIGN_OR_RETURN(const ValueInfo* si, ctx.Info(1));
  int64_t count = starts_c ? starts_c->NumElements() : (si->rank() == 1 ? si->shape.dim(0) : -1);
  if (count < 0 && !axes.empty()) count = static_cast<int64_t>(axes.size());
  if (count < 0) return ctx.Unsupported("starts whose length is not known at load");
  if (axes.empty()) {
    for (int64_t i = 0; i < count; ++i) axes.push_back(i);
  }
  if (steps.empty()) steps.assign(count, 1);
  if (static_cast<int64_t>(axes.size()) != count || static_cast<int64_t>(steps.size()) != count) {
    return ctx.Error("starts, axes and steps have different lengths");
  }
  for (int64_t& a : axes) {
    if (a < 0) {
      if (rank < 0) {
        TFHOST_RETURN_IF_ERROR(ctx.Rank(0, "Slice with negative axes").status());
      }
      a += rank;
    }
    if (a < 0 || (rank >= 0 && a >= rank)) return ctx.Error("axis out of range for rank " + std::to_string(rank));
  }
  for (int64_t st : steps) {
    if (st == 0) return ctx.Error("a step is 0");
  }
  const int64_t span = axes.empty() ? 0 : *std::max_element(axes.begin(), axes.end()) + 1;
  if (span > 62) return ctx.Unsupported("slicing axis " + std::to_string(span - 1) + " (masks hold 62 axes)");
  ir::PartialShape out = rank >= 0 ? ir::PartialShape::UnknownOfRank(rank) : ir::PartialShape::Unknown();
  ir::AttrMap attrs;
  if (starts_c && ends_c) {
    TFHOST_ASSIGN_OR_RETURN(std::vector<int64_t> starts, starts_c->ToInt64Vector());
    TFHOST_ASSIGN_OR_RETURN(std::vector<int64_t> ends, ends_c->ToInt64Vector());
    if (static_cast<int64_t>(ends.size()) != count) return ctx.Error("starts and ends have different lengths");
    // Axes not sliced take everything (both masks set, stride 1).
    std::vector<int64_t> b(span, 0), e(span, 0), s(span, 1);
    int64_t begin_mask = (int64_t{1} << span) - 1, end_mask = begin_mask;
    if (rank >= 0) out = xi->shape;
    std::vector<bool> seen(span, false);
    for (int64_t i = 0; i < count; ++i) {
      const int64_t a = axes[i], st = steps[i];
      const int64_t bit = int64_t{1} << a;
      if (seen[a]) return ctx.Error("axis " + std::to_string(a) + " is listed twice");
      seen[a] = true;
      s[a] = st;
      b[a] = starts[i];
      e[a] = ends[i];
      const bool open_begin = st > 0 ? starts[i] <= -kOpenBound : starts[i] >= kOpenBound - 1;
      const bool open_end = st > 0 ? ends[i] >= kOpenBound - 1 : ends[i] <= -kOpenBound;
      if (open_begin) b[a] = 0; else begin_mask &= ~bit;
      if (open_end) e[a] = 0; else end_mask &= ~bit;
      // Huge in-range-looking bounds are clamped like Python's.
      b[a] = std::clamp<int64_t>(b[a], -kOpenBound, kOpenBound);
      e[a] = std::clamp<int64_t>(e[a], -kOpenBound, kOpenBound);
      if (rank >= 0) out.dims[a] = SliceLength(xi->shape.dim(static_cast<int>(a)), starts[i], ends[i], st);
    }
    attrs["begin_mask"] = IntAttr(begin_mask);
    attrs["end_mask"] = IntAttr(end_mask);
    TFHOST_ASSIGN_OR_RETURN(ir::TensorRef br, ctx.Const("begin", Int64Vector(b)));
    TFHOST_ASSIGN_OR_RETURN(ir::TensorRef er, ctx.Const("end", Int64Vector(e)));
    TFHOST_ASSIGN_OR_RETURN(ir::TensorRef sr, ctx.Const("strides", Int64Vector(s)));
    return ctx.Emit("StridedSlice", {x, br, er, sr}, std::move(attrs), xi->dtype, out);
  }
  // Bounds computed at run time go in as they are: that needs the axes to be
  // 0..count-1 in order, so the vectors line up with the dimensions.
  for (int64_t i = 0; i < count; ++i) {
    if (axes[i] != i) return ctx.Unsupported("starts/ends computed at run time on axes other than 0..n-1 in order");
  }
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef br, ctx.In(1));
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef er, ctx.In(2));
  if (ctx.InType(1) != ctx.InType(2)) return ctx.Unsupported("starts and ends of different types");
  Tensor strides = ctx.InType(1) == DType::kInt32 ? Tensor::FromVector(std::vector<int32_t>(steps.begin(), steps.end()))
                                                  : Int64Vector(steps);
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef sr, ctx.Const("strides", std::move(strides)));
  return ctx.Emit("StridedSlice", {x, br, er, sr}, {}, xi->dtype, out);
}

// Pad: pads are [begin_0, ..., begin_n-1, end_0, ..., end_n-1] (over `axes`
// from opset 18); TensorFlow wants [[begin, end], ...] per dimension.
Status MapPad(const NodeContext& ctx) {
  TFHOST_ASSIGN_OR_RETURN(std::string mode, ctx.String("mode", "constant"));
  TFHOST_ASSIGN_OR_RETURN(const ValueInfo* xi, ctx.Info(0));
  if (mode != "constant" && mode != "reflect") return ctx.Unsupported("mode '" + mode + "' (constant and reflect are supported)");
  TFHOST_ASSIGN_OR_RETURN(std::optional<Tensor> pads_c, ctx.ConstIn(1));
  // A convolution's NHWC output is padded as it is (the rows reordered).
  const bool nhwc = ctx.IsNhwc(0) && xi->rank() == 4 && pads_c.has_value();
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef x, nhwc ? ctx.InNhwc(0) : ctx.In(0));
  ir::TensorRef paddings;
  if (pads_c.has_value()) {
    TFHOST_ASSIGN_OR_RETURN(std::vector<int64_t> pads, ctx.ConstInts(1, "pads"));
    if (pads.size() % 2 != 0) return ctx.Error("pads has an odd number of entries (" + std::to_string(pads.size()) + ")");
    const int n = static_cast<int>(pads.size() / 2);
    std::vector<int64_t> axes;
    if (ctx.Has(3)) {
      TFHOST_ASSIGN_OR_RETURN(axes, ctx.ConstInts(3, "axes"));
    } else {
      for (int i = 0; i < n; ++i) axes.push_back(i);
    }
    if (static_cast<int>(axes.size()) != n) return ctx.Error("pads has " + std::to_string(pads.size()) + " entries for " + std::to_string(axes.size()) + " axes");
    int rank = xi->rank();
    if (rank < 0 && !ctx.Has(3)) rank = n;
    if (rank < 0) {
      TFHOST_ASSIGN_OR_RETURN(rank, ctx.Rank(0, "Pad with axes"));
    }
    if (!ctx.Has(3) && n != rank) return ctx.Error("pads has " + std::to_string(pads.size()) + " entries; the input has rank " + std::to_string(rank));
    std::vector<int64_t> flat(2 * rank, 0);
    for (int i = 0; i < n; ++i) {
      TFHOST_ASSIGN_OR_RETURN(int a, NormalizeAxis(ctx, axes[i], rank, "axis"));
      if (pads[i] < 0 || pads[i + n] < 0) return ctx.Unsupported("negative pads (cropping)");
      flat[2 * a] = pads[i];
      flat[2 * a + 1] = pads[i + n];
    }
    if (nhwc) flat = {flat[0], flat[1], flat[4], flat[5], flat[6], flat[7], flat[2], flat[3]};
    TFHOST_ASSIGN_OR_RETURN(paddings, ctx.Const("paddings", Tensor::FromVector(flat, Shape({rank, 2}))));
  } else {
    if (ctx.Has(3)) return ctx.Unsupported("pads computed at run time together with axes");
    TFHOST_ASSIGN_OR_RETURN(ir::TensorRef p, ctx.In(1));
    TFHOST_ASSIGN_OR_RETURN(ir::TensorRef two_rows, ctx.Const("two_rows", Int64Vector({2, -1})));
    TFHOST_ASSIGN_OR_RETURN(ir::TensorRef rows, ctx.Helper("pad_rows", "Reshape", {p, two_rows}));
    TFHOST_ASSIGN_OR_RETURN(ir::TensorRef perm, ctx.Const("perm", Int32Vector({1, 0})));
    TFHOST_ASSIGN_OR_RETURN(paddings, ctx.Helper("paddings", "Transpose", {rows, perm}));
  }
  const ir::PartialShape out = xi->rank() >= 0 ? ir::PartialShape::UnknownOfRank(xi->rank()) : ir::PartialShape::Unknown();
  auto emit = [&](const std::string& op, std::vector<ir::TensorRef> inputs, ir::AttrMap attrs) {
    return nhwc ? ctx.EmitNhwc(op, std::move(inputs), std::move(attrs), xi->dtype, out)
                : ctx.Emit(op, std::move(inputs), std::move(attrs), xi->dtype, out);
  };
  if (mode == "reflect") {
    ir::AttrMap attrs;
    attrs["mode"] = StringAttr("REFLECT");
    return emit("MirrorPad", {x, paddings}, std::move(attrs));
  }
  if (!ctx.Has(2)) return emit("Pad", {x, paddings}, {});
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef value, ctx.In(2));
  TFHOST_ASSIGN_OR_RETURN(const ValueInfo* vi, ctx.Info(2));
  if (vi->rank() > 0) {
    // A one-element vector; PadV2 wants a scalar.
    TFHOST_ASSIGN_OR_RETURN(ir::TensorRef scalar, ctx.Const("scalar_shape", Int64Vector({})));
    TFHOST_ASSIGN_OR_RETURN(value, ctx.Helper("constant_value", "Reshape", {value, scalar}));
  }
  return emit("PadV2", {x, paddings, value}, {});
}

// Split into the sizes of input 1, or equal parts (num_outputs from
// opset 18, else the number of outputs); a short last part as ONNX allows.
Status MapSplit(const NodeContext& ctx) {
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef x, ctx.In(0));
  TFHOST_ASSIGN_OR_RETURN(const ValueInfo* xi, ctx.Info(0));
  TFHOST_ASSIGN_OR_RETURN(int64_t axis, ctx.Int("axis", 0));
  const int parts = ctx.node->output_size();
  std::vector<int64_t> sizes;
  // With explicit sizes the rank may stay unknown: TensorFlow's SplitV
  // takes a negative axis as it is.
  int a = static_cast<int>(axis);
  if (xi->rank() >= 0) {
    TFHOST_ASSIGN_OR_RETURN(a, NormalizeAxis(ctx, axis, xi->rank(), "axis"));
  } else if (axis < -64 || axis >= 64) {
    return ctx.Error("axis " + std::to_string(axis) + " is out of range for any tensor");
  }
  if (ctx.Has(1)) {
    TFHOST_ASSIGN_OR_RETURN(sizes, ctx.ConstInts(1, "split"));
  } else if (xi->rank() < 0 || xi->shape.dim(a) < 0) {
    // An even split of a size known only at run time: TensorFlow's Split,
    // which needs the size to divide evenly (ONNX would make the last part
    // shorter; such a split fails at run time, naming the node).
    TFHOST_ASSIGN_OR_RETURN(ir::TensorRef ax, ctx.Const("axis", Tensor::Scalar<int32_t>(a)));
    ir::AttrMap attrs;
    attrs["num_split"] = IntAttr(parts);
    TFHOST_ASSIGN_OR_RETURN(ir::TensorRef y, ctx.Helper("split", "Split", {ax, x}, std::move(attrs)));
    for (int i = 0; i < parts; ++i) {
      TFHOST_RETURN_IF_ERROR(ctx.BindOutput(i, ir::TensorRef{y.node, i}, xi->dtype,
                                            xi->rank() >= 0 ? ir::PartialShape::UnknownOfRank(xi->rank())
                                                            : ir::PartialShape::Unknown()));
    }
    return OkStatus();
  } else {
    const int64_t dim = xi->shape.dim(a);
    const int64_t each = (dim + parts - 1) / parts;
    for (int i = 0; i < parts; ++i) sizes.push_back(std::max<int64_t>(0, std::min(each, dim - each * i)));
  }
  if (static_cast<int>(sizes.size()) != parts) return ctx.Error("split has " + std::to_string(sizes.size()) + " sizes for " + std::to_string(parts) + " outputs");
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef sz, ctx.Const("sizes", Int64Vector(sizes)));
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef ax, ctx.Const("axis", Tensor::Scalar<int32_t>(a)));
  ir::AttrMap attrs;
  attrs["num_split"] = IntAttr(parts);
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef y, ctx.Helper("split", "SplitV", {x, sz, ax}, std::move(attrs)));
  for (int i = 0; i < parts; ++i) {
    ir::PartialShape s = xi->shape;
    if (xi->rank() >= 0) s.dims[a] = sizes[i];
    TFHOST_RETURN_IF_ERROR(ctx.BindOutput(i, ir::TensorRef{y.node, i}, xi->dtype, s));
  }
  return OkStatus();
}

}  // namespace

MapFn FindSliceMapper(const std::string& op_type) {
  static const auto* table = new std::map<std::string, MapFn>{
      {"Slice", MapSlice},
      {"Pad", MapPad},
      {"Split", MapSplit},
  };
  auto it = table->find(op_type);
  return it == table->end() ? nullptr : it->second;
}

}  // namespace tfhost::loaders::onnx
