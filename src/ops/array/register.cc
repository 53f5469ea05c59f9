#include "ops/array/array_util.h"
#include "ops/op_registry.h"

namespace tfhost::ops {

// Shape and data-movement ops (docs/formats.md §6.3); one group per file in
// src/ops/array/.
void RegisterArrayOps(OpRegistry& registry) {
  array::RegisterReshapeOps(registry);
  array::RegisterConcatSplitOps(registry);
  array::RegisterSliceOps(registry);
  array::RegisterStridedSliceOps(registry);
  array::RegisterPadOps(registry);
  array::RegisterGatherScatterOps(registry);
  array::RegisterSpaceBatchOps(registry);
  array::RegisterShapeOps(registry);
  array::RegisterFillRangeOps(registry);
  array::RegisterIndexOps(registry);
  array::RegisterSearchOps(registry);
  array::RegisterRaggedOps(registry);
  array::RegisterRaggedConversionOps(registry);
  array::RegisterReorderOps(registry);
  array::RegisterCheckOps(registry);
  array::RegisterBitcastOp(registry);
  array::RegisterMatrixDiagOps(registry);
}

}  // namespace tfhost::ops
