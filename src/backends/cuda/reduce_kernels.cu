#include "backends/cuda/reduce_kernels.h"

#include <cuda_runtime.h>

#include "backends/cuda/block_reduce.cuh"
#include "backends/cuda/launch_grid.h"

namespace tfhost::backends::cuda {
namespace {

constexpr int kThreads = 256;
using Reduce = BlockReducer<kThreads>;

struct CombineOp {
  ReduceOp op;
  __device__ float operator()(float a, float b) const { return ReduceCombine(op, a, b); }
  __device__ float identity() const { return ReduceInit(op); }
};

// Reduced dims last: one block per output row of `count` contiguous values,
// read coalesced.
__global__ void RowsKernel(ReduceOp op, const float* __restrict__ x, float* __restrict__ y, int64_t rows,
                           int64_t count) {
  __shared__ float scratch[Reduce::kScratch];
  const CombineOp combine{op};
  for (int64_t row = blockIdx.x; row < rows; row += gridDim.x) {
    const float* xr = x + row * count;
    float acc = ReduceInit(op);
    for (int64_t i = threadIdx.x; i < count; i += kThreads) acc = ReduceCombine(op, acc, xr[i]);
    acc = Reduce::Run(acc, scratch, combine);
    if (threadIdx.x == 0) y[row] = ReduceFinish(op, acc, count);
  }
}

// Any other axes: one thread per output element, its inputs in order.
__global__ void GenericKernel(ReduceOp op, ReduceIndexing p, const float* __restrict__ x, float* __restrict__ y) {
  for (int64_t o = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; o < p.outputs;
       o += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    y[o] = ReduceOne(op, p, x, o);
  }
}

}  // namespace

int LaunchReduce(ReduceOp op, const ReduceIndexing& p, const float* x, float* y, cudaStream_t stream) {
  if (p.outputs == 0) return 0;
  if (p.rows) {
    RowsKernel<<<RowBlocks(p.outputs), kThreads, 0, stream>>>(op, x, y, p.outputs, p.count);
  } else {
    GenericKernel<<<ElementBlocks(p.outputs, kThreads), kThreads, 0, stream>>>(op, p, x, y);
  }
  return static_cast<int>(cudaGetLastError());
}

}  // namespace tfhost::backends::cuda
