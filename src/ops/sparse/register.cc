#include "ops/sparse/sparse_ops.h"

namespace tfhost::ops {

void RegisterSparseOps(OpRegistry& registry) {
  sparse::RegisterSparseTensorOps(registry);
  sparse::RegisterSparseSegmentOps(registry);
  sparse::RegisterSparseMatMulOps(registry);
}

}  // namespace tfhost::ops
