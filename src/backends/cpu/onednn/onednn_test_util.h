// Test helpers for the oneDNN kernels: random inputs, running a node through
// both the reference kernel and the oneDNN kernel, and comparing outputs.
#pragma once

#include <gtest/gtest.h>

#include <atomic>
#include <cmath>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "backends/backend_registry.h"
#include "ops/op_registry.h"
#include "ops/run_single_op.h"

namespace tfhost::backends::onednn::testing {

inline Tensor RandomTensor(const Shape& shape, uint32_t seed, float lo = -1.f, float hi = 1.f) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> dist(lo, hi);
  Tensor t(DType::kFloat, shape);
  for (int64_t i = 0; i < t.NumElements(); ++i) t.data<float>()[i] = dist(gen);
  return t;
}

// The oneDNN kernel for a node, with a reference kernel that counts its calls
// (so a test can tell oneDNN ran rather than the fallback).
struct FastUnderTest {
  ir::Node node;
  NodeKernel fast;
  std::shared_ptr<std::atomic<int>> fallbacks = std::make_shared<std::atomic<int>>(0);
};

inline FastUnderTest MakeFast(const std::string& op, const ir::AttrMap& attrs) {
  FastUnderTest f;
  auto node = ops::MakeSingleOpNode(op, attrs);
  EXPECT_TRUE(node.ok()) << node.status().ToString();
  if (!node.ok()) return f;
  f.node = *node;
  const ops::KernelFn reference = ops::OpRegistry::Global().Find(op)->kernel;
  auto counter = f.fallbacks;
  f.fast = BackendRegistry::Global().MakeKernelFrom("onednn", f.node, [reference, counter](ops::KernelContext& ctx) {
    ++*counter;
    return reference(ctx);
  });
  return f;
}

// Max over elements of |got - want| / (atol + rtol |want|); <= 1 passes.
inline void ExpectClose(const Tensor& got, const Tensor& want, double tol, const std::string& label) {
  ASSERT_EQ(got.shape(), want.shape()) << label;
  ASSERT_EQ(got.dtype(), want.dtype()) << label;
  const float* g = got.data<float>();
  const float* w = want.data<float>();
  int bad = 0;
  for (int64_t i = 0; i < want.NumElements(); ++i) {
    if (!(std::fabs(double(g[i]) - double(w[i])) <= tol + tol * std::fabs(double(w[i])))) {
      if (++bad <= 3) ADD_FAILURE() << label << " [" << i << "]: got " << g[i] << " want " << w[i];
    }
  }
  EXPECT_EQ(bad, 0) << label;
}

// Runs `op` with `attrs` on `inputs` through the reference kernel and the
// oneDNN kernel (inline and on a 2-worker pool) and compares. Expects the
// oneDNN kernel to accept the node and not to fall back.
inline void ExpectMatchesReference(const std::string& op, const ir::AttrMap& attrs,
                                   const std::vector<Tensor>& inputs, double tol, const std::string& label) {
  auto want = ops::RunSingleOp(op, inputs, attrs);
  ASSERT_TRUE(want.ok()) << label << ": reference failed: " << want.status().ToString();
  FastUnderTest f = MakeFast(op, attrs);
  ASSERT_TRUE(f.fast.kernel) << label << ": no fast kernel";
  ASSERT_EQ(f.fast.backend, "onednn") << label;
  ThreadPool pool(2);
  for (ThreadPool* intra : {static_cast<ThreadPool*>(nullptr), &pool}) {
    auto got = ops::RunKernelOnNode(f.node, f.fast.kernel, inputs, nullptr, intra);
    ASSERT_TRUE(got.ok()) << label << ": " << got.status().ToString();
    ExpectClose((*got)[0], (*want)[0], tol, label + (intra ? " (pool)" : " (inline)"));
  }
  EXPECT_EQ(f.fallbacks->load(), 0) << label << ": fell back to the reference kernel";
}

}  // namespace tfhost::backends::onednn::testing
