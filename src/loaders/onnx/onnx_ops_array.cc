// Shape and data-movement ops: Reshape, Flatten, Transpose, Concat,
// Squeeze/Unsqueeze, Shape, Size, Gather, Expand, Tile, Constant,
// ConstantOfShape, Range. Slice and Pad are in onnx_ops_slice.cc.
#include <algorithm>
#include <map>

#include "loaders/onnx/onnx_ops.h"
#include "loaders/onnx/onnx_tensor.h"

namespace tfhost::loaders::onnx {

namespace {

// The output shape a constant Reshape target gives, resolving -1 when the
// input's element count is known.
ir::PartialShape ReshapedShape(const ir::PartialShape& in, std::vector<int64_t> dims) {
  const int64_t total = in.NumElements();
  int64_t known = 1, unknown_at = -1;
  for (size_t i = 0; i < dims.size(); ++i) {
    if (dims[i] < 0) unknown_at = static_cast<int64_t>(i);
    else known *= dims[i];
  }
  if (unknown_at >= 0) dims[unknown_at] = (total >= 0 && known > 0) ? total / known : -1;
  return ir::PartialShape::Known(std::move(dims));
}

// Reshape: a 0 in the target copies the input's dimension at that index
// (unless allowzero); -1 is inferred, as TensorFlow's Reshape does. Zeros
// the load cannot resolve are replaced at run time from Shape(x).
Status MapReshape(const NodeContext& ctx) {
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef x, ctx.In(0));
  TFHOST_ASSIGN_OR_RETURN(const ValueInfo* xi, ctx.Info(0));
  TFHOST_ASSIGN_OR_RETURN(int64_t allowzero, ctx.Int("allowzero", 0));
  TFHOST_ASSIGN_OR_RETURN(std::optional<Tensor> target, ctx.ConstIn(1));
  if (target.has_value()) {
    TFHOST_ASSIGN_OR_RETURN(std::vector<int64_t> dims, ctx.ConstInts(1, "shape"));
    bool unresolved = false;
    int minus_ones = 0;
    for (size_t i = 0; i < dims.size(); ++i) {
      if (dims[i] < -1) return ctx.Error("shape holds " + std::to_string(dims[i]) + "; expected >= -1");
      minus_ones += dims[i] == -1;
      if (dims[i] != 0 || allowzero) continue;
      const int64_t d = static_cast<int>(i) < xi->rank() ? xi->shape.dim(static_cast<int>(i)) : -1;
      if (d >= 0) dims[i] = d;
      else unresolved = true;
    }
    if (minus_ones > 1) return ctx.Error("shape has more than one -1");
    if (!unresolved) {
      TFHOST_ASSIGN_OR_RETURN(ir::TensorRef s, ctx.Const("shape", Int64Vector(dims)));
      return ctx.Emit("Reshape", {x, s}, {}, xi->dtype, ReshapedShape(xi->shape, dims));
    }
  }
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef s, ctx.In(1));
  TFHOST_ASSIGN_OR_RETURN(const ValueInfo* si, ctx.Info(1));
  const ir::PartialShape out = si->rank() == 1 && si->shape.dim(0) >= 0
                                   ? ir::PartialShape::UnknownOfRank(static_cast<int>(si->shape.dim(0)))
                                   : ir::PartialShape::Unknown();
  if (allowzero) return ctx.Emit("Reshape", {x, s}, {}, xi->dtype, out);
  // target[i] == 0 ? shape(x)[i] : target[i], with shape(x) padded by zeros
  // to the target's length.
  if (si->dtype != DType::kInt64) return ctx.Unsupported("a shape computed at run time that is not int64");
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef xs, ShapeOf(ctx, x, "input_shape"));
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef len, ShapeOf(ctx, s, "target_len"));
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef zero, ctx.Const("zero", Tensor::Scalar<int64_t>(0)));
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef zeros, ctx.Helper("zeros", "Fill", {len, zero}));
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef axis0, ctx.Const("axis0", Tensor::Scalar<int32_t>(0)));
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef padded, ctx.Helper("padded", "ConcatV2", {xs, zeros, axis0}));
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef begin, ctx.Const("begin", Int64Vector({0})));
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef head, ctx.Helper("head", "Slice", {padded, begin, len}));
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef is_zero, ctx.Helper("is_zero", "Equal", {s, zero}));
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef resolved, ctx.Helper("resolved", "SelectV2", {is_zero, head, s}));
  return ctx.Emit("Reshape", {x, resolved}, {}, xi->dtype, out);
}

