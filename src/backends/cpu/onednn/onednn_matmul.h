// oneDNN matrix products: MatMul, _FusedMatMul (BiasAdd + activation, GELU
// included), BatchMatMul / BatchMatMulV2 / BatchMatMulV3 (float32, batch dims
// broadcast as NumPy does for V2/V3) and _TfhostFusedBatchMatMul (a batched
// product of rank >= 3 with the same epilogue; conv_bias_activation_fusion
// writes it, ops/nn/fused_matmul.cc has its reference kernel).
#pragma once

#include "backends/backend_registry.h"

namespace tfhost::backends::onednn {

inline constexpr char kFusedBatchMatMulOp[] = "_TfhostFusedBatchMatMul";

ops::KernelFn MakeMatMulKernel(const ir::Node& node, const ops::KernelFn& reference);

}  // namespace tfhost::backends::onednn
