// Convolutions, pooling, fully connected layers, matrix products, softmax,
// resizing and activations.
#include <cmath>
#include <cstring>

#include "loaders/tflite/tflite_builtins.h"
#include "loaders/tflite/tflite_ops.h"

namespace tfhost::loaders::tflite {

namespace {

using Act = fb::ActivationFunctionType;

// Input `i` as a weight in TensorFlow's layout: a constant is permuted at
// load, a computed tensor gets a Transpose node.
StatusOr<ir::TensorRef> PermutedWeight(const OpContext& ctx, int i, const std::vector<int>& perm, int rank) {
  if (!ctx.HasInput(i)) return ctx.Error("input " + std::to_string(i) + " (the weights) is absent");
  TFHOST_ASSIGN_OR_RETURN(auto value, ctx.b->ConstantValue(ctx.inputs[i]));
  if (value.has_value()) {
    if (value->rank() != rank) {
      return ctx.Error("weights " + ctx.b->TensorWhere(ctx.inputs[i]) + " have shape " + value->shape().ToString() +
                       "; expected rank " + std::to_string(rank));
    }
    return ctx.b->AddConst(ctx.b->NodeName(ctx.inputs[i]) + "/tf_layout", TransposeConstant(*value, perm));
  }
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef w, ctx.In(i));
  std::vector<int32_t> p(perm.begin(), perm.end());
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef perm_ref, ctx.b->AddConst(ctx.Base() + "/perm", Tensor::FromVector(p)));
  return ctx.b->AddNode(ctx.Base() + "/weights", "Transpose", {w, perm_ref});
}

std::string PaddingName(fb::Padding p) { return p == fb::Padding::VALID ? "VALID" : "SAME"; }

Status CheckStrides(const OpContext& ctx, int h, int w) {
  if (h < 1 || w < 1) {
    return ctx.Error("has strides " + std::to_string(h) + "x" + std::to_string(w) + "; expected positive strides");
  }
  return OkStatus();
}

// The convolution (or matrix product) node, then BiasAdd when a bias is
// given, then the fused activation; the last of them writes the output.
Status FinishWithBias(const OpContext& ctx, Act act, const std::string& op, std::vector<ir::TensorRef> inputs,
                      ir::AttrMap attrs) {
  if (!ctx.HasInput(2)) return FinishWithActivation(ctx, act, op, std::move(inputs), std::move(attrs)).status();
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef bias, ctx.In(2));
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef y, ctx.b->AddNode(ctx.Base() + "/" + op, op, std::move(inputs),
                                                          std::move(attrs)));
  return FinishWithActivation(ctx, act, "BiasAdd", {y, bias}).status();
}

Status MapConv2D(const OpContext& ctx) {
  const auto* o = ctx.op->builtin_options_as_Conv2DOptions();
  if (o == nullptr) return ctx.Error("has no Conv2DOptions");
  TFHOST_RETURN_IF_ERROR(CheckStrides(ctx, o->stride_h(), o->stride_w()));
  ir::AttrMap attrs;
  attrs["strides"] = IntListAttr({1, o->stride_h(), o->stride_w(), 1});
  attrs["dilations"] = IntListAttr({1, o->dilation_h_factor(), o->dilation_w_factor(), 1});
  attrs["padding"] = StringAttr(PaddingName(o->padding()));
  TFHOST_ASSIGN_OR_RETURN(bool integer,
                          MapIntegerProduct(ctx, IntegerProduct::kConv2D, "Conv2D", attrs, o->fused_activation_function()));
  if (integer) return OkStatus();
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef x, ctx.In(0));
  // TFLite filters are [out, h, w, in]; TensorFlow's are [h, w, in, out].
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef w, PermutedWeight(ctx, 1, {1, 2, 3, 0}, 4));
  return FinishWithBias(ctx, o->fused_activation_function(), "Conv2D", {x, w}, std::move(attrs));
}

