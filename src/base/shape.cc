#include "base/shape.h"

#include <algorithm>

namespace tfhost {

std::string Shape::ToString() const {
  std::string s = "[";
  for (size_t i = 0; i < dims_.size(); ++i) {
    if (i) s += ",";
    s += std::to_string(dims_[i]);
  }
  return s + "]";
}

StatusOr<Shape> MakeShape(const std::vector<int64_t>& dims, const std::string& what,
                          int64_t max_elements) {
  int64_t n = 1;
  for (int64_t d : dims) {
    if (d < 0) {
      return InvalidArgument(what + ": dimension " + std::to_string(d) +
                             " is negative; expected a fully known shape");
    }
    if (d != 0 && n > max_elements / d) {
      return InvalidArgument(what + ": shape " + Shape(dims).ToString() + " has more than " +
                             std::to_string(max_elements) + " elements");
    }
    n *= d;
  }
  return Shape(dims);
}

StatusOr<Shape> BroadcastShapes(const Shape& a, const Shape& b) {
  int rank = std::max(a.rank(), b.rank());
  std::vector<int64_t> out(rank);
  for (int i = 0; i < rank; ++i) {
    int ia = a.rank() - rank + i, ib = b.rank() - rank + i;
    int64_t da = ia >= 0 ? a.dim(ia) : 1;
    int64_t db = ib >= 0 ? b.dim(ib) : 1;
    if (da == db || db == 1) {
      out[i] = da;
    } else if (da == 1) {
      out[i] = db;
    } else {
      return InvalidArgument("incompatible shapes for broadcasting: " + a.ToString() + " and " +
                             b.ToString());
    }
  }
  return Shape(std::move(out));
}

}  // namespace tfhost
