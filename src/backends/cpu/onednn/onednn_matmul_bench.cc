// A/B timing of the fused matrix-product epilogues against the same work as
// separate fast kernels (what the graph ran before the fusion): a
// transformer's dense layer with GELU, and attention scores with a mask, in
// one process, alternating rounds. Not built by CMake (*_bench.cc); build it
// like simd_bench (docs/backends.md) from onednn_matmul_test's link line.
// Prints the load average before and after.
//
//   onednn_matmul_bench [rounds]     (default 9)
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "backends/backend_registry.h"
#include "base/thread_pool.h"
#include "ops/kernel_bench_util.h"
#include "ops/op_registry.h"
#include "ops/run_single_op.h"

namespace tfhost::backends::onednn {
namespace {

using ops::MakeAttr;

// One node with its fast kernel.
struct Step {
  ir::Node node;
  ops::KernelFn kernel;
};

Step Make(const std::string& op, const ir::AttrMap& attrs) {
  auto node = ops::MakeSingleOpNode(op, attrs);
  if (!node.ok()) {
    std::fprintf(stderr, "%s: %s\n", op.c_str(), node.status().ToString().c_str());
    std::exit(1);
  }
  NodeKernel fast = BackendRegistry::Global().MakeFastKernel(*node, ops::OpRegistry::Global().Find(op)->kernel);
  if (!fast.kernel) {
    std::fprintf(stderr, "%s: no fast kernel\n", op.c_str());
    std::exit(1);
  }
  return {*node, fast.kernel};
}

Tensor Run(const Step& s, std::vector<Tensor> in, ThreadPool* pool) {
  auto out = ops::RunKernelOnNode(s.node, s.kernel, std::move(in), nullptr, pool);
  if (!out.ok()) {
    std::fprintf(stderr, "%s failed: %s\n", s.node.op.c_str(), out.status().ToString().c_str());
    std::exit(1);
  }
  return (*out)[0];
}

double Micros(const std::function<void()>& fn, int reps) {
  const auto start = std::chrono::steady_clock::now();
  for (int r = 0; r < reps; ++r) fn();
  return std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start).count() / reps;
}

ir::AttrMap Gelu() {
  return {{"T", MakeAttr(DType::kFloat)},
          {"N", MakeAttr(1)},
          {"ops", MakeAttr(std::vector<std::string>{"GeluExact"})},
          {"operands", MakeAttr(std::vector<int64_t>{0, -1})}};
}

int Main(int argc, char** argv) {
  const int rounds = argc > 1 ? std::max(1, std::atoi(argv[1])) : 9;
  const ir::AttrMap f = {{"T", MakeAttr(DType::kFloat)}};
  // Dense 768 -> 3072 with GELU on 128 tokens.
  const Tensor x = ops::UniformTensor(Shape({128, 768}), 1), w = ops::UniformTensor(Shape({768, 3072}), 2),
               bias = ops::UniformTensor(Shape({3072}), 3);
  ir::AttrMap mm_bias = f;
  mm_bias["fused_ops"] = MakeAttr(std::vector<std::string>{"BiasAdd"});
  mm_bias["num_args"] = MakeAttr(int64_t{1});
  ir::AttrMap mm_gelu = mm_bias;
  mm_gelu["fused_ops"] = MakeAttr(std::vector<std::string>{"BiasAdd", "GeluExact"});
  const Step dense = Make("_FusedMatMul", mm_bias), gelu = Make("_TfhostFusedElementwise", Gelu()),
             dense_gelu = Make("_FusedMatMul", mm_gelu);
  // Attention scores [2, 12, 128, 128] = q k^T + mask [2, 1, 1, 128].
  const Tensor q = ops::UniformTensor(Shape({2, 12, 128, 64}), 4), k = ops::UniformTensor(Shape({2, 12, 128, 64}), 5),
               mask = ops::UniformTensor(Shape({2, 1, 1, 128}), 6);
  ir::AttrMap bmm = f;
  bmm["adj_y"] = MakeAttr(true);
  ir::AttrMap fused_bmm = bmm;
  fused_bmm["fused_ops"] = MakeAttr(std::vector<std::string>{"Add"});
  fused_bmm["num_args"] = MakeAttr(int64_t{1});
  const Step scores = Make("BatchMatMulV2", bmm), add = Make("AddV2", f),
             scores_mask = Make("_TfhostFusedBatchMatMul", fused_bmm);

  // The same dense layer (bias only) in float32 and in bf16 (--precision bf16's mark).
  ir::AttrMap mm_bf16 = mm_bias;
  mm_bf16["_tfhost_precision"].set_s("bf16");
  const Step dense_bf16 = Make("_FusedMatMul", mm_bf16);
  const Tensor x32 = ops::UniformTensor(Shape({32, 768}), 8);
  const Tensor scores_value = ops::UniformTensor(Shape({2, 12, 128, 128}), 7);
  struct Case {
    const char* label;
    std::function<void(ThreadPool*)> separate, fused;
  };
  const std::vector<Case> cases = {
      {"dense 128x768x3072 + bias + GeluExact",
       [&](ThreadPool* p) { Run(gelu, {Run(dense, {x, w, bias}, p)}, p); },
       [&](ThreadPool* p) { Run(dense_gelu, {x, w, bias}, p); }},
      {"scores 2x12x128x64 . k^T + mask 2x1x1x128",
       [&](ThreadPool* p) { Run(add, {Run(scores, {q, k}, p), mask}, p); },
       [&](ThreadPool* p) { Run(scores_mask, {q, k, mask}, p); }},
      {"dense 128x768x3072 fp32 (separate) vs bf16", [&](ThreadPool* p) { Run(dense, {x, w, bias}, p); },
       [&](ThreadPool* p) { Run(dense_bf16, {x, w, bias}, p); }},
      {"dense 32x768x3072 fp32 (separate) vs bf16", [&](ThreadPool* p) { Run(dense, {x32, w, bias}, p); },
       [&](ThreadPool* p) { Run(dense_bf16, {x32, w, bias}, p); }},
      {"  (parts: BatchMatMulV2 alone vs AddV2 alone)",
       [&](ThreadPool* p) { Run(scores, {q, k}, p); },
       [&](ThreadPool* p) { Run(add, {scores_value, mask}, p); }},
  };
  ThreadPool pool(1);  // 1 worker + the caller = 2 threads
  std::printf("rounds: %d   load average before: %s\n", rounds, ops::LoadAverage().c_str());
  std::printf("%-44s %8s %12s %10s %8s\n", "case", "threads", "separate us", "fused us", "speedup");
  for (const Case& c : cases) {
    for (ThreadPool* p : {static_cast<ThreadPool*>(nullptr), &pool}) {
      const double one = Micros([&] { c.separate(p); }, 2);
      const int reps = std::max(1, static_cast<int>(20000.0 / std::max(one, 1.0)));
      std::vector<double> a, b;
      for (int r = 0; r < rounds; ++r) {
        a.push_back(Micros([&] { c.separate(p); }, reps));
        b.push_back(Micros([&] { c.fused(p); }, reps));
      }
      const double ta = ops::Median(a), tb = ops::Median(b);
      std::printf("%-44s %8d %12.1f %10.1f %7.2fx\n", c.label, p ? 2 : 1, ta, tb, ta / tb);
    }
  }
  std::printf("load average after: %s\n", ops::LoadAverage().c_str());
  return 0;
}

}  // namespace
}  // namespace tfhost::backends::onednn

int main(int argc, char** argv) { return tfhost::backends::onednn::Main(argc, argv); }
