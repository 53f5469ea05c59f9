#include "ops/sparse/sparse_tensor_util.h"

namespace tfhost::ops::sparse {
namespace {

std::string Str(int64_t v) { return std::to_string(v); }

}  // namespace

StatusOr<SparseView> ReadSparseTensor(const KernelContext& ctx, int indices_i, int values_i, int shape_i,
                                      const std::string& what) {
  const Tensor& idx = ctx.input(indices_i);
  const Tensor& values = ctx.input(values_i);
  const Tensor& shape = ctx.input(shape_i);
  if (idx.dtype() != DType::kInt64 || idx.rank() != 2) {
    return ctx.Error(what + " indices must be a 2-D int64 tensor, got " + DTypeShortName(idx.dtype()) + " " +
                     idx.shape().ToString());
  }
  if (values.rank() != 1) return ctx.Error(what + " values must be 1-D, got shape " + values.shape().ToString());
  if (shape.dtype() != DType::kInt64 || shape.rank() != 1) {
    return ctx.Error(what + " dense_shape must be a 1-D int64 tensor, got " + DTypeShortName(shape.dtype()) + " " +
                     shape.shape().ToString());
  }
  SparseView sp;
  sp.nnz = idx.dim(0);
  sp.rank = idx.dim(1);
  if (values.dim(0) != sp.nnz) {
    return ctx.Error(what + " has " + Str(sp.nnz) + " index rows but " + Str(values.dim(0)) + " values");
  }
  if (shape.dim(0) != sp.rank) {
    return ctx.Error(what + " indices have " + Str(sp.rank) + " columns but dense_shape has " + Str(shape.dim(0)) +
                     " entries");
  }
  sp.shape.assign(shape.data<int64_t>(), shape.data<int64_t>() + sp.rank);
  for (int64_t d = 0; d < sp.rank; ++d) {
    if (sp.shape[d] < 0) return ctx.Error(what + " dense_shape[" + Str(d) + "] is negative: " + Str(sp.shape[d]));
  }
  sp.indices = idx.data<int64_t>();
  sp.values = &values;
  for (int64_t i = 0; i < sp.nnz; ++i) {
    const int64_t* row = sp.Index(i);
    for (int64_t d = 0; d < sp.rank; ++d) {
      if (row[d] < 0 || row[d] >= sp.shape[d]) {
        return ctx.Error(what + " indices[" + Str(i) + ", " + Str(d) + "] = " + Str(row[d]) +
                         " is out of bounds: need 0 <= index < " + Str(sp.shape[d]));
      }
    }
  }
  return sp;
}

int CompareIndex(const int64_t* a, const int64_t* b, int64_t rank) {
  for (int64_t d = 0; d < rank; ++d) {
    if (a[d] != b[d]) return a[d] < b[d] ? -1 : 1;
  }
  return 0;
}

int64_t FirstUnsortedEntry(const SparseView& sp) {
  for (int64_t i = 1; i < sp.nnz; ++i) {
    if (CompareIndex(sp.Index(i - 1), sp.Index(i), sp.rank) > 0) return i;
  }
  return -1;
}

}  // namespace tfhost::ops::sparse
