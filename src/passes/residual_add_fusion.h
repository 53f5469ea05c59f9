// residual_add_fusion: the residual connection of ResNet / MobileNet-style
// blocks — a fused convolution's output added to a tensor of the same shape,
// optionally followed by an activation — becomes one fused convolution with
// fused_ops [BiasAdd|FusedBatchNorm, "Add" (, act)], TensorFlow's oneDNN
// remapper spelling:
//
//   _FusedConv2D [BiasAdd]           -> AddV2(·, r) [-> Relu]
//     => _FusedConv2D [BiasAdd, Add(, Relu)], args (bias, r)
//
// (and FusedDepthwiseConv2dNative). The reference kernels add the residual in the row epilogue
// while the row is in cache; the oneDNN kernels run it as a sum post-op,
// writing into the residual's own buffer when the convolution is its last
// reader. Outputs are bit-identical to the unfused graph on the reference
// kernels (the same float additions in the same order).
//
// Conditions: the convolution's only reader is the Add/AddV2 (no control
// edges, not a kept name), float32 throughout, and the other operand has the
// convolution's static output shape exactly (no broadcasting); a dimension
// unknown statically may only be the batch dimension, unknown on both sides
// (both come from the same batch in the models this is for; if a run ever
// fed tensors where they differed, the fused node reports the mismatch
// rather than broadcasting). The activation (Relu, Relu6, Elu, LeakyRelu,
// Sigmoid, Tanh, or gelu_fusion's GELU node) must be the Add's only reader.
// The pattern's last node keeps its name.
#pragma once

#include <memory>

#include "passes/pass_manager.h"

namespace tfhost::passes {

// Runs after conv_bias_activation_fusion (which writes the [BiasAdd] fused
// convolutions it starts from) and before elementwise_fusion (which would
// otherwise take the Add and the activation into an element-wise cluster).
std::unique_ptr<GraphPass> MakeResidualAddFusion();

}  // namespace tfhost::passes
