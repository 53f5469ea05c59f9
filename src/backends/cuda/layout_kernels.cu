#include "backends/cuda/layout_kernels.h"

#include <cuda_runtime.h>

#include "backends/cuda/launch_grid.h"

namespace tfhost::backends::cuda {
namespace {

constexpr int kThreads = 256;

unsigned Blocks(int64_t n) { return ElementBlocks(n, kThreads); }

// Grid-stride loops, as the element-wise kernels: one launch shape serves
// every size. The indexing structs arrive in the kernel's parameter space.
template <typename T>
__global__ void StridedGatherKernel(StridedGather g, const T* __restrict__ x, T* __restrict__ y) {
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < g.count;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    y[i] = x[GatherSource(g, i)];
  }
}

template <typename T>
__global__ void PadKernel(PadIndexing p, const T* __restrict__ x, T value, T* __restrict__ y) {
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < p.count;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    const int64_t src = PadSource(p, i);
    y[i] = src < 0 ? value : x[src];
  }
}

template <typename T>
__global__ void ConcatPieceKernel(const T* __restrict__ x, int64_t count, int64_t row, int64_t out_row, int64_t column,
                                  T* __restrict__ y) {
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < count;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    y[ConcatDest(i, row, out_row, column)] = x[i];
  }
}

// The position of the first index outside [0, limit), or ~0 where none is.
template <typename I>
__global__ void CheckIndicesKernel(GatherIndexing g, const I* __restrict__ indices,
                                   unsigned long long* __restrict__ first_bad) {
  for (int64_t j = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; j < g.n;
       j += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    if (!GatherIndexOk(g, static_cast<int64_t>(indices[j]))) atomicMin(first_bad, static_cast<unsigned long long>(j));
  }
}

// A bad index writes a zero and reads nothing; the call then fails.
template <typename T, typename I>
__global__ void GatherKernel(GatherIndexing g, const T* __restrict__ params, const I* __restrict__ indices,
                             T* __restrict__ y) {
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < g.count;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    const int64_t src = GatherV2Source(g, i, static_cast<int64_t>(indices[GatherPosition(g, i)]));
    y[i] = src < 0 ? T(0) : params[src];
  }
}

template <CastType kSrc, CastType kDst>
__global__ void CastKernel(const typename CastStorage<kSrc>::type* __restrict__ x,
                           typename CastStorage<kDst>::type* __restrict__ y, int64_t n, bool truncate) {
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    y[i] = CastOne<kSrc, kDst>(x[i], truncate);
  }
}

// Calls fn(word) with an unsigned word of `bytes` bytes: the ops move
// elements as bits, whatever their dtype.
template <typename Fn>
int WithWord(int bytes, Fn&& fn) {
  switch (bytes) {
    case 1: return fn(uint8_t());
    case 2: return fn(uint16_t());
    case 4: return fn(uint32_t());
    case 8: return fn(uint64_t());
    default: return static_cast<int>(cudaErrorInvalidValue);
  }
}

int LastError() { return static_cast<int>(cudaGetLastError()); }

}  // namespace

int LaunchStridedGather(int bytes, const StridedGather& g, const void* x, void* y, cudaStream_t stream) {
  if (g.count == 0) return 0;
  if (g.rank <= 1 && (g.rank == 0 || g.strides[0] == 1)) {  // one contiguous run
    return static_cast<int>(cudaMemcpyAsync(y, static_cast<const char*>(x) + g.offset * bytes, g.count * bytes,
                                            cudaMemcpyDeviceToDevice, stream));
  }
  return WithWord(bytes, [&](auto word) {
    using T = decltype(word);
    StridedGatherKernel<T><<<Blocks(g.count), kThreads, 0, stream>>>(g, static_cast<const T*>(x), static_cast<T*>(y));
    return LastError();
  });
}

int LaunchPad(int bytes, const PadIndexing& p, const void* x, uint64_t value, void* y, cudaStream_t stream) {
  if (p.count == 0) return 0;
  return WithWord(bytes, [&](auto word) {
    using T = decltype(word);
    T v;
    memcpy(&v, &value, sizeof(T));  // the value's low bytes: little-endian hosts only, as CUDA
    PadKernel<T><<<Blocks(p.count), kThreads, 0, stream>>>(p, static_cast<const T*>(x), v, static_cast<T*>(y));
    return LastError();
  });
}

int LaunchConcatPiece(int bytes, const void* x, int64_t outer, int64_t row, int64_t out_row, int64_t column, void* y,
                      cudaStream_t stream) {
  const int64_t count = outer * row;
  if (count == 0) return 0;
  return WithWord(bytes, [&](auto word) {
    using T = decltype(word);
    ConcatPieceKernel<T><<<Blocks(count), kThreads, 0, stream>>>(static_cast<const T*>(x), count, row, out_row, column,
                                                                static_cast<T*>(y));
    return LastError();
  });
}

int LaunchGatherV2(int bytes, bool indices64, const GatherIndexing& g, const void* params, const void* indices,
                   void* y, unsigned long long* first_bad, cudaStream_t stream) {
  if (cudaError_t e = cudaMemsetAsync(first_bad, 0xff, sizeof(*first_bad), stream); e != cudaSuccess) {
    return static_cast<int>(e);
  }
  if (g.n == 0) return 0;
  auto launch = [&](auto index) {
    using I = decltype(index);
    const I* idx = static_cast<const I*>(indices);
    CheckIndicesKernel<I><<<Blocks(g.n), kThreads, 0, stream>>>(g, idx, first_bad);
    if (int e = LastError(); e != 0 || g.count == 0) return e;
    return WithWord(bytes, [&](auto word) {
      using T = decltype(word);
      GatherKernel<T, I><<<Blocks(g.count), kThreads, 0, stream>>>(g, static_cast<const T*>(params), idx,
                                                                   static_cast<T*>(y));
      return LastError();
    });
  };
  return indices64 ? launch(int64_t()) : launch(int32_t());
}

int LaunchCast(CastType src, CastType dst, bool truncate, const void* x, void* y, int64_t n, cudaStream_t stream) {
  if (n == 0) return 0;
  int error = static_cast<int>(cudaErrorInvalidValue);
  VisitCastPair(src, dst, [&](auto s, auto d) {
    using S = decltype(s);
    using D = decltype(d);
    if constexpr (S::value == D::value) {
      error = static_cast<int>(
          cudaMemcpyAsync(y, x, n * sizeof(typename S::type), cudaMemcpyDeviceToDevice, stream));
    } else {
      CastKernel<S::value, D::value><<<Blocks(n), kThreads, 0, stream>>>(
          static_cast<const typename S::type*>(x), static_cast<typename D::type*>(y), n, truncate);
      error = LastError();
    }
  });
  return error;
}

}  // namespace tfhost::backends::cuda
