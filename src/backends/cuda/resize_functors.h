// The math of the CUDA backend's ResizeBilinear and ResizeNearestNeighbor
// (resize_kernels.cu), written once for the device and the host, where
// resize_functors_test.cc composes it over whole images and compares the
// result with the ops' reference kernels (ops/nn/image_resize.cc): the
// source coordinate of each output row and column under align_corners or
// half_pixel_centers, computed in float32 as TensorFlow computes it, then
// the two lerps of the bilinear case or the nearest pixel's index.
//
// Thread-safety: stateless.
#pragma once

#include <cmath>
#include <cstdint>

#include "backends/cuda/elementwise_functors.h"

namespace tfhost::backends::cuda {

// NHWC in, NHWC out; scales from ResizeScaleOf.
struct ResizeGeometry {
  int64_t batch = 0, in_h = 0, in_w = 0, channels = 0, out_h = 0, out_w = 0;
  float scale_h = 0, scale_w = 0;
  bool align_corners = false, half_pixel_centers = false;
};

TFHOST_HD float ResizeScaleOf(int64_t in, int64_t out, bool align_corners) {
  return (align_corners && out > 1) ? static_cast<float>(in - 1) / static_cast<float>(out - 1)
                                    : static_cast<float>(in) / static_cast<float>(out);
}

// The two source indices an output index `o` reads along one axis of `in`
// values, and the weight of the second.
struct BilinearTap {
  int64_t lo, hi;
  float t;
};

TFHOST_HD BilinearTap BilinearTapOf(int64_t o, float scale, int64_t in, bool half_pixel_centers) {
  const float c = half_pixel_centers ? (static_cast<float>(o) + 0.5f) * scale - 0.5f : static_cast<float>(o) * scale;
  const float f = floorf(c);
  BilinearTap tap;
  tap.lo = static_cast<int64_t>(f) > 0 ? static_cast<int64_t>(f) : 0;
  const int64_t hi = static_cast<int64_t>(ceilf(c));
  tap.hi = hi < in - 1 ? hi : in - 1;
  tap.t = c - f;
  return tap;
}

// Top row's lerp, bottom row's, then between them.
TFHOST_HD float BilinearOf(float top_left, float top_right, float bottom_left, float bottom_right, float ty,
                           float tx) {
  const float top = top_left + (top_right - top_left) * tx;
  const float bottom = bottom_left + (bottom_right - bottom_left) * tx;
  return top + (bottom - top) * ty;
}

TFHOST_HD int64_t NearestIndexOf(int64_t o, float scale, int64_t in, bool align_corners, bool half_pixel_centers) {
  const float c = half_pixel_centers ? (static_cast<float>(o) + 0.5f) * scale : static_cast<float>(o) * scale;
  int64_t i = static_cast<int64_t>(align_corners ? roundf(c) : floorf(c));
  if (i > in - 1) i = in - 1;
  if (half_pixel_centers && i < 0) i = 0;
  return i;
}

}  // namespace tfhost::backends::cuda
