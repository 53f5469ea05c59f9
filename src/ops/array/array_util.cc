#include "ops/array/array_util.h"

#include <algorithm>
#include <cstring>
#include <limits>

namespace tfhost::ops::array {

std::string JoinInts(const std::vector<int64_t>& values) {
  std::string s = "[";
  for (size_t i = 0; i < values.size(); ++i) {
    if (i) s += ", ";
    s += std::to_string(values[i]);
  }
  return s + "]";
}

StatusOr<std::vector<int64_t>> ReadIndexVector(const KernelContext& ctx, int i,
                                               const std::string& what) {
  if (i >= ctx.num_inputs()) {
    return ctx.Error("missing input " + std::to_string(i) + " (" + what + ")");
  }
  const Tensor& t = ctx.input(i);
  if (t.rank() > 1) {
    return ctx.Error(what + " must be a scalar or 1-D, got shape " + t.shape().ToString());
  }
  auto values = t.ToInt64Vector();
  if (!values.ok()) {
    return ctx.Error(what + " must be an integer tensor, got " + DTypeShortName(t.dtype()));
  }
  return values;
}

StatusOr<int64_t> ReadIndexScalar(const KernelContext& ctx, int i, const std::string& what,
                                  bool allow_one_element) {
  if (i >= ctx.num_inputs()) {
    return ctx.Error("missing input " + std::to_string(i) + " (" + what + ")");
  }
  const Tensor& t = ctx.input(i);
  bool shape_ok = t.rank() == 0 || (allow_one_element && t.NumElements() == 1);
  if (!shape_ok) {
    return ctx.Error(what + " must be a scalar, got shape " + t.shape().ToString());
  }
  auto values = t.ToInt64Vector();
  if (!values.ok()) {
    return ctx.Error(what + " must be an integer tensor, got " + DTypeShortName(t.dtype()));
  }
  return (*values)[0];
}

StatusOr<int> NormalizeAxis(const KernelContext& ctx, int64_t axis, int rank,
                            const std::string& what) {
  if (axis < -rank || axis >= rank) {
    return ctx.Error(what + " " + std::to_string(axis) + " is out of range; expected a value in [" +
                     std::to_string(-rank) + ", " + std::to_string(rank) + ") for rank " +
                     std::to_string(rank));
  }
  return static_cast<int>(axis < 0 ? axis + rank : axis);
}

StatusOr<Shape> OutputShape(const KernelContext& ctx, const std::vector<int64_t>& dims,
                            const std::string& what) {
  auto shape = MakeShape(dims, what);
  if (!shape.ok()) return ctx.Error(shape.status().message());
  return shape;
}

std::vector<int64_t> RowMajorStrides(const Shape& shape) {
  std::vector<int64_t> strides(shape.rank());
  int64_t s = 1;
  for (int i = shape.rank() - 1; i >= 0; --i) {
    strides[i] = s;
    s *= shape.dim(i);
  }
  return strides;
}

int64_t DimProduct(const Shape& shape, int begin, int end) {
  int64_t n = 1;
  for (int i = begin; i < end; ++i) {
    if (shape.dim(i) == 0) return 0;
  }
  for (int i = begin; i < end; ++i) {
    if (__builtin_mul_overflow(n, shape.dim(i), &n)) return std::numeric_limits<int64_t>::max();
  }
  return n;
}

Status CheckMovable(const KernelContext& ctx, DType dtype) {
  if (IsStringLike(dtype) || DTypeSize(dtype) != 0) return OkStatus();
  return ctx.Error("cannot move elements of dtype " + DTypeName(dtype) +
                   "; expected a fixed-size type or string");
}

void CopyElements(const Tensor& src, int64_t src_offset, Tensor& dst, int64_t dst_offset,
                  int64_t n) {
  if (n <= 0) return;
  if (IsStringLike(src.dtype())) {
    std::copy_n(src.strings() + src_offset, n, dst.strings() + dst_offset);
    return;
  }
  size_t size = DTypeSize(src.dtype());
  std::memcpy(static_cast<char*>(dst.raw_data()) + dst_offset * size,
              static_cast<const char*>(src.raw_data()) + src_offset * size, n * size);
}

void FillWithScalar(Tensor& dst, const Tensor& value) {
  int64_t n = dst.NumElements();
  if (n == 0) return;
  if (IsStringLike(dst.dtype())) {
    std::fill_n(dst.strings(), n, value.strings()[0]);
    return;
  }
  size_t size = DTypeSize(dst.dtype());
  char* out = static_cast<char*>(dst.raw_data());
  std::memcpy(out, value.raw_data(), size);
  // Doubling copies: fills n elements in log2(n) memcpy calls.
  int64_t filled = 1;
  while (filled < n) {
    int64_t chunk = std::min(filled, n - filled);
    std::memcpy(out + filled * size, out, chunk * size);
    filled += chunk;
  }
}

}  // namespace tfhost::ops::array
