// StridedSlice spec resolution (docs/formats.md §6.3): turns the sparse spec
// (begin/end/strides vectors plus the five bit masks) into one concrete range
// per input dimension and the final output shape. Shared by the StridedSlice
// kernel and by anything else that must know a slice's result shape (shape
// inference, constant folding, StridedSliceGrad-style ops).
#pragma once

#include <cstdint>
#include <vector>

#include "base/shape.h"
#include "base/status.h"

namespace tfhost::ops::array {

struct StridedSliceMasks {
  int64_t begin_mask = 0;
  int64_t end_mask = 0;
  int64_t ellipsis_mask = 0;
  int64_t new_axis_mask = 0;
  int64_t shrink_axis_mask = 0;
};

// One range per input dimension: element k of the slice along dim d is input
// index begin[d] + k * strides[d], for k in [0, sizes[d]).
struct ResolvedStridedSlice {
  std::vector<int64_t> begin;
  std::vector<int64_t> strides;
  std::vector<int64_t> sizes;        // the "processing shape", one per input dim
  std::vector<int64_t> output_dims;  // after new axes are added and shrunk dims dropped
  // Whether the slice takes the whole input in order (the output may then
  // share the input's buffer).
  bool is_identity = false;
};

// Resolves the spec against `input`. begin/end/strides must have the same
// length (at most 32); strides must be non-zero; at most one ellipsis bit; a
// shrunk index must be inside its dimension. Errors (InvalidArgument) describe
// the bad spec entry; callers add the node name.
StatusOr<ResolvedStridedSlice> ResolveStridedSlice(const Shape& input,
                                                   const std::vector<int64_t>& begin,
                                                   const std::vector<int64_t>& end,
                                                   const std::vector<int64_t>& strides,
                                                   const StridedSliceMasks& masks);

}  // namespace tfhost::ops::array
