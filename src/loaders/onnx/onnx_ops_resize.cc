// Resize (opset 13+) of a rank-4 NCHW tensor over H and W, in the forms
// TensorFlow's image ops compute exactly, on the NHWC form of the input:
//
// - tf_crop_and_resize: the `roi` box [h_start, w_start, h_end, w_end]
//   (normalized, as in the roi input's H and W entries) resized to `sizes`
//   on every image, with its extrapolation_value. Mode linear is
//   TensorFlow's CropAndResize of that box. Mode nearest follows ONNX's own
//   arithmetic, which CropAndResize's differs from (it rounds halves up, and
//   computes the source coordinate in another order): per axis, the source
//   coordinate of output index i is, in float32 and in this order,
//   start * (L - 1) + i * (end - start) * (L - 1) / (R - 1) (or
//   0.5 * (start + end) * (L - 1) when R is 1), rounded by nearest_mode;
//   rows and columns are gathered and coordinates outside [0, L - 1] take
//   the extrapolation value.
// - mode linear with half_pixel (or pytorch_half_pixel, the same unless an
//   output side is 1), align_corners or asymmetric coordinates:
//   ResizeBilinear with half_pixel_centers / align_corners / neither.
// - mode nearest with nearest_mode floor and asymmetric coordinates, or
//   tf_half_pixel_for_nn (what tf2onnx writes for TensorFlow's half-pixel
//   nearest): ResizeNearestNeighbor without / with half_pixel_centers;
//   align_corners with round_prefer_ceil: with align_corners.
//
// The output size comes from `sizes`, or from constant `scales` and an input
// of known H and W. Other modes (cubic, antialias, axes) are refused by name.
#include <cmath>

#include "loaders/onnx/onnx_ops.h"

