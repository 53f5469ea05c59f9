// The CUDA backend's convolutions on cuDNN's legacy API, NHWC float32
// (conv_plan.h lays each one out): Conv2D (grouped too),
// DepthwiseConv2dNative as a grouped convolution of in_c groups, their fused
// forms _FusedConv2D and FusedDepthwiseConv2dNative, and Conv2DBackpropInput.
//
// - The filter is rewritten from TensorFlow's HWIO to cuDNN's KRSC once per
//   filter buffer and kept by the node's kernel (a Const's upload is the same
//   buffer on every run, and a buffer another tensor shares is never written).
// - fused_ops [BiasAdd] (+ Add) + Relu run in one
//   cudnnConvolutionBiasActivationForward (the residual as its z input);
//   other activations run it with IDENTITY, which cuDNN only takes with
//   IMPLICIT_PRECOMP_GEMM, then an element-wise kernel over the result.
// - Float32 lets the tensor cores use TF32 (CUDNN_DEFAULT_MATH) unless the
//   node says _tfhost_fp32_strict (ir/precision_attrs.h): then CUDNN_FMA_MATH.
// - Algorithms come from cuDNN's heuristic (..._v7) or, with exhaustive
//   search, from timing them (cudnnFind...AlgorithmEx, on the call's own
//   buffers), once per CudnnConvKey, within CudnnContext::kWorkspaceBytes,
//   kept in the backend's AlgorithmCache as enum values (no blob), and so
//   in its file across starts.
// Errors name the node, its op and the failing cuDNN call.
//
// Thread-safety: the kernels may run from several threads at once.
#pragma once

#include "backends/cuda/cuda_kernels.h"

namespace tfhost::backends::cuda {

// For a node CudnnSupports takes whose op is a convolution; `env.cudnn` set.
ops::KernelFn MakeCudnnConvKernel(const CudaKernelEnv& env, const ir::Node& node, const ops::KernelFn& fallback);

}  // namespace tfhost::backends::cuda
