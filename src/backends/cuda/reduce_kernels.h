// Launchers of the CUDA backend's float32 reductions (reduce_kernels.cu),
// callable from host code compiled without nvcc. They enqueue on `stream`
// and return the launch error (cudaSuccess = 0).
#pragma once

#include <cstdint>

#include "backends/cuda/reduce_functors.h"

typedef struct CUstream_st* cudaStream_t;

namespace tfhost::backends::cuda {

// y[o] for every output o of `indexing` (reduce_functors.h).
int LaunchReduce(ReduceOp op, const ReduceIndexing& indexing, const float* x, float* y, cudaStream_t stream);

}  // namespace tfhost::backends::cuda