// Flatten to 2-D around `axis`: [prod(d[:axis]), prod(d[axis:])].
Status MapFlatten(const NodeContext& ctx) {
  TFHOST_ASSIGN_OR_RETURN(int rank, ctx.Rank(0, "Flatten"));
  TFHOST_ASSIGN_OR_RETURN(int64_t axis_attr, ctx.Int("axis", 1));
  if (axis_attr < -rank || axis_attr > rank) return ctx.Error("axis " + std::to_string(axis_attr) + " is out of range for rank " + std::to_string(rank));
  const int axis = static_cast<int>(axis_attr < 0 ? axis_attr + rank : axis_attr);
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef x, ctx.In(0));
  TFHOST_ASSIGN_OR_RETURN(const ValueInfo* xi, ctx.Info(0));
  auto product = [&](int from, int to) {
    int64_t p = 1;
    for (int i = from; i < to; ++i) {
      if (xi->shape.dim(i) < 0) return int64_t{-1};
      p *= xi->shape.dim(i);
    }
    return p;
  };
  const int64_t left = product(0, axis), right = product(axis, rank);
  if (left >= 0 || right >= 0) {
    std::vector<int64_t> dims = {left >= 0 ? left : -1, left >= 0 && right < 0 ? -1 : right};
    TFHOST_ASSIGN_OR_RETURN(ir::TensorRef s, ctx.Const("shape", Int64Vector(dims)));
    return ctx.Emit("Reshape", {x, s}, {}, xi->dtype, ir::PartialShape::Known({left, right}));
  }
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef xs, ShapeOf(ctx, x, "input_shape"));
  ir::AttrMap keep;
  keep["keep_dims"] = BoolAttr(true);
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef axis0, ctx.Const("axis0", Tensor::Scalar<int32_t>(0)));
  std::vector<ir::TensorRef> parts;
  for (auto [from, to, name] : {std::tuple{0, axis, "left"}, std::tuple{axis, rank, "right"}}) {
    TFHOST_ASSIGN_OR_RETURN(ir::TensorRef b, ctx.Const(std::string(name) + "_begin", Int64Vector({from})));
    TFHOST_ASSIGN_OR_RETURN(ir::TensorRef n, ctx.Const(std::string(name) + "_size", Int64Vector({to - from})));
    TFHOST_ASSIGN_OR_RETURN(ir::TensorRef dims, ctx.Helper(std::string(name) + "_dims", "Slice", {xs, b, n}));
    TFHOST_ASSIGN_OR_RETURN(ir::TensorRef p, ctx.Helper(name, "Prod", {dims, axis0}, keep));
    parts.push_back(p);
  }
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef s, ctx.Helper("shape", "ConcatV2", {parts[0], parts[1], axis0}));
  return ctx.Emit("Reshape", {x, s}, {}, xi->dtype, ir::PartialShape::UnknownOfRank(2));
}

