// TensorFlow's random-number generator: Philox4x32-10 (Salmon, Moraes, Dror
// and Shaw, "Parallel Random Numbers: As Easy as 1, 2, 3", SC11), seeded and
// stepped the way TensorFlow's stateful random kernels do, plus the
// conversions from raw 32-bit words to samples that those kernels use. Same
// seeds and attrs give the same numbers TensorFlow's CPU kernels give.
//
// Thread-safety: PhiloxRandom is a value type without internal locking; the
// kernels keep one per node behind a mutex (random_ops.cc).
#pragma once

#include <array>
#include <cstdint>

namespace tfhost::ops::random {

class PhiloxRandom {
 public:
  using Block = std::array<uint32_t, 4>;  // one output (and the counter): 128 bits
  using Key = std::array<uint32_t, 2>;

  PhiloxRandom() = default;
  // TensorFlow's seeding: key = (seed low 32 bits, seed high 32 bits); counter
  // words 0 and 1 start at zero, words 2 and 3 hold seed2 (low, high).
  PhiloxRandom(uint64_t seed, uint64_t seed2);
  PhiloxRandom(const Block& counter, const Key& key) : counter_(counter), key_(key) {}

  // The bijection itself: ten rounds over `counter` under `key`.
  static Block Compute(Block counter, Key key);

  // Returns the block for the current counter and advances the counter by one.
  Block operator()() {
    Block out = Compute(counter_, key_);
    Skip(1);
    return out;
  }
  // Advances the 128-bit counter by `count` blocks (wrapping at 2^128).
  void Skip(uint64_t count);

  const Block& counter() const { return counter_; }
  const Key& key() const { return key_; }

 private:
  Block counter_{};
  Key key_{};
};

// Hands out the words of successive blocks one at a time, discarding what is
// left of the last block when it goes away (TensorFlow's SingleSampleAdapter,
// used by distributions that take a variable number of words per sample).
class SingleSampleGenerator {
 public:
  explicit SingleSampleGenerator(PhiloxRandom* gen) : gen_(gen) {}
  uint32_t operator()() {
    if (used_ == 4) {
      block_ = (*gen_)();
      used_ = 0;
    }
    return block_[used_++];
  }

 private:
  PhiloxRandom* gen_;
  PhiloxRandom::Block block_{};
  int used_ = 4;
};

// Uniform [0, 1) from the low mantissa bits of `x`: a float in [1, 2) built
// from exponent 127 and 23 random mantissa bits, minus one.
float Uint32ToFloat(uint32_t x);
// Uniform [0, 1) double from 52 mantissa bits: the low 20 bits of `hi`, all of `lo`.
double Uint64ToDouble(uint32_t hi, uint32_t lo);
// Uniform [0, 1) as IEEE half / bfloat16 bit patterns from the low 10 / 7 bits.
uint16_t Uint16ToHalfBits(uint32_t x);
uint16_t Uint16ToBFloat16Bits(uint32_t x);

// Box-Muller: two uniform words to two standard normal samples. The first
// uniform is clamped at 1e-7 so that log() stays finite.
void BoxMullerFloat(uint32_t x0, uint32_t x1, float* f0, float* f1);
void BoxMullerDouble(uint32_t x0, uint32_t x1, uint32_t x2, uint32_t x3, double* d0, double* d1);

}  // namespace tfhost::ops::random
