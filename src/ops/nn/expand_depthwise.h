// _TfhostExpandDepthwise: a 1x1 expansion (_FusedConv2D with a BiasAdd and an
// optional activation) and the 3x3 depthwise convolution
// (FusedDepthwiseConv2dNative, BiasAdd and optional activation) that alone
// reads it, as one node: MobileNetV2's and EfficientNet's inverted residual
// blocks up to their projection. passes/expand_depthwise_fusion writes it
// where a backend runs it without writing the expanded tensor out (the simd
// backend keeps three of its rows at a time in cache).
//
// Inputs: x [N, H, W, C], expand_filter [1, 1, C, E], expand_bias [E],
// depthwise_filter [3, 3, E, 1], depthwise_bias [E]. Attrs: expand_fused_ops
// and depthwise_fused_ops (the two nodes' fused_ops, each BiasAdd then at
// most one activation), and the depthwise convolution's strides, padding,
// explicit_paddings, data_format (NHWC) and dilations (1). Output: the
// depthwise convolution's, [N, H', W', E].
//
// The reference kernel runs the two nodes' reference kernels one after the
// other, so the fused node gives exactly their results.
#pragma once

#include "ir/graph.h"
#include "ops/op_kernel.h"

namespace tfhost::ops::nn {

inline constexpr const char* kExpandDepthwiseOp = "_TfhostExpandDepthwise";

// The two nodes a fused node stands for, named "<node>/expand" and
// "<node>/depthwise", with every attr their kernels read. InvalidArgument
// naming the node when its attrs do not describe such a pair.
struct ExpandDepthwiseParts {
  ir::Node expand;
  ir::Node depthwise;
};
StatusOr<ExpandDepthwiseParts> SplitExpandDepthwise(const ir::Node& node);

}  // namespace tfhost::ops::nn