namespace tfhost::loaders::onnx {

namespace {

// The output's [H, W]: a constant when known at load, else a run-time
// int32 tensor computed from `sizes`.
struct OutputSize {
  std::vector<int64_t> known;  // empty when computed at run time
  ir::TensorRef ref;
};

StatusOr<OutputSize> ReadOutputSize(const NodeContext& ctx, const ValueInfo& xi) {
  OutputSize out;
  if (ctx.Has(3)) {
    TFHOST_ASSIGN_OR_RETURN(std::optional<Tensor> sizes, ctx.ConstIn(3));
    if (sizes.has_value()) {
      TFHOST_ASSIGN_OR_RETURN(std::vector<int64_t> v, ctx.ConstInts(3, "sizes"));
      if (v.size() != 4) return ctx.Error("sizes has " + std::to_string(v.size()) + " entries; expected 4 (NCHW)");
      if (xi.shape.dim(0) >= 0 && v[0] != xi.shape.dim(0)) return ctx.Unsupported("resizing the batch dimension");
      if (xi.shape.dim(1) >= 0 && v[1] != xi.shape.dim(1)) return ctx.Unsupported("resizing the channel dimension");
      out.known = {v[2], v[3]};
    } else {
      // Run time: sizes[2:4] as int32.
      TFHOST_ASSIGN_OR_RETURN(ir::TensorRef s, ctx.In(3));
      TFHOST_ASSIGN_OR_RETURN(ir::TensorRef begin, ctx.Const("hw_begin", Int32Vector({2})));
      TFHOST_ASSIGN_OR_RETURN(ir::TensorRef size, ctx.Const("hw_size", Int32Vector({2})));
      TFHOST_ASSIGN_OR_RETURN(ir::TensorRef hw, ctx.Helper("hw_sizes", "Slice", {s, begin, size}));
      ir::AttrMap cast;
      cast["DstT"] = TypeAttr(DType::kInt32);
      TFHOST_ASSIGN_OR_RETURN(out.ref, ctx.Helper("hw_sizes_int32", "Cast", {hw}, std::move(cast)));
      return out;
    }
  } else if (ctx.Has(2)) {
    TFHOST_ASSIGN_OR_RETURN(std::optional<Tensor> scales, ctx.ConstIn(2));
    if (!scales.has_value() || scales->dtype() != DType::kFloat || scales->NumElements() != 4) {
      return ctx.Unsupported("scales that are not 4 constant floats");
    }
    const float* s = scales->data<float>();
    if (s[0] != 1.0f || s[1] != 1.0f) return ctx.Unsupported("scaling the batch or channel dimension");
    if (xi.shape.dim(2) < 0 || xi.shape.dim(3) < 0) {
      return ctx.Unsupported("scales on an input whose height and width are not known at load");
    }
    // ONNX: output = floor(input * scale).
    out.known = {static_cast<int64_t>(std::floor(xi.shape.dim(2) * static_cast<double>(s[2]))),
                 static_cast<int64_t>(std::floor(xi.shape.dim(3) * static_cast<double>(s[3])))};
  } else {
    return ctx.Error("needs scales or sizes");
  }
  if (out.known[0] < 1 || out.known[1] < 1) return ctx.Error("resizes to an empty output");
  TFHOST_ASSIGN_OR_RETURN(out.ref, ctx.Const("size", Int32Vector({static_cast<int32_t>(out.known[0]),
                                                                   static_cast<int32_t>(out.known[1])})));
  return out;
}

// The nearest source index along one axis of a tf_crop_and_resize Resize,
// and whether it falls inside the input: see the file comment. `length` and
// `resized` are int32 scalars (the input's and output's size on the axis),
// `start` and `end` float32 scalars.
struct CropAxis {
  ir::TensorRef index;   // int32 [resized], clamped into [0, length - 1]
  ir::TensorRef inside;  // bool [resized]
};

StatusOr<CropAxis> NearestCropAxis(const NodeContext& ctx, ir::TensorRef length, ir::TensorRef resized,
                                   ir::TensorRef start, ir::TensorRef end, const std::string& nearest_mode,
                                   const std::string& axis) {
  auto h = [&](const std::string& name, const std::string& op, std::vector<ir::TensorRef> in,
               ir::AttrMap attrs = {}) { return ctx.Helper(axis + "_" + name, op, std::move(in), std::move(attrs)); };
  auto to = [&](const std::string& name, ir::TensorRef x, DType dtype) {
    ir::AttrMap cast;
    cast["DstT"] = TypeAttr(dtype);
    return h(name, "Cast", {x}, std::move(cast));
  };
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef zero_i, ctx.Const(axis + "_zero_int", Tensor::Scalar<int32_t>(0)));
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef one_i, ctx.Const(axis + "_one_int", Tensor::Scalar<int32_t>(1)));
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef zero, ctx.Const(axis + "_zero", Tensor::Scalar<float>(0.0f)));
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef half, ctx.Const(axis + "_half", Tensor::Scalar<float>(0.5f)));
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef steps, h("steps", "Range", {zero_i, resized, one_i}));
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef i, to("steps_float", steps, DType::kFloat));
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef last_i, h("last", "Sub", {length, one_i}));
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef last, to("last_float", last_i, DType::kFloat));
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef span_i, h("resized_last", "Sub", {resized, one_i}));
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef span, to("resized_last_float", span_i, DType::kFloat));
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef extent, h("extent", "Sub", {end, start}));
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef offset, h("offset", "Mul", {start, last}));
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef a, h("step_extent", "Mul", {i, extent}));
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef b, h("step_pixels", "Mul", {a, last}));
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef c, h("step_scaled", "RealDiv", {b, span}));
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef spread, h("spread", "AddV2", {offset, c}));
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef middle_sum, h("middle_sum", "AddV2", {start, end}));
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef middle_half, h("middle_half", "Mul", {half, middle_sum}));
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef middle, h("middle", "Mul", {middle_half, last}));
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef several, h("several", "Greater", {resized, one_i}));
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef source, h("source", "SelectV2", {several, spread, middle}));
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef above, h("not_below", "GreaterEqual", {source, zero}));
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef below, h("not_above", "LessEqual", {source, last}));
  CropAxis out;
  TFHOST_ASSIGN_OR_RETURN(out.inside, h("inside", "LogicalAnd", {above, below}));
  // Rounding, for the coordinates that count (those >= 0, where
  // x - floor(x) is exact): floor + 1 when the fraction is past one half
  // (round_prefer_floor) or at least one half (round_prefer_ceil).
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef down, h("floor", "Floor", {source}));
  ir::TensorRef rounded;
  if (nearest_mode == "floor") {
    rounded = down;
  } else if (nearest_mode == "ceil") {
    TFHOST_ASSIGN_OR_RETURN(rounded, h("ceil", "Ceil", {source}));
  } else {
    TFHOST_ASSIGN_OR_RETURN(ir::TensorRef fraction, h("fraction", "Sub", {source, down}));
    TFHOST_ASSIGN_OR_RETURN(ir::TensorRef up, h("rounds_up", nearest_mode == "round_prefer_ceil" ? "GreaterEqual"
                                                                                                 : "Greater",
                                                {fraction, half}));
    TFHOST_ASSIGN_OR_RETURN(ir::TensorRef up_f, to("rounds_up_float", up, DType::kFloat));
    TFHOST_ASSIGN_OR_RETURN(rounded, h("rounded", "AddV2", {down, up_f}));
  }
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef low, h("clamp_low", "Maximum", {rounded, zero}));
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef clamped, h("clamped", "Minimum", {low, last}));
  TFHOST_ASSIGN_OR_RETURN(out.index, to("index", clamped, DType::kInt32));
  return out;
}

