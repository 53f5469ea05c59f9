#include "backends/cuda/select_kernels.h"

#include <cuda_runtime.h>

#include "backends/cuda/launch_grid.h"

namespace tfhost::backends::cuda {
namespace {

constexpr int kThreads = 256;

template <typename T>
__global__ void SelectKernel(const bool* __restrict__ condition, const T* __restrict__ t, const T* __restrict__ e,
                             RowOperands s, T* __restrict__ y, int64_t n, int64_t cols) {
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    y[i] = condition[RowOperandOffset(s, 0, i, cols)] ? t[RowOperandOffset(s, 1, i, cols)]
                                                      : e[RowOperandOffset(s, 2, i, cols)];
  }
}

template <typename T>
void Launch(const bool* condition, const void* t, const void* e, const RowOperands& s, void* y, int64_t n,
            int64_t cols, cudaStream_t stream) {
  SelectKernel<T><<<ElementBlocks(n, kThreads), kThreads, 0, stream>>>(
      condition, static_cast<const T*>(t), static_cast<const T*>(e), s, static_cast<T*>(y), n, cols);
}

}  // namespace

int LaunchSelect(const bool* condition, const void* t, const void* e, const RowOperands& operands,
                 size_t element_bytes, void* y, int64_t n, int64_t cols, cudaStream_t stream) {
  if (n == 0 || cols == 0) return 0;
  switch (element_bytes) {
    case 1: Launch<uint8_t>(condition, t, e, operands, y, n, cols, stream); break;
    case 2: Launch<uint16_t>(condition, t, e, operands, y, n, cols, stream); break;
    case 4: Launch<uint32_t>(condition, t, e, operands, y, n, cols, stream); break;
    case 8: Launch<uint64_t>(condition, t, e, operands, y, n, cols, stream); break;
    default: return static_cast<int>(cudaErrorInvalidValue);
  }
  return static_cast<int>(cudaGetLastError());
}

}  // namespace tfhost::backends::cuda
