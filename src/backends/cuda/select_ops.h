// The CUDA backend's SelectV2 as cuda_kernels.cc registers it: condition
// (bool), t and e broadcast together as TensorFlow broadcasts them, up to
// RowOperands::kMaxRank dims, elements of 1, 2, 4 or 8 bytes (bool and
// float16 included) but int32, which stays in host memory as TensorFlow
// keeps it. Transformers build their attention masks with it.
//
// Thread-safety: every function, and the kernels it makes, may run from
// several threads at once.
#pragma once

#include <string>

#include "backends/cuda/cuda_kernels.h"

namespace tfhost::backends::cuda {

bool IsSelectOp(const std::string& op);
NodeSupport SelectSupports(const CudaKernelEnv& env, const ir::Node& node);
ops::KernelFn MakeSelectKernel(const CudaKernelEnv& env, const ir::Node& node, const ops::KernelFn& fallback);

}  // namespace tfhost::backends::cuda
