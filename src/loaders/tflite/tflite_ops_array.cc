// Shape and data-movement operators, TOPK_V2, and DEQUANTIZE of constant weights.
#include "loaders/tflite/tflite_builtins.h"
#include "loaders/tflite/tflite_ops.h"

namespace tfhost::loaders::tflite {

namespace {

Status MapReshape(const OpContext& ctx) {
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef x, ctx.In(0));
  ir::TensorRef shape;
  if (ctx.HasInput(1)) {
    TFHOST_ASSIGN_OR_RETURN(shape, ctx.In(1));
  } else {
    const auto* o = ctx.op->builtin_options_as_ReshapeOptions();
    if (o == nullptr || o->new_shape() == nullptr) return ctx.Error("has neither a shape input nor new_shape");
    std::vector<int32_t> dims(o->new_shape()->begin(), o->new_shape()->end());
    TFHOST_ASSIGN_OR_RETURN(shape, ctx.b->AddConst(ctx.Base() + "/shape", Tensor::FromVector(dims)));
  }
  return ctx.b->AddOutputNode(ctx.outputs, "Reshape", {x, shape}).status();
}

Status MapConcatenation(const OpContext& ctx) {
  const auto* o = ctx.op->builtin_options_as_ConcatenationOptions();
  if (ctx.inputs.empty()) return ctx.Error("has no inputs");
  TFHOST_ASSIGN_OR_RETURN(auto in, AllInputs(ctx, static_cast<int>(ctx.inputs.size())));
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef axis,
                          ctx.b->AddConst(ctx.Base() + "/axis", Tensor::Scalar<int32_t>(o ? o->axis() : 0)));
  in.push_back(axis);
  const auto act = o ? o->fused_activation_function() : fb::ActivationFunctionType::NONE;
  return FinishWithActivation(ctx, act, "ConcatV2", std::move(in)).status();
}

Status MapSqueeze(const OpContext& ctx) {
  const auto* o = ctx.op->builtin_options_as_SqueezeOptions();
  std::vector<int64_t> dims;
  if (o != nullptr && o->squeeze_dims() != nullptr) dims.assign(o->squeeze_dims()->begin(), o->squeeze_dims()->end());
  ir::AttrMap attrs;
  attrs["squeeze_dims"] = IntListAttr(dims);
  return MapSimple(ctx, "Squeeze", 1, std::move(attrs));
}

Status MapStridedSlice(const OpContext& ctx) {
  const auto* o = ctx.op->builtin_options_as_StridedSliceOptions();
  TFHOST_ASSIGN_OR_RETURN(auto in, AllInputs(ctx, 4));
  ir::AttrMap attrs;
  attrs["begin_mask"] = IntAttr(o ? o->begin_mask() : 0);
  attrs["end_mask"] = IntAttr(o ? o->end_mask() : 0);
  attrs["ellipsis_mask"] = IntAttr(o ? o->ellipsis_mask() : 0);
  attrs["new_axis_mask"] = IntAttr(o ? o->new_axis_mask() : 0);
  attrs["shrink_axis_mask"] = IntAttr(o ? o->shrink_axis_mask() : 0);
  if (o != nullptr && o->offset()) {
    // `end` counts from `begin`.
    TFHOST_ASSIGN_OR_RETURN(in[2], ctx.b->AddNode(ctx.Base() + "/end", "AddV2", {in[1], in[2]}));
  }
  return ctx.b->AddOutputNode(ctx.outputs, "StridedSlice", std::move(in), std::move(attrs)).status();
}

Status MapGather(const OpContext& ctx) {
  const auto* o = ctx.op->builtin_options_as_GatherOptions();
  TFHOST_ASSIGN_OR_RETURN(auto in, AllInputs(ctx, 2));
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef axis,
                          ctx.b->AddConst(ctx.Base() + "/axis", Tensor::Scalar<int32_t>(o ? o->axis() : 0)));
  in.push_back(axis);
  ir::AttrMap attrs;
  attrs["batch_dims"] = IntAttr(o ? o->batch_dims() : 0);
  return ctx.b->AddOutputNode(ctx.outputs, "GatherV2", std::move(in), std::move(attrs)).status();
}

