// TensorFlow Lite's fixed-point rescaling, shared by _TfhostRequantize
// (requantize_ops.cc) and the loaders that compute its attrs: a real
// multiplier becomes a Q31 multiplier and a power-of-two shift, and an int32
// is multiplied by the pair with gemmlowp's rounding. Pure functions.
#pragma once

#include <cstdint>

namespace tfhost::ops {

struct QuantizedMultiplier {
  int32_t multiplier = 0;  // Q31, in [2^30, 2^31), or 0
  int shift = 0;           // real = multiplier / 2^31 * 2^shift
};

// TFLite's QuantizeMultiplier: frexp, then the mantissa rounded to Q31 (a
// mantissa that rounds up to 2^31 halves and raises the shift). Zero, a
// negative or non-finite multiplier, and one below 2^-32 give {0, 0}.
QuantizedMultiplier QuantizeMultiplier(double real_multiplier);

// gemmlowp's SaturatingRoundingDoublingHighMul: (a x b x 2) / 2^32 rounded
// to nearest, halves away from zero; INT32_MIN x INT32_MIN saturates.
int32_t SaturatingRoundingDoublingHighMul(int32_t a, int32_t b);
// gemmlowp's RoundingDivideByPOT: x / 2^exponent rounded to nearest,
// halves away from zero (any exponent; 0 or less returns x).
int32_t RoundingDivideByPot(int32_t x, int exponent);

// x * multiplier * 2^shift / 2^31 with TFLite's double rounding: a
// saturating rounding doubling high multiply, then a rounding right shift.
int32_t MultiplyByQuantizedMultiplier(int32_t x, int32_t multiplier, int shift);

}  // namespace tfhost::ops
