#include "ops/random/philox_random.h"

#include <cmath>
#include <cstring>
#include <numbers>

#include "base/dtype.h"

namespace tfhost::ops::random {

namespace {

// Round multipliers and the Weyl sequence that bumps the key between rounds
// (the paper's Philox4x32 constants).
constexpr uint32_t kMultiplierA = 0xD2511F53u;
constexpr uint32_t kMultiplierB = 0xCD9E8D57u;
constexpr uint32_t kKeyBumpA = 0x9E3779B9u;
constexpr uint32_t kKeyBumpB = 0xBB67AE85u;
constexpr int kRounds = 10;

PhiloxRandom::Block Round(const PhiloxRandom::Block& c, const PhiloxRandom::Key& k) {
  const uint64_t p0 = static_cast<uint64_t>(kMultiplierA) * c[0];
  const uint64_t p1 = static_cast<uint64_t>(kMultiplierB) * c[2];
  const uint32_t hi0 = static_cast<uint32_t>(p0 >> 32), lo0 = static_cast<uint32_t>(p0);
  const uint32_t hi1 = static_cast<uint32_t>(p1 >> 32), lo1 = static_cast<uint32_t>(p1);
  return {hi1 ^ c[1] ^ k[0], lo1, hi0 ^ c[3] ^ k[1], lo0};
}

}  // namespace

PhiloxRandom::PhiloxRandom(uint64_t seed, uint64_t seed2) {
  key_ = {static_cast<uint32_t>(seed), static_cast<uint32_t>(seed >> 32)};
  counter_ = {0, 0, static_cast<uint32_t>(seed2), static_cast<uint32_t>(seed2 >> 32)};
}

PhiloxRandom::Block PhiloxRandom::Compute(Block counter, Key key) {
  for (int r = 0; r < kRounds; ++r) {
    if (r > 0) {
      key[0] += kKeyBumpA;
      key[1] += kKeyBumpB;
    }
    counter = Round(counter, key);
  }
  return counter;
}

void PhiloxRandom::Skip(uint64_t count) {
  // 128-bit add of `count`, carrying through all four words.
  const uint64_t w0 = static_cast<uint64_t>(counter_[0]) + static_cast<uint32_t>(count);
  const uint64_t w1 = static_cast<uint64_t>(counter_[1]) + (count >> 32) + (w0 >> 32);
  counter_[0] = static_cast<uint32_t>(w0);
  counter_[1] = static_cast<uint32_t>(w1);
  if ((w1 >> 32) != 0 && ++counter_[2] == 0) ++counter_[3];
}

float Uint32ToFloat(uint32_t x) {
  const uint32_t bits = (127u << 23) | (x & 0x7fffffu);
  float f;
  std::memcpy(&f, &bits, sizeof(f));
  return f - 1.0f;
}

double Uint64ToDouble(uint32_t hi, uint32_t lo) {
  const uint64_t mantissa = (static_cast<uint64_t>(hi & 0xfffffu) << 32) | lo;
  const uint64_t bits = (uint64_t{1023} << 52) | mantissa;
  double d;
  std::memcpy(&d, &bits, sizeof(d));
  return d - 1.0;
}

uint16_t Uint16ToHalfBits(uint32_t x) {
  // [1, 2) as a half is exact in float, and so is subtracting one; the result
  // (a multiple of 2^-10 below 1) is exact in half again.
  const uint16_t bits = static_cast<uint16_t>((15u << 10) | (x & 0x3ffu));
  return FloatToHalf(HalfToFloat(bits) - 1.0f);
}

uint16_t Uint16ToBFloat16Bits(uint32_t x) {
  const uint16_t bits = static_cast<uint16_t>((127u << 7) | (x & 0x7fu));
  return FloatToBFloat16(BFloat16ToFloat(bits) - 1.0f);
}

void BoxMullerFloat(uint32_t x0, uint32_t x1, float* f0, float* f1) {
  const float kEpsilon = 1.0e-7f;
  float u1 = Uint32ToFloat(x0);
  if (u1 < kEpsilon) u1 = kEpsilon;
  // TensorFlow writes 2.0f * M_PI * u: M_PI is a double, so the angle is
  // formed in double and rounded to float once.
  const float v1 = static_cast<float>(2.0 * std::numbers::pi * static_cast<double>(Uint32ToFloat(x1)));
  const float u2 = std::sqrt(-2.0f * std::log(u1));
  *f0 = std::sin(v1) * u2;
  *f1 = std::cos(v1) * u2;
}

void BoxMullerDouble(uint32_t x0, uint32_t x1, uint32_t x2, uint32_t x3, double* d0, double* d1) {
  const double kEpsilon = 1.0e-7;
  double u1 = Uint64ToDouble(x0, x1);
  if (u1 < kEpsilon) u1 = kEpsilon;
  const double v1 = 2.0 * std::numbers::pi * Uint64ToDouble(x2, x3);
  const double u2 = std::sqrt(-2.0 * std::log(u1));
  *d0 = std::sin(v1) * u2;
  *d1 = std::cos(v1) * u2;
}

}  // namespace tfhost::ops::random
