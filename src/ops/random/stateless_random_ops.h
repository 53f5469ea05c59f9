// Stateless random ops as TensorFlow runs them on CPU: the V1 forms seeded by a
// shape-[2] `seed` tensor (StatelessRandomUniform, StatelessRandomNormal,
// StatelessTruncatedNormal, StatelessRandomUniformInt,
// StatelessRandomUniformFullInt), the V2 forms that take an explicit Philox
// key/counter/alg triple (tf.random.stateless_* since TF 2.4 lowers to
// StatelessRandomGetKeyCounter + *V2), and the key/counter/alg helpers.
//
// The output is a pure function of (shape, seed or key/counter, dtype): the
// same numbers TensorFlow's CPU kernels give, bit for bit for the integer
// outputs and up to libm's sin/cos/log rounding for the normal ones. No state
// is kept, so the kernels are safe to run concurrently.
#pragma once

#include <cstdint>

#include "ops/op_registry.h"
#include "ops/random/philox_random.h"

namespace tfhost::ops::random {

// TensorFlow's seed scrambling (GenerateKey in stateless_random_ops.cc): the
// counter (seed0 low, seed0 high, seed1 low, seed1 high) is encrypted once
// under the fixed key (0x3ec8f720, 0x02461e29); the first two output words
// become the key and the last two the upper counter words, the lower counter
// words start at zero. int32 seeds are sign-extended to 64 bits first.
void SeedToKeyCounter(uint64_t seed0, uint64_t seed1, PhiloxRandom::Key* key,
                      PhiloxRandom::Block* counter);

// RNG algorithm ids of TensorFlow's rng_alg.h.
inline constexpr int32_t kRngAlgPhilox = 1;
inline constexpr int32_t kRngAlgThreefry = 2;
inline constexpr int32_t kRngAlgAutoSelect = 3;

void RegisterStatelessRandomOpKernels(OpRegistry& registry);

}  // namespace tfhost::ops::random