Status MapDepthwiseConv2D(const OpContext& ctx) {
  const auto* o = ctx.op->builtin_options_as_DepthwiseConv2DOptions();
  if (o == nullptr) return ctx.Error("has no DepthwiseConv2DOptions");
  TFHOST_RETURN_IF_ERROR(CheckStrides(ctx, o->stride_h(), o->stride_w()));
  ir::AttrMap attrs;
  attrs["strides"] = IntListAttr({1, o->stride_h(), o->stride_w(), 1});
  attrs["dilations"] = IntListAttr({1, o->dilation_h_factor(), o->dilation_w_factor(), 1});
  attrs["padding"] = StringAttr(PaddingName(o->padding()));
  TFHOST_ASSIGN_OR_RETURN(bool integer, MapIntegerProduct(ctx, IntegerProduct::kDepthwise, "DepthwiseConv2dNative",
                                                          attrs, o->fused_activation_function()));
  if (integer) return OkStatus();
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef x, ctx.In(0));
  if (!ctx.HasInput(1)) return ctx.Error("input 1 (the filter) is absent");
  // TFLite's filter is [1, h, w, in * multiplier] with output channel
  // c * multiplier + m, exactly TensorFlow's [h, w, in, multiplier] in memory.
  const fb::Tensor& filter = ctx.b->tensor(ctx.inputs[1]);
  std::vector<int64_t> fdims = SignatureDims(filter);
  if (fdims.size() != 4 || fdims[0] != 1 || fdims[1] < 1 || fdims[2] < 1 || fdims[3] < 1) {
    return ctx.Error("filter " + ctx.b->TensorWhere(ctx.inputs[1]) + " must have a known shape [1, h, w, c*m]");
  }
  std::vector<int64_t> xdims = SignatureDims(ctx.b->tensor(ctx.inputs[0]));
  int64_t channels = xdims.size() == 4 && xdims[3] > 0 ? xdims[3] : -1;
  if (channels <= 0 && o->depth_multiplier() > 0) channels = fdims[3] / o->depth_multiplier();
  if (channels <= 0 || fdims[3] % channels != 0) {
    return ctx.Error("cannot tell the input channels: input shape has no known last dimension and "
                     "depth_multiplier does not divide the filter's " + std::to_string(fdims[3]) + " channels");
  }
  const std::vector<int64_t> hwcm = {fdims[1], fdims[2], channels, fdims[3] / channels};
  ir::TensorRef w;
  TFHOST_ASSIGN_OR_RETURN(auto value, ctx.b->ConstantValue(ctx.inputs[1]));
  if (value.has_value()) {
    TFHOST_ASSIGN_OR_RETURN(Tensor reshaped, value->Reshaped(Shape(hwcm)));
    TFHOST_ASSIGN_OR_RETURN(w, ctx.b->AddConst(ctx.b->NodeName(ctx.inputs[1]) + "/tf_layout", std::move(reshaped)));
  } else {
    TFHOST_ASSIGN_OR_RETURN(ir::TensorRef f, ctx.In(1));
    std::vector<int32_t> dims(hwcm.begin(), hwcm.end());
    TFHOST_ASSIGN_OR_RETURN(ir::TensorRef shape,
                            ctx.b->AddConst(ctx.Base() + "/filter_shape", Tensor::FromVector(dims)));
    TFHOST_ASSIGN_OR_RETURN(w, ctx.b->AddNode(ctx.Base() + "/filter", "Reshape", {f, shape}));
  }
  return FinishWithBias(ctx, o->fused_activation_function(), "DepthwiseConv2dNative", {x, w}, std::move(attrs));
}

