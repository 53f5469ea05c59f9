// Launchers of the CUDA backend's ResizeBilinear and ResizeNearestNeighbor
// (resize_kernels.cu), callable from host code compiled without nvcc: NHWC,
// contiguous, one thread per output element. They enqueue on `stream` and
// return the launch error (cudaSuccess = 0).
#pragma once

#include <cstddef>

#include "backends/cuda/resize_functors.h"

typedef struct CUstream_st* cudaStream_t;

namespace tfhost::backends::cuda {

// float32 in, float32 out.
int LaunchResizeBilinear(const float* x, float* y, const ResizeGeometry& g, cudaStream_t stream);
// Elements of `element_bytes` (1, 2, 4 or 8) moved as they are.
int LaunchResizeNearest(const void* x, void* y, size_t element_bytes, const ResizeGeometry& g, cudaStream_t stream);

}  // namespace tfhost::backends::cuda
