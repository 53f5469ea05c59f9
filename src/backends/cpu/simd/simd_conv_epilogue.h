// The fused_ops epilogues the SIMD convolution kernels apply in registers:
// [BiasAdd] [Add] [Relu | Relu6] (an empty list too). Anything else (batch
// norm, other activations, host args) is for the kernel after them (oneDNN's).
#pragma once

#include "ir/graph.h"
#include "ops/nn/fused_activation.h"

namespace tfhost::backends::simd {

struct ConvEpilogue {
  bool bias = false;      // fused arg 0: one float per output channel
  bool residual = false;  // the last fused arg: a tensor of the output's shape
  ops::nn::Activation act = ops::nn::Activation::kNone;  // kNone, kRelu or kRelu6
};

// Reads fused_ops / num_args / num_host_args; false for any other form, or a
// residual Add when !allow_residual.
bool ParseConvEpilogue(const ir::Node& node, bool allow_residual, ConvEpilogue* out);

}  // namespace tfhost::backends::simd
