// Filling tensors from a Philox stream as TensorFlow's random distributions
// do (random_distributions.h, random_op_cpu.h): which words of which block
// become which output, the uniform, Box-Muller normal and truncated-normal
// samplers, uniform and full-range integers. Shared by the stateful ops
// (random_ops.cc, which reserve their stream per run) and the stateless ones
// (stateless_random_ops.cc, whose stream comes from the seed or key/counter):
// the same stream gives the same numbers in both.
//
// Work splits over `pool` (may be null) in groups of outputs; each group's
// position in the stream is fixed, so results never depend on the split.
#pragma once
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>

#include "base/tensor.h"
#include "base/thread_pool.h"
#include "ops/random/philox_random.h"

namespace tfhost::ops::random {

enum class Distribution { kUniform, kNormal, kTruncatedNormal };

// Blocks a variable-length sampler (truncated normal) may use per output,
// TensorFlow's kReservedSamplesPerOutput: group g of such a sampler starts
// g * kGroup * 256 / 4 blocks into the stream.
inline constexpr uint64_t kReservedBlocksPerOutput = 256;

// Truncated normal keeps samples with |x| < 2 (TensorFlow's kTruncateValue).
inline constexpr float kTruncateFloat = 2.0f;
inline constexpr double kTruncateDouble = 2.0;

// Runs fn(first_group, end_group) over [0, groups), in parallel when a pool
// exists and the work is large enough to pay for the hand-off.
void ForGroups(ThreadPool* pool, int64_t groups, const std::function<void(int64_t, int64_t)>& fn);

// Distributions that turn one block into kGroup outputs: group g uses block g
// of the stream. dist(block, T* group) writes kGroup values.
template <int kGroup, typename T, typename Dist>
void FillFixed(ThreadPool* pool, const PhiloxRandom& base, T* out, int64_t n, Dist dist) {
  const int64_t groups = (n + kGroup - 1) / kGroup;
  ForGroups(pool, groups, [&](int64_t begin, int64_t end) {
    PhiloxRandom gen = base;
    gen.Skip(static_cast<uint64_t>(begin));
    T group[kGroup];
    for (int64_t g = begin; g < end; ++g) {
      dist(gen(), group);
      const int64_t offset = g * kGroup;
      std::copy_n(group, std::min<int64_t>(kGroup, n - offset), out + offset);
    }
  });
}

// Distributions that take a variable number of words per group: group g reads
// words from its own stream, kGroup * 256 / 4 blocks per group in.
template <int kGroup, typename T, typename Dist>
void FillVariable(ThreadPool* pool, const PhiloxRandom& base, T* out, int64_t n, Dist dist) {
  constexpr uint64_t kBlocksPerGroup = kGroup * kReservedBlocksPerOutput / 4;
  const int64_t groups = (n + kGroup - 1) / kGroup;
  ForGroups(pool, groups, [&](int64_t begin, int64_t end) {
    T group[kGroup];
    for (int64_t g = begin; g < end; ++g) {
      PhiloxRandom gen = base;
      gen.Skip(static_cast<uint64_t>(g) * kBlocksPerGroup);
      SingleSampleGenerator words(&gen);
      dist(words, group);
      const int64_t offset = g * kGroup;
      std::copy_n(group, std::min<int64_t>(kGroup, n - offset), out + offset);
    }
  });
}

// Fills a half, bfloat16, float or double tensor with `dist`. Uniforms come
// straight from each type's own mantissa bits, not from a converted float.
void FillFloatTensor(ThreadPool* pool, Distribution dist, const PhiloxRandom& gen, Tensor& out);

// Uniform integers in [lo, hi): lo + (random bits mod (hi - lo)), slightly
// biased unless the range is a power of two, exactly as TensorFlow does.
// 32-bit types use one word per value, 64-bit types two (low word first).
template <typename T>
void FillUniformInt(ThreadPool* pool, const PhiloxRandom& gen, T lo, T hi, T* out, int64_t n) {
  if constexpr (sizeof(T) == 4) {
    const uint32_t range = static_cast<uint32_t>(hi) - static_cast<uint32_t>(lo);
    FillFixed<4>(pool, gen, out, n, [&](const PhiloxRandom::Block& b, T* g) {
      for (int i = 0; i < 4; ++i) g[i] = static_cast<T>(static_cast<uint32_t>(lo) + b[i] % range);
    });
  } else {
    const uint64_t range = static_cast<uint64_t>(hi) - static_cast<uint64_t>(lo);
    FillFixed<2>(pool, gen, out, n, [&](const PhiloxRandom::Block& b, T* g) {
      for (int i = 0; i < 2; ++i) {
        const uint64_t bits = b[2 * i] | (static_cast<uint64_t>(b[2 * i + 1]) << 32);
        g[i] = static_cast<T>(static_cast<uint64_t>(lo) + bits % range);
      }
    });
  }
}

// Every bit pattern equally likely: the words themselves.
template <typename T>
void FillFullInt(ThreadPool* pool, const PhiloxRandom& gen, T* out, int64_t n) {
  if constexpr (sizeof(T) == 4) {
    FillFixed<4>(pool, gen, out, n, [](const PhiloxRandom::Block& b, T* g) {
      for (int i = 0; i < 4; ++i) g[i] = static_cast<T>(b[i]);
    });
  } else {
    FillFixed<2>(pool, gen, out, n, [](const PhiloxRandom::Block& b, T* g) {
      for (int i = 0; i < 2; ++i) g[i] = static_cast<T>(b[2 * i] | (static_cast<uint64_t>(b[2 * i + 1]) << 32));
    });
  }
}

}  // namespace tfhost::ops::random
