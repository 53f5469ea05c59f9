// Shape functions of the math ops: element-wise ops keep or broadcast
// shapes, reductions and ArgMax/ArgMin drop (or keep as 1) their constant
// axes, and the matrix products check their contracted dimensions.
#include <algorithm>
#include <map>
#include <set>

#include "ops/shape_inference.h"

namespace tfhost::ops {

namespace {

// Sum, Mean, ...(input, reduction_indices) with keep_dims.
Status ReductionShape(ShapeContext& ctx) {
  const ir::PartialShape& in = ctx.input(0);
  auto keep_dims = ctx.AttrOr<bool>("keep_dims", false);
  if (!keep_dims.has_value()) return OkStatus();
  auto axes = ctx.InputInts(1);
  if (!axes.has_value()) {
    if (*keep_dims && in.rank_known()) ctx.set_output(0, ir::PartialShape::UnknownOfRank(in.rank()));
    return OkStatus();
  }
  if (!in.rank_known()) return OkStatus();
  std::set<int> reduced;
  for (int64_t a : *axes) {
    const int axis = NormalizeAxis(a, in.rank());
    if (axis < 0) {
      return ctx.Error("reduction axis " + std::to_string(a) + " is out of range for input shape " + in.ToString());
    }
    reduced.insert(axis);
  }
  std::vector<int64_t> dims;
  for (int i = 0; i < in.rank(); ++i) {
    if (!reduced.count(i)) {
      dims.push_back(in.dim(i));
    } else if (*keep_dims) {
      dims.push_back(1);
    }
  }
  ctx.set_output(0, ir::PartialShape::Known(std::move(dims)));
  return OkStatus();
}

// ArgMax/ArgMin(input, dimension): the axis disappears.
Status ArgReductionShape(ShapeContext& ctx) {
  const ir::PartialShape& in = ctx.input(0);
  auto axis_values = ctx.InputInts(1);
  if (!in.rank_known()) return OkStatus();
  if (in.rank() == 0) return ctx.Error("input must have rank >= 1, got a scalar");
  if (!axis_values.has_value() || axis_values->size() != 1) {
    ctx.set_output(0, ir::PartialShape::UnknownOfRank(in.rank() - 1));
    return OkStatus();
  }
  const int axis = NormalizeAxis((*axis_values)[0], in.rank());
  if (axis < 0) {
    return ctx.Error("dimension " + std::to_string((*axis_values)[0]) + " is out of range for input shape " +
                     in.ToString());
  }
  std::vector<int64_t> dims = in.dims;
  dims.erase(dims.begin() + axis);
  ctx.set_output(0, ir::PartialShape::Known(std::move(dims)));
  return OkStatus();
}

// The contracted dimension of a matrix product: both known and different is
// the classic shape error.
Status CheckInner(const ShapeContext& ctx, int64_t a_inner, int64_t b_inner, const ir::PartialShape& a,
                  const ir::PartialShape& b) {
  if (a_inner >= 0 && b_inner >= 0 && a_inner != b_inner) {
    return ctx.Error("inner dimensions differ: " + std::to_string(a_inner) + " vs " + std::to_string(b_inner) +
                     " (shapes " + a.ToString() + " and " + b.ToString() + ")");
  }
  return OkStatus();
}

// MatMul and _FusedMatMul (which adds a bias of the output's last dim).
Status MatMulShape(ShapeContext& ctx) {
  const ir::PartialShape& a = ctx.input(0);
  const ir::PartialShape& b = ctx.input(1);
  for (const auto* s : {&a, &b}) {
    if (s->rank_known() && s->rank() != 2) return ctx.Error("inputs must be matrices, got shape " + s->ToString());
  }
  const bool ta = ctx.AttrOr<bool>("transpose_a", false).value_or(false);
  const bool tb = ctx.AttrOr<bool>("transpose_b", false).value_or(false);
  const int64_t m = a.rank_known() ? a.dim(ta ? 1 : 0) : -1;
  const int64_t ka = a.rank_known() ? a.dim(ta ? 0 : 1) : -1;
  const int64_t kb = b.rank_known() ? b.dim(tb ? 1 : 0) : -1;
  const int64_t n = b.rank_known() ? b.dim(tb ? 0 : 1) : -1;
  TFHOST_RETURN_IF_ERROR(CheckInner(ctx, ka, kb, a, b));
  ctx.set_output(0, ir::PartialShape::Known({m, n}));
  return OkStatus();
}

// BatchMatMul (equal batch dims), BatchMatMulV2/V3 (broadcast batch dims).
Status BatchMatMulShape(ShapeContext& ctx, bool broadcast) {
  const ir::PartialShape& x = ctx.input(0);
  const ir::PartialShape& y = ctx.input(1);
  for (const auto* s : {&x, &y}) {
    if (s->rank_known() && s->rank() < 2) {
      return ctx.Error("inputs must have rank >= 2, got shape " + s->ToString());
    }
  }
  if (!x.rank_known() || !y.rank_known()) return OkStatus();
  const bool adj_x = ctx.AttrOr<bool>("adj_x", false).value_or(false);
  const bool adj_y = ctx.AttrOr<bool>("adj_y", false).value_or(false);
  const int rx = x.rank(), ry = y.rank();
  const int64_t m = x.dim(adj_x ? rx - 1 : rx - 2);
  const int64_t kx = x.dim(adj_x ? rx - 2 : rx - 1);
  const int64_t ky = y.dim(adj_y ? ry - 1 : ry - 2);
  const int64_t n = y.dim(adj_y ? ry - 2 : ry - 1);
  TFHOST_RETURN_IF_ERROR(CheckInner(ctx, kx, ky, x, y));
  ir::PartialShape bx = ir::PartialShape::Known(std::vector<int64_t>(x.dims.begin(), x.dims.end() - 2));
  ir::PartialShape by = ir::PartialShape::Known(std::vector<int64_t>(y.dims.begin(), y.dims.end() - 2));
  auto batch = broadcast ? ir::BroadcastPartialShapes(bx, by) : ir::MergeShapes(bx, by);
  if (!batch.ok()) return ctx.Error("batch dimensions do not match: " + batch.status().message());
  std::vector<int64_t> dims = batch->dims;
  dims.push_back(m);
  dims.push_back(n);
  ctx.set_output(0, ir::PartialShape::Known(std::move(dims)));
  return OkStatus();
}

// Select(condition, t, e): t and e must agree; the condition may be a
// vector over the first dim, so it does not widen the result.
Status SelectShape(ShapeContext& ctx) {
  auto merged = ir::MergeShapes(ctx.input(1), ctx.input(2));
  if (!merged.ok()) return ctx.Error("'t' and 'e' must have the same shape: " + merged.status().message());
  ctx.set_output(0, std::move(*merged));
  return OkStatus();
}

// AddN: every input has the output's shape.
Status AddNShape(ShapeContext& ctx) {
  ir::PartialShape out;
  for (int i = 0; i < ctx.num_inputs(); ++i) {
    auto merged = ir::MergeShapes(out, ctx.input(i));
    if (!merged.ok()) return ctx.Error("inputs must have the same shape: " + merged.status().message());
    out = std::move(*merged);
  }
  ctx.set_output(0, std::move(out));
  return OkStatus();
}

// Einsum: explicit equations without "..." give each output label the size
// it has in the inputs (unknown when no input knows it); others stay unknown.
Status EinsumShape(ShapeContext& ctx) {
  auto eq = ctx.Attr<std::string>("equation");
  if (!eq || eq->find("...") != std::string::npos) return OkStatus();
  const size_t arrow = eq->find("->");
  if (arrow == std::string::npos) return OkStatus();
  std::map<char, int64_t> sizes;
  int operand = 0;
  size_t pos = 0;
  const std::string lhs = eq->substr(0, arrow);
  while (pos <= lhs.size()) {
    size_t comma = lhs.find(',', pos);
    std::string sub = lhs.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos);
    std::string labels;
    for (char c : sub) if (c != ' ') labels.push_back(c);
    const ir::PartialShape& in = ctx.input(operand);
    if (in.rank_known()) {
      if (in.rank() != static_cast<int>(labels.size())) {
        return ctx.Error("input " + std::to_string(operand) + " has rank " + std::to_string(in.rank()) +
                         " but subscripts '" + labels + "'");
      }
      for (size_t d = 0; d < labels.size(); ++d) {
        if (in.dim(static_cast<int>(d)) >= 0) sizes[labels[d]] = in.dim(static_cast<int>(d));
      }
    }
    ++operand;
    if (comma == std::string::npos) break;
    pos = comma + 1;
  }
  std::vector<int64_t> dims;
  for (char c : eq->substr(arrow + 2)) {
    if (c == ' ') continue;
    auto it = sizes.find(c);
    dims.push_back(it == sizes.end() ? -1 : it->second);
  }
  ctx.set_output(0, ir::PartialShape::Known(dims));
  return OkStatus();
}

}  // namespace

