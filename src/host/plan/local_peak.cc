// Peak FLOP/s and memory bandwidth of this machine, measured. The FMA loops
// keep enough independent accumulators to cover the FMA latency on the
// cores of the last decade (4-cycle latency, 2 ports: 8 chains), and the
// best of several timed slices is kept, since a shared machine only ever
// slows a slice down.
#include "host/plan/local_peak.h"

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <thread>
#include <vector>

namespace tfhost::host::plan {

namespace {

using Clock = std::chrono::steady_clock;

typedef float V16 __attribute__((vector_size(64)));
typedef float V8 __attribute__((vector_size(32)));

constexpr int kChains = 8;
constexpr long kIters = 1 << 20;

// Each returns FLOPs done; the sum goes to `sink` so the loop is not dropped.
__attribute__((target("avx512f"))) double FmaAvx512(float seed, float* sink) {
  V16 acc[kChains], m, a;
  for (int i = 0; i < 16; ++i) {
    m[i] = 0.999999f;
    a[i] = 1e-7f * seed;
  }
  for (int c = 0; c < kChains; ++c) acc[c] = a * static_cast<float>(c + 1);
  for (long i = 0; i < kIters; ++i) {
    for (int c = 0; c < kChains; ++c) acc[c] = acc[c] * m + a;
  }
  float s = 0;
  for (int c = 0; c < kChains; ++c) s += acc[c][0];
  *sink += s;
  return 2.0 * 16 * kChains * kIters;
}

__attribute__((target("avx2,fma"))) double FmaAvx2(float seed, float* sink) {
  V8 acc[kChains], m, a;
  for (int i = 0; i < 8; ++i) {
    m[i] = 0.999999f;
    a[i] = 1e-7f * seed;
  }
  for (int c = 0; c < kChains; ++c) acc[c] = a * static_cast<float>(c + 1);
  for (long i = 0; i < kIters; ++i) {
    for (int c = 0; c < kChains; ++c) acc[c] = acc[c] * m + a;
  }
  float s = 0;
  for (int c = 0; c < kChains; ++c) s += acc[c][0];
  *sink += s;
  return 2.0 * 8 * kChains * kIters;
}

double FmaScalar(float seed, float* sink) {
  float acc[kChains];
  for (int c = 0; c < kChains; ++c) acc[c] = 1e-7f * seed * (c + 1);
  for (long i = 0; i < kIters; ++i) {
    for (int c = 0; c < kChains; ++c) acc[c] = acc[c] * 0.999999f + 1e-7f;
  }
  float s = 0;
  for (int c = 0; c < kChains; ++c) s += acc[c];
  *sink += s;
  return 2.0 * kChains * kIters;
}

// Runs `work` on `threads` threads for slices of about `seconds` / 4 and
// returns the best aggregate rate (units of work per second).
template <typename Work>
double BestRate(int threads, double seconds, Work work) {
  double best = 0;
  const auto end = Clock::now() + std::chrono::duration<double>(seconds);
  for (int slice = 0; slice < 4 || (slice < 64 && Clock::now() < end); ++slice) {
    std::vector<double> done(threads, 0);
    std::vector<std::thread> pool;
    auto t0 = Clock::now();
    for (int t = 0; t < threads; ++t) pool.emplace_back([&, t] { done[t] = work(t); });
    for (auto& th : pool) th.join();
    double s = std::chrono::duration<double>(Clock::now() - t0).count();
    double total = 0;
    for (double d : done) total += d;
    if (s > 0) best = std::max(best, total / s);
    if (Clock::now() >= end && slice >= 3) break;
  }
  return best;
}

}  // namespace

LocalRoof MeasureLocalRoof(int threads, double seconds) {
  LocalRoof r;
  r.threads = std::max(1, threads);
  __builtin_cpu_init();
  double (*fma)(float, float*) = FmaScalar;
  if (__builtin_cpu_supports("avx512f")) {
    fma = FmaAvx512;
    r.isa = "avx512";
  } else if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) {
    fma = FmaAvx2;
    r.isa = "avx2";
  }
  std::vector<float> sinks(r.threads * 16, 0.f);
  r.peak_flops = BestRate(r.threads, seconds / 2, [&](int t) { return fma(1.0f + t, &sinks[t * 16]); });

  // 64 MiB per thread: well past any last-level cache of a few threads' share.
  // XOR chains (1-cycle latency) keep the core ahead of memory.
  const size_t words = (size_t{64} << 20) / sizeof(uint64_t);
  std::vector<std::vector<uint64_t>> buffers(r.threads);
  for (size_t t = 0; t < buffers.size(); ++t) buffers[t].assign(words, 0x9e3779b97f4a7c15ull + t);
  r.bandwidth_bps = BestRate(r.threads, seconds / 2, [&](int t) {
    const uint64_t* p = buffers[t].data();
    uint64_t x0 = 0, x1 = 0, x2 = 0, x3 = 0;
    for (size_t i = 0; i + 3 < words; i += 4) {
      x0 ^= p[i];
      x1 ^= p[i + 1];
      x2 ^= p[i + 2];
      x3 ^= p[i + 3];
    }
    uint64_t folded = x0 ^ x1 ^ x2 ^ x3;
    asm volatile("" : : "r"(folded));  // the loads must happen
    return static_cast<double>(words * sizeof(uint64_t));
  });
  return r;
}

}  // namespace tfhost::host::plan
