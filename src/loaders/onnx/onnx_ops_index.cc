// ArgMax, ArgMin, TopK and NonMaxSuppression: the ONNX ops that answer with
// positions; and
// ReverseSequence, which reverses each batch entry's first seq_lens steps
// along time_axis (TensorFlow's ReverseSequence with seq_dim = time_axis,
// batch_dim = batch_axis).
//
// ArgMax/ArgMin reduce one axis (keepdims keeps it as size 1) and return
// int64 positions; TensorFlow's ArgMax/ArgMin do the same without keepdims,
// and both pick the first of equal values, which is ONNX's default
// (select_last_index = 0). TopK (opset 11+) takes K as a one-element int64
// input; TensorFlow's TopKV2 takes the largest values along the last axis,
// sorted, and returns values and int64 indices; other axes, smallest values
// and unsorted results are refused by name. NonMaxSuppression runs as
// _TfhostBatchedNonMaxSuppression (ops/image/nms_ops.cc), with ONNX's
// defaults for absent inputs: no boxes kept, IoU threshold 0, no score
// threshold.
#include "loaders/onnx/onnx_ops.h"

namespace tfhost::loaders::onnx {

namespace {

template <bool kMax>
Status MapArgExtreme(const NodeContext& ctx) {
  TFHOST_ASSIGN_OR_RETURN(int64_t axis, ctx.Int("axis", 0));
  TFHOST_ASSIGN_OR_RETURN(int64_t keepdims, ctx.Int("keepdims", 1));
  TFHOST_ASSIGN_OR_RETURN(int64_t last, ctx.Int("select_last_index", 0));
  if (last != 0) return ctx.Unsupported("select_last_index = 1 (the last of equal values)");
  TFHOST_ASSIGN_OR_RETURN(int rank, ctx.Rank(0, kMax ? "ArgMax" : "ArgMin"));
  TFHOST_ASSIGN_OR_RETURN(int a, NormalizeAxis(ctx, axis, rank, "axis"));
  TFHOST_ASSIGN_OR_RETURN(const ValueInfo* xi, ctx.Info(0));
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef x, ctx.In(0));
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef dim, ctx.Const("axis", Tensor::Scalar<int32_t>(a)));
  ir::AttrMap attrs;
  attrs["output_type"] = TypeAttr(DType::kInt64);
  const char* op = kMax ? "ArgMax" : "ArgMin";
  ir::PartialShape out = ir::PartialShape::Known({});
  for (int i = 0; i < rank; ++i) {
    if (i != a) out.dims.push_back(xi->shape.dim(i));
  }
  if (keepdims == 0) return ctx.Emit(op, {x, dim}, std::move(attrs), DType::kInt64, out);
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef reduced, ctx.Helper(op, op, {x, dim}, std::move(attrs)));
  out.dims.insert(out.dims.begin() + a, 1);
  return ctx.Emit("ExpandDims", {reduced, dim}, {}, DType::kInt64, out);
}

Status MapTopK(const NodeContext& ctx) {
  TFHOST_ASSIGN_OR_RETURN(int64_t axis, ctx.Int("axis", -1));
  TFHOST_ASSIGN_OR_RETURN(int64_t largest, ctx.Int("largest", 1));
  TFHOST_ASSIGN_OR_RETURN(int64_t sorted, ctx.Int("sorted", 1));
  TFHOST_ASSIGN_OR_RETURN(int rank, ctx.Rank(0, "TopK"));
  TFHOST_ASSIGN_OR_RETURN(int a, NormalizeAxis(ctx, axis, rank, "axis"));
  if (a != rank - 1) return ctx.Unsupported("TopK along axis " + std::to_string(a) + " (the last axis is supported)");
  if (largest != 1) return ctx.Unsupported("largest = 0 (the smallest values)");
  if (sorted != 1) return ctx.Unsupported("sorted = 0");
  TFHOST_ASSIGN_OR_RETURN(const ValueInfo* xi, ctx.Info(0));
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef x, ctx.In(0));
  // K: a one-element int64 tensor; TopKV2 wants a scalar.
  ir::TensorRef k;
  int64_t k_value = -1;
  TFHOST_ASSIGN_OR_RETURN(std::optional<Tensor> k_const, ctx.ConstIn(1));
  if (k_const.has_value()) {
    TFHOST_ASSIGN_OR_RETURN(std::vector<int64_t> kv, ctx.ConstInts(1, "K"));
    if (kv.size() != 1 || kv[0] < 0) return ctx.Error("K must hold one non-negative value");
    k_value = kv[0];
    TFHOST_ASSIGN_OR_RETURN(k, ctx.Const("k", Tensor::Scalar<int64_t>(k_value)));
  } else {
    TFHOST_ASSIGN_OR_RETURN(ir::TensorRef k_in, ctx.In(1));
    TFHOST_ASSIGN_OR_RETURN(ir::TensorRef scalar, ctx.Const("scalar_shape", Int64Vector({})));
    TFHOST_ASSIGN_OR_RETURN(k, ctx.Helper("k", "Reshape", {k_in, scalar}));
  }
  ir::AttrMap attrs;
  attrs["sorted"] = BoolAttr(true);
  attrs["Tk"] = TypeAttr(DType::kInt64);
  attrs["index_type"] = TypeAttr(DType::kInt64);
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef top, ctx.Helper("TopKV2", "TopKV2", {x, k}, std::move(attrs)));
  ir::PartialShape out = xi->shape;
  if (out.rank() > 0) out.dims.back() = k_value;
  TFHOST_RETURN_IF_ERROR(ctx.BindOutput(0, top, xi->dtype, out));
  if (ctx.node->output_size() > 1 && !ctx.node->output(1).empty()) {
    TFHOST_RETURN_IF_ERROR(ctx.BindOutput(1, ir::TensorRef{top.node, 1}, DType::kInt64, out));
  }
  return OkStatus();
}