Status MapTranspose(const NodeContext& ctx) {
  TFHOST_ASSIGN_OR_RETURN(const ValueInfo* xi, ctx.Info(0));
  TFHOST_ASSIGN_OR_RETURN(std::vector<int64_t> perm, ctx.Ints("perm"));
  if (ctx.Attr("perm") == nullptr) {
    TFHOST_ASSIGN_OR_RETURN(int rank, ctx.Rank(0, "Transpose without perm"));
    for (int i = rank - 1; i >= 0; --i) perm.push_back(i);
  }
  ir::PartialShape out = ir::PartialShape::UnknownOfRank(static_cast<int>(perm.size()));
  if (xi->rank() >= 0) {
    if (static_cast<int>(perm.size()) != xi->rank()) return ctx.Error("perm has " + std::to_string(perm.size()) + " entries for rank " + std::to_string(xi->rank()));
    for (size_t i = 0; i < perm.size(); ++i) {
      if (perm[i] < 0 || perm[i] >= xi->rank()) return ctx.Error("perm holds " + std::to_string(perm[i]));
      out.dims[i] = xi->shape.dim(static_cast<int>(perm[i]));
    }
  }
  // The layout changes a tf2onnx CNN starts and ends with: NHWC -> NCHW of
  // a tensor is that tensor's NHWC form, and NCHW -> NHWC of a value held
  // as NHWC is that form itself (onnx_graph_builder.h), so neither moves
  // any data.
  if (perm == std::vector<int64_t>{0, 3, 1, 2} && !ctx.IsNhwc(0)) {
    TFHOST_ASSIGN_OR_RETURN(ir::TensorRef x, ctx.In(0));
    return ctx.EmitNhwc("Identity", {x}, {}, xi->dtype, out);
  }
  if (perm == std::vector<int64_t>{0, 2, 3, 1} && ctx.IsNhwc(0)) {
    TFHOST_ASSIGN_OR_RETURN(ir::TensorRef x, ctx.InNhwc(0));
    return ctx.BindOutput(0, x, xi->dtype, out);
  }
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef x, ctx.In(0));
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef p, ctx.Const("perm", Int64Vector(perm)));
  return ctx.Emit("Transpose", {x, p}, {}, xi->dtype, out);
}

Status MapConcat(const NodeContext& ctx) {
  TFHOST_ASSIGN_OR_RETURN(int64_t axis, ctx.Int("axis", INT64_MIN));
  if (axis == INT64_MIN) return ctx.Error("attribute 'axis' is required");
  std::vector<ir::TensorRef> inputs;
  ir::PartialShape out = ir::PartialShape::Unknown();
  DType dtype = DType::kInvalid;
  bool normalized = false;  // the axis, against the first input of known rank
  for (int i = 0; i < ctx.node->input_size(); ++i) {
    TFHOST_ASSIGN_OR_RETURN(ir::TensorRef r, ctx.In(i));
    TFHOST_ASSIGN_OR_RETURN(const ValueInfo* vi, ctx.Info(i));
    inputs.push_back(r);
    if (i == 0) {
      out = vi->shape;
      dtype = vi->dtype;
    } else if (out.rank() < 0) {
      // Stays unknown; a later input of known rank still fixes the axis.
    } else if (vi->rank() == out.rank() && axis >= 0) {
      const int64_t a = out.dim(static_cast<int>(axis)), b = vi->shape.dim(static_cast<int>(axis));
      out.dims[axis] = a >= 0 && b >= 0 ? a + b : -1;
    } else {
      out = ir::PartialShape::UnknownOfRank(out.rank());
    }
    if (!normalized && vi->rank() >= 0) {
      TFHOST_ASSIGN_OR_RETURN(int a, NormalizeAxis(ctx, axis, vi->rank(), "axis"));
      axis = a;
      normalized = true;
    }
  }
  if (inputs.empty()) return ctx.Error("needs at least one input");
  if (inputs.size() == 1) return ctx.BindOutput(0, inputs[0], dtype, out);
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef a, ctx.Const("axis", Tensor::Scalar<int32_t>(static_cast<int32_t>(axis))));
  inputs.push_back(a);
  return ctx.Emit("ConcatV2", std::move(inputs), {}, dtype, out);
}

