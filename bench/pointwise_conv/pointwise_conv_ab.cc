// Why 1x1 stride-1 convolutions run on tfhost's own SIMD kernel
// (src/backends/cpu/simd/simd_pointwise_conv.cc) where it takes them rather
// than on oneDNN's brgconv_1x1: times both kernels, as the graph runner makes
// them, on every 1x1 shape of blazeface and nsfw_mobilenet_v2 at batch 1 and
// on nsfw's larger ones at the batch-32 target's size, with each layer's own
// epilogue (bias, residual Add, Relu/Relu6), alternating rounds so machine
// noise hits both alike, on one thread and on two (the intra-op pool for the
// SIMD kernel, OpenMP for oneDNN). Prints medians, oneDNN / SIMD (above 1:
// the SIMD kernel is faster) and which of the two the SIMD kernel's shape
// rule hands the layer to. AVX-512 only, as the kernel; elsewhere this prints
// why and exits 2.
//
// With PRECISION bf16 the nodes are marked bf16, as --precision bf16 marks
// them: oneDNN's bf16 primitive against the SIMD kernel's VDPBF16PS tiles
// (needs avx512_bf16). Their activations arrive as in nsfw_mobilenet_v2's
// bf16 graph: float32 for the expansions (Relu6 rows: a residual sum or a
// float32 layer wrote them), bf16 for the rest (a bf16 depthwise wrote them).
//
//   pointwise_conv_ab [ROUNDS] [FILTER] [PRECISION]
//   (default 7, every model, fp32; FILTER "" for every model)
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "backends/cpu/simd/cpu_features.h"
#include "backends/cpu/simd/simd_kernels.h"
#include "backends/backend_registry.h"
#include "base/buffer_pool.h"
#include "base/thread_pool.h"
#include "ir/precision_attrs.h"
#include "ops/nn/nn_util.h"
#include "ops/kernel_bench_util.h"
#include "ops/op_registry.h"

