// Internal to the math family: one registration function per source file,
// all called from register.cc (RegisterMathOps).
#pragma once

#include "ops/op_registry.h"

namespace tfhost::ops::math {

void RegisterBinaryOps(OpRegistry& registry);
void RegisterComparisonOps(OpRegistry& registry);
void RegisterUnaryOps(OpRegistry& registry);
void RegisterCastOp(OpRegistry& registry);
void RegisterReductionOps(OpRegistry& registry);
void RegisterArgMinMaxOps(OpRegistry& registry);
void RegisterScanOps(OpRegistry& registry);
void RegisterMatMulOps(OpRegistry& registry);
void RegisterSoftmaxOps(OpRegistry& registry);
void RegisterSelectOps(OpRegistry& registry);
void RegisterNaryOps(OpRegistry& registry);
void RegisterEinsumOp(OpRegistry& registry);
void RegisterBincountOps(OpRegistry& registry);
void RegisterQuantizeOps(OpRegistry& registry);  // QuantizeV2, Dequantize
// _TfhostFusedElementwise, the graph passes' fused element-wise chains.
void RegisterFusedElementwiseOp(OpRegistry& registry);

}  // namespace tfhost::ops::math
