// oneDNN matrix products: MatMul, _FusedMatMul (BiasAdd + activation) and
// BatchMatMul / BatchMatMulV2 / BatchMatMulV3 (float32, batch dims
// broadcast as NumPy does for V2/V3).
#pragma once

#include "backends/fast_kernel_registry.h"

namespace tfhost::backends::onednn {

ops::KernelFn MakeMatMulKernel(const ir::Node& node, const ops::KernelFn& reference);

}  // namespace tfhost::backends::onednn
