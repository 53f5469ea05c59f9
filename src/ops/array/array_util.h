// Helpers shared by the array (shape / data movement) kernels: reading
// shape-like index inputs, normalizing axes, and moving elements of any dtype
// (fixed-size types as raw bytes, strings and resource handles as std::string).
//
// Everything here validates untrusted values and reports errors through the
// kernel's context, so messages carry the node name.
#pragma once

#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

#include "base/tensor.h"
#include "ops/op_kernel.h"
#include "ops/op_registry.h"

namespace tfhost::ops::array {

// Registration of each group of array ops (one per .cc file); register.cc
// calls them all.
void RegisterReshapeOps(OpRegistry& registry);
void RegisterConcatSplitOps(OpRegistry& registry);
void RegisterSliceOps(OpRegistry& registry);
void RegisterStridedSliceOps(OpRegistry& registry);
void RegisterPadOps(OpRegistry& registry);
void RegisterGatherScatterOps(OpRegistry& registry);
void RegisterSpaceBatchOps(OpRegistry& registry);
void RegisterShapeOps(OpRegistry& registry);
void RegisterFillRangeOps(OpRegistry& registry);
void RegisterIndexOps(OpRegistry& registry);
void RegisterSearchOps(OpRegistry& registry);
void RegisterRaggedOps(OpRegistry& registry);
void RegisterRaggedConversionOps(OpRegistry& registry);
void RegisterReorderOps(OpRegistry& registry);
void RegisterCheckOps(OpRegistry& registry);
void RegisterBitcastOp(OpRegistry& registry);
void RegisterMatrixDiagOps(OpRegistry& registry);

// Reads input `i` (an integer tensor of rank 0 or 1) as int64 values; `what`
// names the input in errors ("shape", "perm").
StatusOr<std::vector<int64_t>> ReadIndexVector(const KernelContext& ctx, int i,
                                               const std::string& what);
// Reads input `i` as one integer: a scalar, or (when `allow_one_element`) a
// tensor holding exactly one element, as TensorFlow accepts for axes.
StatusOr<int64_t> ReadIndexScalar(const KernelContext& ctx, int i, const std::string& what,
                                  bool allow_one_element = true);

// Maps `axis` in [-rank, rank) onto [0, rank); error names `what` and range.
StatusOr<int> NormalizeAxis(const KernelContext& ctx, int64_t axis, int rank,
                            const std::string& what);

// Builds a validated output shape (non-negative dims, sane element count).
StatusOr<Shape> OutputShape(const KernelContext& ctx, const std::vector<int64_t>& dims,
                            const std::string& what);

// Row-major element strides of a shape.
std::vector<int64_t> RowMajorStrides(const Shape& shape);
// Product of dims [begin, end): 0 when one of them is 0, INT64_MAX when the
// product overflows (possible only in a shape with no elements, where some
// other dim is 0: callers return before looping over such a range).
int64_t DimProduct(const Shape& shape, int begin, int end);

// Fails unless elements of `dtype` can be moved by these kernels.
Status CheckMovable(const KernelContext& ctx, DType dtype);

// Copies n elements from src[src_offset...] to dst[dst_offset...] (same
// dtype, ranges checked by the caller).
void CopyElements(const Tensor& src, int64_t src_offset, Tensor& dst, int64_t dst_offset,
                  int64_t n);
// Sets every element of `dst` to the single element of `value` (same dtype).
void FillWithScalar(Tensor& dst, const Tensor& value);

// Calls fn(static_cast<T*>(nullptr)) with T = std::string for string-like
// dtypes or an opaque POD type of the dtype's size; returns false for dtypes
// that have neither (invalid, variant).
template <typename Fn>
bool VisitMovableType(DType dtype, Fn&& fn) {
  if (IsStringLike(dtype)) {
    fn(static_cast<std::string*>(nullptr));
    return true;
  }
  bool ok = true;
  TFHOST_SWITCH_POD_TYPES(dtype, fn(static_cast<T*>(nullptr)), ok = false);
  return ok;
}

// Joins integers as "[1, 2, 3]" for messages.
std::string JoinInts(const std::vector<int64_t>& values);

}  // namespace tfhost::ops::array