void RegisterMathShapeFns(ShapeFnRegistry& registry) {
  registry.Register({"Neg", "Abs", "Sign", "Square", "Round", "Rint", "Sqrt", "Rsqrt", "Exp", "Expm1", "Log",
                     "Log1p", "Reciprocal", "Inv", "Floor", "Ceil", "Sin", "Cos", "Tan", "Asin", "Acos", "Atan",
                     "Sinh", "Cosh", "Tanh", "Asinh", "Acosh", "Atanh", "Sigmoid", "Erf", "Erfc", "Lgamma",
                     "IsNan", "IsInf", "IsFinite", "LogicalNot", "Cast", "Softmax", "LogSoftmax", "Cumsum",
                     "Cumprod", "ClipByValue", "OnesLike", "ZerosLike"},
                    UnchangedShape);
  registry.Register({"Add", "AddV2", "Sub", "Mul", "Div", "RealDiv", "TruncateDiv", "FloorDiv", "FloorMod",
                     "TruncateMod", "Mod", "Maximum", "Minimum", "Pow", "SquaredDifference", "Atan2", "DivNoNan",
                     "BitwiseAnd", "BitwiseOr", "BitwiseXor", "LeftShift", "RightShift",
                     "MulNoNan", "Xlogy", "Xdivy", "Equal", "NotEqual", "Less", "LessEqual", "Greater",
                     "GreaterEqual", "LogicalAnd", "LogicalOr", "SelectV2"},
                    BroadcastingShape);
  registry.Register("Select", SelectShape);
  registry.Register("AddN", AddNShape);
  // The graph passes' fused element-wise chains broadcast all their inputs
  // together, as the ops they replace did one pair at a time.
  registry.Register("_TfhostFusedElementwise", BroadcastingShape);
  // Softmax(SelectV2(mask, logits, fill)): the three inputs' broadcast.
  registry.Register("_TfhostMaskedSoftmax", BroadcastingShape);
  registry.Register({"Sum", "Mean", "Prod", "Max", "Min", "EuclideanNorm", "Any", "All"}, ReductionShape);
  registry.Register({"ArgMax", "ArgMin"}, ArgReductionShape);
  registry.Register({"MatMul", "_FusedMatMul"}, MatMulShape);
  registry.Register("BatchMatMul", [](ShapeContext& ctx) { return BatchMatMulShape(ctx, false); });
  // _TfhostFusedBatchMatMul (passes/conv_bias_activation_fusion): its fused
  // addend broadcasts into the product, so the product's shape is the output.
  registry.Register({"BatchMatMulV2", "BatchMatMulV3", "_TfhostFusedBatchMatMul"},
                    [](ShapeContext& ctx) { return BatchMatMulShape(ctx, true); });
  registry.Register("Einsum", EinsumShape);
  // Bincount: [size]; DenseBincount: [size] or [batch, size] by input rank.
  registry.Register({"Bincount", "DenseBincount"}, [](ShapeContext& ctx) {
    auto size = ctx.InputInts(1);
    const int64_t n = size && size->size() == 1 && (*size)[0] >= 0 ? (*size)[0] : -1;
    const ir::PartialShape& in = ctx.input(0);
    if (ctx.node().op == "DenseBincount" && in.rank() == 2) {
      ctx.set_output(0, ir::PartialShape::Known({in.dim(0), n}));
    } else if (ctx.node().op == "Bincount" || in.rank() == 1) {
      ctx.set_output(0, ir::PartialShape::Known({n}));
    }
    return OkStatus();
  });
  // QuantizeV2: the values keep their shape; the ranges are scalars per
  // tensor (axis -1) or follow min_range per channel. Dequantize keeps shape.
  registry.Register("QuantizeV2", [](ShapeContext& ctx) {
    ctx.set_output(0, ctx.input(0));
    const int64_t axis = ctx.AttrOr<int64_t>("axis", -1).value_or(-1);
    // A channel axis of size 1 still gives scalar ranges (one slice).
    const ir::PartialShape& per_channel = ctx.input(1);
    const bool one_slice = per_channel.rank() == 1 && per_channel.dim(0) == 1;
    const ir::PartialShape range = axis < 0 || one_slice ? ir::PartialShape::Scalar()
                                   : per_channel.rank() == 1 && per_channel.dim(0) > 1 ? per_channel
                                                                                         : ir::PartialShape::Unknown();
    ctx.set_output(1, range);
    ctx.set_output(2, range);
    return OkStatus();
  });
  registry.Register({"Dequantize", "_TfhostAffineQuantize", "_TfhostAffineDequantize", "_TfhostRequantize"}, UnchangedShape);
  registry.Register({"QuantizeAndDequantizeV2", "QuantizeAndDequantizeV3", "QuantizeAndDequantizeV4"},
                    UnchangedShape);
}

}  // namespace tfhost::ops