Status MapSqueeze(const NodeContext& ctx) {
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef x, ctx.In(0));
  TFHOST_ASSIGN_OR_RETURN(const ValueInfo* xi, ctx.Info(0));
  std::vector<int64_t> axes;
  if (ctx.Has(1)) {
    TFHOST_ASSIGN_OR_RETURN(axes, ctx.ConstInts(1, "axes"));
  }
  ir::PartialShape out = ir::PartialShape::Unknown();
  if (xi->rank() >= 0) {
    std::vector<bool> drop(xi->rank(), false);
    for (int64_t& a : axes) {
      TFHOST_ASSIGN_OR_RETURN(int n, NormalizeAxis(ctx, a, xi->rank(), "axis"));
      if (xi->shape.dim(n) > 1) return ctx.Error("axis " + std::to_string(a) + " has size " + std::to_string(xi->shape.dim(n)) + "; only size-1 axes can be squeezed");
      a = n;
      drop[n] = true;
    }
    bool known = true;
    out = ir::PartialShape::Known({});
    for (int i = 0; i < xi->rank(); ++i) {
      if (axes.empty()) {
        known &= xi->shape.dim(i) >= 0;
        if (xi->shape.dim(i) != 1) out.dims.push_back(xi->shape.dim(i));
      } else if (!drop[i]) {
        out.dims.push_back(xi->shape.dim(i));
      }
    }
    if (!known) out = ir::PartialShape::Unknown();
  }
  // Without axes both squeeze every size-1 dimension.
  ir::AttrMap attrs;
  attrs["squeeze_dims"] = IntListAttr(axes);
  return ctx.Emit("Squeeze", {x}, std::move(attrs), xi->dtype, out);
}

// Unsqueeze: each axis is a position in the output; inserting them in
// ascending order with ExpandDims puts every one where it belongs.
Status MapUnsqueeze(const NodeContext& ctx) {
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef x, ctx.In(0));
  TFHOST_ASSIGN_OR_RETURN(const ValueInfo* xi, ctx.Info(0));
  TFHOST_ASSIGN_OR_RETURN(std::vector<int64_t> axes, ctx.ConstInts(1, "axes"));
  if (axes.empty()) return ctx.Error("axes is empty");
  const bool negative = std::any_of(axes.begin(), axes.end(), [](int64_t a) { return a < 0; });
  int out_rank = xi->rank() >= 0 ? xi->rank() + static_cast<int>(axes.size()) : -1;
  if (negative && out_rank < 0) {
    TFHOST_RETURN_IF_ERROR(ctx.Rank(0, "Unsqueeze with negative axes").status());
  }
  for (int64_t& a : axes) {
    if (a < 0) a += out_rank;
    if (a < 0 || (out_rank >= 0 && a >= out_rank)) return ctx.Error("axis out of range for output rank " + std::to_string(out_rank));
  }
  std::sort(axes.begin(), axes.end());
  if (std::adjacent_find(axes.begin(), axes.end()) != axes.end()) return ctx.Error("axes holds a duplicate");
  ir::PartialShape out = ir::PartialShape::Unknown();
  if (out_rank >= 0) {
    out = xi->shape;
    for (int64_t a : axes) out.dims.insert(out.dims.begin() + a, 1);
  }
  // One Reshape when the result's shape is known but for at most one dim.
  if (out_rank >= 0 && std::count_if(out.dims.begin(), out.dims.end(), [](int64_t d) { return d < 0; }) <= 1) {
    TFHOST_ASSIGN_OR_RETURN(ir::TensorRef s, ctx.Const("shape", Int64Vector(out.dims)));
    return ctx.Emit("Reshape", {x, s}, {}, xi->dtype, out);
  }
  for (size_t i = 0; i < axes.size(); ++i) {
    TFHOST_ASSIGN_OR_RETURN(ir::TensorRef a, ctx.Const("axis_" + std::to_string(i), Tensor::Scalar<int32_t>(static_cast<int32_t>(axes[i]))));
    if (i + 1 == axes.size()) return ctx.Emit("ExpandDims", {x, a}, {}, xi->dtype, out);
    TFHOST_ASSIGN_OR_RETURN(x, ctx.Helper("expand_" + std::to_string(i), "ExpandDims", {x, a}));
  }
  return OkStatus();
}

