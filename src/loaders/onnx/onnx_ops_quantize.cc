// QuantizeLinear and DequantizeLinear (opset 13+): y = saturate(round(x /
// scale) + zero_point), halves to even, and x = (y - zero_point) x scale,
// per tensor or per slice along `axis` (default 1). They map to tfhost's
// affine quantization ops, which take the scales and zero points as
// attributes, so both must be constants (initializers), as converters and
// quantization tools write them. A missing zero point is 0 of type uint8.
#include "loaders/onnx/onnx_ops.h"

namespace tfhost::loaders::onnx {

namespace {

struct AffineParams {
  std::vector<float> scales;
  std::vector<int64_t> zero_points;
  int64_t axis = -1;        // -1: one pair for the tensor
  DType type = DType::kUInt8;  // the quantized type (the zero point's)
};

StatusOr<AffineParams> ReadAffine(const NodeContext& ctx, int rank) {
  AffineParams p;
  TFHOST_ASSIGN_OR_RETURN(std::optional<Tensor> scale, ctx.ConstIn(1));
  if (!scale.has_value()) return ctx.Unsupported("a scale computed at run time (input 1 must be an initializer)");
  if (scale->dtype() != DType::kFloat) return ctx.Unsupported("a scale of type " + DTypeShortName(scale->dtype()));
  if (scale->rank() > 1) return ctx.Error("scale must be a scalar or 1-D, got shape " + scale->shape().ToString());
  for (int64_t i = 0; i < scale->NumElements(); ++i) p.scales.push_back(scale->data<float>()[i]);
  if (ctx.Has(2)) {
    TFHOST_ASSIGN_OR_RETURN(std::optional<Tensor> zero, ctx.ConstIn(2));
    if (!zero.has_value()) return ctx.Unsupported("a zero point computed at run time (input 2 must be an initializer)");
    p.type = zero->dtype();
    if (p.type != DType::kUInt8 && p.type != DType::kInt8 && p.type != DType::kInt16) {
      return ctx.Unsupported("quantized type " + DTypeShortName(p.type) + " (uint8, int8 and int16 are supported)");
    }
    if (zero->NumElements() != scale->NumElements()) {
      return ctx.Error("has " + std::to_string(zero->NumElements()) + " zero points for " +
                       std::to_string(scale->NumElements()) + " scales");
    }
    TFHOST_ASSIGN_OR_RETURN(p.zero_points, zero->ToInt64Vector());
  } else {
    p.zero_points.assign(p.scales.size(), 0);
  }
  if (scale->rank() == 1 && scale->NumElements() != 1) {
    TFHOST_ASSIGN_OR_RETURN(int64_t axis, ctx.Int("axis", 1));
    if (rank < 0) return ctx.Unsupported("per-axis scales on an input whose rank is not known at load");
    TFHOST_ASSIGN_OR_RETURN(int a, NormalizeAxis(ctx, axis, rank, "axis"));
    p.axis = a;
  }
  return p;
}

ir::AttrMap AffineAttrs(const AffineParams& p) {
  ir::AttrMap attrs;
  attrs["scales"] = FloatListAttr(p.scales);
  attrs["zero_points"] = IntListAttr(p.zero_points);
  attrs["axis"] = IntAttr(p.axis);
  return attrs;
}

Status MapQuantizeLinear(const NodeContext& ctx) {
  TFHOST_ASSIGN_OR_RETURN(const ValueInfo* xi, ctx.Info(0));
  if (xi->dtype != DType::kFloat) return ctx.Unsupported("quantizing " + DTypeShortName(xi->dtype) + " (float32 is)");
  TFHOST_ASSIGN_OR_RETURN(AffineParams p, ReadAffine(ctx, xi->rank()));
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef x, ctx.In(0));
  ir::AttrMap attrs = AffineAttrs(p);
  attrs["out_type"] = TypeAttr(p.type);
  attrs["round_mode"] = StringAttr("HALF_TO_EVEN");
  return ctx.Emit("_TfhostAffineQuantize", {x}, std::move(attrs), p.type, xi->shape);
}

Status MapDequantizeLinear(const NodeContext& ctx) {
  TFHOST_ASSIGN_OR_RETURN(const ValueInfo* xi, ctx.Info(0));
  TFHOST_ASSIGN_OR_RETURN(AffineParams p, ReadAffine(ctx, xi->rank()));
  if (ctx.Has(2) && p.type != xi->dtype) {
    return ctx.Error("zero point of type " + DTypeShortName(p.type) + " for an input of type " +
                     DTypeShortName(xi->dtype));
  }
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef x, ctx.In(0));
  ir::AttrMap attrs = AffineAttrs(p);
  attrs["T"] = TypeAttr(xi->dtype);
  return ctx.Emit("_TfhostAffineDequantize", {x}, std::move(attrs), DType::kFloat, xi->shape);
}

}  // namespace

MapFn FindQuantizeMapper(const std::string& op_type) {
  if (op_type == "QuantizeLinear") return MapQuantizeLinear;
  if (op_type == "DequantizeLinear") return MapDequantizeLinear;
  return nullptr;
}

}  // namespace tfhost::loaders::onnx