Status MapTopK(const OpContext& ctx) {
  // TFLite's TOPK_V2 always sorts, largest first, like sorted=true.
  if (ctx.outputs.size() != 2) return ctx.Error("has " + std::to_string(ctx.outputs.size()) + " outputs; expected 2");
  TFHOST_ASSIGN_OR_RETURN(auto in, AllInputs(ctx, 2));
  const DType index_type = DTypeOf(ctx.b->tensor(ctx.outputs[1]).type());
  if (index_type != DType::kInt32 && index_type != DType::kInt64 && index_type != DType::kInt16) {
    return ctx.Error("writes indices of type " + std::string(TensorTypeName(ctx.b->tensor(ctx.outputs[1]).type())) +
                     "; expected INT32, INT64 or INT16");
  }
  ir::AttrMap attrs;
  attrs["sorted"] = BoolAttr(true);
  attrs["index_type"] = TypeAttr(index_type);
  return ctx.b->AddOutputNode(ctx.outputs, "TopKV2", std::move(in), std::move(attrs)).status();
}

Status MapSplit(const OpContext& ctx) {
  // TFLite's SPLIT takes (axis, value) like TensorFlow's Split.
  TFHOST_ASSIGN_OR_RETURN(auto in, AllInputs(ctx, 2));
  ir::AttrMap attrs;
  attrs["num_split"] = IntAttr(static_cast<int64_t>(ctx.outputs.size()));
  return ctx.b->AddOutputNode(ctx.outputs, "Split", std::move(in), std::move(attrs)).status();
}

Status MapSplitV(const OpContext& ctx) {
  TFHOST_ASSIGN_OR_RETURN(auto in, AllInputs(ctx, 3));
  ir::AttrMap attrs;
  attrs["num_split"] = IntAttr(static_cast<int64_t>(ctx.outputs.size()));
  return ctx.b->AddOutputNode(ctx.outputs, "SplitV", std::move(in), std::move(attrs)).status();
}

Status MapPack(const OpContext& ctx) {
  const auto* o = ctx.op->builtin_options_as_PackOptions();
  if (ctx.inputs.empty()) return ctx.Error("has no inputs");
  TFHOST_ASSIGN_OR_RETURN(auto in, AllInputs(ctx, static_cast<int>(ctx.inputs.size())));
  ir::AttrMap attrs;
  attrs["axis"] = IntAttr(o ? o->axis() : 0);
  return ctx.b->AddOutputNode(ctx.outputs, "Pack", std::move(in), std::move(attrs)).status();
}

Status MapUnpack(const OpContext& ctx) {
  const auto* o = ctx.op->builtin_options_as_UnpackOptions();
  ir::AttrMap attrs;
  attrs["num"] = IntAttr(static_cast<int64_t>(ctx.outputs.size()));
  attrs["axis"] = IntAttr(o ? o->axis() : 0);
  return MapSimple(ctx, "Unpack", 1, std::move(attrs));
}

// Float16 weights (and int8/uint8 weights with scales) are stored narrow
// and widened by a DEQUANTIZE; a constant one is widened here, once (the
// builder has dequantized a quantized constant already). A computed
// quantized input already reads as float32.
Status MapDequantize(const OpContext& ctx) {
  if (!ctx.HasInput(0)) return ctx.Error("has no input");
  const int in = ctx.inputs[0];
  const fb::Tensor& t = ctx.b->tensor(in);
  TFHOST_ASSIGN_OR_RETURN(auto value, ctx.b->ConstantValue(in));
  if (!value.has_value()) {
    TFHOST_ASSIGN_OR_RETURN(auto quantized, ctx.b->ActivationQuantization(in));
    if (quantized.has_value()) return MapSimple(ctx, "Identity", 1);
    if (t.type() != fb::TensorType::FLOAT16) {
      return ctx.Error("dequantizes " + ctx.b->TensorWhere(in) + ", a computed " + TensorTypeName(t.type()) +
                       " tensor with no quantization scale; expected float16 or a quantized tensor");
    }
    TFHOST_ASSIGN_OR_RETURN(ir::TensorRef x, ctx.In(0));
    ir::AttrMap attrs;
    attrs["DstT"] = TypeAttr(DType::kFloat);
    return ctx.b->AddOutputNode(ctx.outputs, "Cast", {x}, std::move(attrs)).status();
  }
  if (value->dtype() == DType::kFloat) return ctx.b->AddOutputConst(ctx.outputs[0], std::move(*value));
  if (value->dtype() != DType::kHalf) {
    return ctx.Error(ctx.b->TensorWhere(in) + " is " + TensorTypeName(t.type()) +
                     " with no quantization scale; DEQUANTIZE reads float16, int8 or uint8");
  }
  const int64_t n = value->NumElements();
  Tensor out(DType::kFloat, value->shape());
  float* dst = out.data<float>();
  for (int64_t i = 0; i < n; ++i) dst[i] = HalfToFloat(value->data<uint16_t>()[i]);
  return ctx.b->AddOutputConst(ctx.outputs[0], std::move(out));
}