Status MapFullyConnected(const OpContext& ctx) {
  const auto* o = ctx.op->builtin_options_as_FullyConnectedOptions();
  const Act act = o ? o->fused_activation_function() : Act::NONE;
  if (o != nullptr && o->weights_format() != fb::FullyConnectedOptionsWeightsFormat::DEFAULT) {
    return ctx.Error("uses shuffled int8 weights, which tfhost does not map");
  }
  if (o == nullptr || !o->keep_num_dims()) {
    TFHOST_ASSIGN_OR_RETURN(bool integer, MapIntegerProduct(ctx, IntegerProduct::kFullyConnected, "MatMul", {}, act));
    if (integer) return OkStatus();
  }
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef x, ctx.In(0));
  if (!ctx.HasInput(1)) return ctx.Error("input 1 (the weights) is absent");
  // TFLite flattens the input to [-1, in] and, with keep_num_dims, restores
  // the leading dimensions afterwards. Only flattening needs the weights'
  // shape (a computed weight, as a fake-quantized one, may not state it).
  std::vector<int64_t> xdims = SignatureDims(ctx.b->tensor(ctx.inputs[0]));
  const bool keep = o != nullptr && o->keep_num_dims() && xdims.size() > 2;
  if (xdims.size() != 2) {
    std::vector<int64_t> wdims = SignatureDims(ctx.b->tensor(ctx.inputs[1]));
    if (wdims.size() != 2 || wdims[1] < 1) {
      return ctx.Error("weights " + ctx.b->TensorWhere(ctx.inputs[1]) + " must have a known shape [out, in] to "
                       "flatten the rank-" + std::to_string(xdims.size()) + " input");
    }
    TFHOST_ASSIGN_OR_RETURN(ir::TensorRef shape,
                            ctx.b->AddConst(ctx.Base() + "/flat_shape", Tensor::FromVector(std::vector<int32_t>{
                                                                          -1, static_cast<int32_t>(wdims[1])})));
    TFHOST_ASSIGN_OR_RETURN(x, ctx.b->AddNode(ctx.Base() + "/flatten", "Reshape", {x, shape}));
  }
  TFHOST_ASSIGN_OR_RETURN(auto wvalue, ctx.b->ConstantValue(ctx.inputs[1]));
  ir::TensorRef w;
  ir::AttrMap attrs;
  if (wvalue.has_value()) {
    TFHOST_ASSIGN_OR_RETURN(w, PermutedWeight(ctx, 1, {1, 0}, 2));
  } else {
    TFHOST_ASSIGN_OR_RETURN(w, ctx.In(1));
    attrs["transpose_b"] = BoolAttr(true);
  }
  if (!keep) return FinishWithBias(ctx, act, "MatMul", {x, w}, std::move(attrs));
  std::vector<int64_t> out = SignatureDims(ctx.b->tensor(ctx.outputs[0]));
  int unknown = 0;
  for (int64_t d : out) unknown += d < 0;
  if (unknown > 1) return ctx.Error("keeps " + std::to_string(out.size()) + " dimensions, more than one unknown");
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef y, ctx.b->AddNode(ctx.Base() + "/MatMul", "MatMul", {x, w}, std::move(attrs)));
  if (ctx.HasInput(2)) {
    TFHOST_ASSIGN_OR_RETURN(ir::TensorRef bias, ctx.In(2));
    TFHOST_ASSIGN_OR_RETURN(y, ctx.b->AddNode(ctx.Base() + "/BiasAdd", "BiasAdd", {y, bias}));
  }
  if (act != Act::NONE) {
    const char* op = act == Act::RELU ? "Relu" : act == Act::RELU6 ? "Relu6" : act == Act::TANH ? "Tanh" : nullptr;
    if (op == nullptr) return ctx.Error("has a fused activation tfhost does not map with keep_num_dims");
    TFHOST_ASSIGN_OR_RETURN(y, ctx.b->AddNode(ctx.Base() + "/" + op, op, {y}));
  }
  std::vector<int32_t> dims(out.begin(), out.end());
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef shape, ctx.b->AddConst(ctx.Base() + "/out_shape", Tensor::FromVector(dims)));
  return ctx.b->AddOutputNode(ctx.outputs, "Reshape", {y, shape}).status();
}

