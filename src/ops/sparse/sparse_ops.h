// Sparse-tensor ops: the kernels Estimator and TFX serving graphs use on the
// SparseTensors that ParseExample and StringSplitV2 produce (indices [N, rank]
// int64, values [N], dense_shape [rank]) — densifying, filling empty rows,
// reshaping, segment reductions over embedding rows and sparse x dense
// matmul.
//
// Sparse inputs come from untrusted data: every kernel checks that indices
// are in bounds and that shapes agree before touching memory.
#pragma once

#include <cstdint>

#include "ops/op_registry.h"
#include "ops/shape_inference.h"

namespace tfhost::ops::sparse {

// SparseToDense, SparseFillEmptyRows, SparseReshape (sparse_tensor_ops.cc).
void RegisterSparseTensorOps(OpRegistry& registry);
// SparseSegmentSum/Mean/SqrtN and their WithNumSegments forms (segment_ops.cc).
void RegisterSparseSegmentOps(OpRegistry& registry);
// SparseTensorDenseMatMul (sparse_matmul.cc).
void RegisterSparseMatMulOps(OpRegistry& registry);
// SegmentSum/Mean/Max/Min/Prod and UnsortedSegmentSum/Max/Min/Prod
// (dense_segment_ops.cc).
void RegisterDenseSegmentOps(OpRegistry& registry);
// SparseCross, SparseCrossV2, SparseCrossHashed (sparse_cross.cc).
void RegisterSparseCrossOps(OpRegistry& registry);
// SparseReorder, SparseSlice, SparseSplit, SparseConcat (sparse_reorder_ops.cc).
void RegisterSparseReorderOps(OpRegistry& registry);
// SparseAdd, SparseTensorDenseAdd, SparseReduceSum/Max and their *Sparse forms
// (sparse_add_reduce_ops.cc).
void RegisterSparseAddReduceOps(OpRegistry& registry);
// SparseBincount, RaggedBincount (sparse_bincount_ops.cc).
void RegisterSparseBincountOps(OpRegistry& registry);
// SparseSparseMaximum/Minimum, SparseSoftmax (sparse_elementwise_ops.cc).
void RegisterSparseElementwiseOps(OpRegistry& registry);
// TensorFlow's FingerprintCat64: the hash of a cross from its features' hashes.
uint64_t FingerprintCat64(uint64_t fp1, uint64_t fp2);

}  // namespace tfhost::ops::sparse

namespace tfhost::ops {
void RegisterSparseOps(OpRegistry& registry);
void RegisterSparseShapeFns(ShapeFnRegistry& registry);
}  // namespace tfhost::ops
