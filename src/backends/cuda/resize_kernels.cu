#include "backends/cuda/resize_kernels.h"

#include <cuda_runtime.h>

#include <cstdint>

#include "backends/cuda/launch_grid.h"

namespace tfhost::backends::cuda {
namespace {

constexpr int kThreads = 256;

// The output element `i`'s batch, row, column and channel.
struct OutputIndex {
  int64_t b, oy, ox, c;
};

__device__ OutputIndex OutputIndexOf(const ResizeGeometry& g, int64_t i) {
  OutputIndex o;
  o.c = i % g.channels;
  i /= g.channels;
  o.ox = i % g.out_w;
  i /= g.out_w;
  o.oy = i % g.out_h;
  o.b = i / g.out_h;
  return o;
}

// Each thread recomputes its row's and column's taps: a few float ops
// against four reads, cheaper than a table in another buffer.
__global__ void BilinearKernel(const float* __restrict__ x, float* __restrict__ y, ResizeGeometry g, int64_t n) {
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    const OutputIndex o = OutputIndexOf(g, i);
    const BilinearTap v = BilinearTapOf(o.oy, g.scale_h, g.in_h, g.half_pixel_centers);
    const BilinearTap h = BilinearTapOf(o.ox, g.scale_w, g.in_w, g.half_pixel_centers);
    const float* image = x + o.b * g.in_h * g.in_w * g.channels + o.c;
    const auto at = [&](int64_t iy, int64_t ix) { return image[(iy * g.in_w + ix) * g.channels]; };
    y[i] = BilinearOf(at(v.lo, h.lo), at(v.lo, h.hi), at(v.hi, h.lo), at(v.hi, h.hi), v.t, h.t);
  }
}

template <typename T>
__global__ void NearestKernel(const T* __restrict__ x, T* __restrict__ y, ResizeGeometry g, int64_t n) {
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    const OutputIndex o = OutputIndexOf(g, i);
    const int64_t iy = NearestIndexOf(o.oy, g.scale_h, g.in_h, g.align_corners, g.half_pixel_centers);
    const int64_t ix = NearestIndexOf(o.ox, g.scale_w, g.in_w, g.align_corners, g.half_pixel_centers);
    y[i] = x[((o.b * g.in_h + iy) * g.in_w + ix) * g.channels + o.c];
  }
}

int64_t Outputs(const ResizeGeometry& g) { return g.batch * g.out_h * g.out_w * g.channels; }

unsigned Blocks(int64_t n) { return ElementBlocks(n, kThreads); }

}  // namespace

int LaunchResizeBilinear(const float* x, float* y, const ResizeGeometry& g, cudaStream_t stream) {
  const int64_t n = Outputs(g);
  if (n == 0) return 0;
  BilinearKernel<<<Blocks(n), kThreads, 0, stream>>>(x, y, g, n);
  return static_cast<int>(cudaGetLastError());
}

int LaunchResizeNearest(const void* x, void* y, size_t element_bytes, const ResizeGeometry& g, cudaStream_t stream) {
  const int64_t n = Outputs(g);
  if (n == 0) return 0;
  switch (element_bytes) {
    case 1:
      NearestKernel<<<Blocks(n), kThreads, 0, stream>>>(static_cast<const uint8_t*>(x), static_cast<uint8_t*>(y), g, n);
      break;
    case 2:
      NearestKernel<<<Blocks(n), kThreads, 0, stream>>>(static_cast<const uint16_t*>(x), static_cast<uint16_t*>(y), g,
                                                        n);
      break;
    case 4:
      NearestKernel<<<Blocks(n), kThreads, 0, stream>>>(static_cast<const uint32_t*>(x), static_cast<uint32_t*>(y), g,
                                                        n);
      break;
    case 8:
      NearestKernel<<<Blocks(n), kThreads, 0, stream>>>(static_cast<const uint64_t*>(x), static_cast<uint64_t*>(y), g,
                                                        n);
      break;
    default: return static_cast<int>(cudaErrorInvalidValue);
  }
  return static_cast<int>(cudaGetLastError());
}

}  // namespace tfhost::backends::cuda
