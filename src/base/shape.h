// Tensor shapes: a list of dimension sizes, outermost first (row-major).
// A Shape here is always fully known; partially known shapes (with -1 or
// unknown rank) are ir::PartialShape.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <string>
#include <vector>

#include "base/dim_vector.h"
#include "base/status.h"

namespace tfhost {

class Shape {
 public:
  Shape() = default;  // a scalar
  Shape(std::initializer_list<int64_t> dims) : dims_(dims) {}
  explicit Shape(const std::vector<int64_t>& dims) : dims_(dims) {}
  explicit Shape(DimVector dims) : dims_(std::move(dims)) {}

  int rank() const { return static_cast<int>(dims_.size()); }
  int64_t dim(int i) const { return dims_[i]; }
  void set_dim(int i, int64_t v) { dims_[i] = v; }
  // At most DimVector::kInlineDims of them live in the Shape itself.
  const DimVector& dims() const { return dims_; }
  DimVector& mutable_dims() { return dims_; }
  void AddDim(int64_t d) { dims_.push_back(d); }
  // 0 when any dim is 0, however large the others; a product past int64
  // (no tensor can have one; MakeShape refuses it) saturates at its max.
  int64_t num_elements() const {
    int64_t n = 1;
    bool saturated = false;
    for (int64_t d : dims_) {
      if (d == 0) return 0;
      if (!saturated && __builtin_mul_overflow(n, d, &n)) saturated = true;
    }
    return saturated ? INT64_MAX : n;
  }
  bool IsScalar() const { return dims_.empty(); }
  bool operator==(const Shape& o) const { return dims_ == o.dims_; }
  bool operator!=(const Shape& o) const { return dims_ != o.dims_; }
  // "[2,3]"; "[]" for a scalar.
  std::string ToString() const;

 private:
  DimVector dims_;
};

// Validates dims (non-negative, element count without int64 overflow and below
// `max_elements`) and builds a Shape; `what` names the source for the error.
StatusOr<Shape> MakeShape(const std::vector<int64_t>& dims, const std::string& what,
                          int64_t max_elements = int64_t{1} << 40);

// NumPy broadcasting of two shapes; error names both shapes.
StatusOr<Shape> BroadcastShapes(const Shape& a, const Shape& b);

}  // namespace tfhost
