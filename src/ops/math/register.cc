#include "ops/math/math_ops.h"
#include "ops/op_registry.h"

namespace tfhost::ops {

void RegisterMathOps(OpRegistry& registry) {
  math::RegisterBinaryOps(registry);
  math::RegisterComparisonOps(registry);
  math::RegisterUnaryOps(registry);
  math::RegisterCastOp(registry);
  math::RegisterReductionOps(registry);
  math::RegisterArgMinMaxOps(registry);
  math::RegisterScanOps(registry);
  math::RegisterMatMulOps(registry);
  math::RegisterSoftmaxOps(registry);
  math::RegisterMaskedSoftmaxOp(registry);
  math::RegisterSelectOps(registry);
  math::RegisterNaryOps(registry);
  math::RegisterEinsumOp(registry);
  math::RegisterBincountOps(registry);
  math::RegisterQuantizeOps(registry);
  math::RegisterQuantizeAndDequantizeOps(registry);
  math::RegisterAffineQuantizeOps(registry);
  math::RegisterRequantizeOp(registry);
  math::RegisterFusedElementwiseOp(registry);
}

}  // namespace tfhost::ops
