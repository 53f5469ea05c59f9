// Helpers shared by the kernel A/B benchmarks (src/backends/cpu/*/*_bench.cc,
// bench/depthwise_conv): seeded inputs, timing one kernel on one node, and
// the load average a timing means little without. Header-only, so that the
// benchmarks not built by CMake need no new link line.
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
// call ends the benchmark with its status.
inline double MicrosPerCall(const ir::Node& node, const KernelFn& kernel, const std::vector<Tensor>& inputs,
                            ThreadPool* pool, int reps) {
  const auto start = std::chrono::steady_clock::now();
  for (int r = 0; r < reps; ++r) {
    auto out = RunKernelOnNode(node, kernel, inputs, nullptr, pool);
    if (!out.ok()) {
      std::fprintf(stderr, "%s failed: %s\n", node.op.c_str(), out.status().ToString().c_str());
      std::exit(1);
    }
  }
  return std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start).count() / reps;
}

inline double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

}  // namespace tfhost::ops
