// Element-wise arithmetic (NumPy broadcasting, as TensorFlow's binary ops
// do), comparisons and logic, Cast, CumSum, and the Reduce* family.
#include <map>

#include "loaders/onnx/onnx_ops.h"
#include "loaders/onnx/onnx_tensor.h"

namespace tfhost::loaders::onnx {

namespace {

ir::PartialShape Broadcast(const ValueInfo& a, const ValueInfo& b) {
  auto s = ir::BroadcastPartialShapes(a.shape, b.shape);
  return s.ok() ? *s : ir::PartialShape::Unknown();
}

// A binary op: `op` on inputs 0 and 1; `out_dtype` kInvalid keeps input 0's.
// Whether operand `v` may meet an NHWC operand of the same NCHW shape
// without changing the result: the same shape, or a single element.
bool LayoutFree(const ValueInfo& v, const ValueInfo& other) {
  if (v.shape.rank_known() && v.shape.NumElements() == 1) return true;
  return v.shape.rank() == 4 && v.shape == other.shape && v.shape.IsFullyDefined();
}

// A constant that broadcasts over NCHW's channel dim only ([C, 1, 1],
// [1, C, 1, 1]) as the [C] it is in NHWC, where channels are last.
std::optional<Tensor> PerChannelInNhwc(const std::optional<Tensor>& v) {
  if (!v.has_value() || v->rank() < 3 || v->rank() > 4) return std::nullopt;
  const int shift = 4 - v->rank();
  for (int d = 0; d < v->rank(); ++d) {
    if (d + shift != 1 && v->dim(d) != 1) return std::nullopt;
  }
  auto flat = v->Reshaped(Shape({v->NumElements()}));
  return flat.ok() ? std::optional<Tensor>(*flat) : std::nullopt;
}

Status EmitBinary(const NodeContext& ctx, const std::string& op, DType out_dtype = DType::kInvalid) {
  TFHOST_ASSIGN_OR_RETURN(const ValueInfo* a, ctx.Info(0));
  TFHOST_ASSIGN_OR_RETURN(const ValueInfo* c, ctx.Info(1));
  if (a->dtype != DType::kInvalid && c->dtype != DType::kInvalid && a->dtype != c->dtype) {
    return ctx.Error("inputs have different types (" + DTypeName(a->dtype) + " and " + DTypeName(c->dtype) + ")");
  }
  const DType dtype = out_dtype == DType::kInvalid ? a->dtype : out_dtype;
  // An operand held only as NHWC (a convolution's output) stays so when the
  // other one is too, or is a single element: element-wise ops do not care
  // about the layout, so a residual Add between convolutions adds no
  // Transpose.
  if ((ctx.IsNhwc(0) || ctx.IsNhwc(1)) && (ctx.IsNhwc(0) || LayoutFree(*a, *c)) &&
      (ctx.IsNhwc(1) || LayoutFree(*c, *a))) {
    TFHOST_ASSIGN_OR_RETURN(ir::TensorRef x, ctx.IsNhwc(0) || a->shape.NumElements() != 1 ? ctx.InNhwc(0) : ctx.In(0));
    TFHOST_ASSIGN_OR_RETURN(ir::TensorRef y, ctx.IsNhwc(1) || c->shape.NumElements() != 1 ? ctx.InNhwc(1) : ctx.In(1));
    return ctx.EmitNhwc(op, {x, y}, {}, dtype, Broadcast(*a, *c));
  }
  // An NHWC operand and a per-channel constant (a batch norm tf2onnx did not
  // fold into the convolution).
  for (int k : {0, 1}) {
    if (!ctx.IsNhwc(k) || (k == 0 ? a : c)->rank() != 4) continue;
    TFHOST_ASSIGN_OR_RETURN(std::optional<Tensor> other, ctx.ConstIn(1 - k));
    std::optional<Tensor> channel = PerChannelInNhwc(other);
    if (!channel.has_value()) continue;
    TFHOST_ASSIGN_OR_RETURN(ir::TensorRef xn, ctx.InNhwc(k));
    TFHOST_ASSIGN_OR_RETURN(ir::TensorRef cn, ctx.Const("per_channel", *std::move(channel)));
    return ctx.EmitNhwc(op, k == 0 ? std::vector<ir::TensorRef>{xn, cn} : std::vector<ir::TensorRef>{cn, xn}, {},
                        dtype, Broadcast(*a, *c));
  }
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef x, ctx.In(0));
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef y, ctx.In(1));
  return ctx.Emit(op, {x, y}, {}, dtype, Broadcast(*a, *c));
}

