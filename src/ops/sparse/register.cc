#include "ops/sparse/sparse_ops.h"

namespace tfhost::ops {

void RegisterSparseOps(OpRegistry& registry) {
  sparse::RegisterSparseTensorOps(registry);
  sparse::RegisterSparseSegmentOps(registry);
  sparse::RegisterSparseMatMulOps(registry);
  sparse::RegisterSparseCrossOps(registry);
  sparse::RegisterDenseSegmentOps(registry);
  sparse::RegisterSparseReorderOps(registry);
  sparse::RegisterSparseAddReduceOps(registry);
  sparse::RegisterSparseBincountOps(registry);
  sparse::RegisterSparseElementwiseOps(registry);
}

}  // namespace tfhost::ops
