// Vectorized (AVX2/AVX-512, chosen at run time) element-wise, reduction,
// softmax, transpose and copy (concat, pad) kernels.
#include "backends/cpu/simd/simd_kernels.h"
#include "backends/fast_kernel_registry.h"

namespace tfhost::backends {

void RegisterSimdKernels(FastKernelRegistry& registry) {
  simd::RegisterBinaryKernels(registry);
  simd::RegisterUnaryKernels(registry);
  simd::RegisterReduceKernels(registry);
  simd::RegisterSoftmaxKernels(registry);
  simd::RegisterTransposeKernels(registry);
  simd::RegisterConcatKernels(registry);
  simd::RegisterPadKernels(registry);
}

}  // namespace tfhost::backends