template <const char* kOp>
Status MapBinary(const NodeContext& ctx) { return EmitBinary(ctx, kOp); }

template <const char* kOp>
Status MapCompare(const NodeContext& ctx) { return EmitBinary(ctx, kOp, DType::kBool); }

template <const char* kOp>
Status MapUnary(const NodeContext& ctx) { return EmitUnary(ctx, kOp); }

constexpr char kAddV2[] = "AddV2", kSub[] = "Sub", kMul[] = "Mul";
constexpr char kSqrt[] = "Sqrt", kExp[] = "Exp", kLog[] = "Log", kNeg[] = "Neg", kAbs[] = "Abs",
               kReciprocal[] = "Reciprocal", kFloor[] = "Floor", kCeil[] = "Ceil", kErf[] = "Erf", kSin[] = "Sin",
               kCos[] = "Cos", kSign[] = "Sign", kRound[] = "Round", kLogicalNot[] = "LogicalNot", kIdentity[] = "Identity";
constexpr char kEqual[] = "Equal", kLess[] = "Less", kGreater[] = "Greater", kLessEqual[] = "LessEqual",
               kGreaterEqual[] = "GreaterEqual", kLogicalAnd[] = "LogicalAnd", kLogicalOr[] = "LogicalOr";

// Integer division truncates toward zero in ONNX (as C does).
Status MapDiv(const NodeContext& ctx) { return EmitBinary(ctx, IsInteger(ctx.InType(0)) ? "TruncateDiv" : "RealDiv"); }

// ONNX lets the exponent have another type than the base; TensorFlow's Pow
// does not, so the exponent is cast to the base's type.
Status MapPow(const NodeContext& ctx) {
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef x, ctx.In(0));
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef y, ctx.In(1));
  TFHOST_ASSIGN_OR_RETURN(const ValueInfo* a, ctx.Info(0));
  TFHOST_ASSIGN_OR_RETURN(const ValueInfo* c, ctx.Info(1));
  if (a->dtype == DType::kInvalid) return ctx.Unsupported("the base's type is not known at load");
  if (c->dtype != a->dtype) {
    ir::AttrMap attrs;
    attrs["DstT"] = TypeAttr(a->dtype);
    TFHOST_ASSIGN_OR_RETURN(y, ctx.Helper("exponent", "Cast", {y}, std::move(attrs)));
  }
  return ctx.Emit("Pow", {x, y}, {}, a->dtype, Broadcast(*a, *c));
}

// Max, Min, Sum and Mean take any number of inputs, broadcast together.
template <int kKind>  // 0 Max, 1 Min, 2 Sum, 3 Mean
Status MapVariadic(const NodeContext& ctx) {
  static const char* kOps[] = {"Maximum", "Minimum", "AddV2", "AddV2"};
  const int n = ctx.node->input_size();
  if (n < 1) return ctx.Error("needs at least one input");
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef acc, ctx.In(0));
  TFHOST_ASSIGN_OR_RETURN(const ValueInfo* first, ctx.Info(0));
  ValueInfo info = *first;
  for (int i = 1; i < n; ++i) {
    TFHOST_ASSIGN_OR_RETURN(ir::TensorRef next, ctx.In(i));
    TFHOST_ASSIGN_OR_RETURN(const ValueInfo* ni, ctx.Info(i));
    info.shape = Broadcast(info, *ni);
    TFHOST_ASSIGN_OR_RETURN(acc, ctx.Helper("acc_" + std::to_string(i), kOps[kKind], {acc, next}));
  }
  if (kKind == 3 && n > 1) {
    if (info.dtype != DType::kFloat) return ctx.Unsupported("Mean of " + DTypeName(info.dtype) + " inputs");
    TFHOST_ASSIGN_OR_RETURN(ir::TensorRef count, ctx.Const("count", Tensor::Scalar(static_cast<float>(n))));
    return ctx.Emit("RealDiv", {acc, count}, {}, info.dtype, info.shape);
  }
  return ctx.BindOutput(0, acc, info.dtype, info.shape);
}

