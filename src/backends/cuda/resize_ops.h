// The CUDA backend's image resizes as cuda_kernels.cc registers them:
// ResizeBilinear (float32 images) and ResizeNearestNeighbor (elements of 1,
// 2, 4 or 8 bytes but int32, which stays in host memory as TensorFlow keeps
// it), NHWC, every align_corners / half_pixel_centers mapping, the size read
// in host memory. Inputs are checked by the reference kernels' own checks
// (ops/nn/image_resize.h), so the GPU refuses what the CPU refuses, in the
// same words.
//
// Thread-safety: every function, and the kernels it makes, may run from
// several threads at once.
#pragma once

#include <string>

#include "backends/cuda/cuda_kernels.h"

namespace tfhost::backends::cuda {

bool IsResizeOp(const std::string& op);
bool ResizeInputInHostMemory(const ir::Node& node, int index);
NodeSupport ResizeSupports(const CudaKernelEnv& env, const ir::Node& node);
ops::KernelFn MakeResizeKernel(const CudaKernelEnv& env, const ir::Node& node, const ops::KernelFn& fallback);

}  // namespace tfhost::backends::cuda
