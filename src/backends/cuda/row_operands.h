// Up to three operands broadcast to one output (TensorFlow's rules) that a
// row kernel walks as rows of its last dim: where each operand's part of a
// row starts and how far it steps along the row (0 where it broadcasts along
// it). The CUDA backend's layer norm and masked softmax read their operands
// this way, so that a residual, a mask or a fill of any broadcastable shape
// costs index arithmetic once per row, not per element; SelectV2 reads its
// three operands element by element through it. MakeRowOperands
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

// The offset in operand `k` of output element `i`, the output being rows
// of `cols` values (for kernels that take one element per thread).
TFHOST_HD int64_t RowOperandOffset(const RowOperands& s, int k, int64_t i, int64_t cols) {
  return RowStart(s, k, i / cols) + (i % cols) * RowStep(s, k);
}

}  // namespace tfhost::backends::cuda
