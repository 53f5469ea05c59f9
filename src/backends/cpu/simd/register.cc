// The simd backend: vectorized (AVX2/AVX-512, chosen at run time)
// element-wise, reduction, softmax, layer normalization, transpose and copy
// (concat, pad) kernels, an LSTM step's gates, TFLite's fixed-point
// requantization of int8 models, and the depthwise and 1x1 convolutions and one-row matrix products for the
// shapes where they beat oneDNN (docs/perf.md, "Kernel benchmarks"). Its
// priority is above oneDNN's, so those kernels hand the shapes they decline
// to oneDNN's.
#include "backends/cpu/simd/simd_kernels.h"
#include "backends/builtin/builtin_backends.h"
#include "backends/kernel_table.h"

namespace tfhost::backends {

std::unique_ptr<Backend> MakeSimdBackend() {
  KernelTable table;
  simd::RegisterDepthwiseConvKernels(table);
  simd::RegisterDepthwisePixelKernels(table);
  simd::RegisterPointwiseConvKernels(table);
  simd::RegisterStemConvKernels(table);
  simd::RegisterExpandDepthwiseKernels(table);
  simd::RegisterBinaryKernels(table);
  simd::RegisterUnaryKernels(table);
  simd::RegisterReduceKernels(table);
  simd::RegisterSoftmaxKernels(table);
  simd::RegisterLayerNormKernels(table);
  simd::RegisterTransposeKernels(table);
  simd::RegisterConcatKernels(table);
  simd::RegisterPadKernels(table);
  simd::RegisterSelectKernels(table);
  simd::RegisterRequantizeKernels(table);
  simd::RegisterGemvKernels(table);
  simd::RegisterLstmCellKernels(table);
  simd::RegisterLstmLoopKernels(table);
  return std::make_unique<HostKernelBackend>(simd::kBackendName, kSimdPriority, BackendCapabilities{},
                                             std::move(table));
}

}  // namespace tfhost::backends