// Shape, optionally sliced by start/end (opset 15); a constant at load when
// the input's shape is fully known.
Status MapShape(const NodeContext& ctx) {
  TFHOST_ASSIGN_OR_RETURN(const ValueInfo* xi, ctx.Info(0));
  TFHOST_ASSIGN_OR_RETURN(int64_t start, ctx.Int("start", 0));
  TFHOST_ASSIGN_OR_RETURN(int64_t end, ctx.Int("end", INT64_MAX));
  const bool sliced = ctx.Attr("start") != nullptr || ctx.Attr("end") != nullptr;
  if (xi->shape.IsFullyDefined() || (xi->constant.has_value())) {
    const std::vector<int64_t> dims = xi->constant ? xi->constant->shape().dims() : xi->shape.dims;
    const int64_t r = static_cast<int64_t>(dims.size());
    auto clamp = [r](int64_t v) { return std::clamp<int64_t>(v < 0 ? v + r : v, 0, r); };
    const int64_t b = clamp(start), e = std::max(clamp(end), clamp(start));
    return ctx.b->BindConstant(ctx.node->output(0), Int64Vector(std::vector<int64_t>(dims.begin() + b, dims.begin() + e)));
  }
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef x, ctx.In(0));
  ir::AttrMap attrs;
  attrs["out_type"] = TypeAttr(DType::kInt64);
  if (!sliced) {
    return ctx.Emit("Shape", {x}, std::move(attrs), DType::kInt64,
                    ir::PartialShape::Known({xi->rank() >= 0 ? xi->rank() : -1}));
  }
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef full, ctx.Helper("full", "Shape", {x}, std::move(attrs)));
  // Python slicing of the shape vector, which StridedSlice clamps the same way.
  ir::AttrMap slice;
  int64_t mask = 0;
  if (end >= (int64_t{1} << 31)) mask = 1, end = 0;
  slice["end_mask"] = IntAttr(mask);
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef b, ctx.Const("start", Int64Vector({start})));
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef e, ctx.Const("end", Int64Vector({end})));
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef s, ctx.Const("step", Int64Vector({1})));
  return ctx.Emit("StridedSlice", {full, b, e, s}, std::move(slice), DType::kInt64, ir::PartialShape::Known({-1}));
}

Status MapSize(const NodeContext& ctx) {
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef x, ctx.In(0));
  ir::AttrMap attrs;
  attrs["out_type"] = TypeAttr(DType::kInt64);
  return ctx.Emit("Size", {x}, std::move(attrs), DType::kInt64, ir::PartialShape::Scalar());
}

