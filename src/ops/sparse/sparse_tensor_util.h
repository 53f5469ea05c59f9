// Reading and validating one SparseTensor (indices [N, rank] int64, values
// [N], dense_shape [rank] int64) from a kernel's inputs, and typed arithmetic
// on its values, for the sparse kernels that rearrange entries (slice, concat,
// split, reorder) or combine them (add, reduce).
//
// The triple comes from untrusted data: ReadSparseTensor checks every shape
// and every index against dense_shape, so kernels may then index blindly.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "base/tensor.h"
#include "ops/op_kernel.h"

namespace tfhost::ops::sparse {

// A validated view of one sparse triple; `indices` points into the input
// tensor, which the KernelContext keeps alive for the kernel's run.
struct SparseView {
  int64_t nnz = 0;
  int64_t rank = 0;
  const int64_t* indices = nullptr;  // nnz x rank, row-major
  const Tensor* values = nullptr;
  std::vector<int64_t> shape;

  const int64_t* Index(int64_t i) const { return indices + i * rank; }
};

// Reads inputs (indices_i, values_i, shape_i) as one SparseTensor; `what`
// names it in errors ("a", "input 2"). Checks dtypes, ranks, that values has
// one entry per index row, that dims are non-negative and that every index
// lies inside dense_shape.
StatusOr<SparseView> ReadSparseTensor(const KernelContext& ctx, int indices_i, int values_i, int shape_i,
                                      const std::string& what);

// -1, 0 or 1 as index row a is before, equal to or after index row b in
// row-major (lexicographic) order.
int CompareIndex(const int64_t* a, const int64_t* b, int64_t rank);

// Index of the first entry that is out of row-major order (strictly before its
// predecessor), or -1 when `sp` is sorted (repeats allowed).
int64_t FirstUnsortedEntry(const SparseView& sp);

// Typed access to the values of the real number types the sparse arithmetic
// kernels accept. Half and bfloat16 compute in float, as TensorFlow does.
template <typename T>
struct PlainNum {
  using Acc = T;
  static Acc Load(const Tensor& t, int64_t i) { return t.data<T>()[i]; }
  static void Store(Tensor& t, int64_t i, Acc v) { t.data<T>()[i] = v; }
};
struct HalfNum {
  using Acc = float;
  static Acc Load(const Tensor& t, int64_t i) { return HalfToFloat(t.data<uint16_t>()[i]); }
  static void Store(Tensor& t, int64_t i, Acc v) { t.data<uint16_t>()[i] = FloatToHalf(v); }
};
struct BFloat16Num {
  using Acc = float;
  static Acc Load(const Tensor& t, int64_t i) { return BFloat16ToFloat(t.data<uint16_t>()[i]); }
  static void Store(Tensor& t, int64_t i, Acc v) { t.data<uint16_t>()[i] = FloatToBFloat16(v); }
};

// Calls fn(Num{}) with the accessor of `dtype`; false for other dtypes
// (bool, strings, complex, variant).
template <typename Fn>
bool VisitRealNumber(DType dtype, Fn&& fn) {
  switch (dtype) {
    case DType::kFloat: fn(PlainNum<float>{}); return true;
    case DType::kDouble: fn(PlainNum<double>{}); return true;
    case DType::kInt32: fn(PlainNum<int32_t>{}); return true;
    case DType::kInt64: fn(PlainNum<int64_t>{}); return true;
    case DType::kInt8: fn(PlainNum<int8_t>{}); return true;
    case DType::kInt16: fn(PlainNum<int16_t>{}); return true;
    case DType::kUInt8: fn(PlainNum<uint8_t>{}); return true;
    case DType::kUInt16: fn(PlainNum<uint16_t>{}); return true;
    case DType::kUInt32: fn(PlainNum<uint32_t>{}); return true;
    case DType::kUInt64: fn(PlainNum<uint64_t>{}); return true;
    case DType::kHalf: fn(HalfNum{}); return true;
    case DType::kBFloat16: fn(BFloat16Num{}); return true;
    default: return false;
  }
}

// The dtype list of TensorFlow's numbertype / realnumbertype attrs that these
// kernels implement (complex and quantized types are not supported).
inline constexpr const char* kRealNumberTypes =
    "{float, double, int32, uint8, int16, int8, int64, bfloat16, uint16, half, uint32, uint64}";

}  // namespace tfhost::ops::sparse
