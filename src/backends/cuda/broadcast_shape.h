// The host-side half of the CUDA backend's broadcasting: the output shape
// of a binary op and the BinaryShape its kernel indexes with, following
// TensorFlow's rules (dims aligned from the right; each pair equal or one of
// them 1). Header-only so that the CPU tests run it beside the functors.
//
// Thread-safety: pure functions.
#pragma once

#include <algorithm>
#include <string>

#include "backends/cuda/elementwise_functors.h"
#include "base/shape.h"
#include "base/status.h"

namespace tfhost::backends::cuda {

// Sets *out to the broadcast output shape and returns how to index a and b;
// InvalidArgument quoting both shapes when they do not broadcast, or when
// the output has more than BinaryShape::kMaxRank dims.
inline StatusOr<BinaryShape> MakeBinaryShape(const Shape& a, const Shape& b, Shape* out) {
  BinaryShape s;
  if (a == b || b.num_elements() == 1) {
    s.b_scalar = a != b;
    if (a == b || a.rank() >= b.rank()) {
      *out = a;
      return s;
    }
  }
  const int rank = std::max(a.rank(), b.rank());
  if (rank > BinaryShape::kMaxRank) {
    return InvalidArgument("cannot broadcast " + a.ToString() + " and " + b.ToString() + " on the GPU: at most " +
                           std::to_string(BinaryShape::kMaxRank) + " dims");
  }
  std::vector<int64_t> dims(rank);
  s.rank = rank;
  s.b_scalar = false;
  int64_t a_stride = 1, b_stride = 1;
  for (int d = rank - 1; d >= 0; --d) {
    const int ad = d - (rank - a.rank()), bd = d - (rank - b.rank());
    const int64_t x = ad >= 0 ? a.dim(ad) : 1, y = bd >= 0 ? b.dim(bd) : 1;
    if (x != y && x != 1 && y != 1) {
      return InvalidArgument("Incompatible shapes: " + a.ToString() + " vs. " + b.ToString());
    }
    dims[d] = std::max(x, y);
    if (x == 0 || y == 0) dims[d] = 0;
    s.dims[d] = dims[d];
    s.a_strides[d] = x == 1 ? 0 : a_stride;
    s.b_strides[d] = y == 1 ? 0 : b_stride;
    a_stride *= x;
    b_stride *= y;
  }
  *out = Shape(dims);
  return s;
}

}  // namespace tfhost::backends::cuda
