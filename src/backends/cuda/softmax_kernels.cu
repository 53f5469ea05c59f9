#include "backends/cuda/softmax_kernels.h"

#include <cuda_runtime.h>

#include "backends/cuda/block_reduce.cuh"
#include "backends/cuda/softmax_functors.h"

namespace tfhost::backends::cuda {
namespace {

constexpr int kThreads = 256;
using Reduce = BlockReducer<kThreads>;

struct MaxOp {
  __device__ float operator()(float a, float b) const { return SoftmaxMax(a, b); }
  __device__ float identity() const { return -INFINITY; }
};
struct SumOp {
  __device__ float operator()(float a, float b) const { return a + b; }
  __device__ float identity() const { return 0.0f; }
};

// One block per row (grid-stride over rows): the row is read three times,
// from L2 after the first for the rows a transformer has (up to a few
// thousand values).
template <bool kLog>
__global__ void SoftmaxKernel(const float* __restrict__ x, float* __restrict__ y, int64_t rows, int64_t cols) {
  __shared__ float scratch[Reduce::kScratch];
  for (int64_t row = blockIdx.x; row < rows; row += gridDim.x) {
    const float* xr = x + row * cols;
    float* yr = y + row * cols;
    float m = -INFINITY;
    for (int64_t i = threadIdx.x; i < cols; i += kThreads) m = SoftmaxMax(m, xr[i]);
    m = Reduce::Run(m, scratch, MaxOp());
    float s = 0.0f;
    for (int64_t i = threadIdx.x; i < cols; i += kThreads) s += SoftmaxTerm(xr[i], m);
    s = Reduce::Run(s, scratch, SumOp());
    for (int64_t i = threadIdx.x; i < cols; i += kThreads) yr[i] = SoftmaxOut(kLog, xr[i], m, s);
  }
}

}  // namespace

int LaunchSoftmax(bool log, const float* x, float* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  if (rows == 0 || cols == 0) return 0;
  const unsigned blocks = static_cast<unsigned>(rows < 65535 * 16 ? rows : 65535 * 16);
  if (log) {
    SoftmaxKernel<true><<<blocks, kThreads, 0, stream>>>(x, y, rows, cols);
  } else {
    SoftmaxKernel<false><<<blocks, kThreads, 0, stream>>>(x, y, rows, cols);
  }
  return static_cast<int>(cudaGetLastError());
}

}  // namespace tfhost::backends::cuda