// A transposed convolution is the gradient of a convolution with respect to
// its input: Conv2DBackpropInput(output_shape, filter [h,w,out,in], x).
Status MapTransposeConv(const OpContext& ctx) {
  const auto* o = ctx.op->builtin_options_as_TransposeConvOptions();
  if (o == nullptr) return ctx.Error("has no TransposeConvOptions");
  TFHOST_RETURN_IF_ERROR(CheckStrides(ctx, o->stride_h(), o->stride_w()));
  ir::AttrMap attrs;
  attrs["strides"] = IntListAttr({1, o->stride_h(), o->stride_w(), 1});
  attrs["padding"] = StringAttr(PaddingName(o->padding()));
  TFHOST_ASSIGN_OR_RETURN(bool integer, MapIntegerProduct(ctx, IntegerProduct::kTransposeConv, "Conv2DBackpropInput",
                                                          attrs, o->fused_activation_function()));
  if (integer) return OkStatus();
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef sizes, ctx.In(0));
  // TFLite's weights are [out, h, w, in].
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef w, PermutedWeight(ctx, 1, {1, 2, 0, 3}, 4));
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef x, ctx.In(2));
  if (!ctx.HasInput(3)) {
    return FinishWithActivation(ctx, o->fused_activation_function(), "Conv2DBackpropInput", {sizes, w, x},
                                std::move(attrs))
        .status();
  }
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef bias, ctx.In(3));
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef y, ctx.b->AddNode(ctx.Base() + "/Conv2DBackpropInput", "Conv2DBackpropInput",
                                                          {sizes, w, x}, std::move(attrs)));
  return FinishWithActivation(ctx, o->fused_activation_function(), "BiasAdd", {y, bias}).status();
}

// x where x >= 0, else alpha * x: relu(x) + alpha * min(x, 0), exact in
// float (one of the two terms is zero).
Status MapPrelu(const OpContext& ctx) {
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef x, ctx.In(0));
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef alpha, ctx.In(1));
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef zero, ctx.b->AddConst(ctx.Base() + "/zero", Tensor::Scalar(0.0f)));
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef pos, ctx.b->AddNode(ctx.Base() + "/pos", "Relu", {x}));
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef neg, ctx.b->AddNode(ctx.Base() + "/neg", "Minimum", {x, zero}));
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef scaled, ctx.b->AddNode(ctx.Base() + "/scaled", "Mul", {alpha, neg}));
  return ctx.b->AddOutputNode(ctx.outputs, "AddV2", {pos, scaled}).status();
}

Status MapPool(const OpContext& ctx, const std::string& op) {
  const auto* o = ctx.op->builtin_options_as_Pool2DOptions();
  if (o == nullptr) return ctx.Error("has no Pool2DOptions");
  TFHOST_RETURN_IF_ERROR(CheckStrides(ctx, o->stride_h(), o->stride_w()));
  if (o->filter_height() < 1 || o->filter_width() < 1) return ctx.Error("has an empty pooling window");
  ir::AttrMap attrs;
  attrs["ksize"] = IntListAttr({1, o->filter_height(), o->filter_width(), 1});
  attrs["strides"] = IntListAttr({1, o->stride_h(), o->stride_w(), 1});
  attrs["padding"] = StringAttr(PaddingName(o->padding()));
  if (op == "AvgPool") {
    const int64_t window = int64_t{o->filter_height()} * o->filter_width();
    TFHOST_ASSIGN_OR_RETURN(bool integer, MapIntegerAveragePool(ctx, attrs, o->fused_activation_function(), window));
    if (integer) return OkStatus();
  }
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef x, ctx.In(0));
  return FinishWithActivation(ctx, o->fused_activation_function(), op, {x}, std::move(attrs)).status();
}

Status MapSoftmax(const OpContext& ctx) {
  const auto* o = ctx.op->builtin_options_as_SoftmaxOptions();
  const float beta = o ? o->beta() : 1.0f;
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef x, ctx.In(0));
  if (beta != 1.0f) {
    TFHOST_ASSIGN_OR_RETURN(ir::TensorRef b, ctx.b->AddConst(ctx.Base() + "/beta", Tensor::Scalar(beta)));
    TFHOST_ASSIGN_OR_RETURN(x, ctx.b->AddNode(ctx.Base() + "/scaled", "Mul", {x, b}));
  }
  return ctx.b->AddOutputNode(ctx.outputs, "Softmax", {x}).status();
}

Status MapResize(const OpContext& ctx, const std::string& op) {
  bool align = false, half = false;
  if (const auto* o = ctx.op->builtin_options_as_ResizeBilinearOptions()) {
    align = o->align_corners();
    half = o->half_pixel_centers();
  } else if (const auto* n = ctx.op->builtin_options_as_ResizeNearestNeighborOptions()) {
    align = n->align_corners();
    half = n->half_pixel_centers();
  }
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef x, ctx.In(0));
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef size, ctx.In(1));
  ir::AttrMap attrs;
  attrs["align_corners"] = BoolAttr(align);
  attrs["half_pixel_centers"] = BoolAttr(half);
  return ctx.b->AddOutputNode(ctx.outputs, op, {x, size}, std::move(attrs)).status();
}

