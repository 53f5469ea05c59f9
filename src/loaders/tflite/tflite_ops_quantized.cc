// CONV_2D, DEPTHWISE_CONV_2D, TRANSPOSE_CONV, FULLY_CONNECTED, AVERAGE_POOL_2D, MEAN, MUL,
// BATCH_MATMUL, ADD, SUB and SQUARED_DIFFERENCE on quantized tensors, as
// TFLite's integer kernels compute them. For the
// products: the accumulator is the exact sum
// of (q_in - zero_point) x q_weight plus the int32 bias, and the output is
// that accumulator rescaled with TFLite's fixed-point multiplier per output
// channel (_TfhostRequantize), then clamped to the fused activation's range
// in integers. Rounding the real-valued product instead (dequantize, float
// kernel, quantize) lands on a neighbouring integer whenever float error
// meets a half-step, and deep networks amplify such differences.
//
// The accumulator is computed by the float kernels on integer-valued
// operands: exact while partial sums stay below 2^24, which int8 operands
// reach only in layers far wider than real models'.
#include <algorithm>
#include <cmath>
#include <limits>

#include "loaders/tflite/tflite_builtins.h"
#include "loaders/tflite/tflite_ops.h"
#include "ops/math/requantize.h"

namespace tfhost::loaders::tflite {

namespace {

using Act = fb::ActivationFunctionType;

// TFLite's CalculateActivationRangeQuantized: the fused activation's bounds
// as stored integers, within the type's range; nullopt for an activation
// that is not a clamp.
std::optional<std::pair<int64_t, int64_t>> ActivationRange(Act act, const GraphBuilder::Quantization& q) {
  int64_t lo = q.type == DType::kUInt8 ? 0 : -128, hi = q.type == DType::kUInt8 ? 255 : 127;
  const float scale = q.scales[0];
  const int64_t zero = q.zero_points[0];
  auto quantize = [&](float real) { return zero + static_cast<int64_t>(std::round(real / scale)); };
  switch (act) {
    case Act::NONE: break;
    case Act::RELU: lo = std::max(lo, quantize(0.0f)); break;
    case Act::RELU6: lo = std::max(lo, quantize(0.0f)), hi = std::min(hi, quantize(6.0f)); break;
    case Act::RELU_N1_TO_1: lo = std::max(lo, quantize(-1.0f)), hi = std::min(hi, quantize(1.0f)); break;
    default: return std::nullopt;
  }
  return std::make_pair(lo, hi);
}

// A stored constant minus its zero points, as float32 (integers, exact).
Tensor Centered(const GraphBuilder::StoredConstant& c) {
  const Tensor& v = c.stored;
  const auto& q = c.quantization;
  int64_t inner = 1;
  for (int d = static_cast<int>(q.axis) + 1; q.axis >= 0 && d < v.rank(); ++d) inner *= v.dim(d);
  const std::vector<double> stored = v.ToDoubleVector();
  Tensor out(DType::kFloat, v.shape());
  const int64_t channels = static_cast<int64_t>(q.scales.size());
  for (int64_t i = 0; i < static_cast<int64_t>(stored.size()); ++i) {
    const int64_t c = q.axis >= 0 ? (i / inner) % channels : 0;
    out.data<float>()[i] = static_cast<float>(stored[i] - static_cast<double>(q.zero_points[c]));
  }
  return out;
}

bool IsActivationType(DType d) { return d == DType::kInt8 || d == DType::kUInt8; }

// Input `i` as q - zero_point in float32, and its scale: a computed tensor
// or a constant quantized with one scale; nullopt otherwise.
StatusOr<std::optional<std::pair<ir::TensorRef, float>>> CenteredInput(const OpContext& ctx, int i) {
  using Result = std::optional<std::pair<ir::TensorRef, float>>;
  if (!ctx.HasInput(i)) return Result();
  const int t = ctx.inputs[i];
  TFHOST_ASSIGN_OR_RETURN(auto q, ctx.b->ActivationQuantization(t));
  if (q) {
    if (q->axis != -1 || !IsActivationType(q->type)) return Result();
    TFHOST_ASSIGN_OR_RETURN(ir::TensorRef ref, ctx.b->CenteredOperand(t));
    return Result(std::make_pair(ref, q->scales[0]));
  }
  TFHOST_ASSIGN_OR_RETURN(auto c, ctx.b->StoredConstantValue(t));
  if (!c || c->quantization.axis != -1 || !IsActivationType(c->stored.dtype())) return Result();
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef ref, ctx.b->AddConst(ctx.b->NodeName(t) + "/centered", Centered(*c)));
  return Result(std::make_pair(ref, c->quantization.scales[0]));
}

// _TfhostRequantize's attrs for `out` with one real multiplier.
ir::AttrMap RequantizeAttrs(const GraphBuilder::Quantization& out, double real, std::pair<int64_t, int64_t> range) {
  const ops::QuantizedMultiplier m = ops::QuantizeMultiplier(real);
  ir::AttrMap rq;
  rq["T"] = TypeAttr(DType::kFloat);
  rq["out_type"] = TypeAttr(out.type);
  rq["multipliers"] = IntListAttr({m.multiplier});
  rq["shifts"] = IntListAttr({m.shift});
  rq["zero_point"] = IntAttr(out.zero_points[0]);
  rq["clamp_min"] = IntAttr(range.first);
  rq["clamp_max"] = IntAttr(range.second);
  return rq;
}

}  // namespace

