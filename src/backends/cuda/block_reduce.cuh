// A reduction across one thread block, for the CUDA backend's row kernels
// (softmax, reductions): every thread passes its partial value and gets the
// block's result. `Op` has `float operator()(float, float)` and `float
// identity()`. The trailing barrier lets a kernel reduce again with the same
// scratch (kScratch floats of shared memory).
//
// Device code only (include from .cu files).
#pragma once

#include <cuda_runtime.h>

namespace tfhost::backends::cuda {

template <int kThreads>
struct BlockReducer {
  static_assert(kThreads % 32 == 0 && kThreads <= 1024, "whole warps, at most 32 of them");
  static constexpr int kWarps = kThreads / 32;
  static constexpr int kScratch = kWarps + 1;

  template <typename Op>
  __device__ static float Run(float v, float* scratch, Op op) {
    for (int offset = 16; offset > 0; offset /= 2) v = op(v, __shfl_xor_sync(0xffffffffu, v, offset));
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    if (lane == 0) scratch[warp] = v;
    __syncthreads();
    if (warp == 0) {
      v = lane < kWarps ? scratch[lane] : op.identity();
      for (int offset = 16; offset > 0; offset /= 2) v = op(v, __shfl_xor_sync(0xffffffffu, v, offset));
      if (lane == 0) scratch[kWarps] = v;
    }
    __syncthreads();
    const float result = scratch[kWarps];
    __syncthreads();
    return result;
  }
};

// The float sum, the row kernels' most common reduction.
struct BlockSum {
  __device__ float operator()(float a, float b) const { return a + b; }
  __device__ float identity() const { return 0.0f; }
};

}  // namespace tfhost::backends::cuda
