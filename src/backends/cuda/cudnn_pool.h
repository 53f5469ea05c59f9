// The CUDA backend's MaxPool and AvgPool on cuDNN (cudnnPoolingForward),
// NHWC float32, VALID or SAME (and EXPLICIT for MaxPool), as conv_plan.h
// lays them out: the part of the padding cuDNN cannot take (it pads both
// sides alike) is written into a padded copy first, the lowest value for
// MaxPool. AvgPool divides by the real cells of each window as TensorFlow
// does: cuDNN's COUNT_EXCLUDE_PADDING, or with a padded copy a whole-window
// average times AvgPoolScale, uploaded once per input size.
//
// Thread-safety: the kernels may run from several threads at once.
#pragma once

#include "backends/cuda/cuda_kernels.h"

namespace tfhost::backends::cuda {

// For a MaxPool or AvgPool node CudnnSupports takes; `env.cudnn` set.
ops::KernelFn MakeCudnnPoolKernel(const CudaKernelEnv& env, const ir::Node& node, const ops::KernelFn& fallback);

}  // namespace tfhost::backends::cuda
