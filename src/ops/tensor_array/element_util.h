// Helpers shared by the TensorArray and TensorList kernels: element shapes
// given as tensors, zero elements, and moving whole elements (rows of dim 0)
// of any dtype between tensors.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "base/tensor.h"
#include "ir/partial_shape.h"
#include "ops/op_kernel.h"

namespace tfhost::ops::tensor_array {

// Most elements one list or array may hold; a model asking for more is
// treated as malformed rather than allowed to exhaust memory.
inline constexpr int64_t kMaxElements = int64_t{1} << 26;

// A list or array of `n` elements holds a Tensor slot for each, set or not:
// the slots count against the session's tensor memory limit (the current
// BufferPool's max_in_use_bytes, where there is one) as the elements' bytes
// do. An empty array of kMaxElements elements is 5 GiB of slots.
// ResourceExhausted names the node and `what`.
Status CheckSlotsFit(const KernelContext& ctx, int64_t n, const std::string& what);

// An element_shape input: a scalar -1 means unknown rank, otherwise a vector
// whose -1 entries are unknown dims.
StatusOr<ir::PartialShape> ReadElementShape(const KernelContext& ctx, int i);

// The int32/int64 tensor TensorListElementShape returns for `shape`.
Tensor ElementShapeTensor(const ir::PartialShape& shape, DType dtype);

// A zero-filled element of `shape`; fails naming `what` unless fully defined.
StatusOr<Tensor> Zeros(const KernelContext& ctx, DType dtype, const ir::PartialShape& shape,
                       const std::string& what);

// Row `row` of `t` along dim 0, as a new tensor of shape t.shape[1:].
Tensor Row(const Tensor& t, int64_t row);

// Copies `n` elements of `src` starting at `src_offset` into `dst` at
// `dst_offset` (same dtype; offsets and counts in elements).
void CopyElements(const Tensor& src, int64_t src_offset, Tensor& dst, int64_t dst_offset, int64_t n);

// Stacks equally shaped elements into [n, ...element_shape].
StatusOr<Tensor> Stack(const KernelContext& ctx, const std::vector<Tensor>& items, DType dtype,
                       const Shape& element_shape);

// Reads a scalar int32 index input.
StatusOr<int64_t> ReadScalarIndex(const KernelContext& ctx, int i, const std::string& what);

}  // namespace tfhost::ops::tensor_array
