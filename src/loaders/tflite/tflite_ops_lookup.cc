// Quantized unary operators as 256-entry tables: an int8 or uint8 input
// has 256 values, so the output TFLite's integer kernel gives for each is
// computed once at load, with that kernel's own arithmetic, and the
// operator becomes a Gather from the table. HARD_SWISH is the one mapped
// this way: TFLite computes it in int16 fixed point (reference_ops::
// HardSwish), which float arithmetic between quantize steps does not
// reproduce.
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

int16_t RoundingDivideByPot16(int16_t x, int exponent) {
  if (exponent <= 0) return x;
  const int32_t mask = (1 << exponent) - 1;
  const int32_t remainder = x & mask;
  const int32_t threshold = (mask >> 1) + (x < 0 ? 1 : 0);
  return static_cast<int16_t>((x >> exponent) + (remainder > threshold ? 1 : 0));
}

// TFLite's DownScaleInt32ToInt16Multiplier: the Q31 multiplier rounded to Q15.
int16_t ToQ15(int32_t q31) {
  constexpr int32_t kOffset = 1 << 15;
  if (q31 >= std::numeric_limits<int32_t>::max() - kOffset) return kMax16;
  return static_cast<int16_t>((q31 + kOffset) >> 16);
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
  const bool is_uint8 = in.type == DType::kUInt8;
  const int32_t lowest = is_uint8 ? 0 : -128, highest = is_uint8 ? 255 : 127;
  Tensor table(out.type, Shape({256}));
  for (int32_t q = lowest; q <= highest; ++q) {
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
    int32_t result = RoundingDivideByPot16(product, -output_m.shift) + static_cast<int32_t>(out.zero_points[0]);
    result = std::clamp(result, lowest, highest);
    if (is_uint8) {
      table.data<uint8_t>()[q - lowest] = static_cast<uint8_t>(result);
    } else {
      table.data<int8_t>()[q - lowest] = static_cast<int8_t>(result);
    }
  }
  return table;
}

}  // namespace

StatusOr<bool> MapIntegerLookup(const OpContext& ctx) {
  if (ctx.code != kHardSwish || ctx.inputs.size() != 1 || ctx.outputs.size() != 1 || !ctx.HasInput(0)) return false;
  TFHOST_ASSIGN_OR_RETURN(auto in_q, ctx.b->ActivationQuantization(ctx.inputs[0]));
  TFHOST_ASSIGN_OR_RETURN(auto out_q, ctx.b->ActivationQuantization(ctx.outputs[0]));
  if (!in_q || !out_q || in_q->axis != -1 || out_q->axis != -1 || in_q->type != out_q->type ||
      (in_q->type != DType::kInt8 && in_q->type != DType::kUInt8)) {
    return false;
  }
  TFHOST_ASSIGN_OR_RETURN(Tensor table, HardSwishTable(ctx, *in_q, *out_q));
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
