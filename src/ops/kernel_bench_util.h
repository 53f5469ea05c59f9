// Helpers shared by the kernel A/B benchmarks (src/backends/cpu/*/*_bench.cc,
// bench/depthwise_conv, bench/pointwise_conv): seeded inputs, timing one
// kernel on one node, and the load average a timing means little without.
// Header-only, so that the benchmarks not built by CMake need no new link
// line.
#pragma once

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "base/tensor.h"
#include "base/thread_pool.h"
#include "ops/run_single_op.h"

namespace tfhost::ops {

// float32 values uniform in [lo, hi), the same for the same seed.
inline Tensor UniformTensor(const Shape& shape, uint32_t seed, float lo = -1.0f, float hi = 1.0f) {
  Tensor t(DType::kFloat, shape);
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(lo, hi);
  for (int64_t i = 0; i < t.NumElements(); ++i) t.data<float>()[i] = dist(rng);
  return t;
}

// "1.23 0.98 0.76" from /proc/loadavg.
inline std::string LoadAverage() {
  std::ifstream f("/proc/loadavg");
  std::string a, b, c;
  f >> a >> b >> c;
  return a + " " + b + " " + c;
}

// Microseconds per call of `kernel` on `node` over `reps` calls; a failed
// call ends the benchmark with its status. With `owned_input` >= 0 each call
// gets its own copy of that input (copied outside the timing), which nothing
// else holds, as a graph hands a tensor to its last reader: a kernel may then
// write its output into that buffer (a fused residual Add does).
inline double MicrosPerCall(const ir::Node& node, const KernelFn& kernel, const std::vector<Tensor>& inputs,
                            ThreadPool* pool, int reps, int owned_input = -1) {
  double micros = 0;
  auto start = std::chrono::steady_clock::now();
  for (int r = 0; r < reps; ++r) {
    std::vector<Tensor> call_inputs = inputs;
    if (owned_input >= 0) {
      call_inputs[owned_input] = inputs[owned_input].Clone();
      start = std::chrono::steady_clock::now();
    }
    auto out = RunKernelOnNode(node, kernel, std::move(call_inputs), nullptr, pool);
    if (!out.ok()) {
      std::fprintf(stderr, "%s failed: %s\n", node.op.c_str(), out.status().ToString().c_str());
      std::exit(1);
    }
    if (owned_input >= 0) {
      micros += std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start).count();
    }
  }
  if (owned_input < 0) {
    micros = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start).count();
  }
  return micros / reps;
}

inline double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// Median microseconds per call of kernels `a` and `b` on `node`, timed in
// alternating rounds (about 3 ms of calls each) so that machine noise falls
// on both; each is called 3 times first (oneDNN makes its primitive then).
// `owned_input`: as for MicrosPerCall.
struct AlternatingTimes {
  double a_us = 0, b_us = 0;
};
inline AlternatingTimes TimeAlternating(const ir::Node& node, const KernelFn& a, const KernelFn& b,
                                        const std::vector<Tensor>& inputs, ThreadPool* pool, int rounds,
                                        int owned_input = -1) {
  const double first = MicrosPerCall(node, a, inputs, pool, 3, owned_input);
  MicrosPerCall(node, b, inputs, pool, 3, owned_input);
  const int reps = std::max(1, static_cast<int>(3000.0 / std::max(first, 1.0)));
  std::vector<double> ta, tb;
  for (int r = 0; r < rounds; ++r) {
    ta.push_back(MicrosPerCall(node, a, inputs, pool, reps, owned_input));
    tb.push_back(MicrosPerCall(node, b, inputs, pool, reps, owned_input));
  }
  return {Median(ta), Median(tb)};
}

}  // namespace tfhost::ops
