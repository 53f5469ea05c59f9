// Launchers of the CUDA backend's element-wise kernels (elementwise_kernels.cu),
// callable from host code compiled without nvcc. Float32, contiguous; a
// binary op broadcasts as `shape` says (elementwise_functors.h). Each
// enqueues on `stream` and returns the launch error (cudaSuccess = 0).
#pragma once

#include <cstdint>

#include "backends/cuda/elementwise_functors.h"

typedef struct CUstream_st* cudaStream_t;

namespace tfhost::backends::cuda {

struct FusedProgram;
struct FusedInputs;

int LaunchUnary(UnaryOp op, const float* x, float* y, int64_t n, cudaStream_t stream);
int LaunchBinary(BinaryOp op, const float* a, const float* b, const BinaryShape& shape, float* y, int64_t n,
                 cudaStream_t stream);
// _TfhostFusedElementwise: every output element of `program` (fused_program.h).
int LaunchFused(const FusedProgram& program, const FusedInputs& inputs, float* y, int64_t n, cudaStream_t stream);
// In place: y[i] = act(y[i] + bias[i % channels]); `bias` may be null, and
// act kIdentity applies none (a fused product's epilogue).
int LaunchBiasActivation(UnaryOp act, float* y, const float* bias, int64_t channels, int64_t n,
                         cudaStream_t stream);

}  // namespace tfhost::backends::cuda
