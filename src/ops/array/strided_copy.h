// The one data-movement primitive behind Slice, StridedSlice, Pad, Transpose,
// Tile, BroadcastTo, ReverseV2 and the space/batch/depth ops: copy a block of
// `dims` elements between two tensors, where each side addresses element
// (i0, i1, ...) at offset + sum(ik * strides[k]). Strides may be negative
// (reversal) or zero (broadcasting, on the source side only).
//
// Contract: the caller has validated that every addressed element lies inside
// its tensor and that src and dst have the same dtype; dst must not alias src.
// Distinct destination elements must be written by distinct index tuples
// (no zero strides on the destination), so the copy may be split across
// threads.
#pragma once

#include <cstdint>
#include <vector>

#include "base/tensor.h"
#include "base/thread_pool.h"

namespace tfhost::ops::array {

struct StridedLayout {
  int64_t offset = 0;
  std::vector<int64_t> strides;  // one per copied dim, in elements
};

// A row-major layout over the whole of `shape`, starting at element 0.
StridedLayout DenseLayout(const Shape& shape);

// Copies the block; `pool` may be null (runs inline).
void CopyStrided(const std::vector<int64_t>& dims, const Tensor& src, const StridedLayout& src_layout,
                 Tensor& dst, const StridedLayout& dst_layout, ThreadPool* pool = nullptr);

}  // namespace tfhost::ops::array
