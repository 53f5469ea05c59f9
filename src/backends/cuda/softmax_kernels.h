// Launchers of the CUDA backend's Softmax, LogSoftmax and masked softmax
// (softmax_kernels.cu), callable from host code compiled without nvcc:
// float32, over the last dim of `rows` rows of `cols` values, the output
// contiguous. They enqueue on `stream` and return the launch error
// (cudaSuccess = 0).
#pragma once

#include <cstdint>

#include "backends/cuda/row_operands.h"

typedef struct CUstream_st* cudaStream_t;

namespace tfhost::backends::cuda {

// x contiguous.
int LaunchSoftmax(bool log, const float* x, float* y, int64_t rows, int64_t cols, cudaStream_t stream);

// _TfhostMaskedSoftmax: Softmax(SelectV2(mask, logits, fill)), operands 0, 1
// and 2 of `operands` (logits, mask, fill) broadcast to the output; with
// `zero_masked`, 0 where the mask fails.
int LaunchMaskedSoftmax(const float* logits, const bool* mask, const float* fill, const RowOperands& operands,
                        bool zero_masked, float* y, int64_t rows, int64_t cols, cudaStream_t stream);

}  // namespace tfhost::backends::cuda
