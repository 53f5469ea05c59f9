#include "backends/cuda/softmax_kernels.h"

#include <cuda_runtime.h>

#include "backends/cuda/block_reduce.cuh"
#include "backends/cuda/launch_grid.h"
#include "backends/cuda/norm_functors.h"
#include "backends/cuda/softmax_functors.h"

namespace tfhost::backends::cuda {
namespace {

constexpr int kThreads = 256;
using Reduce = BlockReducer<kThreads>;

struct MaxOp {
  __device__ float operator()(float a, float b) const { return SoftmaxMax(a, b); }
  __device__ float identity() const { return -INFINITY; }
};

// Where a row's logits come from: At(row) gives the row, whose (j) is the
// j-th logit and keep(j) whether the mask holds there.
struct PlainLogits {
  struct Row {
    const float* x;
    __device__ float operator()(int64_t j) const { return x[j]; }
    __device__ bool keep(int64_t) const { return true; }
  };
  const float* x;
  int64_t cols;
  __device__ Row At(int64_t row) const { return Row{x + row * cols}; }
};

struct MaskedLogits {
  struct Row {
    const float* logits;
    const bool* mask;
    const float* fill;
    int64_t logit_step, mask_step, fill_step;
    __device__ bool keep(int64_t j) const { return mask[j * mask_step]; }
    __device__ float operator()(int64_t j) const {
      return MaskedLogit(keep(j), logits[j * logit_step], fill[j * fill_step]);
    }
  };
  const float* logits;
  const bool* mask;
  const float* fill;
  RowOperands s;
  __device__ Row At(int64_t row) const {
    return Row{logits + RowStart(s, 0, row), mask + RowStart(s, 1, row), fill + RowStart(s, 2, row),
               RowStep(s, 0), RowStep(s, 1), RowStep(s, 2)};
  }
};

// One block per row (grid-stride over rows): the row is read three times,
// from L2 after the first for the rows a transformer has (up to a few
// thousand values).
template <bool kLog, bool kZeroMasked, typename Logits>
__global__ void SoftmaxKernel(Logits logits, float* __restrict__ y, int64_t rows, int64_t cols) {
  __shared__ float scratch[Reduce::kScratch];
  for (int64_t row = blockIdx.x; row < rows; row += gridDim.x) {
    const typename Logits::Row x = logits.At(row);
    float* yr = y + row * cols;
    float m = -INFINITY;
    for (int64_t i = threadIdx.x; i < cols; i += kThreads) m = SoftmaxMax(m, x(i));
    m = Reduce::Run(m, scratch, MaxOp());
    float s = 0.0f;
    for (int64_t i = threadIdx.x; i < cols; i += kThreads) s += SoftmaxTerm(x(i), m);
    s = Reduce::Run(s, scratch, BlockSum());
    for (int64_t i = threadIdx.x; i < cols; i += kThreads) {
      yr[i] = kZeroMasked ? MaskedSoftmaxOut(x.keep(i), true, x(i), m, s) : SoftmaxOut(kLog, x(i), m, s);
    }
  }
}

}  // namespace

int LaunchSoftmax(bool log, const float* x, float* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  if (rows == 0 || cols == 0) return 0;
  const PlainLogits logits{x, cols};
  if (log) {
    SoftmaxKernel<true, false><<<RowBlocks(rows), kThreads, 0, stream>>>(logits, y, rows, cols);
  } else {
    SoftmaxKernel<false, false><<<RowBlocks(rows), kThreads, 0, stream>>>(logits, y, rows, cols);
  }
  return static_cast<int>(cudaGetLastError());
}

int LaunchMaskedSoftmax(const float* logits, const bool* mask, const float* fill, const RowOperands& operands,
                        bool zero_masked, float* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  if (rows == 0 || cols == 0) return 0;
  const MaskedLogits masked{logits, mask, fill, operands};
  if (zero_masked) {
    SoftmaxKernel<false, true><<<RowBlocks(rows), kThreads, 0, stream>>>(masked, y, rows, cols);
  } else {
    SoftmaxKernel<false, false><<<RowBlocks(rows), kThreads, 0, stream>>>(masked, y, rows, cols);
  }
  return static_cast<int>(cudaGetLastError());
}

}  // namespace tfhost::backends::cuda
