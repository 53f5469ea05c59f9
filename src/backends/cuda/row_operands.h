// Up to three operands broadcast to one output (TensorFlow's rules) that a
// row kernel walks as rows of its last dim: where each operand's part of a
// row starts and how far it steps along the row (0 where it broadcasts along
// it). The CUDA backend's layer norm and masked softmax read their operands
// this way, so that a residual, a mask or a fill of any broadcastable shape
// costs index arithmetic once per row, not per element. MakeRowOperands
// (broadcast_shape.h) builds it on the host.
//
// Thread-safety: plain data and pure functions.
#pragma once

#include <cstdint>

#include "backends/cuda/elementwise_functors.h"

namespace tfhost::backends::cuda {

struct RowOperands {
  static constexpr int kMaxRank = BinaryShape::kMaxRank;
  static constexpr int kMaxOperands = 3;
  int rank = 0;  // of the output, at least 1
  int64_t dims[kMaxRank] = {};
  int64_t strides[kMaxOperands][kMaxRank] = {};
};

// The offset of element (row, 0) of the output in operand `k`.
TFHOST_HD int64_t RowStart(const RowOperands& s, int k, int64_t row) {
  return StridedOffset(s.dims, s.strides[k], s.rank - 1, row);
}

// How far operand `k` steps per element along a row.
TFHOST_HD int64_t RowStep(const RowOperands& s, int k) { return s.strides[k][s.rank - 1]; }

}  // namespace tfhost::backends::cuda