// x * relu6(x + 3) / 6, in the order TFLite's float kernel computes it.
Status MapHardSwish(const OpContext& ctx) {
  TFHOST_ASSIGN_OR_RETURN(bool integer, MapIntegerLookup(ctx));
  if (integer) return OkStatus();
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef x, ctx.In(0));
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef three, ctx.b->AddConst(ctx.Base() + "/three", Tensor::Scalar(3.0f)));
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef six, ctx.b->AddConst(ctx.Base() + "/six", Tensor::Scalar(6.0f)));
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef shifted, ctx.b->AddNode(ctx.Base() + "/add", "AddV2", {x, three}));
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef gate, ctx.b->AddNode(ctx.Base() + "/relu6", "Relu6", {shifted}));
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef product, ctx.b->AddNode(ctx.Base() + "/mul", "Mul", {x, gate}));
  return ctx.b->AddOutputNode(ctx.outputs, "RealDiv", {product, six}).status();
}

// 0.5 x (1 + erf(x / sqrt 2)), or the tanh approximation.
Status MapGelu(const OpContext& ctx) {
  TFHOST_ASSIGN_OR_RETURN(bool integer, MapIntegerLookup(ctx));
  if (integer) return OkStatus();
  const auto* o = ctx.op->builtin_options_as_GeluOptions();
  const bool approximate = o != nullptr && o->approximate();
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef x, ctx.In(0));
  auto constant = [&](const char* name, float v) {
    return ctx.b->AddConst(ctx.Base() + "/" + name, Tensor::Scalar(v));
  };
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef one, constant("one", 1.0f));
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef half, constant("half", 0.5f));
  ir::TensorRef inner;
  if (approximate) {
    TFHOST_ASSIGN_OR_RETURN(ir::TensorRef k, constant("k", 0.044715f));
    TFHOST_ASSIGN_OR_RETURN(ir::TensorRef s, constant("sqrt_2_over_pi", static_cast<float>(std::sqrt(2.0 / M_PI))));
    TFHOST_ASSIGN_OR_RETURN(ir::TensorRef x2, ctx.b->AddNode(ctx.Base() + "/x2", "Mul", {x, x}));
    TFHOST_ASSIGN_OR_RETURN(ir::TensorRef x3, ctx.b->AddNode(ctx.Base() + "/x3", "Mul", {x2, x}));
    TFHOST_ASSIGN_OR_RETURN(ir::TensorRef kx3, ctx.b->AddNode(ctx.Base() + "/kx3", "Mul", {x3, k}));
    TFHOST_ASSIGN_OR_RETURN(ir::TensorRef sum, ctx.b->AddNode(ctx.Base() + "/sum", "AddV2", {x, kx3}));
    TFHOST_ASSIGN_OR_RETURN(ir::TensorRef arg, ctx.b->AddNode(ctx.Base() + "/arg", "Mul", {sum, s}));
    TFHOST_ASSIGN_OR_RETURN(inner, ctx.b->AddNode(ctx.Base() + "/tanh", "Tanh", {arg}));
  } else {
    TFHOST_ASSIGN_OR_RETURN(ir::TensorRef r, constant("sqrt_half", static_cast<float>(M_SQRT1_2)));
    TFHOST_ASSIGN_OR_RETURN(ir::TensorRef arg, ctx.b->AddNode(ctx.Base() + "/arg", "Mul", {x, r}));
    TFHOST_ASSIGN_OR_RETURN(inner, ctx.b->AddNode(ctx.Base() + "/erf", "Erf", {arg}));
  }
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef gate, ctx.b->AddNode(ctx.Base() + "/gate", "AddV2", {inner, one}));
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef hx, ctx.b->AddNode(ctx.Base() + "/half_x", "Mul", {x, half}));
  return ctx.b->AddOutputNode(ctx.outputs, "Mul", {hx, gate}).status();
}

