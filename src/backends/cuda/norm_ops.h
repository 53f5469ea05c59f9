// The CUDA backend's normalizations as cuda_kernels.cc registers them,
// float32:
//   - the nodes the graph passes write for a transformer: _TfhostLayerNorm
//     and _TfhostAddLayerNorm (layer_norm_fusion; norm_kernels.h) and
//     _TfhostMaskedSoftmax (masked_softmax_fusion; softmax_kernels.h), their
//     operands broadcast as the ops' reference kernels broadcast them (the
//     residual, the mask and fill), up to RowOperands::kMaxRank dims;
//   - FusedBatchNorm/V2/V3 at inference (is_training false), NHWC or NDHWC:
//     the batch norms batch_norm_folding cannot fold into a convolution
//     (pre-activation networks).
// Errors name the node and say what was expected, in the words of the host
// kernels' checks.
//
// Thread-safety: every function, and the kernels it makes, may run from
// several threads at once.
#pragma once

#include <string>

#include "backends/cuda/cuda_kernels.h"

namespace tfhost::backends::cuda {

bool IsNormOp(const std::string& op);
NodeSupport NormSupports(const CudaKernelEnv& env, const ir::Node& node);
ops::KernelFn MakeNormKernel(const CudaKernelEnv& env, const ir::Node& node, const ops::KernelFn& fallback);

}  // namespace tfhost::backends::cuda
