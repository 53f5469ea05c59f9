// Launcher of the CUDA backend's SelectV2 (select_kernels.cu), callable from
// host code compiled without nvcc: output = condition ? t : e, the three
// operands broadcast to the output as `operands` (row_operands.h) lays them
// out (condition, t, e in that order), elements of `element_bytes` (1, 2, 4
// or 8) moved as they are, one thread per output element. It enqueues on
// `stream` and returns the launch error (cudaSuccess = 0).
#pragma once

#include <cstddef>
#include <cstdint>

#include "backends/cuda/row_operands.h"

typedef struct CUstream_st* cudaStream_t;

namespace tfhost::backends::cuda {

int LaunchSelect(const bool* condition, const void* t, const void* e, const RowOperands& operands,
                 size_t element_bytes, void* y, int64_t n, int64_t cols, cudaStream_t stream);

}  // namespace tfhost::backends::cuda
