// Why 3x3 stride-1 depthwise convolutions run on tfhost's own SIMD kernel
// (src/backends/cpu/simd/simd_depthwise_conv.cc) rather than oneDNN's: times
// both kernels, as the graph runner makes them, on the depthwise shapes of
// the fixture models (blazeface's 24-96 channels, MobileNetV2 x1.4's
// 48-1344), alternating rounds so machine noise hits both alike, on one
// thread and on two (the intra-op pool for the SIMD kernel, OpenMP for
// oneDNN). Prints medians and oneDNN / SIMD (above 1: the SIMD kernel is
// faster). The SIMD kernel is AVX-512 only; elsewhere this prints why and
// exits 2.
//
// The last column says which kernel the SIMD kernel's calls ended on: it
// hands layers wider than 256 channels or larger than 8 MiB to oneDNN's,
// and those rows time oneDNN against itself.
//
//   depthwise_conv_ab [ROUNDS]      (default 7)
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "backends/cpu/simd/cpu_features.h"
#include "backends/backend_registry.h"
#include "base/buffer_pool.h"
#include "base/thread_pool.h"
#include "ops/kernel_bench_util.h"
#include "ops/op_registry.h"

namespace tfhost {
namespace {

struct Case {
  const char* model;
  int64_t n, h, w, c;
  bool relu6;
};

int Main(int argc, char** argv) {
  const int rounds = argc > 1 ? std::max(3, std::atoi(argv[1])) : 7;
  if (backends::simd::DetectedIsaLevel() != backends::simd::IsaLevel::kAvx512) {
    std::fprintf(stderr, "depthwise_conv_ab: this CPU has no AVX-512, so oneDNN runs every depthwise convolution\n");
    return 2;
  }
  // The stride-1 depthwise layers of blazeface and nsfw_mobilenet_v2, at
  // batch 1 and (nsfw) at the batch-32 target's size.
  const Case cases[] = {
      {"blazeface", 1, 128, 128, 24, false}, {"blazeface", 1, 64, 64, 24, false}, {"blazeface", 1, 32, 32, 48, false},
      {"blazeface", 1, 16, 16, 96, false},   {"nsfw", 1, 112, 112, 48, true},     {"nsfw", 1, 56, 56, 192, true},
      {"nsfw", 1, 28, 28, 288, true},        {"nsfw", 1, 14, 14, 528, true},      {"nsfw", 1, 14, 14, 816, true},
      {"nsfw", 1, 7, 7, 1344, true},         {"nsfw", 32, 112, 112, 48, true},    {"nsfw", 32, 56, 56, 192, true},
      {"nsfw", 32, 28, 28, 288, true},       {"nsfw", 32, 14, 14, 528, true},     {"nsfw", 32, 7, 7, 1344, true},
  };
  ThreadPool pool(1);  // 1 worker + the caller = 2 threads
  // Outputs come from a buffer pool, as in a session: fresh 77 MB blocks at
  // batch 32 would time this VM's page faults, not the kernels.
  std::shared_ptr<BufferPool> buffers = BufferPool::Create();
  BufferPool::ScopedCurrent current(buffers.get());
  std::printf("isa: %s   rounds: %d   load average before: %s\n",
              backends::simd::IsaLevelName(backends::simd::ActiveIsaLevel()), rounds, ops::LoadAverage().c_str());
  std::printf("%-10s %-16s %8s %10s %10s %9s %10s  %s\n", "model", "NHWC", "threads", "oneDNN us", "SIMD us",
              "x", "SIMD GF/s", "runs on");
  const ops::KernelFn reference = ops::OpRegistry::Global().Find("FusedDepthwiseConv2dNative")->kernel;
  for (const Case& c : cases) {
    ir::AttrMap attrs = {{"T", ops::MakeAttr(DType::kFloat)},
                         {"strides", ops::MakeAttr(std::vector<int64_t>{1, 1, 1, 1})},
                         {"padding", ops::MakeAttr("SAME")},
                         {"num_args", ops::MakeAttr(int64_t{1})}};
    std::vector<std::string> fused = {"BiasAdd"};
    if (c.relu6) fused.push_back("Relu6");
    attrs["fused_ops"] = ops::MakeAttr(fused);
    auto node = ops::MakeSingleOpNode("FusedDepthwiseConv2dNative", attrs);
    if (!node.ok()) {
      std::fprintf(stderr, "%s\n", node.status().ToString().c_str());
      return 1;
    }
    const std::vector<Tensor> inputs = {ops::UniformTensor(Shape({c.n, c.h, c.w, c.c}), 1),
                                        ops::UniformTensor(Shape({3, 3, c.c, 1}), 2),
                                        ops::UniformTensor(Shape({c.c}), 3)};
    const double flops = 2.0 * 9 * c.n * c.h * c.w * c.c;
    for (ThreadPool* p : {static_cast<ThreadPool*>(nullptr), &pool}) {
      // Fresh kernels per thread count: oneDNN's brgemm kernels fix their
      // thread split when the primitive is made (on the first call).
      const backends::NodeKernel simd = backends::BackendRegistry::Global().MakeFastKernel(*node, reference);
      const ops::KernelFn onednn =
          backends::BackendRegistry::Global().MakeKernelFrom("onednn", *node, reference).kernel;
      if (!simd.kernel || simd.backend != "simd" || !onednn) {
        std::fprintf(stderr, "no kernel for %s\n", c.model);
        return 1;
      }
      const auto [ta, tb] = ops::TimeAlternating(*node, onednn, simd.kernel, inputs, p, rounds);
      ops::KernelContext probe(*node, inputs, std::vector<bool>(inputs.size(), false), nullptr, p);
      probe.set_num_outputs(1);
      const std::string runs_on =
          simd.kernel(probe).ok() ? backends::BackendName(probe.backend_id()) : std::string("error");
      const std::string shape = std::to_string(c.n) + "x" + std::to_string(c.h) + "x" + std::to_string(c.w) + "x" +
                                std::to_string(c.c);
      std::printf("%-10s %-16s %8d %10.1f %10.1f %8.2fx %10.1f  %s\n", c.model, shape.c_str(), p ? 2 : 1, ta, tb,
                  ta / tb, flops / tb / 1e3, runs_on.c_str());
    }
  }
  std::printf("load average after: %s\n", ops::LoadAverage().c_str());
  return 0;
}

}  // namespace
}  // namespace tfhost

int main(int argc, char** argv) { return tfhost::Main(argc, argv); }
