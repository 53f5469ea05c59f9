// oneDNN pooling: MaxPool and AvgPool over float32 NHWC or NCHW (AvgPool
// divides by the real cells of each window, as TensorFlow does).
#pragma once

#include "backends/backend_registry.h"

namespace tfhost::backends::onednn {

ops::KernelFn MakePoolKernel(const ir::Node& node, const ops::KernelFn& reference);

}  // namespace tfhost::backends::onednn