StatusOr<bool> MapIntegerProduct(const OpContext& ctx, IntegerProduct kind, const std::string& op, ir::AttrMap attrs,
                                 Act act) {
  // TRANSPOSE_CONV's inputs are (output shape, weights, x, bias); the
  // others' (x, weights, bias).
  const bool transposed = kind == IntegerProduct::kTransposeConv;
  const int x_at = transposed ? 2 : 0, bias_at = transposed ? 3 : 2;
  if (static_cast<int>(ctx.inputs.size()) <= x_at || ctx.outputs.size() != 1 || !ctx.HasInput(x_at) ||
      !ctx.HasInput(1)) {
    return false;
  }
  TFHOST_ASSIGN_OR_RETURN(auto in_q, ctx.b->ActivationQuantization(ctx.inputs[x_at]));
  TFHOST_ASSIGN_OR_RETURN(auto out_q, ctx.b->ActivationQuantization(ctx.outputs[0]));
  if (!in_q || !out_q || in_q->axis != -1 || out_q->axis != -1 || !IsActivationType(in_q->type) ||
      out_q->type != in_q->type) {
    return false;
  }
  TFHOST_ASSIGN_OR_RETURN(auto weights, ctx.b->StoredConstantValue(ctx.inputs[1]));
  if (!weights || !IsActivationType(weights->stored.dtype())) return false;
  std::optional<GraphBuilder::StoredConstant> bias;
  if (ctx.HasInput(bias_at)) {
    TFHOST_ASSIGN_OR_RETURN(bias, ctx.b->StoredConstantValue(ctx.inputs[bias_at]));
    if (!bias || bias->stored.dtype() != DType::kInt32) return false;
  }
  const auto range = ActivationRange(act, *out_q);
  if (!range) return false;

  // The weights in TensorFlow's layout, and which of their dimensions the
  // per-channel scales follow in TFLite's.
  const Tensor& w = weights->stored;
  int channel_dim = 0;
  Tensor laid_out;
  switch (kind) {
    case IntegerProduct::kConv2D:  // [out, h, w, in] -> [h, w, in, out]
      if (w.rank() != 4) return false;
      laid_out = TransposeConstant(Centered(*weights), {1, 2, 3, 0});
      break;
    case IntegerProduct::kDepthwise: {  // [1, h, w, c * m] -> [h, w, c, m]
      if (w.rank() != 4 || w.dim(0) != 1) return false;
      channel_dim = 3;
      const std::vector<int64_t> in_dims = SignatureDims(ctx.b->tensor(ctx.inputs[0]));
      if (in_dims.size() != 4 || in_dims[3] < 1 || w.dim(3) % in_dims[3] != 0) return false;
      TFHOST_ASSIGN_OR_RETURN(laid_out, Centered(*weights).Reshaped(
                                            Shape({w.dim(1), w.dim(2), in_dims[3], w.dim(3) / in_dims[3]})));
      break;
    }
    case IntegerProduct::kTransposeConv:  // [out, h, w, in] -> [h, w, out, in]
      if (w.rank() != 4) return false;
      laid_out = TransposeConstant(Centered(*weights), {1, 2, 0, 3});
      break;
    case IntegerProduct::kFullyConnected:  // [out, in] -> [in, out]
      if (w.rank() != 2 || SignatureDims(ctx.b->tensor(ctx.inputs[0])).size() != 2) return false;
      laid_out = TransposeConstant(Centered(*weights), {1, 0});
      break;
  }
  const auto& wq = weights->quantization;
  if (wq.axis >= 0 && wq.axis != channel_dim) return false;
  const int64_t out_channels = w.dim(channel_dim);

  // One multiplier per output channel (or one for all), from the real
  // scale input x weight / output in double, as TFLite computes it.
  std::vector<int64_t> multipliers, shifts;
  for (size_t c = 0; c < wq.scales.size(); ++c) {
    const double real = static_cast<double>(in_q->scales[0]) * static_cast<double>(wq.scales[c]) /
                        static_cast<double>(out_q->scales[0]);
    const ops::QuantizedMultiplier m = ops::QuantizeMultiplier(real);
    multipliers.push_back(m.multiplier);
    shifts.push_back(m.shift);
  }
  if (multipliers.size() != 1 && static_cast<int64_t>(multipliers.size()) != out_channels) return false;

  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef x, ctx.b->CenteredOperand(ctx.inputs[x_at]));
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef wref,
                          ctx.b->AddConst(ctx.b->NodeName(ctx.inputs[1]) + "/tf_layout_centered", laid_out));
  std::vector<ir::TensorRef> operands = {x, wref};
  if (transposed) {
    TFHOST_ASSIGN_OR_RETURN(ir::TensorRef sizes, ctx.In(0));
    operands = {sizes, wref, x};
  }
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef acc, ctx.b->AddNode(ctx.Base() + "/" + op, op, operands, std::move(attrs)));
  if (bias) {
    Tensor b(DType::kFloat, bias->stored.shape());
    for (int64_t i = 0; i < b.NumElements(); ++i) b.data<float>()[i] = static_cast<float>(bias->stored.data<int32_t>()[i]);
    TFHOST_ASSIGN_OR_RETURN(ir::TensorRef bref, ctx.b->AddConst(ctx.b->NodeName(ctx.inputs[bias_at]) + "/as_float", b));
    TFHOST_ASSIGN_OR_RETURN(acc, ctx.b->AddNode(ctx.Base() + "/BiasAdd", "BiasAdd", {acc, bref}));
  }
  ir::AttrMap rq;
  rq["T"] = TypeAttr(DType::kFloat);
  rq["out_type"] = TypeAttr(out_q->type);
  if (kind == IntegerProduct::kFullyConnected) {
    // TFLite's reference FULLY_CONNECTED rescales in double, not with the
    // fixed-point multiplier its convolutions use.
    rq["weight_scales"] = FloatListAttr(wq.scales);
    rq["input_scale"] = FloatAttr(in_q->scales[0]);
    rq["output_scale"] = FloatAttr(out_q->scales[0]);
  } else {
    rq["multipliers"] = IntListAttr(multipliers);
    rq["shifts"] = IntListAttr(shifts);
  }
  rq["zero_point"] = IntAttr(out_q->zero_points[0]);
  rq["clamp_min"] = IntAttr(range->first);
  rq["clamp_max"] = IntAttr(range->second);
  TFHOST_RETURN_IF_ERROR(ctx.b->AddStoredOutputNode(ctx.outputs, "_TfhostRequantize", {acc}, std::move(rq)).status());
  return true;
}

