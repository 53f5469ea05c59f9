// A/B timing of the SIMD kernels against the reference kernels on shapes
// taken from image models at batch 1 (MobileNet-like activations), in one
// process, alternating rounds so machine noise hits both sides alike.
// Not built by CMake (*_bench.cc); see docs/backends.md for the one-line
// build. Prints the load average before and after, since timings on a shared
// machine mean little without it.
//
//   simd_bench [rounds]     (default 15)
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "backends/cpu/simd/cpu_features.h"
#include "backends/backend_registry.h"
#include "base/thread_pool.h"
#include "ops/kernel_bench_util.h"
#include "ops/op_registry.h"
#include "ops/run_single_op.h"

namespace tfhost::backends::simd {
namespace {

struct BenchCase {
  std::string label;
  std::string op;
  std::vector<Tensor> inputs;
  ir::AttrMap attrs;
};

Tensor Random(const Shape& shape, float lo, float hi) { return ops::UniformTensor(shape, 7, lo, hi); }

int Main(int argc, char** argv) {
  const int rounds = argc > 1 ? std::max(3, std::atoi(argv[1])) : 15;
  const ir::AttrMap f = {{"T", ops::MakeAttr(DType::kFloat)}};
  auto with = [&](ir::AttrMap a, const char* k, tensorflow::AttrValue v) {
    a[k] = std::move(v);
    return a;
  };
  std::vector<BenchCase> cases = {
      {"Relu6 1x112x112x32", "Relu6", {Random(Shape({1, 112, 112, 32}), -8, 8)}, f},
      {"Sigmoid 1x56x56x64", "Sigmoid", {Random(Shape({1, 56, 56, 64}), -8, 8)}, f},
      {"Tanh 1x56x56x64", "Tanh", {Random(Shape({1, 56, 56, 64}), -8, 8)}, f},
      {"Exp 1x56x56x64", "Exp", {Random(Shape({1, 56, 56, 64}), -8, 8)}, f},
      {"AddV2 1x56x56x24 (same shape)", "AddV2",
       {Random(Shape({1, 56, 56, 24}), -1, 1), Random(Shape({1, 56, 56, 24}), -1, 1)}, f},
      {"Mul 1x56x56x144 by [144]", "Mul", {Random(Shape({1, 56, 56, 144}), -1, 1), Random(Shape({144}), -1, 1)}, f},
      {"BiasAdd 1x28x28x128", "BiasAdd", {Random(Shape({1, 28, 28, 128}), -1, 1), Random(Shape({128}), -1, 1)}, f},
      {"Mean 1x7x7x1280 axes 1,2", "Mean",
       {Random(Shape({1, 7, 7, 1280}), -1, 1), Tensor::FromVector<int32_t>({1, 2})},
       with(f, "keep_dims", ops::MakeAttr(false))},
      {"Sum 256x1024 axis 1", "Sum", {Random(Shape({256, 1024}), -1, 1), Tensor::FromVector<int32_t>({1})}, f},
      {"Softmax 1x1000", "Softmax", {Random(Shape({1, 1000}), -10, 10)}, f},
      {"Softmax 896x2 (blazeface-like)", "Softmax", {Random(Shape({896, 2}), -10, 10)}, f},
      {"Transpose 1x112x112x32 NHWC->NCHW", "Transpose",
       {Random(Shape({1, 112, 112, 32}), -1, 1), Tensor::FromVector<int32_t>({0, 3, 1, 2})}, f},
      {"ConcatV2 2x 1x28x28x64 axis 3", "ConcatV2",
       {Random(Shape({1, 28, 28, 64}), -1, 1), Random(Shape({1, 28, 28, 64}), -1, 1), Tensor::Scalar<int32_t>(3)},
       with(f, "N", ops::MakeAttr(2))},
      {"Pad 1x112x112x32 H,W by 1", "Pad",
       {Random(Shape({1, 112, 112, 32}), -1, 1), Tensor::FromVector<int32_t>({0, 0, 1, 1, 1, 1, 0, 0}, Shape({4, 2}))},
       with(f, "Tpaddings", ops::MakeAttr(DType::kInt32))},
      {"Pad 1x224x224x3 H,W by 3", "Pad",
       {Random(Shape({1, 224, 224, 3}), -1, 1), Tensor::FromVector<int32_t>({0, 0, 3, 3, 3, 3, 0, 0}, Shape({4, 2}))},
       with(f, "Tpaddings", ops::MakeAttr(DType::kInt32))},
      {"MirrorPad REFLECT 1x128x128x16 by 2", "MirrorPad",
       {Random(Shape({1, 128, 128, 16}), -1, 1), Tensor::FromVector<int32_t>({0, 0, 2, 2, 2, 2, 0, 0}, Shape({4, 2}))},
       with(with(f, "Tpaddings", ops::MakeAttr(DType::kInt32)), "mode", ops::MakeAttr("REFLECT"))},
      {"AddV2 2x8x128x128 + mask 2x1x1x128", "AddV2",
       {Random(Shape({2, 8, 128, 128}), -1, 1), Random(Shape({2, 1, 1, 128}), -1, 1)}, f},
      {"Mul 1x56x56x64 by 1x56x1x64", "Mul",
       {Random(Shape({1, 56, 56, 64}), -1, 1), Random(Shape({1, 56, 1, 64}), -1, 1)}, f},
      {"GeluExact 1x128x3072 (fused node)", "_TfhostFusedElementwise", {Random(Shape({1, 128, 3072}), -6, 6)},
       with(with(with(f, "N", ops::MakeAttr(1)), "ops", ops::MakeAttr(std::vector<std::string>{"GeluExact"})),
            "operands", ops::MakeAttr(std::vector<int64_t>{0, -1}))},
      {"Sub 512x1 - 1x512 (outer)", "Sub", {Random(Shape({512, 1}), -1, 1), Random(Shape({1, 512}), -1, 1)}, f},
  };
  ThreadPool pool(1);  // 1 worker + the caller = 2 threads
  std::printf("isa: %s   rounds: %d   load average before: %s\n", IsaLevelName(ActiveIsaLevel()), rounds,
              ops::LoadAverage().c_str());
  std::printf("%-38s %8s %12s %10s %8s\n", "case", "threads", "reference us", "simd us", "speedup");
  for (const BenchCase& c : cases) {
    auto node = ops::MakeSingleOpNode(c.op, c.attrs);
    if (!node.ok()) {
      std::fprintf(stderr, "%s: %s\n", c.label.c_str(), node.status().ToString().c_str());
      return 1;
    }
    const ops::KernelFn reference = ops::OpRegistry::Global().Find(c.op)->kernel;
    const NodeKernel fast = BackendRegistry::Global().MakeFastKernel(*node, reference);
    if (!fast.kernel || fast.backend != "simd") {
      std::fprintf(stderr, "%s: no simd kernel\n", c.label.c_str());
      return 1;
    }
    for (ThreadPool* p : {static_cast<ThreadPool*>(nullptr), &pool}) {
      // Calibrate reps to ~2 ms of reference time per round.
      const double one = ops::MicrosPerCall(*node, reference, c.inputs, p, 3);
      const int reps = std::max(1, static_cast<int>(2000.0 / std::max(one, 1.0)));
      std::vector<double> ref_t, simd_t;
      for (int r = 0; r < rounds; ++r) {
        ref_t.push_back(ops::MicrosPerCall(*node, reference, c.inputs, p, reps));
        simd_t.push_back(ops::MicrosPerCall(*node, fast.kernel, c.inputs, p, reps));
      }
      const double a = ops::Median(ref_t), b = ops::Median(simd_t);
      std::printf("%-38s %8d %12.1f %10.1f %7.1fx\n", c.label.c_str(), p ? 2 : 1, a, b, a / b);
    }
  }
  std::printf("load average after: %s\n", ops::LoadAverage().c_str());
  return 0;
}

}  // namespace
}  // namespace tfhost::backends::simd

int main(int argc, char** argv) { return tfhost::backends::simd::Main(argc, argv); }