Status MapWhere(const NodeContext& ctx) {
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef c, ctx.In(0));
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef x, ctx.In(1));
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef y, ctx.In(2));
  TFHOST_ASSIGN_OR_RETURN(const ValueInfo* ci, ctx.Info(0));
  TFHOST_ASSIGN_OR_RETURN(const ValueInfo* xi, ctx.Info(1));
  TFHOST_ASSIGN_OR_RETURN(const ValueInfo* yi, ctx.Info(2));
  ValueInfo xy;
  xy.shape = Broadcast(*xi, *yi);
  return ctx.Emit("SelectV2", {c, x, y}, {}, xi->dtype, Broadcast(*ci, xy));
}

Status EmitCast(const NodeContext& ctx, DType to) {
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef x, ctx.In(0));
  TFHOST_ASSIGN_OR_RETURN(const ValueInfo* info, ctx.Info(0));
  if (to == DType::kString || info->dtype == DType::kString) return ctx.Unsupported("casts to or from STRING");
  ir::AttrMap attrs;
  attrs["DstT"] = TypeAttr(to);
  return ctx.Emit("Cast", {x}, std::move(attrs), to, info->shape);
}

Status MapCast(const NodeContext& ctx) {
  TFHOST_ASSIGN_OR_RETURN(int64_t to, ctx.Int("to", 0));
  const DType dtype = DTypeFromOnnx(static_cast<int32_t>(to));
  if (dtype == DType::kInvalid) return ctx.Unsupported("casts to " + OnnxTypeName(static_cast<int32_t>(to)));
  return EmitCast(ctx, dtype);
}

Status MapCastLike(const NodeContext& ctx) {
  const DType to = ctx.InType(1);
  if (to == DType::kInvalid) return ctx.Unsupported("the type of input 1 is not known at load");
  return EmitCast(ctx, to);
}

// The Reduce* family. Axes come from the `axes` attribute before the opset
// that made them an input (13 for ReduceSum, 18 for the others).
enum class Reduce { kSum, kMean, kMax, kMin, kProd, kSumSquare, kL1, kL2 };