// Resize with tf_crop_and_resize and mode nearest, on the NHWC form: see
// the file comment.
Status EmitNearestCrop(const NodeContext& ctx, const ValueInfo& xi, const OutputSize& size, ir::TensorRef roi,
                       const std::string& nearest_mode, float extrapolation, const ir::PartialShape& out) {
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef image, ctx.InNhwc(0));
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef axis0, ctx.Const("axis0", Tensor::Scalar<int32_t>(0)));
  ir::AttrMap cast;
  cast["DstT"] = TypeAttr(DType::kFloat);
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef roi_f, ctx.Helper("roi_float", "Cast", {roi}, std::move(cast)));
  auto roi_at = [&](int k) -> StatusOr<ir::TensorRef> {
    TFHOST_ASSIGN_OR_RETURN(ir::TensorRef at, ctx.Const("roi_index" + std::to_string(k), Tensor::Scalar<int32_t>(k)));
    return ctx.Helper("roi" + std::to_string(k), "GatherV2", {roi_f, at, axis0});
  };
  ir::AttrMap shape_attrs;
  shape_attrs["out_type"] = TypeAttr(DType::kInt32);
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef image_shape, ctx.Helper("image_shape", "Shape", {image}, std::move(shape_attrs)));
  std::vector<ir::TensorRef> picked;
  const char* names[] = {"height", "width"};
  for (int axis = 0; axis < 2; ++axis) {
    // NHWC: H is dimension 1, W dimension 2; the roi's NCHW starts are
    // entries 0-3 and its ends 4-7.
    TFHOST_ASSIGN_OR_RETURN(ir::TensorRef dim_at, ctx.Const(std::string(names[axis]) + "_dim", Tensor::Scalar<int32_t>(axis + 1)));
    TFHOST_ASSIGN_OR_RETURN(ir::TensorRef length,
                            ctx.Helper(std::string(names[axis]) + "_length", "GatherV2", {image_shape, dim_at, axis0}));
    TFHOST_ASSIGN_OR_RETURN(ir::TensorRef out_at, ctx.Const(std::string(names[axis]) + "_out_dim", Tensor::Scalar<int32_t>(axis)));
    TFHOST_ASSIGN_OR_RETURN(ir::TensorRef resized, ctx.Helper(std::string(names[axis]) + "_resized", "GatherV2",
                                                              {size.ref, out_at, axis0}));
    TFHOST_ASSIGN_OR_RETURN(ir::TensorRef start, roi_at(2 + axis));
    TFHOST_ASSIGN_OR_RETURN(ir::TensorRef end, roi_at(6 + axis));
    TFHOST_ASSIGN_OR_RETURN(CropAxis a, NearestCropAxis(ctx, length, resized, start, end, nearest_mode, names[axis]));
    TFHOST_ASSIGN_OR_RETURN(image, ctx.Helper(std::string(names[axis]) + "_gathered", "GatherV2",
                                              {image, a.index, dim_at}));
    std::vector<int32_t> placed = {1, 1, 1, 1};
    placed[axis + 1] = -1;
    TFHOST_ASSIGN_OR_RETURN(ir::TensorRef placed_shape, ctx.Const(std::string(names[axis]) + "_mask_shape", Int32Vector(placed)));
    TFHOST_ASSIGN_OR_RETURN(ir::TensorRef mask, ctx.Helper(std::string(names[axis]) + "_mask", "Reshape",
                                                           {a.inside, placed_shape}));
    picked.push_back(mask);
  }
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef inside, ctx.Helper("inside", "LogicalAnd", {picked[0], picked[1]}));
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef fill_f, ctx.Const("extrapolation", Tensor::Scalar<float>(extrapolation)));
  ir::TensorRef fill = fill_f;
  if (xi.dtype != DType::kFloat) {
    ir::AttrMap back;
    back["DstT"] = TypeAttr(xi.dtype);
    TFHOST_ASSIGN_OR_RETURN(fill, ctx.Helper("extrapolation_cast", "Cast", {fill_f}, std::move(back)));
  }
  return ctx.EmitNhwc("SelectV2", {inside, image, fill}, {}, xi.dtype, out);
}

