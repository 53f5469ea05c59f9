#include "ir/partial_shape.h"

#include <algorithm>
#include <limits>

namespace tfhost::ir {

PartialShape PartialShape::FromProto(const tensorflow::TensorShapeProto& proto) {
  PartialShape s;
  s.unknown_rank = proto.unknown_rank();
  if (!s.unknown_rank) {
    for (const auto& d : proto.dim()) s.dims.push_back(d.size() < 0 ? -1 : d.size());
  }
  return s;
}

PartialShape PartialShape::Known(std::vector<int64_t> dims) {
  PartialShape s;
  s.unknown_rank = false;
  s.dims = std::move(dims);
  for (int64_t& d : s.dims) d = d < 0 ? -1 : d;
  return s;
}

bool PartialShape::IsFullyDefined() const {
  if (unknown_rank) return false;
  for (int64_t d : dims) if (d < 0) return false;
  return true;
}

int64_t PartialShape::NumElements() const {
  if (!IsFullyDefined()) return -1;
  int64_t n = 1;
  for (int64_t d : dims) {
    if (d == 0) return 0;
  }
  for (int64_t d : dims) {
    if (n > std::numeric_limits<int64_t>::max() / d) return -1;
    n *= d;
  }
  return n;
}

bool PartialShape::IsCompatibleWith(const Shape& shape) const {
  if (unknown_rank) return true;
  if (static_cast<int>(dims.size()) != shape.rank()) return false;
  for (size_t i = 0; i < dims.size(); ++i) {
    if (dims[i] >= 0 && dims[i] != shape.dim(static_cast<int>(i))) return false;
  }
  return true;
}

bool PartialShape::IsCompatibleWith(const PartialShape& other) const {
  return MergeShapes(*this, other).ok();
}

bool PartialShape::operator==(const PartialShape& o) const {
  if (unknown_rank || o.unknown_rank) return unknown_rank == o.unknown_rank;
  if (dims.size() != o.dims.size()) return false;
  for (size_t i = 0; i < dims.size(); ++i) {
    if ((dims[i] < 0) != (o.dims[i] < 0)) return false;
    if (dims[i] >= 0 && dims[i] != o.dims[i]) return false;
  }
  return true;
}

std::string PartialShape::ToString() const {
  if (unknown_rank) return "<unknown>";
  std::string s = "[";
  for (size_t i = 0; i < dims.size(); ++i) {
    if (i) s += ",";
    s += dims[i] < 0 ? "?" : std::to_string(dims[i]);
  }
  return s + "]";
}

tensorflow::TensorShapeProto PartialShape::ToProto() const {
  tensorflow::TensorShapeProto proto;
  if (unknown_rank) {
    proto.set_unknown_rank(true);
    return proto;
  }
  for (int64_t d : dims) proto.add_dim()->set_size(d < 0 ? -1 : d);
  return proto;
}

StatusOr<PartialShape> MergeShapes(const PartialShape& a, const PartialShape& b) {
  if (a.unknown_rank) return b;
  if (b.unknown_rank) return a;
  auto conflict = [&]() {
    return InvalidArgument("shapes " + a.ToString() + " and " + b.ToString() + " are incompatible");
  };
  if (a.dims.size() != b.dims.size()) return conflict();
  PartialShape out = a;
  for (size_t i = 0; i < a.dims.size(); ++i) {
    if (a.dims[i] < 0) {
      out.dims[i] = b.dims[i] < 0 ? -1 : b.dims[i];
    } else if (b.dims[i] >= 0 && a.dims[i] != b.dims[i]) {
      return conflict();
    }
  }
  return out;
}

PartialShape RelaxShapes(const PartialShape& a, const PartialShape& b) {
  if (a.unknown_rank || b.unknown_rank || a.dims.size() != b.dims.size()) return PartialShape::Unknown();
  PartialShape out = a;
  for (size_t i = 0; i < a.dims.size(); ++i) {
    if (a.dims[i] < 0 || b.dims[i] < 0 || a.dims[i] != b.dims[i]) out.dims[i] = -1;
  }
  return out;
}

StatusOr<PartialShape> BroadcastPartialShapes(const PartialShape& a, const PartialShape& b) {
  if (a.unknown_rank || b.unknown_rank) return PartialShape::Unknown();
  const size_t rank = std::max(a.dims.size(), b.dims.size());
  std::vector<int64_t> out(rank, -1);
  for (size_t i = 0; i < rank; ++i) {
    // Aligned from the right; a missing dim acts as a known 1.
    const size_t ai = a.dims.size() + i, bi = b.dims.size() + i;
    const int64_t da = ai >= rank ? a.dims[ai - rank] : 1;
    const int64_t db = bi >= rank ? b.dims[bi - rank] : 1;
    if (da == 1) {
      out[i] = db;
    } else if (db == 1) {
      out[i] = da;
    } else if (da < 0) {
      out[i] = db;  // unknown vs d > 1 (or vs unknown): d, or unknown
    } else if (db < 0) {
      out[i] = da;
    } else if (da == db) {
      out[i] = da;
    } else {
      return InvalidArgument("shapes " + a.ToString() + " and " + b.ToString() +
                             " cannot be broadcast together (dimension " + std::to_string(i) + ": " +
                             std::to_string(da) + " vs " + std::to_string(db) + ")");
    }
  }
  return PartialShape::Known(std::move(out));
}

}  // namespace tfhost::ir
