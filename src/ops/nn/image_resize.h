// ResizeBilinear and ResizeNearestNeighbor (image_resize.cc): the checks of
// their inputs and attrs, shared by the reference kernels and the device
// backends' kernels so that both refuse the same inputs in the same words.
// Coordinates follow the align_corners / half_pixel_centers mappings of
// docs/formats.md §6.3.
//
// Thread-safety: pure functions.
#pragma once

#include <cstdint>

#include "ops/op_kernel.h"

namespace tfhost::ops::nn {

struct ResizeSetup {
  int64_t batch = 0, in_h = 0, in_w = 0, channels = 0, out_h = 0, out_w = 0;
  bool align_corners = false, half_pixel_centers = false;
};

// Validates images (4-D NHWC, positive height and width), size (an int32
// vector [height, width] of positive values, in host memory) and the attrs;
// errors name the node.
StatusOr<ResizeSetup> ParseResize(const KernelContext& ctx, const Tensor& images, const Tensor& size);

}  // namespace tfhost::ops::nn