StatusOr<bool> MapIntegerAveragePool(const OpContext& ctx, ir::AttrMap attrs, Act act, int64_t window) {
  if (ctx.inputs.empty() || ctx.outputs.size() != 1 || !ctx.HasInput(0) || act != Act::NONE) return false;
  TFHOST_ASSIGN_OR_RETURN(auto in_q, ctx.b->ActivationQuantization(ctx.inputs[0]));
  TFHOST_ASSIGN_OR_RETURN(auto out_q, ctx.b->ActivationQuantization(ctx.outputs[0]));
  if (!in_q || !out_q || !IsActivationType(in_q->type) || in_q->type != out_q->type || in_q->axis != -1 ||
      out_q->axis != -1 || in_q->scales != out_q->scales || in_q->zero_points != out_q->zero_points) {
    return false;
  }
  // TFLite averages the stored integers (zero point included) and rounds
  // sum / count half away from zero. The float average of those integers
  // is within a few ulps of sum / count, while a value that is not a tie
  // lies at least 1 / count from one; so moving it a quarter of 1 / window
  // away from zero settles ties outward and leaves every other value's
  // rounding alone.
  if (window > 4096) return false;
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef stored, ctx.b->StoredOperand(ctx.inputs[0]));
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef mean, ctx.b->AddNode(ctx.Base() + "/AvgPool", "AvgPool", {stored},
                                                             std::move(attrs)));
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef sign, ctx.b->AddNode(ctx.Base() + "/sign", "Sign", {mean}));
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef nudge, ctx.b->AddConst(ctx.Base() + "/tie_nudge",
                                                               Tensor::Scalar(0.25f / static_cast<float>(window))));
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef away, ctx.b->AddNode(ctx.Base() + "/away", "Mul", {sign, nudge}));
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef nudged, ctx.b->AddNode(ctx.Base() + "/nudged", "AddV2", {mean, away}));
  GraphBuilder::Quantization unit;
  unit.type = out_q->type;
  unit.scales = {1.0f};
  unit.zero_points = {0};
  ir::AttrMap q;
  q["out_type"] = TypeAttr(out_q->type);
  GraphBuilder::SetAffineAttrs(unit, &q);
  TFHOST_RETURN_IF_ERROR(ctx.b->AddStoredOutputNode(ctx.outputs, "_TfhostAffineQuantize", {nudged}, std::move(q)).status());
  return true;
}