template <Reduce kKind>
Status MapReduce(const NodeContext& ctx) {
  const int64_t input_from = kKind == Reduce::kSum ? 13 : 18;
  TFHOST_ASSIGN_OR_RETURN(const ValueInfo* info, ctx.Info(0));
  TFHOST_ASSIGN_OR_RETURN(int64_t keepdims, ctx.Int("keepdims", 1));
  TFHOST_ASSIGN_OR_RETURN(int64_t noop, ctx.Int("noop_with_empty_axes", 0));
  std::vector<int64_t> axes;
  if (ctx.opset >= input_from) {
    if (ctx.Has(1)) {
      TFHOST_ASSIGN_OR_RETURN(axes, ctx.ConstInts(1, "axes"));
    }
  } else {
    TFHOST_ASSIGN_OR_RETURN(axes, ctx.Ints("axes"));
  }
  if (axes.empty() && noop != 0) {
    TFHOST_ASSIGN_OR_RETURN(ir::TensorRef x, ctx.In(0));
    return ctx.BindOutput(0, x, info->dtype, info->shape);
  }
  ir::PartialShape out = ir::PartialShape::Unknown();
  ir::TensorRef axes_ref;
  const int rank = info->rank();
  if (axes.empty()) {
    if (rank < 0) return ctx.Unsupported("reducing every axis needs the input's rank, which is not known at load");
    for (int i = 0; i < rank; ++i) axes.push_back(i);
  }
  if (rank >= 0) {
    std::vector<bool> reduced(rank, false);
    for (int64_t& a : axes) {
      TFHOST_ASSIGN_OR_RETURN(int axis, NormalizeAxis(ctx, a, rank, "axis"));
      a = axis;
      reduced[axis] = true;
    }
    out = ir::PartialShape::Known({});
    for (int i = 0; i < rank; ++i) {
      if (!reduced[i]) out.dims.push_back(info->shape.dim(i));
      else if (keepdims) out.dims.push_back(1);
    }
  }
  // A convolution's NHWC output is reduced as it is, over the same dims in
  // NHWC positions, when the result is NHWC too (kept dims) or the dims left
  // come in the same order in both layouts (C reduced, or H and W: a global
  // pooling to [N, C]).
  bool nhwc = false;
  if (rank == 4 && ctx.IsNhwc(0)) {
    static constexpr int64_t kNhwcPosition[4] = {0, 3, 1, 2};
    std::vector<bool> reduced(4, false);
    for (int64_t a : axes) reduced[a] = true;
    nhwc = keepdims != 0 || reduced[1] || (reduced[2] && reduced[3]);
    if (nhwc) {
      for (int64_t& a : axes) a = kNhwcPosition[a];
    }
  }
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef x, nhwc ? ctx.InNhwc(0) : ctx.In(0));
  TFHOST_ASSIGN_OR_RETURN(axes_ref, ctx.Const("axes", Int64Vector(axes)));
  ir::AttrMap attrs;
  attrs["keep_dims"] = BoolAttr(keepdims != 0);
  static const std::map<Reduce, const char*> kOps = {
      {Reduce::kSum, "Sum"},       {Reduce::kMean, "Mean"}, {Reduce::kMax, "Max"}, {Reduce::kMin, "Min"},
      {Reduce::kProd, "Prod"},     {Reduce::kSumSquare, "Sum"}, {Reduce::kL1, "Sum"}, {Reduce::kL2, "Sum"}};
  const char* op = kOps.at(kKind);
  if (kKind == Reduce::kSumSquare || kKind == Reduce::kL2) {
    TFHOST_ASSIGN_OR_RETURN(x, ctx.Helper("square", "Square", {x}));
  } else if (kKind == Reduce::kL1) {
    TFHOST_ASSIGN_OR_RETURN(x, ctx.Helper("abs", "Abs", {x}));
  }
  auto emit = [&](const std::string& name, std::vector<ir::TensorRef> inputs, ir::AttrMap a) {
    return nhwc && keepdims != 0 ? ctx.EmitNhwc(name, std::move(inputs), std::move(a), info->dtype, out)
                                 : ctx.Emit(name, std::move(inputs), std::move(a), info->dtype, out);
  };
  if (kKind == Reduce::kL2) {
    TFHOST_ASSIGN_OR_RETURN(ir::TensorRef sum, ctx.Helper("sum", op, {x, axes_ref}, std::move(attrs)));
    return emit("Sqrt", {sum}, {});
  }
  return emit(op, {x, axes_ref}, std::move(attrs));
}