// Gather along `axis`; ONNX allows negative indices (counted from the end),
// which TensorFlow's GatherV2 refuses, so they are wrapped first: at load
// for constant indices, else in the graph.
Status MapGather(const NodeContext& ctx) {
  TFHOST_ASSIGN_OR_RETURN(const ValueInfo* di, ctx.Info(0));
  TFHOST_ASSIGN_OR_RETURN(const ValueInfo* ii, ctx.Info(1));
  TFHOST_ASSIGN_OR_RETURN(int64_t axis, ctx.Int("axis", 0));
  TFHOST_ASSIGN_OR_RETURN(int rank, ctx.Rank(0, "Gather"));
  TFHOST_ASSIGN_OR_RETURN(int a, NormalizeAxis(ctx, axis, rank, "axis"));
  const int64_t dim = di->shape.dim(a);
  ir::PartialShape out = ir::PartialShape::Unknown();
  if (ii->rank() >= 0) {
    out = ir::PartialShape::Known({});
    for (int i = 0; i < a; ++i) out.dims.push_back(di->shape.dim(i));
    for (int64_t d : ii->shape.dims) out.dims.push_back(d);
    for (int i = a + 1; i < rank; ++i) out.dims.push_back(di->shape.dim(i));
  }
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef x, ctx.In(0));
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef axis_ref, ctx.Const("axis", Tensor::Scalar<int32_t>(a)));
  ir::TensorRef idx;
  if (ii->constant.has_value() && (ii->dtype == DType::kInt64 || ii->dtype == DType::kInt32)) {
    TFHOST_ASSIGN_OR_RETURN(std::vector<int64_t> v, ii->constant->ToInt64Vector());
    bool negative = false;
    for (int64_t& k : v) {
      if (k >= 0) continue;
      if (dim < 0) negative = true;
      k += dim;
    }
    if (!negative) {
      TFHOST_ASSIGN_OR_RETURN(idx, ctx.Const("indices", Tensor::FromVector(v, ii->constant->shape())));
      if (di->constant.has_value() && di->dtype == DType::kInt64 && rank == 1) {
        // Shape arithmetic on constants is folded here so later ops see it.
        std::vector<int64_t> data = *di->constant->ToInt64Vector(), got;
        for (int64_t k : v) {
          if (k < 0 || k >= static_cast<int64_t>(data.size())) return ctx.Error("index " + std::to_string(k) + " is out of range");
          got.push_back(data[k]);
        }
        return ctx.b->BindConstant(ctx.node->output(0), Tensor::FromVector(got, ii->constant->shape()));
      }
      return ctx.Emit("GatherV2", {x, idx, axis_ref}, {}, di->dtype, out);
    }
  }
  TFHOST_ASSIGN_OR_RETURN(idx, ctx.In(1));
  const DType it = ii->dtype == DType::kInt32 ? DType::kInt32 : DType::kInt64;
  ir::AttrMap shape_attrs;
  shape_attrs["out_type"] = TypeAttr(it);
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef xs, ctx.Helper("data_shape", "Shape", {x}, std::move(shape_attrs)));
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef zero_axis, ctx.Const("axis0", Tensor::Scalar<int32_t>(0)));
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef at, ctx.Const("dim_index", Tensor::Scalar<int32_t>(a)));
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef n, ctx.Helper("dim", "GatherV2", {xs, at, zero_axis}));
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef zero, ctx.Const("zero", it == DType::kInt32 ? Tensor::Scalar<int32_t>(0) : Tensor::Scalar<int64_t>(0)));
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef neg, ctx.Helper("is_negative", "Less", {idx, zero}));
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef wrapped, ctx.Helper("wrapped", "AddV2", {idx, n}));
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef fixed, ctx.Helper("indices", "SelectV2", {neg, wrapped, idx}));
  return ctx.Emit("GatherV2", {x, fixed, axis_ref}, {}, di->dtype, out);
}

// Expand broadcasts both ways (a 1 in the target keeps the input's size),
// so the target is first broadcast with the input's shape.
Status MapExpand(const NodeContext& ctx) {
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef x, ctx.In(0));
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef s, ctx.In(1));
  TFHOST_ASSIGN_OR_RETURN(const ValueInfo* xi, ctx.Info(0));
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef xs, ShapeOf(ctx, x, "input_shape"));
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef target, ctx.Helper("target", "BroadcastArgs", {xs, s}));
  return ctx.Emit("BroadcastTo", {x, target}, {}, xi->dtype, ir::PartialShape::Unknown());
}

Status MapTile(const NodeContext& ctx) {
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef x, ctx.In(0));
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef r, ctx.In(1));
  TFHOST_ASSIGN_OR_RETURN(const ValueInfo* xi, ctx.Info(0));
  return ctx.Emit("Tile", {x, r}, {}, xi->dtype,
                  xi->rank() >= 0 ? ir::PartialShape::UnknownOfRank(xi->rank()) : ir::PartialShape::Unknown());
}