StatusOr<bool> MapIntegerMean(const OpContext& ctx, ir::AttrMap attrs) {
  if (ctx.inputs.size() != 2 || ctx.outputs.size() != 1 || !ctx.HasInput(0) || !ctx.HasInput(1)) return false;
  TFHOST_ASSIGN_OR_RETURN(auto in_q, ctx.b->ActivationQuantization(ctx.inputs[0]));
  TFHOST_ASSIGN_OR_RETURN(auto out_q, ctx.b->ActivationQuantization(ctx.outputs[0]));
  if (!in_q || !out_q || !IsActivationType(in_q->type) || in_q->type != out_q->type || in_q->axis != -1 ||
      out_q->axis != -1) {
    return false;
  }
  // The count of averaged elements must be known at load, from the input's
  // shape and the constant axes.
  TFHOST_ASSIGN_OR_RETURN(auto axes, ctx.b->ConstantValue(ctx.inputs[1]));
  const std::vector<int64_t> dims = SignatureDims(ctx.b->tensor(ctx.inputs[0]));
  if (!axes || dims.empty()) return false;
  TFHOST_ASSIGN_OR_RETURN(std::vector<int64_t> axis_list, axes->ToInt64Vector());
  std::vector<bool> reduced(dims.size(), false);
  for (int64_t a : axis_list) {
    if (a < 0) a += static_cast<int64_t>(dims.size());
    if (a < 0 || a >= static_cast<int64_t>(dims.size()) || dims[a] < 1) return false;
    reduced[a] = true;
  }
  int64_t count = 1;
  for (size_t d = 0; d < dims.size(); ++d) {
    if (reduced[d]) count *= dims[d];
  }
  // Sums of up to 65536 int8 values stay exact in float.
  if (count < 1 || count > 65536) return false;
  // TFLite folds 1 / count into the input-to-output multiplier: shifted
  // left by floor(log2(count)) (at most 32, and so that the shift stays
  // >= -31), divided by count with truncation.
  const ops::QuantizedMultiplier m = ops::QuantizeMultiplier(static_cast<double>(in_q->scales[0]) /
                                                             static_cast<double>(out_q->scales[0]));
  int log2 = 0;
  while ((int64_t{2} << log2) <= count) ++log2;
  const int shift = std::min({log2, 32, 31 + m.shift});
  const int64_t multiplier = (static_cast<int64_t>(m.multiplier) << shift) / count;
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef centered, ctx.b->CenteredOperand(ctx.inputs[0]));
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef axes_ref, ctx.In(1));
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef sum, ctx.b->AddNode(ctx.Base() + "/Sum", "Sum", {centered, axes_ref},
                                                            std::move(attrs)));
  const bool is_uint8 = out_q->type == DType::kUInt8;
  ir::AttrMap rq;
  rq["T"] = TypeAttr(DType::kFloat);
  rq["out_type"] = TypeAttr(out_q->type);
  rq["multipliers"] = IntListAttr({multiplier});
  rq["shifts"] = IntListAttr({m.shift - shift});
  rq["zero_point"] = IntAttr(out_q->zero_points[0]);
  rq["clamp_min"] = IntAttr(is_uint8 ? 0 : -128);
  rq["clamp_max"] = IntAttr(is_uint8 ? 255 : 127);
  TFHOST_RETURN_IF_ERROR(ctx.b->AddStoredOutputNode(ctx.outputs, "_TfhostRequantize", {sum}, std::move(rq)).status());
  return true;
}

