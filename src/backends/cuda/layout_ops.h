// The CUDA backend's data-movement ops (layout_kernels.h launches them) as
// cuda_kernels.cc registers them: which nodes the GPU takes and why it
// refuses the others, which inputs stay in host memory (a Transpose's perm,
// a ConcatV2's axis, Slice/StridedSlice bounds, Pad's paddings, GatherV2's
// axis), and the kernels. Errors name the node and say what was expected.
//
// Thread-safety: every function, and the kernels it makes, may run from
// several threads at once.
#pragma once

#include <string>

#include "backends/cuda/cuda_kernels.h"

namespace tfhost::backends::cuda {

bool IsLayoutOp(const std::string& op);
bool LayoutInputInHostMemory(const ir::Node& node, int index);
NodeSupport LayoutSupports(const CudaKernelEnv& env, const ir::Node& node);
ops::KernelFn MakeLayoutKernel(const CudaKernelEnv& env, const ir::Node& node, const ops::KernelFn& fallback);

}  // namespace tfhost::backends::cuda
