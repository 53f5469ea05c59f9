// Launchers of the CUDA backend's layer norms and inference batch norm
// (norm_kernels.cu), callable from host code compiled without nvcc:
// float32, every tensor contiguous but the layer norms' broadcast operands.
// They enqueue on `stream` and return the launch error (cudaSuccess = 0).
#pragma once

#include <cstdint>

#include "backends/cuda/row_operands.h"

typedef struct CUstream_st* cudaStream_t;

namespace tfhost::backends::cuda {

// _TfhostLayerNorm of x (operand 0 of `operands`), or with `b` non-null
// _TfhostAddLayerNorm of x + b (b operand 1), the sum never written out:
// over the last dim of `rows` rows of `cols` values, gamma and beta `cols`
// values each.
int LaunchLayerNorm(const float* x, const float* b, const RowOperands& operands, const float* gamma,
                    const float* beta, float epsilon, float* y, int64_t rows, int64_t cols, cudaStream_t stream);

// FusedBatchNorm at inference over `n` values of x with `channels` last
// (NHWC, NDHWC); scale, offset, mean and variance hold `channels` values.
int LaunchBatchNormInference(const float* x, const float* scale, const float* offset, const float* mean,
                             const float* variance, float epsilon, float* y, int64_t n, int64_t channels,
                             cudaStream_t stream);

}  // namespace tfhost::backends::cuda