// Both inputs of a binary operator are quantized like `out` (computed, or
// constants with one scale), checked before any node is added.
StatusOr<bool> BinaryOperandsQualify(const OpContext& ctx, const GraphBuilder::Quantization& out) {
  if (ctx.inputs.size() != 2 || ctx.outputs.size() != 1) return false;
  for (int i = 0; i < 2; ++i) {
    if (!ctx.HasInput(i)) return false;
    TFHOST_ASSIGN_OR_RETURN(auto q, ctx.b->ActivationQuantization(ctx.inputs[i]));
    if (q && (q->axis != -1 || q->type != out.type)) return false;
    if (!q) {
      TFHOST_ASSIGN_OR_RETURN(auto c, ctx.b->StoredConstantValue(ctx.inputs[i]));
      if (!c || c->quantization.axis != -1 || c->stored.dtype() != out.type) return false;
    }
  }
  return true;
}

// What a binary integer operator needs: the output's quantization and
// activation range, and both operands centered with their scales; nullopt
// when the operator is not in that form.
struct BinaryOperands {
  GraphBuilder::Quantization out;
  std::pair<int64_t, int64_t> range;
  std::pair<ir::TensorRef, float> a, b;
};

StatusOr<std::optional<BinaryOperands>> ReadBinaryOperands(const OpContext& ctx, Act act) {
  using Result = std::optional<BinaryOperands>;
  if (ctx.outputs.size() != 1) return Result();
  TFHOST_ASSIGN_OR_RETURN(auto out_q, ctx.b->ActivationQuantization(ctx.outputs[0]));
  if (!out_q || out_q->axis != -1 || !IsActivationType(out_q->type)) return Result();
  const auto range = ActivationRange(act, *out_q);
  if (!range) return Result();
  TFHOST_ASSIGN_OR_RETURN(bool qualify, BinaryOperandsQualify(ctx, *out_q));
  if (!qualify) return Result();
  TFHOST_ASSIGN_OR_RETURN(auto a, CenteredInput(ctx, 0));
  TFHOST_ASSIGN_OR_RETURN(auto b, CenteredInput(ctx, 1));
  if (!a || !b) return ctx.Error("has a quantized operand tfhost could not read as integers");
  return Result(BinaryOperands{*out_q, *range, *a, *b});
}

// TFLite's integer MUL and BATCH_MATMUL: `op` on (q1 - zp1) and (q2 - zp2)
// (a product below 2^16, or sums of them below 2^24, exact in float),
// rescaled by scale1 x scale2 / output scale.
StatusOr<bool> MapIntegerBinaryProduct(const OpContext& ctx, const std::string& op, ir::AttrMap attrs, Act act) {
  TFHOST_ASSIGN_OR_RETURN(auto operands, ReadBinaryOperands(ctx, act));
  if (!operands) return false;
  const GraphBuilder::Quantization& out_q = operands->out;
  const auto& range = operands->range;
  const auto& a = operands->a;
  const auto& b = operands->b;
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef product,
                          ctx.b->AddNode(ctx.Base() + "/" + op, op, {a.first, b.first}, std::move(attrs)));
  // The real multiplier in TFLite's own precision: MUL divides the float
  // product of the scales in float, BATCH_MATMUL in double.
  const float scale_product = a.second * b.second;
  const double real = op == "Mul" ? static_cast<double>(scale_product / out_q.scales[0])
                                  : static_cast<double>(scale_product) / static_cast<double>(out_q.scales[0]);
  TFHOST_RETURN_IF_ERROR(ctx.b->AddStoredOutputNode(ctx.outputs, "_TfhostRequantize", {product},
                                                    RequantizeAttrs(out_q, real, range))
                             .status());
  return true;
}

