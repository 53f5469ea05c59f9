// The host-side half of the CUDA backend's broadcasting: the output shape
// of a binary op and the BinaryShape its kernel indexes with, or a row
// kernel's RowOperands (row_operands.h), following TensorFlow's rules (dims
// aligned from the right; in each, the sizes equal or 1). Header-only so
// that the CPU tests run it beside the functors.
//
// Thread-safety: pure functions.
#pragma once

#include <algorithm>
#include <string>
#include <vector>

#include "backends/cuda/elementwise_functors.h"
#include "backends/cuda/row_operands.h"
#include "base/shape.h"
#include "base/status.h"

namespace tfhost::backends::cuda {

namespace internal {

// "A and B", "A, B and C".
inline std::string ShapeList(const std::vector<Shape>& shapes) {
  std::string list;
  for (size_t k = 0; k < shapes.size(); ++k) {
    list += (k == 0 ? "" : k + 1 == shapes.size() ? " and " : ", ") + shapes[k].ToString();
  }
  return list;
}

// Broadcasts `shapes` into *out (dims aligned from the right; each equal or
// 1) and sets dims[0..rank) and each operand's strides[k][0..rank) per
// output dim (0 where it broadcasts); returns the output's rank.
inline StatusOr<int> Broadcast(const std::vector<Shape>& shapes, int max_rank, int64_t* dims,
                               int64_t* const* strides, Shape* out) {
  int rank = 0;
  for (const Shape& s : shapes) rank = std::max(rank, s.rank());
  if (rank > max_rank) {
    return InvalidArgument("cannot broadcast " + ShapeList(shapes) + " on the GPU: at most " +
                           std::to_string(max_rank) + " dims");
  }
  std::vector<int64_t> out_dims(rank);
  std::vector<int64_t> running(shapes.size(), 1);
  for (int d = rank - 1; d >= 0; --d) {
    int64_t size = 1;
    for (const Shape& s : shapes) {
      const int sd = d - (rank - s.rank());
      const int64_t x = sd >= 0 ? s.dim(sd) : 1;
      if (x == 1) continue;
      if (size != 1 && x != size) {
        std::string list;
        for (const Shape& t : shapes) list += (list.empty() ? "" : " vs. ") + t.ToString();
        return InvalidArgument("Incompatible shapes: " + list);
      }
      size = x;
    }
    out_dims[d] = dims[d] = size;
    for (size_t k = 0; k < shapes.size(); ++k) {
      const int sd = d - (rank - shapes[k].rank());
      const int64_t x = sd >= 0 ? shapes[k].dim(sd) : 1;
      strides[k][d] = x == 1 ? 0 : running[k];
      running[k] *= x;
    }
  }
  *out = Shape(out_dims);
  return rank;
}

}  // namespace internal

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
  s.b_scalar = false;
  int64_t* strides[] = {s.a_strides, s.b_strides};
  TFHOST_ASSIGN_OR_RETURN(s.rank, internal::Broadcast({a, b}, BinaryShape::kMaxRank, s.dims, strides, out));
  return s;
}

// The same for the operands of a row kernel (row_operands.h): one to
// RowOperands::kMaxOperands shapes.
inline StatusOr<RowOperands> MakeRowOperands(const std::vector<Shape>& shapes, Shape* out) {
  if (shapes.empty() || shapes.size() > RowOperands::kMaxOperands) {
    return InvalidArgument("a row kernel takes 1 to " + std::to_string(RowOperands::kMaxOperands) +
                           " operands, got " + std::to_string(shapes.size()));
  }
  RowOperands s;
  int64_t* strides[RowOperands::kMaxOperands] = {s.strides[0], s.strides[1], s.strides[2]};
  TFHOST_ASSIGN_OR_RETURN(s.rank, internal::Broadcast(shapes, RowOperands::kMaxRank, s.dims, strides, out));
  return s;
}

}  // namespace tfhost::backends::cuda