Status MapReverseSequence(const NodeContext& ctx) {
  TFHOST_ASSIGN_OR_RETURN(int64_t batch_axis, ctx.Int("batch_axis", 1));
  TFHOST_ASSIGN_OR_RETURN(int64_t time_axis, ctx.Int("time_axis", 0));
  if (!((batch_axis == 0 && time_axis == 1) || (batch_axis == 1 && time_axis == 0))) {
    return ctx.Error("batch_axis and time_axis must be 0 and 1, in either order; got " + std::to_string(batch_axis) +
                     " and " + std::to_string(time_axis));
  }
  TFHOST_ASSIGN_OR_RETURN(const ValueInfo* xi, ctx.Info(0));
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef x, ctx.In(0));
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef lens, ctx.In(1));
  ir::AttrMap attrs;
  attrs["seq_dim"] = IntAttr(time_axis);
  attrs["batch_dim"] = IntAttr(batch_axis);
  attrs["Tlen"] = TypeAttr(DType::kInt64);
  return ctx.Emit("ReverseSequence", {x, lens}, std::move(attrs), xi->dtype, xi->shape);
}

// A one-value input as a scalar of `dtype`: the constant `fallback` when the
// input is absent.
template <typename T>
StatusOr<ir::TensorRef> ScalarInput(const NodeContext& ctx, int i, T fallback, const std::string& what) {
  if (!ctx.Has(i)) return ctx.Const(what, Tensor::Scalar<T>(fallback));
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef in, ctx.In(i));
  if (ctx.InType(i) != DType::kInvalid && ctx.InType(i) != DTypeOf<T>::value) {
    return ctx.Error(what + " must be " + DTypeName(DTypeOf<T>::value) + ", got " + DTypeName(ctx.InType(i)));
  }
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef scalar, ctx.Const(what + "_shape", Int64Vector({})));
  return ctx.Helper(what, "Reshape", {in, scalar});
}

Status MapNonMaxSuppression(const NodeContext& ctx) {
  TFHOST_ASSIGN_OR_RETURN(int64_t center_point_box, ctx.Int("center_point_box", 0));
  if (center_point_box != 0 && center_point_box != 1) {
    return ctx.Error("center_point_box must be 0 or 1, got " + std::to_string(center_point_box));
  }
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef boxes, ctx.In(0));
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef scores, ctx.In(1));
  for (int i : {0, 1}) {
    if (ctx.InType(i) != DType::kFloat) {
      return ctx.Unsupported("input " + std::to_string(i) + " of type " + DTypeName(ctx.InType(i)) +
                             " (float32 boxes and scores are supported)");
    }
  }
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef max_out, ScalarInput<int64_t>(ctx, 2, 0, "max_output_boxes_per_class"));
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef iou, ScalarInput<float>(ctx, 3, 0.0f, "iou_threshold"));
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef score, ScalarInput<float>(ctx, 4, 0.0f, "score_threshold"));
  ir::AttrMap attrs;
  attrs["center_point_box"] = IntAttr(center_point_box);
  attrs["has_score_threshold"] = BoolAttr(ctx.Has(4));
  return ctx.Emit("_TfhostBatchedNonMaxSuppression", {boxes, scores, max_out, iou, score}, std::move(attrs),
                  DType::kInt64, ir::PartialShape::Known({-1, 3}));
}

}  // namespace

MapFn FindIndexMapper(const std::string& op_type) {
  if (op_type == "ReverseSequence") return MapReverseSequence;
  if (op_type == "ArgMax") return MapArgExtreme<true>;
  if (op_type == "ArgMin") return MapArgExtreme<false>;
  if (op_type == "TopK") return MapTopK;
  if (op_type == "NonMaxSuppression") return MapNonMaxSuppression;
  return nullptr;
}

}  // namespace tfhost::loaders::onnx