// Each operand's q - zero_point, shifted left by `left_shift` bits and
// rescaled to half the larger input scale (TFLite's ADD, SUB and
// SQUARED_DIFFERENCE start alike), as int32.
StatusOr<std::vector<ir::TensorRef>> RescaledOperands(const OpContext& ctx, const BinaryOperands& operands,
                                                      int left_shift, double twice_max) {
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef shift, ctx.b->AddConst(ctx.Base() + "/left_shift",
                                                               Tensor::Scalar(static_cast<float>(1 << left_shift))));
  const GraphBuilder::Quantization wide{DType::kInt32, {1.0f}, {0}, -1};
  const std::pair<int64_t, int64_t> int32_range{std::numeric_limits<int32_t>::min(),
                                                std::numeric_limits<int32_t>::max()};
  std::vector<ir::TensorRef> scaled;
  for (const auto& [operand, scale] : {operands.a, operands.b}) {
    TFHOST_ASSIGN_OR_RETURN(ir::TensorRef shifted, ctx.b->AddNode(ctx.Base() + "/shifted", "Mul", {operand, shift}));
    TFHOST_ASSIGN_OR_RETURN(
        ir::TensorRef r, ctx.b->AddNode(ctx.Base() + "/rescaled", "_TfhostRequantize", {shifted},
                                        RequantizeAttrs(wide, static_cast<double>(scale) / twice_max, int32_range)));
    scaled.push_back(r);
  }
  return scaled;
}

// TFLite doubles the larger input scale in float, then divides in double.
double TwiceMaxScale(const BinaryOperands& operands) {
  return static_cast<double>(2.0f * std::max(operands.a.second, operands.b.second));
}

// TFLite's integer ADD and SUB: both operands rescaled (shifted left by 20
// bits), their int32 sum or difference rescaled to the output. Every step
// rounds as TFLite's does, each through _TfhostRequantize (2^20 x an int8
// is exact in float).
StatusOr<bool> MapIntegerAdd(const OpContext& ctx, Act act, bool subtract) {
  TFHOST_ASSIGN_OR_RETURN(auto operands, ReadBinaryOperands(ctx, act));
  if (!operands) return false;
  constexpr int kLeftShift = 20;
  const double twice_max = TwiceMaxScale(*operands);
  TFHOST_ASSIGN_OR_RETURN(auto scaled, RescaledOperands(ctx, *operands, kLeftShift, twice_max));
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef sum, ctx.b->AddNode(ctx.Base() + (subtract ? "/difference" : "/sum"),
                                                            subtract ? "Sub" : "AddV2", scaled));
  ir::AttrMap rq = RequantizeAttrs(
      operands->out, twice_max / (static_cast<double>(1 << kLeftShift) * static_cast<double>(operands->out.scales[0])),
      operands->range);
  rq["T"] = TypeAttr(DType::kInt32);
  TFHOST_RETURN_IF_ERROR(ctx.b->AddStoredOutputNode(ctx.outputs, "_TfhostRequantize", {sum}, std::move(rq)).status());
  return true;
}

// TFLite's integer SQUARED_DIFFERENCE: both operands rescaled as for ADD but
// shifted by 7 bits, the int32 difference squared (below 255^2 x 2^14, so
// exact), then rescaled by (2 x max scale)^2 / (2^14 x output scale).
StatusOr<bool> MapIntegerSquaredDifference(const OpContext& ctx) {
  TFHOST_ASSIGN_OR_RETURN(auto operands, ReadBinaryOperands(ctx, Act::NONE));
  if (!operands) return false;
  constexpr int kLeftShift = 7;
  const double twice_max = TwiceMaxScale(*operands);
  TFHOST_ASSIGN_OR_RETURN(auto scaled, RescaledOperands(ctx, *operands, kLeftShift, twice_max));
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef difference, ctx.b->AddNode(ctx.Base() + "/difference", "Sub", scaled));
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef square,
                          ctx.b->AddNode(ctx.Base() + "/square", "Mul", {difference, difference}));
  // (1 << 14) x the output scale is a float product in TFLite, exact.
  const double denominator = static_cast<double>(static_cast<float>(1 << (2 * kLeftShift)) * operands->out.scales[0]);
  ir::AttrMap rq = RequantizeAttrs(operands->out, twice_max * twice_max / denominator, operands->range);
  rq["T"] = TypeAttr(DType::kInt32);
  TFHOST_RETURN_IF_ERROR(ctx.b->AddStoredOutputNode(ctx.outputs, "_TfhostRequantize", {square}, std::move(rq)).status());
  return true;
}

}  // namespace tfhost::loaders::tflite
