// The CUDA backend's cuDNN family as cuda_kernels.cc registers it: Conv2D,
// DepthwiseConv2dNative, _FusedConv2D, FusedDepthwiseConv2dNative,
// Conv2DBackpropInput (cudnn_conv.h), MaxPool and AvgPool (cudnn_pool.h),
// NHWC float32. Which nodes the GPU takes and why it refuses the others
// (NCHW, other dtypes, bf16 precision marks, fused_ops it does not fuse,
// MaxPool's explicit padding as wide as its window), and the input it reads
// in host memory (Conv2DBackpropInput's input_sizes).
//
// A plugin built without cuDNN (cmake/cuda.cmake found none) has no
// CudnnContext: every node of the family is refused, saying so.
//
// Thread-safety: every function, and the kernels it makes, may run from
// several threads at once.
#pragma once

#include <string>

#include "backends/cuda/cuda_kernels.h"

namespace tfhost::backends::cuda {

bool IsCudnnOp(const std::string& op);
bool CudnnInputInHostMemory(const ir::Node& node, int index);
NodeSupport CudnnSupports(const CudaKernelEnv& env, const ir::Node& node);
ops::KernelFn MakeCudnnKernel(const CudaKernelEnv& env, const ir::Node& node, const ops::KernelFn& fallback);

}  // namespace tfhost::backends::cuda
