// Launchers of the CUDA backend's Softmax and LogSoftmax (softmax_kernels.cu),
// callable from host code compiled without nvcc: float32, contiguous, over
// the last dim of `rows` rows of `cols` values. They enqueue on `stream` and
// return the launch error (cudaSuccess = 0).
#pragma once

#include <cstdint>

typedef struct CUstream_st* cudaStream_t;

namespace tfhost::backends::cuda {

int LaunchSoftmax(bool log, const float* x, float* y, int64_t rows, int64_t cols, cudaStream_t stream);

}  // namespace tfhost::backends::cuda
