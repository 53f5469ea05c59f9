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
void RegisterMaskedSoftmaxOp(OpRegistry& registry);  // masked_softmax.cc
void RegisterSelectOps(OpRegistry& registry);
void RegisterNaryOps(OpRegistry& registry);
void RegisterEinsumOp(OpRegistry& registry);
void RegisterBincountOps(OpRegistry& registry);
void RegisterQuantizeOps(OpRegistry& registry);  // QuantizeV2, Dequantize
// QuantizeAndDequantizeV2, V3, V4 (quantize_and_dequantize.cc).
void RegisterQuantizeAndDequantizeOps(OpRegistry& registry);
// _TfhostAffineQuantize, _TfhostAffineDequantize (affine_quantize_ops.cc).
void RegisterAffineQuantizeOps(OpRegistry& registry);
// _TfhostRequantize (requantize_ops.cc).
void RegisterRequantizeOp(OpRegistry& registry);

// Complex64/complex128 element-wise ops (complex_ops.cc): the kernel a
// registration wraps with WithComplexSupport handles every other dtype.
enum class ComplexOp { kAdd, kSub, kMul, kDiv, kNeg, kExp };
KernelFn WithComplexSupport(ComplexOp op, KernelFn real);

// _TfhostFusedElementwise, the graph passes' fused element-wise chains.
void RegisterFusedElementwiseOp(OpRegistry& registry);

}  // namespace tfhost::ops::math