Status MapRange(const NodeContext& ctx) {
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef start, ctx.In(0));
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef limit, ctx.In(1));
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef delta, ctx.In(2));
  return ctx.Emit("Range", {start, limit, delta}, {}, ctx.InType(0), ir::PartialShape::Known({-1}));
}

// Constant: exactly one of value, value_float(s), value_int(s).
Status MapConstant(const NodeContext& ctx) {
  const std::string& name = ctx.node->output(0);
  if (const auto* a = ctx.Attr("value")) {
    if (!a->has_t()) return ctx.Error("attribute 'value' holds no tensor");
    TFHOST_ASSIGN_OR_RETURN(Tensor t, DecodeTensor(a->t(), ctx.b->model_dir(), ctx.where + " attribute 'value'"));
    return ctx.b->BindConstant(name, std::move(t));
  }
  if (const auto* a = ctx.Attr("value_float")) return ctx.b->BindConstant(name, Tensor::Scalar(a->f()));
  if (const auto* a = ctx.Attr("value_int")) return ctx.b->BindConstant(name, Tensor::Scalar<int64_t>(a->i()));
  if (const auto* a = ctx.Attr("value_floats")) {
    return ctx.b->BindConstant(name, Tensor::FromVector(std::vector<float>(a->floats().begin(), a->floats().end())));
  }
  if (const auto* a = ctx.Attr("value_ints")) {
    return ctx.b->BindConstant(name, Int64Vector(std::vector<int64_t>(a->ints().begin(), a->ints().end())));
  }
  return ctx.Unsupported("a Constant without value, value_float(s) or value_int(s) (sparse and string values are not read)");
}

// ConstantOfShape: Fill(shape, value), value a one-element tensor (float 0 by default).
Status MapConstantOfShape(const NodeContext& ctx) {
  Tensor value = Tensor::Scalar(0.0f);
  if (const auto* a = ctx.Attr("value")) {
    TFHOST_ASSIGN_OR_RETURN(Tensor t, DecodeTensor(a->t(), ctx.b->model_dir(), ctx.where + " attribute 'value'"));
    if (t.NumElements() != 1) return ctx.Error("attribute 'value' must hold one element, got " + t.shape().ToString());
    TFHOST_ASSIGN_OR_RETURN(value, t.Reshaped(Shape()));
  }
  const DType dtype = value.dtype();
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef s, ctx.In(0));
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef v, ctx.Const("value", std::move(value)));
  // The output's rank is the shape vector's length, which is often known
  // when its values are not (a Concat of Shape slices).
  TFHOST_ASSIGN_OR_RETURN(const ValueInfo* si, ctx.Info(0));
  ir::PartialShape out = ir::PartialShape::Unknown();
  if (si->constant.has_value()) {
    TFHOST_ASSIGN_OR_RETURN(std::vector<int64_t> dims, si->constant->ToInt64Vector());
    out = ir::PartialShape::Known(dims);
  } else if (si->rank() == 1 && si->shape.dim(0) >= 0) {
    out = ir::PartialShape::Known(std::vector<int64_t>(si->shape.dim(0), -1));
  }
  return ctx.Emit("Fill", {s, v}, {}, dtype, out);
}

}  // namespace

MapFn FindArrayMapper(const std::string& op_type) {
  if (MapFn f = FindSliceMapper(op_type)) return f;
  static const auto* table = new std::map<std::string, MapFn>{
      {"Reshape", MapReshape},
      {"Flatten", MapFlatten},
      {"Transpose", MapTranspose},
      {"Concat", MapConcat},
      {"Squeeze", MapSqueeze},
      {"Unsqueeze", MapUnsqueeze},
      {"Shape", MapShape},
      {"Size", MapSize},
      {"Gather", MapGather},
      {"Expand", MapExpand},
      {"Tile", MapTile},
      {"Range", MapRange},
      {"Constant", MapConstant},
      {"ConstantOfShape", MapConstantOfShape},
  };
  auto it = table->find(op_type);
  return it == table->end() ? nullptr : it->second;
}

}  // namespace tfhost::loaders::onnx
