// oneDNN convolutions: Conv2D, _FusedConv2D, DepthwiseConv2dNative and
// FusedDepthwiseConv2dNative over float32 NHWC or NCHW.
#pragma once

#include "backends/backend_registry.h"

namespace tfhost::backends::onednn {

// The factory for all four ops (the op name says which); declines anything
// but float32 with a fused_ops epilogue oneDNN can fuse.
ops::KernelFn MakeConvKernel(const ir::Node& node, const ops::KernelFn& reference);

}  // namespace tfhost::backends::onednn