namespace tfhost {
namespace {

struct Case {
  const char* model;
  int64_t n, h, w, in_c, out_c;
  const char* epilogue;  // the fused ops after BiasAdd: "", "Relu", "Relu6", "Add", "Add,Relu"
};

std::vector<std::string> FusedOps(const std::string& epilogue) {
  std::vector<std::string> ops = {"BiasAdd"};
  size_t start = 0;
  while (start < epilogue.size()) {
    const size_t comma = epilogue.find(',', start);
    ops.push_back(epilogue.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
    start = comma == std::string::npos ? epilogue.size() : comma + 1;
  }
  return ops;
}

int Main(int argc, char** argv) {
  const int rounds = argc > 1 ? std::max(3, std::atoi(argv[1])) : 7;
  const std::string filter = argc > 2 ? argv[2] : "";
  const bool bf16 = argc > 3 && std::string(argv[3]) == "bf16";
  if (argc > 3 && !bf16 && std::string(argv[3]) != "fp32") {
    std::fprintf(stderr, "pointwise_conv_ab: PRECISION must be fp32 or bf16, got '%s'\n", argv[3]);
    return 2;
  }
  if (bf16 && !backends::simd::ActiveIsaHasBf16()) {
    std::fprintf(stderr, "pointwise_conv_ab: this CPU has no avx512_bf16, so bf16 nodes run in float32\n");
    return 2;
  }
  if (backends::simd::DetectedIsaLevel() != backends::simd::IsaLevel::kAvx512) {
    std::fprintf(stderr, "pointwise_conv_ab: this CPU has no AVX-512, so oneDNN runs every 1x1 convolution\n");
    return 2;
  }
  // The shapes and epilogues oneDNN's verbose log shows for the two models
  // (tfhost bench MODEL --batch 1 --threads 1 with ONEDNN_VERBOSE=1).
  const Case cases[] = {
      {"blazeface", 1, 128, 128, 24, 24, "Add,Relu"}, {"blazeface", 1, 64, 64, 24, 24, "Add,Relu"},
      {"blazeface", 1, 32, 32, 24, 48, "Add,Relu"},   {"blazeface", 1, 32, 32, 48, 48, "Add,Relu"},
      {"blazeface", 1, 16, 16, 48, 96, "Add,Relu"},   {"blazeface", 1, 16, 16, 96, 96, "Add,Relu"},
      {"blazeface", 1, 8, 8, 96, 96, "Relu"},         {"blazeface", 1, 16, 16, 96, 32, ""},
      {"blazeface", 1, 8, 8, 96, 6, ""},              {"nsfw", 1, 112, 112, 48, 24, ""},
      {"nsfw", 1, 112, 112, 24, 144, "Relu6"},        {"nsfw", 1, 56, 56, 144, 32, ""},
      {"nsfw", 1, 56, 56, 32, 192, "Relu6"},          {"nsfw", 1, 56, 56, 192, 32, "Add"},
      {"nsfw", 1, 28, 28, 192, 48, ""},               {"nsfw", 1, 28, 28, 48, 288, "Relu6"},
      {"nsfw", 1, 28, 28, 288, 48, "Add"},            {"nsfw", 1, 14, 14, 288, 88, ""},
      {"nsfw", 1, 14, 14, 88, 528, "Relu6"},          {"nsfw", 1, 14, 14, 528, 88, "Add"},
      {"nsfw", 1, 14, 14, 528, 136, ""},              {"nsfw", 1, 14, 14, 136, 816, "Relu6"},
      {"nsfw", 1, 14, 14, 816, 136, "Add"},           {"nsfw", 1, 7, 7, 816, 224, ""},
      {"nsfw", 1, 7, 7, 224, 1344, "Relu6"},          {"nsfw", 1, 7, 7, 1344, 224, "Add"},
      {"nsfw", 1, 7, 7, 1344, 448, ""},               {"nsfw", 1, 7, 7, 448, 1792, "Relu6"},
      {"nsfw", 32, 112, 112, 48, 24, ""},             {"nsfw", 32, 112, 112, 24, 144, "Relu6"},
      {"nsfw", 32, 56, 56, 32, 192, "Relu6"},         {"nsfw", 32, 28, 28, 288, 48, "Add"},
      {"nsfw", 32, 14, 14, 136, 816, "Relu6"},        {"nsfw", 32, 7, 7, 224, 1344, "Relu6"},
      {"nsfw", 32, 7, 7, 1344, 224, "Add"},           {"nsfw", 32, 7, 7, 448, 1792, "Relu6"},
  };
  ThreadPool pool(1);  // 1 worker + the caller = 2 threads
  // Outputs come from a buffer pool, as in a session: fresh blocks of up to
  // 231 MB at batch 32 would time this VM's page faults, not the kernels.
  std::shared_ptr<BufferPool> buffers = BufferPool::Create();
  BufferPool::ScopedCurrent current(buffers.get());
  std::printf("isa: %s   precision: %s   rounds: %d   load average before: %s\n",
              backends::simd::IsaLevelName(backends::simd::ActiveIsaLevel()), bf16 ? "bf16" : "fp32", rounds,
              ops::LoadAverage().c_str());
  std::printf("%-10s %-16s %5s %-9s %8s %10s %10s %9s %10s %8s\n", "model", "NHWC", "oc", "epilogue", "threads",
              "oneDNN us", "SIMD us", "x", "SIMD GF/s", "runs on");
  const ops::KernelFn reference = ops::OpRegistry::Global().Find("_FusedConv2D")->kernel;
  for (const Case& c : cases) {
    if (!filter.empty() && filter != c.model) continue;
    const std::vector<std::string> fused = FusedOps(c.epilogue);
    const bool residual = std::string(c.epilogue).rfind("Add", 0) == 0;
    ir::AttrMap attrs = {{"T", ops::MakeAttr(DType::kFloat)},
                         {"strides", ops::MakeAttr(std::vector<int64_t>{1, 1, 1, 1})},
                         {"padding", ops::MakeAttr("VALID")},
                         {"fused_ops", ops::MakeAttr(fused)},
                         {"num_args", ops::MakeAttr(int64_t{residual ? 2 : 1})}};
    if (bf16) attrs[ir::kPrecisionAttr] = ops::MakeAttr("bf16");
    auto node = ops::MakeSingleOpNode("_FusedConv2D", attrs);
    if (!node.ok()) {
      std::fprintf(stderr, "%s\n", node.status().ToString().c_str());
      return 1;
    }
    std::vector<Tensor> inputs = {ops::UniformTensor(Shape({c.n, c.h, c.w, c.in_c}), 1),
                                  ops::UniformTensor(Shape({1, 1, c.in_c, c.out_c}), 2),
                                  ops::UniformTensor(Shape({c.out_c}), 3)};
    if (residual) inputs.push_back(ops::UniformTensor(Shape({c.n, c.h, c.w, c.out_c}), 4));
    if (bf16 && std::string(c.epilogue) != "Relu6") inputs[0] = ops::nn::NarrowFromFloat(inputs[0], DType::kBFloat16);
    const double flops = 2.0 * c.n * c.h * c.w * c.in_c * c.out_c;
    for (ThreadPool* p : {static_cast<ThreadPool*>(nullptr), &pool}) {
      // Fresh kernels per thread count: oneDNN's brgemm kernels fix their
      // thread split when the primitive is made (on the first call).
      const ops::KernelFn simd =
          backends::simd::MakePointwiseConvKernel(*node, reference, /*apply_shape_rule=*/false);
      const ops::KernelFn onednn =
          backends::BackendRegistry::Global().MakeKernelFrom("onednn", *node, reference).kernel;
      if (!simd || !onednn) {
        std::fprintf(stderr, "no kernel for %s\n", c.model);
        return 1;
      }
      // The residual is the last input; in a graph the conv is its last
      // reader, and both kernels write their output into its buffer.
      const auto [ta, tb] = ops::TimeAlternating(*node, onednn, simd, inputs, p, rounds, residual ? 3 : -1);
      const bool takes = backends::simd::PointwiseConvTakes(c.in_c);
      const std::string shape = std::to_string(c.n) + "x" + std::to_string(c.h) + "x" + std::to_string(c.w) + "x" +
                                std::to_string(c.in_c);
      std::printf("%-10s %-16s %5lld %-9s %8d %10.1f %10.1f %8.2fx %10.1f %8s\n", c.model, shape.c_str(),
                  static_cast<long long>(c.out_c), *c.epilogue ? c.epilogue : "-", p ? 2 : 1, ta, tb, ta / tb,
                  flops / tb / 1e3, takes ? "simd" : "onednn");
    }
  }
  std::printf("load average after: %s\n", ops::LoadAverage().c_str());
  return 0;
}

}  // namespace
}  // namespace tfhost

int main(int argc, char** argv) { return tfhost::Main(argc, argv); }