Status MapResize(const NodeContext& ctx) {
  TFHOST_ASSIGN_OR_RETURN(std::string mode, ctx.String("mode", "nearest"));
  TFHOST_ASSIGN_OR_RETURN(std::string coords, ctx.String("coordinate_transformation_mode", "half_pixel"));
  TFHOST_ASSIGN_OR_RETURN(std::string nearest_mode, ctx.String("nearest_mode", "round_prefer_floor"));
  TFHOST_ASSIGN_OR_RETURN(int64_t antialias, ctx.Int("antialias", 0));
  TFHOST_ASSIGN_OR_RETURN(std::vector<int64_t> axes, ctx.Ints("axes"));
  TFHOST_ASSIGN_OR_RETURN(int64_t exclude_outside, ctx.Int("exclude_outside", 0));
  if (antialias != 0) return ctx.Unsupported("antialias");
  if (!axes.empty()) return ctx.Unsupported("the axes attribute");
  if (exclude_outside != 0) return ctx.Unsupported("exclude_outside");
  if (mode != "linear" && mode != "nearest") return ctx.Unsupported("mode '" + mode + "' (linear and nearest are)");
  TFHOST_ASSIGN_OR_RETURN(int rank, ctx.Rank(0, "Resize"));
  if (rank != 4) return ctx.Unsupported("resizing a rank-" + std::to_string(rank) + " tensor (rank 4, NCHW, is)");
  TFHOST_ASSIGN_OR_RETURN(const ValueInfo* xi, ctx.Info(0));
  TFHOST_ASSIGN_OR_RETURN(OutputSize size, ReadOutputSize(ctx, *xi));
  const ir::PartialShape out = ir::PartialShape::Known(
      {xi->shape.dim(0), xi->shape.dim(1), size.known.empty() ? -1 : size.known[0],
       size.known.empty() ? -1 : size.known[1]});

  if (coords == "tf_crop_and_resize") {
    TFHOST_ASSIGN_OR_RETURN(std::optional<Tensor> roi_c, ctx.ConstIn(1));
    TFHOST_ASSIGN_OR_RETURN(ir::TensorRef roi, ctx.In(1));
    if (roi_c.has_value() && roi_c->NumElements() != 8) {
      return ctx.Error("roi has " + std::to_string(roi_c->NumElements()) + " values; expected 8 (NCHW starts, ends)");
    }
    if (mode == "nearest") {
      if (nearest_mode != "round_prefer_floor" && nearest_mode != "round_prefer_ceil" && nearest_mode != "floor" &&
          nearest_mode != "ceil") {
        return ctx.Error("nearest_mode must be round_prefer_floor, round_prefer_ceil, floor or ceil, got '" +
                         nearest_mode + "'");
      }
      TFHOST_ASSIGN_OR_RETURN(float extrapolation, ctx.Float("extrapolation_value", 0.0f));
      return EmitNearestCrop(ctx, *xi, size, roi, nearest_mode, extrapolation, out);
    }
    // boxes = [[roi[2], roi[3], roi[6], roi[7]]] as float32.
    TFHOST_ASSIGN_OR_RETURN(ir::TensorRef pick, ctx.Const("box_entries", Int32Vector({2, 3, 6, 7})));
    TFHOST_ASSIGN_OR_RETURN(ir::TensorRef axis0, ctx.Const("axis0", Tensor::Scalar<int32_t>(0)));
    TFHOST_ASSIGN_OR_RETURN(ir::TensorRef scalar_shape, ctx.Const("scalar_shape", Int32Vector({})));
    ir::AttrMap gather;
    gather["batch_dims"] = IntAttr(0);
    TFHOST_ASSIGN_OR_RETURN(ir::TensorRef box, ctx.Helper("box", "GatherV2", {roi, pick, axis0}, std::move(gather)));
    ir::AttrMap cast;
    cast["DstT"] = TypeAttr(DType::kFloat);
    TFHOST_ASSIGN_OR_RETURN(ir::TensorRef box_f, ctx.Helper("box_float", "Cast", {box}, std::move(cast)));
    TFHOST_ASSIGN_OR_RETURN(ir::TensorRef one_box, ctx.Const("boxes_shape", Int32Vector({1, 4})));
    TFHOST_ASSIGN_OR_RETURN(ir::TensorRef box_row, ctx.Helper("box_row", "Reshape", {box_f, one_box}));
    TFHOST_ASSIGN_OR_RETURN(float extrapolation, ctx.Float("extrapolation_value", 0.0f));
    TFHOST_ASSIGN_OR_RETURN(ir::TensorRef image, ctx.InNhwc(0));
    // The same box on every image of the batch (the roi's N range is the
    // whole batch, so image n maps to output n): boxes = tile(box, [n, 1]),
    // box_ind = 0..n-1.
    ir::AttrMap shape_attrs;
    shape_attrs["out_type"] = TypeAttr(DType::kInt32);
    TFHOST_ASSIGN_OR_RETURN(ir::TensorRef image_shape, ctx.Helper("image_shape", "Shape", {image}, std::move(shape_attrs)));
    TFHOST_ASSIGN_OR_RETURN(ir::TensorRef first, ctx.Const("first", Int32Vector({0})));
    TFHOST_ASSIGN_OR_RETURN(ir::TensorRef batch, ctx.Helper("batch", "GatherV2", {image_shape, first, axis0}));
    TFHOST_ASSIGN_OR_RETURN(ir::TensorRef one, ctx.Const("one", Int32Vector({1})));
    TFHOST_ASSIGN_OR_RETURN(ir::TensorRef multiples, ctx.Helper("box_multiples", "ConcatV2", {batch, one, axis0}));
    TFHOST_ASSIGN_OR_RETURN(ir::TensorRef boxes, ctx.Helper("boxes", "Tile", {box_row, multiples}));
    TFHOST_ASSIGN_OR_RETURN(ir::TensorRef zero, ctx.Const("zero", Tensor::Scalar<int32_t>(0)));
    TFHOST_ASSIGN_OR_RETURN(ir::TensorRef step, ctx.Const("step", Tensor::Scalar<int32_t>(1)));
    TFHOST_ASSIGN_OR_RETURN(ir::TensorRef count, ctx.Helper("batch_count", "Reshape", {batch, scalar_shape}));
    TFHOST_ASSIGN_OR_RETURN(ir::TensorRef box_ind, ctx.Helper("box_ind", "Range", {zero, count, step}));
    ir::AttrMap attrs;
    attrs["method"] = StringAttr("bilinear");
    attrs["extrapolation_value"] = FloatAttr(extrapolation);
    TFHOST_ASSIGN_OR_RETURN(ir::TensorRef crops, ctx.Helper("CropAndResize", "CropAndResize",
                                                            {image, boxes, box_ind, size.ref}, std::move(attrs)));
    // CropAndResize answers in float32.
    if (xi->dtype == DType::kFloat) return ctx.EmitNhwc("Identity", {crops}, {}, DType::kFloat, out);
    ir::AttrMap back;
    back["DstT"] = TypeAttr(xi->dtype);
    return ctx.EmitNhwc("Cast", {crops}, std::move(back), xi->dtype, out);
  }

  std::string op;
  bool align_corners = false, half_pixel = false;
  if (mode == "linear") {
    op = "ResizeBilinear";
    if (coords == "half_pixel" || coords == "pytorch_half_pixel") {
      // pytorch_half_pixel differs only where an output side is 1.
      if (coords == "pytorch_half_pixel" && (size.known.empty() || size.known[0] == 1 || size.known[1] == 1)) {
        return ctx.Unsupported("pytorch_half_pixel with an output side of 1 or unknown at load");
      }
      half_pixel = true;
    } else if (coords == "align_corners") {
      align_corners = true;
    } else if (coords != "asymmetric") {
      return ctx.Unsupported("linear resizing with coordinate_transformation_mode '" + coords + "'");
    }
  } else {
    op = "ResizeNearestNeighbor";
    if (coords == "asymmetric" && nearest_mode == "floor") {
      // TensorFlow's plain nearest neighbour: floor(x * in / out).
    } else if (coords == "tf_half_pixel_for_nn" && nearest_mode == "floor") {
      half_pixel = true;
    } else if (coords == "align_corners" && nearest_mode == "round_prefer_ceil") {
      align_corners = true;
    } else {
      return ctx.Unsupported("nearest resizing with coordinate_transformation_mode '" + coords +
                             "' and nearest_mode '" + nearest_mode + "'");
    }
  }
  ir::AttrMap attrs;
  attrs["align_corners"] = BoolAttr(align_corners);
  attrs["half_pixel_centers"] = BoolAttr(half_pixel);
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef x, ctx.InNhwc(0));
  if (op == "ResizeBilinear" && xi->dtype != DType::kFloat) {
    return ctx.Unsupported("linear resizing of " + DTypeShortName(xi->dtype) + " (float32 is)");
  }
  return ctx.EmitNhwc(op, {x, size.ref}, std::move(attrs), xi->dtype, out);
}

}  // namespace

MapFn FindResizeMapper(const std::string& op_type) { return op_type == "Resize" ? MapResize : nullptr; }

}  // namespace tfhost::loaders::onnx