Status MapUnary(const OpContext& ctx, const std::string& op, ir::AttrMap attrs = {}) {
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef x, ctx.In(0));
  return ctx.b->AddOutputNode(ctx.outputs, op, {x}, std::move(attrs)).status();
}

}  // namespace

bool IsMappedNnBuiltin(int32_t code) {
  switch (code) {
    case kConv2D: case kDepthwiseConv2D: case kFullyConnected: case kAveragePool2D: case kMaxPool2D:
    case kSoftmax: case kLogSoftmax: case kBatchMatMul: case kResizeBilinear: case kResizeNearestNeighbor:
    case kRelu: case kRelu6: case kReluN1To1: case kLogistic: case kTanh: case kHardSwish: case kLeakyRelu:
    case kGelu: case kTransposeConv: case kPrelu: case kElu:
      return true;
    default:
      return false;
  }
}

Status MapNnOperator(const OpContext& ctx) {
  switch (ctx.code) {
    case kConv2D: return MapConv2D(ctx);
    case kDepthwiseConv2D: return MapDepthwiseConv2D(ctx);
    case kFullyConnected: return MapFullyConnected(ctx);
    case kAveragePool2D: return MapPool(ctx, "AvgPool");
    case kMaxPool2D: return MapPool(ctx, "MaxPool");
    case kSoftmax: return MapSoftmax(ctx);
    case kLogSoftmax: return MapUnary(ctx, "LogSoftmax");
    case kBatchMatMul: {
      const auto* o = ctx.op->builtin_options_as_BatchMatMulOptions();
      ir::AttrMap attrs;
      attrs["adj_x"] = BoolAttr(o != nullptr && o->adj_x());
      attrs["adj_y"] = BoolAttr(o != nullptr && o->adj_y());
      TFHOST_ASSIGN_OR_RETURN(bool integer, MapIntegerBinaryProduct(ctx, "BatchMatMulV2", attrs, Act::NONE));
      if (integer) return OkStatus();
      TFHOST_ASSIGN_OR_RETURN(ir::TensorRef a, ctx.In(0));
      TFHOST_ASSIGN_OR_RETURN(ir::TensorRef b, ctx.In(1));
      return ctx.b->AddOutputNode(ctx.outputs, "BatchMatMulV2", {a, b}, std::move(attrs)).status();
    }
    case kResizeBilinear: return MapResize(ctx, "ResizeBilinear");
    case kResizeNearestNeighbor: return MapResize(ctx, "ResizeNearestNeighbor");
    case kRelu: return MapUnary(ctx, "Relu");
    case kRelu6: return MapUnary(ctx, "Relu6");
    case kReluN1To1: {
      TFHOST_ASSIGN_OR_RETURN(ir::TensorRef x, ctx.In(0));
      TFHOST_ASSIGN_OR_RETURN(ir::TensorRef lo, ctx.b->AddConst(ctx.Base() + "/minus_one", Tensor::Scalar(-1.0f)));
      TFHOST_ASSIGN_OR_RETURN(ir::TensorRef hi, ctx.b->AddConst(ctx.Base() + "/one", Tensor::Scalar(1.0f)));
      TFHOST_ASSIGN_OR_RETURN(ir::TensorRef m, ctx.b->AddNode(ctx.Base() + "/max", "Maximum", {x, lo}));
      return ctx.b->AddOutputNode(ctx.outputs, "Minimum", {m, hi}).status();
    }
    case kLogistic: return MapUnary(ctx, "Sigmoid");
    case kTanh: return MapUnary(ctx, "Tanh");
    case kHardSwish: return MapHardSwish(ctx);
    case kLeakyRelu: {
      const auto* o = ctx.op->builtin_options_as_LeakyReluOptions();
      ir::AttrMap attrs;
      attrs["alpha"] = FloatAttr(o ? o->alpha() : 0.0f);
      return MapUnary(ctx, "LeakyRelu", std::move(attrs));
    }
    case kGelu: return MapGelu(ctx);
    case kTransposeConv: return MapTransposeConv(ctx);
    case kPrelu: return MapPrelu(ctx);
    case kElu: return MapUnary(ctx, "Elu");
    default: return ctx.Error("is not a mapped neural-network operator");
  }
}

}  // namespace tfhost::loaders::tflite