// CumSum is TensorFlow's Cumsum with the same exclusive/reverse flags; the
// axis input, 0-D in the spec, is taken as a scalar either way.
Status MapCumSum(const NodeContext& ctx) {
  TFHOST_ASSIGN_OR_RETURN(int64_t exclusive, ctx.Int("exclusive", 0));
  TFHOST_ASSIGN_OR_RETURN(int64_t reverse, ctx.Int("reverse", 0));
  TFHOST_ASSIGN_OR_RETURN(const ValueInfo* xi, ctx.Info(0));
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef x, ctx.In(0));
  ir::TensorRef axis;
  TFHOST_ASSIGN_OR_RETURN(std::optional<Tensor> axis_const, ctx.ConstIn(1));
  if (axis_const.has_value()) {
    TFHOST_ASSIGN_OR_RETURN(std::vector<int64_t> a, ctx.ConstInts(1, "axis"));
    if (a.size() != 1) return ctx.Error("axis must hold one value, got " + std::to_string(a.size()));
    int64_t normalized = a[0];
    if (xi->rank() >= 0) {
      TFHOST_ASSIGN_OR_RETURN(int n, NormalizeAxis(ctx, a[0], xi->rank(), "axis"));
      normalized = n;
    }
    TFHOST_ASSIGN_OR_RETURN(axis, ctx.Const("axis", Tensor::Scalar<int64_t>(normalized)));
  } else {
    TFHOST_ASSIGN_OR_RETURN(ir::TensorRef a, ctx.In(1));
    TFHOST_ASSIGN_OR_RETURN(ir::TensorRef scalar, ctx.Const("scalar_shape", Int64Vector({})));
    TFHOST_ASSIGN_OR_RETURN(axis, ctx.Helper("axis", "Reshape", {a, scalar}));
  }
  ir::AttrMap attrs;
  attrs["exclusive"] = BoolAttr(exclusive != 0);
  attrs["reverse"] = BoolAttr(reverse != 0);
  return ctx.Emit("Cumsum", {x, axis}, std::move(attrs), xi->dtype, xi->shape);
}

const std::map<std::string, MapFn>& Table() {
  static const auto* table = new std::map<std::string, MapFn>{
      {"Add", MapBinary<kAddV2>},
      {"Sub", MapBinary<kSub>},
      {"Mul", MapBinary<kMul>},
      {"Div", MapDiv},
      {"Pow", MapPow},
      {"Max", MapVariadic<0>},
      {"Min", MapVariadic<1>},
      {"Sum", MapVariadic<2>},
      {"Mean", MapVariadic<3>},
      {"Sqrt", MapUnary<kSqrt>},
      {"Exp", MapUnary<kExp>},
      {"Log", MapUnary<kLog>},
      {"Neg", MapUnary<kNeg>},
      {"Abs", MapUnary<kAbs>},
      {"Reciprocal", MapUnary<kReciprocal>},
      {"Floor", MapUnary<kFloor>},
      {"Ceil", MapUnary<kCeil>},
      {"Erf", MapUnary<kErf>},
      {"Sin", MapUnary<kSin>},
      {"Cos", MapUnary<kCos>},
      {"Sign", MapUnary<kSign>},
      // ONNX Round rounds halves to even, as TensorFlow's Round does.
      {"Round", MapUnary<kRound>},
      {"Not", MapUnary<kLogicalNot>},
      {"Identity", MapUnary<kIdentity>},
      {"Equal", MapCompare<kEqual>},
      {"Less", MapCompare<kLess>},
      {"Greater", MapCompare<kGreater>},
      {"LessOrEqual", MapCompare<kLessEqual>},
      {"GreaterOrEqual", MapCompare<kGreaterEqual>},
      {"And", MapCompare<kLogicalAnd>},
      {"Or", MapCompare<kLogicalOr>},
      {"Where", MapWhere},
      {"Cast", MapCast},
      {"CastLike", MapCastLike},
      {"CumSum", MapCumSum},
      {"ReduceSum", MapReduce<Reduce::kSum>},
      {"ReduceMean", MapReduce<Reduce::kMean>},
      {"ReduceMax", MapReduce<Reduce::kMax>},
      {"ReduceMin", MapReduce<Reduce::kMin>},
      {"ReduceProd", MapReduce<Reduce::kProd>},
      {"ReduceSumSquare", MapReduce<Reduce::kSumSquare>},
      {"ReduceL1", MapReduce<Reduce::kL1>},
      {"ReduceL2", MapReduce<Reduce::kL2>},
  };
  return *table;
}

}  // namespace

MapFn FindMathMapper(const std::string& op_type) {
  auto it = Table().find(op_type);
  return it == Table().end() ? nullptr : it->second;
}

}  // namespace tfhost::loaders::onnx