// QUANTIZE stores its float32 (or requantizes its quantized) input under
// its output's scale; the builder adds the quantize node.
Status MapQuantize(const OpContext& ctx) {
  TFHOST_ASSIGN_OR_RETURN(auto quantized, ctx.b->ActivationQuantization(ctx.outputs[0]));
  if (!quantized.has_value()) {
    return ctx.Error("writes " + ctx.b->TensorWhere(ctx.outputs[0]) +
                     ", which has no quantization scale; expected an int8, uint8 or int16 tensor with one");
  }
  return MapSimple(ctx, "Identity", 1);
}

}  // namespace

bool IsMappedArrayBuiltin(int32_t code) {
  switch (code) {
    case kReshape: case kConcatenation: case kPad: case kPadV2: case kMirrorPad: case kSqueeze: case kTranspose:
    case kStridedSlice: case kGather: case kGatherNd: case kSlice: case kSplit: case kSplitV: case kPack:
    case kUnpack: case kExpandDims: case kTile: case kBroadcastTo: case kFill: case kReverseV2: case kShape:
    case kSpaceToDepth: case kDepthToSpace: case kSpaceToBatchND: case kBatchToSpaceND: case kDequantize: case kQuantize:
    case kTopKV2:
      return true;
    default:
      return false;
  }
}

Status MapArrayOperator(const OpContext& ctx) {
  switch (ctx.code) {
    case kReshape: return MapReshape(ctx);
    case kConcatenation: return MapConcatenation(ctx);
    case kPad: return MapSimple(ctx, "Pad", 2);
    case kPadV2: return MapSimple(ctx, "PadV2", 3);
    case kMirrorPad: {
      const auto* o = ctx.op->builtin_options_as_MirrorPadOptions();
      ir::AttrMap attrs;
      attrs["mode"] = StringAttr(o != nullptr && o->mode() == fb::MirrorPadMode::SYMMETRIC ? "SYMMETRIC" : "REFLECT");
      return MapSimple(ctx, "MirrorPad", 2, std::move(attrs));
    }
    case kSqueeze: return MapSqueeze(ctx);
    case kTranspose: return MapSimple(ctx, "Transpose", 2);
    case kStridedSlice: return MapStridedSlice(ctx);
    case kGather: return MapGather(ctx);
    case kGatherNd: return MapSimple(ctx, "GatherNd", 2);
    case kSlice: return MapSimple(ctx, "Slice", 3);
    case kSplit: return MapSplit(ctx);
    case kSplitV: return MapSplitV(ctx);
    case kPack: return MapPack(ctx);
    case kUnpack: return MapUnpack(ctx);
    case kExpandDims: return MapSimple(ctx, "ExpandDims", 2);
    case kTile: return MapSimple(ctx, "Tile", 2);
    case kBroadcastTo: return MapSimple(ctx, "BroadcastTo", 2);
    case kFill: return MapSimple(ctx, "Fill", 2);
    case kReverseV2: return MapSimple(ctx, "ReverseV2", 2);
    case kShape: return MapToOutputType(ctx, "Shape", "out_type", 1);
    case kSpaceToDepth: case kDepthToSpace: {
      const auto* s2d = ctx.op->builtin_options_as_SpaceToDepthOptions();
      const auto* d2s = ctx.op->builtin_options_as_DepthToSpaceOptions();
      const int block = s2d ? s2d->block_size() : d2s ? d2s->block_size() : 0;
      if (block < 2) return ctx.Error("has block_size " + std::to_string(block) + "; expected at least 2");
      ir::AttrMap attrs;
      attrs["block_size"] = IntAttr(block);
      return MapSimple(ctx, ctx.code == kSpaceToDepth ? "SpaceToDepth" : "DepthToSpace", 1, std::move(attrs));
    }
    case kSpaceToBatchND: return MapSimple(ctx, "SpaceToBatchND", 3);
    case kBatchToSpaceND: return MapSimple(ctx, "BatchToSpaceND", 3);
    case kDequantize: return MapDequantize(ctx);
    case kQuantize: return MapQuantize(ctx);
    case kTopKV2: return MapTopK(ctx);
    default: return ctx.Error("is not a mapped array operator");
  }
}

}  // namespace tfhost::loaders::tflite
