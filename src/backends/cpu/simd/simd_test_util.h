// Test helpers for the SIMD kernels: run an op through its reference kernel
// and through the SIMD fast kernel (under every ISA level this CPU supports,
// single-threaded and on a 2-worker pool), and compare with the conformance
// tolerance.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "backends/cpu/simd/cpu_features.h"
#include "backends/backend_registry.h"
#include "base/thread_pool.h"
#include "ops/op_registry.h"
#include "ops/run_single_op.h"

namespace tfhost::backends::simd::testing {

// tests/conformance/tolerances.h: float32 element-wise and short sums.
inline constexpr double kRtol = 1e-5;
inline constexpr double kAtol = 1e-5;

// Values that stress the special cases: infinities, NaN, signed zeros, the
// largest and subnormal floats, and the edges of exp's range.
inline std::vector<float> SpecialValues() {
  const float inf = std::numeric_limits<float>::infinity();
  return {0.0f,   -0.0f,   1.0f,    -1.0f,   inf,     -inf,    std::nanf(""), 3.0e38f, -3.0e38f, 1e-40f,
          -1e-40f, 1e-30f, 88.7f,   88.73f,  89.0f,   -87.3f,  -88.0f,  -103.0f, -110.0f, 0.3f,
          -0.3f,  0.62f,   0.63f,   -0.63f,  9.0f,    -9.0f,   20.0f,   -20.0f,  1e-6f,   -1e-6f};
}

// n values uniform in [lo, hi]; when `specials`, the special values are
// spread over the first positions.
inline Tensor RandomFloats(const Shape& shape, float lo, float hi, bool specials, uint32_t seed = 1) {
  Tensor t(DType::kFloat, shape);
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(lo, hi);
  float* p = t.data<float>();
  const int64_t n = t.NumElements();
  for (int64_t i = 0; i < n; ++i) p[i] = dist(rng);
  if (specials) {
    const std::vector<float> s = SpecialValues();
    for (int64_t i = 0; i < n && i < static_cast<int64_t>(s.size()); ++i) p[(i * 7919) % n] = s[i];
  }
  return t;
}

// Whether got matches want within |got - want| <= atol + rtol |want|; NaN
// must meet NaN, infinities the same infinity. Reports the first mismatch.
inline ::testing::AssertionResult Close(const Tensor& got, const Tensor& want, double rtol = kRtol,
                                        double atol = kAtol) {
  if (got.dtype() != want.dtype() || !(got.shape() == want.shape())) {
    return ::testing::AssertionFailure() << "got " << got.DebugString() << ", want " << want.DebugString();
  }
  if (got.dtype() != DType::kFloat) {
    if (TensorsEqual(got, want)) return ::testing::AssertionSuccess();
    return ::testing::AssertionFailure() << "got " << got.DebugString() << ", want " << want.DebugString();
  }
  const float* g = got.data<float>();
  const float* w = want.data<float>();
  for (int64_t i = 0; i < got.NumElements(); ++i) {
    const double gv = g[i], wv = w[i];
    bool ok;
    if (std::isnan(wv) || std::isnan(gv)) {
      ok = std::isnan(wv) && std::isnan(gv);
    } else if (std::isinf(wv) || std::isinf(gv)) {
      ok = gv == wv;
    } else {
      ok = std::fabs(gv - wv) <= atol + rtol * std::fabs(wv);
    }
    if (!ok) {
      return ::testing::AssertionFailure() << "element " << i << " of " << got.shape().ToString() << ": got " << gv
                                           << ", want " << wv;
    }
  }
  return ::testing::AssertionSuccess();
}

// The largest |got - want| / (atol + rtol |want|) over finite elements (<= 1 passes).
inline double WorstErrorRatio(const Tensor& got, const Tensor& want) {
  double worst = 0;
  for (int64_t i = 0; i < got.NumElements(); ++i) {
    const double gv = got.data<float>()[i], wv = want.data<float>()[i];
    if (std::isfinite(gv) && std::isfinite(wv)) {
      worst = std::max(worst, std::fabs(gv - wv) / (kAtol + kRtol * std::fabs(wv)));
    }
  }
  return worst;
}

// The SIMD fast kernel for `op` with `attrs`, made under the ISA level active
// now; fails the test when the simd backend declines.
inline ops::KernelFn MakeSimdKernel(const ir::Node& node) {
  const ops::OpRegistration* reg = ops::OpRegistry::Global().Find(node.op);
  EXPECT_NE(reg, nullptr) << node.op;
  if (reg == nullptr) return {};
  NodeKernel fast = BackendRegistry::Global().MakeFastKernel(node, reg->kernel);
  EXPECT_TRUE(fast.kernel) << "no fast kernel for " << node.op;
  EXPECT_EQ(fast.backend, "simd") << node.op;
  return fast.kernel;
}

// One kernel factory's kernel alone, its fallback failing the call (so a
// call it hands on fails the test): `make` must take the node of `op` with
// `attrs`, and its kernel, inline and on a 2-worker pool, must give the
// reference kernel's outputs within rtol/atol. With `owned_inputs` it also
// runs on sole-owner copies (a kernel may write into those) and checks the
// caller's inputs are unchanged.
using KernelFactoryFn = std::function<ops::KernelFn(const ir::Node&, const ops::KernelFn&)>;
inline void ExpectKernelAloneMatchesReference(const std::string& op, const ir::AttrMap& attrs,
                                              const std::vector<Tensor>& inputs, const KernelFactoryFn& make,
                                              double rtol, double atol, bool owned_inputs = false) {
  auto node = ops::MakeSingleOpNode(op, attrs);
  ASSERT_TRUE(node.ok()) << node.status().ToString();
  int fallbacks = 0;
  ops::KernelFn kernel = make(*node, [&](ops::KernelContext&) {
    ++fallbacks;
    return Internal("the kernel handed the call on");
  });
  ASSERT_TRUE(kernel) << "the kernel did not take the node";
  auto want = ops::RunSingleOp(op, inputs, attrs);
  ASSERT_TRUE(want.ok()) << want.status().ToString();
  ThreadPool pool(1);
  for (ThreadPool* p : {static_cast<ThreadPool*>(nullptr), &pool}) {
    auto got = ops::RunKernelOnNode(*node, kernel, inputs, nullptr, p);
    ASSERT_TRUE(got.ok()) << got.status().ToString();
    EXPECT_TRUE(Close((*got)[0], (*want)[0], rtol, atol));
    if (!owned_inputs) continue;
    std::vector<Tensor> owned;
    for (const Tensor& t : inputs) owned.push_back(t.Clone());
    auto got_owned = ops::RunKernelOnNode(*node, kernel, std::move(owned), nullptr, p);
    ASSERT_TRUE(got_owned.ok()) << got_owned.status().ToString();
    EXPECT_TRUE(Close((*got_owned)[0], (*want)[0], rtol, atol));
  }
  EXPECT_EQ(fallbacks, 0);
  if (owned_inputs) {
    auto again = ops::RunSingleOp(op, inputs, attrs);
    ASSERT_TRUE(again.ok());
    EXPECT_TRUE(Close((*again)[0], (*want)[0], 0, 0));
  }
}

// Runs `op` on `inputs` with the reference kernel, then with the SIMD kernel
// under every supported ISA level, with no pool and a 2-worker pool, and
// checks the outputs agree. `rtol`/`atol` default to the conformance ones;
// pass 0, 0 for ops that must be exact. `levels`: the ISA levels to try
// (default: every one this CPU supports).
inline void ExpectSimdMatchesReference(const std::string& op, const std::vector<Tensor>& inputs,
                                       const ir::AttrMap& attrs, double rtol = kRtol, double atol = kAtol,
                                       const std::vector<IsaLevel>& levels = SupportedIsaLevels()) {
  auto want = ops::RunSingleOp(op, inputs, attrs);
  ASSERT_TRUE(want.ok()) << op << ": " << want.status().ToString();
  auto node = ops::MakeSingleOpNode(op, attrs);
  ASSERT_TRUE(node.ok()) << node.status().ToString();
  ThreadPool pool(2);
  for (IsaLevel level : levels) {
    ScopedIsaLevel scoped(level);
    ops::KernelFn kernel = MakeSimdKernel(*node);
    if (!kernel) return;
    for (ThreadPool* p : {static_cast<ThreadPool*>(nullptr), &pool}) {
      SCOPED_TRACE(op + " isa=" + IsaLevelName(level) + (p ? " pool=2" : " inline"));
      // Shared inputs (the kernel must not write into them) ...
      auto got = ops::RunKernelOnNode(*node, kernel, inputs, nullptr, p);
      ASSERT_TRUE(got.ok()) << got.status().ToString();
      ASSERT_EQ(got->size(), want->size());
      for (size_t i = 0; i < got->size(); ++i) EXPECT_TRUE(Close((*got)[i], (*want)[i], rtol, atol));
      // ... and sole-owner inputs (the kernel may reuse their buffers).
      std::vector<Tensor> owned;
      for (const Tensor& t : inputs) owned.push_back(t.Clone());
      auto got_owned = ops::RunKernelOnNode(*node, kernel, std::move(owned), nullptr, p);
      ASSERT_TRUE(got_owned.ok()) << got_owned.status().ToString();
      for (size_t i = 0; i < got_owned->size(); ++i) EXPECT_TRUE(Close((*got_owned)[i], (*want)[i], rtol, atol));
    }
  }
  // The inputs the caller still holds are unchanged: compare with a fresh
  // reference run.
  auto again = ops::RunSingleOp(op, inputs, attrs);
  ASSERT_TRUE(again.ok());
  for (size_t i = 0; i < again->size(); ++i) EXPECT_TRUE(Close((*again)[i], (*want)[i], 0, 0));
}

// Element counts around the vector widths (4, 8, 16 lanes), zero, and one
// past the point where work is split over the pool.
inline std::vector<int64_t> SweepSizes() { return {0, 1, 3, 4, 5, 7, 8, 9, 15, 16, 17, 31, 33, 64, 100, 1000, 70001}; }

// The convolution kernels (depthwise, 1x1): AVX-512 only (their files say
// why), compared at the conformance suite's convolution tolerance.
inline constexpr double kConvTol = 1e-4;

#define TFHOST_SKIP_WITHOUT_AVX512(what)                                                        \
  if (::tfhost::backends::simd::DetectedIsaLevel() != ::tfhost::backends::simd::IsaLevel::kAvx512) { \
    GTEST_SKIP() << "this CPU has no AVX-512: oneDNN runs every " what " here";                  \
  }

inline void ExpectConvMatchesReference(const std::string& op, const std::vector<Tensor>& inputs,
                                       const ir::AttrMap& attrs) {
  ExpectSimdMatchesReference(op, inputs, attrs, kConvTol, kConvTol, {IsaLevel::kAvx512});
}

// The kernel the registry makes for a node of `op` (a SIMD convolution
// kernel, with oneDNN's and then the reference behind it).
inline NodeKernel MakeFastKernel(const std::string& op, const ir::AttrMap& attrs) {
  auto node = ops::MakeSingleOpNode(op, attrs);
  EXPECT_TRUE(node.ok());
  return BackendRegistry::Global().MakeFastKernel(*node, ops::OpRegistry::Global().Find(op)->kernel);
}

}  // namespace tfhost::backends::simd::testing
