// Quantized unary operators as 256-entry tables: an int8 or uint8 input
// has 256 values, so the output TFLite's integer kernel gives for each is
// computed once at load, with that kernel's own arithmetic, and the
// operator becomes a Gather from the table. Float arithmetic between
// quantize steps does not reproduce these kernels:
//  * HARD_SWISH computes in int16 fixed point (reference_ops::HardSwish);
//  * RSQRT (int8) takes gemmlowp's fixed-point inverse square root of
//    q - zero_point (five Newton-Raphson steps in Q3.28), then two
//    fixed-point rescalings; 0 maps to 127. TFLite refuses a run whose
//    input is below the zero point; the table answers those entries as it
//    answers q - zero_point = 1;
//  * GELU fills TFLite's own table (LUTPopulate): each stored value
//    dequantized in float, 0.5 x erfc(-x / sqrt 2) (or the tanh form), and
//    rounded half away from zero onto the output's scale.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>

#include "loaders/tflite/tflite_builtins.h"
#include "loaders/tflite/tflite_ops.h"
#include "ops/math/requantize.h"

namespace tfhost::loaders::tflite {

namespace {

constexpr int32_t kMin16 = std::numeric_limits<int16_t>::min(), kMax16 = std::numeric_limits<int16_t>::max();

int16_t Saturate16(int64_t v) { return static_cast<int16_t>(std::clamp<int64_t>(v, kMin16, kMax16)); }

// gemmlowp's int16 SaturatingRoundingDoublingHighMul.
int16_t RoundingDoublingHighMul16(int16_t a, int16_t b) {
  if (a == b && a == kMin16) return kMax16;
  const int32_t ab = static_cast<int32_t>(a) * b;
  const int32_t nudge = ab >= 0 ? (1 << 14) : (1 - (1 << 14));
  return static_cast<int16_t>((ab + nudge) / (1 << 15));
}

// The same without rounding (truncating toward zero), as TFLite's HardSwish
// uses for its last product.
int16_t DoublingHighMul16(int16_t a, int16_t b) {
  if (a == b && a == kMin16) return kMax16;
  return static_cast<int16_t>((static_cast<int32_t>(a) * b) / (1 << 15));
}

// Dividing never leaves int16's range, so the int32 form serves (and is
// defined for any exponent a model's scales can give).
int16_t RoundingDivideByPot16(int16_t x, int exponent) {
  return static_cast<int16_t>(ops::RoundingDivideByPot(x, exponent));
}

// TFLite's DownScaleInt32ToInt16Multiplier: the Q31 multiplier rounded to Q15.
int16_t ToQ15(int32_t q31) {
  constexpr int32_t kOffset = 1 << 15;
  if (q31 >= std::numeric_limits<int32_t>::max() - kOffset) return kMax16;
  return static_cast<int16_t>((q31 + kOffset) >> 16);
}

// A 256-entry table of `type` (int8 or uint8): entry q - lowest holds
// value(q) for every stored input q, clamped to the type's range.
template <typename ValueFn>
Tensor EightBitTable(DType type, ValueFn value) {
  const bool is_uint8 = type == DType::kUInt8;
  const int32_t lowest = is_uint8 ? 0 : -128, highest = is_uint8 ? 255 : 127;
  Tensor table(type, Shape({256}));
  for (int32_t q = lowest; q <= highest; ++q) {
    const int32_t result = std::clamp(value(q), lowest, highest);
    if (is_uint8) {
      table.data<uint8_t>()[q - lowest] = static_cast<uint8_t>(result);
    } else {
      table.data<int8_t>()[q - lowest] = static_cast<int8_t>(result);
    }
  }
  return table;
}

// The table of TFLite's quantized HARD_SWISH: out[q - lowest] for every
// stored input q. Parameters as HardSwishPrepare computes them, in float.
StatusOr<Tensor> HardSwishTable(const OpContext& ctx, const GraphBuilder::Quantization& in,
                                const GraphBuilder::Quantization& out) {
  const float hires_input_scale = (1.0f / 128.0f) * in.scales[0];
  const float reluish_scale = 3.0f / 32768.0f;
  const ops::QuantizedMultiplier output_m = ops::QuantizeMultiplier(hires_input_scale / out.scales[0]);
  const ops::QuantizedMultiplier reluish_m = ops::QuantizeMultiplier(hires_input_scale / reluish_scale);
  if (output_m.shift > 0) {
    return ctx.Error("has an output scale below its input's / 128; TFLite's quantized HARD_SWISH refuses that too");
  }
  const int16_t output_q15 = ToQ15(output_m.multiplier), reluish_q15 = ToQ15(reluish_m.multiplier);
  return EightBitTable(out.type, [&](int32_t q) {
    const int16_t value = static_cast<int16_t>(q - in.zero_points[0]);
    const int16_t hires = Saturate16(static_cast<int32_t>(value) * (1 << 7));
    const int16_t preshift = RoundingDoublingHighMul16(hires, output_q15);
    int16_t reluish = hires;
    if (reluish_m.shift > 0) reluish = Saturate16(static_cast<int64_t>(reluish) * (int64_t{1} << (reluish_m.shift - 1)));
    reluish = RoundingDoublingHighMul16(reluish, reluish_q15);
    if (reluish_m.shift > 0) reluish = Saturate16(static_cast<int64_t>(reluish) * 2);
    if (reluish_m.shift < 0) reluish = RoundingDivideByPot16(reluish, -reluish_m.shift);
    reluish = static_cast<int16_t>((static_cast<int32_t>(reluish) + (1 << 15)) >> 1);
    const int16_t product = DoublingHighMul16(reluish, preshift);
    return RoundingDivideByPot16(product, -output_m.shift) + static_cast<int32_t>(out.zero_points[0]);
  });
}

// gemmlowp's fixed-point primitives on int32 raw values, as TFLite's
// GetInvSqrtQuantizedMultiplierExp uses them.
int32_t SaturatingShiftLeft(int32_t x, int exponent) {
  const int32_t threshold = (int32_t{1} << (31 - exponent)) - 1;
  if (x > threshold) return std::numeric_limits<int32_t>::max();
  if (x < -threshold) return std::numeric_limits<int32_t>::min();
  return static_cast<int32_t>(static_cast<uint32_t>(x) << exponent);
}
int32_t WrappingSub(int32_t a, int32_t b) {
  return static_cast<int32_t>(static_cast<uint32_t>(a) - static_cast<uint32_t>(b));
}

// TFLite's GetInvSqrtQuantizedMultiplierExp(input, kReverseShift): 1 /
// sqrt(input) as a Q31 multiplier and a left shift.
ops::QuantizedMultiplier InverseSqrtMultiplier(int32_t input) {
  if (input <= 1) return {std::numeric_limits<int32_t>::max(), 0};
  int shift = 11;
  while (input >= (1 << 29)) {
    input /= 4;
    ++shift;
  }
  const unsigned max_left_shift_bits = static_cast<unsigned>(__builtin_clz(static_cast<uint32_t>(input))) - 1;
  const unsigned left_shift_bit_pairs = max_left_shift_bits / 2 - 1;
  shift -= static_cast<int>(left_shift_bit_pairs);
  input <<= 2 * left_shift_bit_pairs;
  // Q3.28 (three integer bits): products of two are Q6, of three Q9.
  const int32_t half_input = ops::RoundingDivideByPot(input >> 1, 1);
  const int32_t half_three = (1 << 28) + (1 << 27);
  int32_t x = 1 << 28;  // 1.0
  for (int i = 0; i < 5; ++i) {
    const int32_t x2 = ops::SaturatingRoundingDoublingHighMul(x, x);
    const int32_t x3 = SaturatingShiftLeft(ops::SaturatingRoundingDoublingHighMul(x2, x), 6);
    x = SaturatingShiftLeft(WrappingSub(ops::SaturatingRoundingDoublingHighMul(half_three, x),
                                        ops::SaturatingRoundingDoublingHighMul(half_input, x3)),
                            3);
  }
  constexpr int32_t kHalfSqrt2 = 1518500250;  // sqrt(2) / 2 in Q0.31
  int32_t multiplier = ops::SaturatingRoundingDoublingHighMul(x, kHalfSqrt2);
  if (shift < 0) {
    multiplier = static_cast<int32_t>(static_cast<uint32_t>(multiplier) << -shift);
    shift = 0;
  }
  return {multiplier, -shift};
}

// The table of TFLite's int8 RSQRT (RsqrtEvalQuantized).
Tensor RsqrtTable(const GraphBuilder::Quantization& in, const GraphBuilder::Quantization& out) {
  // SetRsqrtOutputMultiplier: sqrt and product in float, reciprocal in double.
  const ops::QuantizedMultiplier output_m =
      ops::QuantizeMultiplier(1.0 / static_cast<double>(std::sqrt(in.scales[0]) * out.scales[0]));
  constexpr int kShift = 20;
  return EightBitTable(DType::kInt8, [&](int32_t q) {
    const int32_t value = q - static_cast<int32_t>(in.zero_points[0]);
    if (value == 0) return int32_t{127};
    const ops::QuantizedMultiplier inv = InverseSqrtMultiplier(value);
    const int32_t data = ops::MultiplyByQuantizedMultiplier(1, inv.multiplier, inv.shift + kShift);
    return ops::MultiplyByQuantizedMultiplier(data, output_m.multiplier, output_m.shift - kShift) +
           static_cast<int32_t>(out.zero_points[0]);
  });
}

float Gelu(float x, bool approximate) {
  if (approximate) {
    constexpr float kSqrt2OverPi = static_cast<float>(1.12837916709551257390 * 0.70710678118654752440);
    return 0.5f * x * (1.0f + std::tanh(kSqrt2OverPi * (x + 0.044715f * x * x * x)));
  }
  return 0.5f * x * std::erfc(x * static_cast<float>(-0.70710678118654752440));
}

// TFLite's LUTPopulate for GELU, int8 or uint8.
Tensor GeluTable(const GraphBuilder::Quantization& in, const GraphBuilder::Quantization& out, bool approximate) {
  const float inverse_scale = 1.0f / out.scales[0];
  return EightBitTable(out.type, [&](int32_t q) {
    const float dequantized = in.scales[0] * static_cast<float>(q - static_cast<int32_t>(in.zero_points[0]));
    const float transformed = Gelu(dequantized, approximate);
    // Not finite: the type's lowest, which the table's clamp makes of this.
    if (!std::isfinite(transformed)) return std::numeric_limits<int32_t>::min();
    const float shifted = std::round(transformed * inverse_scale) + static_cast<float>(out.zero_points[0]);
    return static_cast<int32_t>(std::clamp(shifted, -32768.0f, 32767.0f));
  });
}

}  // namespace

StatusOr<bool> MapIntegerLookup(const OpContext& ctx) {
  if ((ctx.code != kHardSwish && ctx.code != kRsqrt && ctx.code != kGelu) || ctx.inputs.size() != 1 ||
      ctx.outputs.size() != 1 || !ctx.HasInput(0)) {
    return false;
  }
  TFHOST_ASSIGN_OR_RETURN(auto in_q, ctx.b->ActivationQuantization(ctx.inputs[0]));
  TFHOST_ASSIGN_OR_RETURN(auto out_q, ctx.b->ActivationQuantization(ctx.outputs[0]));
  if (!in_q || !out_q || in_q->axis != -1 || out_q->axis != -1 || in_q->type != out_q->type ||
      (in_q->type != DType::kInt8 && in_q->type != DType::kUInt8)) {
    return false;
  }
  // TFLite's quantized RSQRT takes int8 only.
  if (ctx.code == kRsqrt && in_q->type != DType::kInt8) return false;
  Tensor table;
  if (ctx.code == kHardSwish) {
    TFHOST_ASSIGN_OR_RETURN(table, HardSwishTable(ctx, *in_q, *out_q));
  } else if (ctx.code == kRsqrt) {
    table = RsqrtTable(*in_q, *out_q);
  } else {
    const auto* o = ctx.op->builtin_options_as_GeluOptions();
    table = GeluTable(*in_q, *out_q, o != nullptr && o->approximate());
  }
  // index = stored value - lowest, as int32.
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef stored, ctx.b->Ref(ctx.inputs[0]));
  ir::AttrMap cast;
  cast["DstT"] = TypeAttr(DType::kInt32);
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef wide, ctx.b->AddNode(ctx.Base() + "/index", "Cast", {stored}, cast));
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef offset, ctx.b->AddConst(ctx.Base() + "/table_offset",
                                                                Tensor::Scalar<int32_t>(in_q->type == DType::kInt8 ? 128 : 0)));
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef index, ctx.b->AddNode(ctx.Base() + "/shifted_index", "AddV2", {wide, offset}));
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef table_ref, ctx.b->AddConst(ctx.Base() + "/table", std::move(table)));
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef axis, ctx.b->AddConst(ctx.Base() + "/axis", Tensor::Scalar<int32_t>(0)));
  ir::AttrMap gather;
  gather["batch_dims"] = IntAttr(0);
  TFHOST_RETURN_IF_ERROR(
      ctx.b->AddStoredOutputNode(ctx.outputs, "GatherV2", {table_ref, index, axis}, std::move(gather)).status());
  return true;
}

}  // namespace tfhost::loaders::tflite
