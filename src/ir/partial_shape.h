// Partially known tensor shapes, as TensorFlow's graph construction sees
// them: either the rank is unknown, or each dimension is a size or unknown
// (-1). Used by signatures (TensorInfo shapes), op attrs (Placeholder's
// `shape`) and static shape inference (ops/shape_inference.h), which needs
// to merge two views of one shape and broadcast shapes with unknown parts.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "base/shape.h"
#include "base/status.h"
#include "tensorflow/core/framework/tensor_shape.pb.h"

namespace tfhost::ir {

// An aggregate on purpose: `PartialShape{false, {2, -1}}` builds a known-rank
// shape. Every negative dim means "unknown"; FromProto and the factories keep
// unknown dims at exactly -1.
struct PartialShape {
  bool unknown_rank = true;
  std::vector<int64_t> dims;

  static PartialShape Unknown() { return PartialShape(); }
  static PartialShape FromProto(const tensorflow::TensorShapeProto& proto);
  // Known rank; negative entries become unknown dims.
  static PartialShape Known(std::vector<int64_t> dims);
  static PartialShape FromShape(const Shape& shape) { return Known(shape.dims()); }
  static PartialShape Scalar() { return Known({}); }
  // `rank` unknown dims.
  static PartialShape UnknownOfRank(int rank) { return Known(std::vector<int64_t>(rank, -1)); }

  bool rank_known() const { return !unknown_rank; }
  // -1 for unknown rank.
  int rank() const { return unknown_rank ? -1 : static_cast<int>(dims.size()); }
  // Dim i (0 <= i < rank()); -1 if unknown.
  int64_t dim(int i) const { return dims[i] < 0 ? -1 : dims[i]; }
  bool IsFullyDefined() const;
  // Product of the dims, or -1 when any is unknown (or the rank is), or when
  // the product overflows int64.
  int64_t NumElements() const;
  // The concrete shape; precondition: IsFullyDefined().
  Shape ToShape() const { return Shape(dims); }

  // Whether a concrete shape fits (same rank and every known dim equal).
  bool IsCompatibleWith(const Shape& shape) const;
  // Whether some concrete shape fits both.
  bool IsCompatibleWith(const PartialShape& other) const;
  // Structural equality (unknown dims equal unknown dims).
  bool operator==(const PartialShape& o) const;
  bool operator!=(const PartialShape& o) const { return !(*this == o); }

  // "[?,3]" style; "<unknown>" for unknown rank.
  std::string ToString() const;
  tensorflow::TensorShapeProto ToProto() const;
};

// The most specific shape compatible with both (what TF's Merge does): a
// known dim wins over an unknown one. Fails (InvalidArgument, naming both
// shapes) only on a definite conflict: two known ranks or two known dims that
// differ.
StatusOr<PartialShape> MergeShapes(const PartialShape& a, const PartialShape& b);

// The most specific shape that both may have at run time (for Merge/Switch
// joins, where either side may flow): dims that agree stay, others become
// unknown; different ranks give unknown rank. Never fails.
PartialShape RelaxShapes(const PartialShape& a, const PartialShape& b);

// NumPy broadcasting with unknowns. Per aligned dim: equal known dims stay; a
// known 1 yields the other side; an unknown against a known d > 1 yields d
// (the unknown must then be 1 or d); two unknowns yield unknown. Unknown rank
// on either side gives unknown rank. Fails only when two known dims differ and
// neither is 1.
StatusOr<PartialShape> BroadcastPartialShapes(const PartialShape& a, const PartialShape& b);

}  // namespace tfhost::ir
