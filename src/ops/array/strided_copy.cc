#include "ops/array/strided_copy.h"

#include <algorithm>
#include <cstring>
#include <string>
#include <type_traits>

#include "ops/array/array_util.h"

namespace tfhost::ops::array {

namespace {

// Dims after dropping size-1 dims and merging neighbours that are contiguous
// on both sides: a transposed or sliced copy then runs as few, long rows.
struct Plan {
  std::vector<int64_t> dims;
  std::vector<int64_t> src_strides, dst_strides;
};

Plan Simplify(const std::vector<int64_t>& dims, const StridedLayout& src,
              const StridedLayout& dst) {
  Plan p;
  for (size_t i = 0; i < dims.size(); ++i) {
    if (dims[i] == 1) continue;
    if (!p.dims.empty() && p.src_strides.back() == src.strides[i] * dims[i] &&
        p.dst_strides.back() == dst.strides[i] * dims[i]) {
      p.dims.back() *= dims[i];
      p.src_strides.back() = src.strides[i];
      p.dst_strides.back() = dst.strides[i];
      continue;
    }
    p.dims.push_back(dims[i]);
    p.src_strides.push_back(src.strides[i]);
    p.dst_strides.push_back(dst.strides[i]);
  }
  if (p.dims.empty()) {  // a single element
    p.dims.push_back(1);
    p.src_strides.push_back(1);
    p.dst_strides.push_back(1);
  }
  return p;
}

template <typename T>
void CopyRows(const Plan& p, const T* src, int64_t src_offset, T* dst, int64_t dst_offset,
              int64_t row_begin, int64_t row_end) {
  const int outer_rank = static_cast<int>(p.dims.size()) - 1;
  const int64_t n = p.dims.back();
  const int64_t ss = p.src_strides.back(), ds = p.dst_strides.back();
  // Decompose the first row index into outer coordinates, then step like an
  // odometer.
  std::vector<int64_t> coord(outer_rank, 0);
  int64_t rem = row_begin;
  for (int k = outer_rank - 1; k >= 0; --k) {
    coord[k] = rem % p.dims[k];
    rem /= p.dims[k];
  }
  int64_t so = src_offset, d_o = dst_offset;
  for (int k = 0; k < outer_rank; ++k) {
    so += coord[k] * p.src_strides[k];
    d_o += coord[k] * p.dst_strides[k];
  }
  for (int64_t row = row_begin; row < row_end; ++row) {
    if constexpr (std::is_trivially_copyable_v<T>) {
      if (ss == 1 && ds == 1) {
        std::memcpy(dst + d_o, src + so, n * sizeof(T));
      } else {
        for (int64_t j = 0; j < n; ++j) dst[d_o + j * ds] = src[so + j * ss];
      }
    } else {
      for (int64_t j = 0; j < n; ++j) dst[d_o + j * ds] = src[so + j * ss];
    }
    for (int k = outer_rank - 1; k >= 0; --k) {
      so += p.src_strides[k];
      d_o += p.dst_strides[k];
      if (++coord[k] < p.dims[k]) break;
      so -= p.src_strides[k] * p.dims[k];
      d_o -= p.dst_strides[k] * p.dims[k];
      coord[k] = 0;
    }
  }
}

}  // namespace

StridedLayout DenseLayout(const Shape& shape) {
  return StridedLayout{0, RowMajorStrides(shape)};
}

void CopyStrided(const std::vector<int64_t>& dims, const Tensor& src, const StridedLayout& src_layout,
                 Tensor& dst, const StridedLayout& dst_layout, ThreadPool* pool) {
  for (int64_t d : dims) {
    if (d <= 0) return;
  }
  Plan plan = Simplify(dims, src_layout, dst_layout);
  int64_t rows = 1;
  for (size_t k = 0; k + 1 < plan.dims.size(); ++k) rows *= plan.dims[k];
  int64_t row_len = plan.dims.back();
  VisitMovableType(src.dtype(), [&](auto* tag) {
    using T = std::remove_pointer_t<decltype(tag)>;
    const T* s = static_cast<const T*>(src.raw_data());
    T* d = static_cast<T*>(dst.raw_data());
    auto run = [&](int64_t begin, int64_t end) {
      CopyRows<T>(plan, s, src_layout.offset, d, dst_layout.offset, begin, end);
    };
    // Small copies are not worth a task switch.
    if (pool == nullptr || rows * row_len < (int64_t{1} << 16)) {
      run(0, rows);
    } else {
      pool->ParallelFor(rows, std::max<int64_t>(1, (int64_t{1} << 14) / row_len), run);
    }
  });
}

}  // namespace tfhost::ops::array
