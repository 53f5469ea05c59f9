// SparseToDense, SparseFillEmptyRows and SparseReshape.
//
//   SparseToDense: scatters values (one per index row, or one scalar for all)
//     into a tensor of output_shape filled with default_value; with
//     validate_indices, indices must be in strictly increasing row-major order.
//   SparseFillEmptyRows: every row r (index dim 0) without entries gets one
//     entry [r, 0, ..., 0] = default_value; entries keep their order within a
//     row and rows come out in order; reverse_index_map[i] is where input
//     entry i went.
//   SparseReshape: re-linearizes each index under a new shape (one -1 allowed,
//     element counts must agree).
#include <algorithm>
#include <limits>

#include "ops/array/array_util.h"
#include "ops/sparse/sparse_ops.h"

namespace tfhost::ops::sparse {
namespace {

std::string Str(int64_t v) { return std::to_string(v); }

// Reads an integer index matrix into int64 (rank 0 -> 1x1, rank 1 [N] -> Nx1).
StatusOr<std::vector<int64_t>> IndexMatrix(const KernelContext& ctx, int i, int64_t* rows, int64_t* cols) {
  const Tensor& t = ctx.input(i);
  if (t.rank() > 2) return ctx.Error("sparse_indices must be at most 2-D, got " + t.shape().ToString());
  auto v = t.ToInt64Vector();
  if (!v.ok()) return ctx.Error("indices must be an integer tensor");
  *rows = t.rank() == 0 ? 1 : t.dim(0);
  *cols = t.rank() < 2 ? 1 : t.dim(1);
  return v;
}

Status SparseToDense(KernelContext& ctx) {
  int64_t n = 0, rank = 0;
  TFHOST_ASSIGN_OR_RETURN(std::vector<int64_t> indices, IndexMatrix(ctx, 0, &n, &rank));
  TFHOST_ASSIGN_OR_RETURN(std::vector<int64_t> shape_v, array::ReadIndexVector(ctx, 1, "output_shape"));
  if (ctx.input(1).rank() != 1) return ctx.Error("output_shape must be 1-D");
  TFHOST_ASSIGN_OR_RETURN(bool validate, ctx.AttrOr<bool>("validate_indices", true));
  const Tensor& values = ctx.input(2);
  const Tensor& def = ctx.input(3);
  if (def.NumElements() != 1 || def.rank() != 0) {
    return ctx.Error("default_value should be a scalar, got shape " + def.shape().ToString());
  }
  if (values.dtype() != def.dtype()) return ctx.Error("sparse_values and default_value dtypes differ");
  if (values.rank() > 1) return ctx.Error("sparse_values must be 0-D or 1-D, got " + values.shape().ToString());
  const bool scalar_values = values.rank() == 0;
  if (!scalar_values && values.dim(0) != n) {
    return ctx.Error("sparse_values has " + Str(values.dim(0)) + " entries but sparse_indices has " + Str(n) +
                     " rows");
  }
  if (n > 0 && rank != static_cast<int64_t>(shape_v.size())) {
    return ctx.Error("sparse_indices rows have " + Str(rank) + " entries but output_shape has rank " +
                     Str(static_cast<int64_t>(shape_v.size())));
  }
  TFHOST_ASSIGN_OR_RETURN(Shape out_shape, array::OutputShape(ctx, shape_v, "output_shape"));
  TFHOST_RETURN_IF_ERROR(array::CheckMovable(ctx, values.dtype()));
  Tensor out(values.dtype(), out_shape);
  array::FillWithScalar(out, def);
  const std::vector<int64_t> strides = array::RowMajorStrides(out_shape);
  int64_t prev = -1;
  for (int64_t i = 0; i < n; ++i) {
    int64_t flat = 0;
    for (int64_t d = 0; d < rank; ++d) {
      int64_t x = indices[i * rank + d];
      if (x < 0 || x >= shape_v[d]) {
        return ctx.Error("sparse_indices[" + Str(i) + "] is out of bounds of output_shape " +
                         out_shape.ToString());
      }
      flat += x * strides[d];
    }
    if (validate) {
      if (flat == prev) return ctx.Error("sparse_indices[" + Str(i) + "] is repeated");
      if (flat < prev) return ctx.Error("sparse_indices[" + Str(i) + "] is out of order");
    }
    prev = flat;
    array::CopyElements(values, scalar_values ? 0 : i, out, flat, 1);
  }
  ctx.set_output(0, std::move(out));
  return OkStatus();
}

// Checks indices [N, rank] int64 / dense_shape [rank] pairs shared by
// FillEmptyRows and Reshape.
Status CheckSparse(const KernelContext& ctx, int indices_i, int shape_i, int64_t* n, int64_t* rank) {
  const Tensor& idx = ctx.input(indices_i);
  const Tensor& shape = ctx.input(shape_i);
  if (idx.dtype() != DType::kInt64 || idx.rank() != 2) {
    return ctx.Error("indices must be a 2-D int64 tensor, got " + DTypeShortName(idx.dtype()) + " " +
                     idx.shape().ToString());
  }
  if (shape.dtype() != DType::kInt64 || shape.rank() != 1) return ctx.Error("dense_shape must be a 1-D int64 tensor");
  if (idx.dim(1) != shape.dim(0)) {
    return ctx.Error("indices have " + Str(idx.dim(1)) + " columns but dense_shape has " + Str(shape.dim(0)) +
                     " entries");
  }
  *n = idx.dim(0);
  *rank = idx.dim(1);
  return OkStatus();
}

Status SparseFillEmptyRows(KernelContext& ctx) {
  int64_t n = 0, rank = 0;
  TFHOST_RETURN_IF_ERROR(CheckSparse(ctx, 0, 2, &n, &rank));
  const Tensor& values = ctx.input(1);
  const Tensor& def = ctx.input(3);
  if (values.rank() != 1 || values.dim(0) != n) {
    return ctx.Error("values must be 1-D with " + Str(n) + " entries, got " + values.shape().ToString());
  }
  if (def.rank() != 0) return ctx.Error("default_value must be a scalar, got " + def.shape().ToString());
  if (rank < 1) return ctx.Error("dense_shape must have rank >= 1");
  TFHOST_RETURN_IF_ERROR(array::CheckMovable(ctx, values.dtype()));
  const int64_t* idx = ctx.input(0).data<int64_t>();
  const int64_t dense_rows = ctx.input(2).data<int64_t>()[0];
  if (dense_rows < 0) return ctx.Error("dense_shape[0] must be non-negative, got " + Str(dense_rows));
  if (dense_rows == 0 && n > 0) return ctx.Error("dense_shape[0] is 0 but indices is not empty");
  if (dense_rows > (int64_t{1} << 40)) return ctx.Error("dense_shape[0] is too large: " + Str(dense_rows));
  std::vector<int64_t> count(dense_rows, 0);
  for (int64_t i = 0; i < n; ++i) {
    int64_t r = idx[i * rank];
    if (r < 0 || r >= dense_rows) {
      return ctx.Error("indices(" + Str(i) + ", 0) is invalid: " + Str(r) + " is not in [0, " + Str(dense_rows) +
                       ")");
    }
    ++count[r];
  }
  // Row r's block starts at offset[r]; empty rows take one slot.
  std::vector<int64_t> offset(dense_rows + 1, 0);
  Tensor empty(DType::kBool, Shape({dense_rows}));
  for (int64_t r = 0; r < dense_rows; ++r) {
    empty.data<bool>()[r] = count[r] == 0;
    offset[r + 1] = offset[r] + std::max<int64_t>(count[r], 1);
  }
  const int64_t total = offset[dense_rows];
  Tensor out_idx(DType::kInt64, Shape({total, rank}));
  Tensor out_values(values.dtype(), Shape({total}));
  Tensor reverse(DType::kInt64, Shape({n}));
  std::vector<int64_t> filled(dense_rows, 0);
  for (int64_t i = 0; i < n; ++i) {
    int64_t r = idx[i * rank];
    int64_t pos = offset[r] + filled[r]++;
    std::copy(idx + i * rank, idx + (i + 1) * rank, out_idx.data<int64_t>() + pos * rank);
    array::CopyElements(values, i, out_values, pos, 1);
    reverse.data<int64_t>()[i] = pos;
  }
  for (int64_t r = 0; r < dense_rows; ++r) {
    if (count[r] != 0) continue;
    int64_t pos = offset[r];
    int64_t* row = out_idx.data<int64_t>() + pos * rank;
    std::fill(row, row + rank, 0);
    row[0] = r;
    array::CopyElements(def, 0, out_values, pos, 1);
  }
  ctx.set_output(0, std::move(out_idx));
  ctx.set_output(1, std::move(out_values));
  ctx.set_output(2, std::move(empty));
  ctx.set_output(3, std::move(reverse));
  return OkStatus();
}

Status SparseReshape(KernelContext& ctx) {
  int64_t n = 0, rank = 0;
  TFHOST_RETURN_IF_ERROR(CheckSparse(ctx, 0, 1, &n, &rank));
  const Tensor& new_shape_t = ctx.input(2);
  if (new_shape_t.dtype() != DType::kInt64 || new_shape_t.rank() != 1) {
    return ctx.Error("new_shape must be a 1-D int64 tensor");
  }
  const int64_t* in_shape = ctx.input(1).data<int64_t>();
  int64_t dense_size = 1;
  for (int64_t d = 0; d < rank; ++d) {
    if (in_shape[d] < 0) return ctx.Error("input_shape has a negative dim");
    if (in_shape[d] != 0 && dense_size > std::numeric_limits<int64_t>::max() / in_shape[d]) {
      return ctx.Error("input_shape has too many elements");
    }
    dense_size *= in_shape[d];
  }
  std::vector<int64_t> out_dims(new_shape_t.data<int64_t>(), new_shape_t.data<int64_t>() + new_shape_t.dim(0));
  int unknown = -1;
  int64_t product = 1;
  for (size_t d = 0; d < out_dims.size(); ++d) {
    if (out_dims[d] == -1) {
      if (unknown != -1) return ctx.Error("only one output dimension may be -1, not both " + Str(unknown) +
                                          " and " + Str(static_cast<int64_t>(d)));
      unknown = static_cast<int>(d);
    } else if (out_dims[d] < 0) {
      return ctx.Error("size " + Str(static_cast<int64_t>(d)) + " must be non-negative, not " + Str(out_dims[d]));
    } else {
      if (out_dims[d] != 0 && product > std::numeric_limits<int64_t>::max() / out_dims[d]) {
        return ctx.Error("new_shape has too many elements");
      }
      product *= out_dims[d];
    }
  }
  if (unknown != -1) {
    if (product == 0 || dense_size % product != 0) {
      return ctx.Error("Input to reshape is a SparseTensor with " + Str(dense_size) +
                       " dense values, but the requested shape requires a multiple of " + Str(product));
    }
    out_dims[unknown] = dense_size / product;
    product = dense_size;
  }
  if (product != dense_size) {
    return ctx.Error("Input to reshape is a tensor with " + Str(dense_size) +
                     " dense values, but the requested shape has " + Str(product));
  }
  const int64_t out_rank = static_cast<int64_t>(out_dims.size());
  Tensor out_idx(DType::kInt64, Shape({n, out_rank}));
  const int64_t* idx = ctx.input(0).data<int64_t>();
  for (int64_t i = 0; i < n; ++i) {
    int64_t flat = 0;
    for (int64_t d = 0; d < rank; ++d) {
      int64_t x = idx[i * rank + d];
      if (x < 0 || x >= in_shape[d]) return ctx.Error("input_indices[" + Str(i) + "] is out of bounds");
      flat = flat * in_shape[d] + x;
    }
    for (int64_t d = out_rank - 1; d >= 0; --d) {
      out_idx.data<int64_t>()[i * out_rank + d] = out_dims[d] == 0 ? 0 : flat % out_dims[d];
      if (out_dims[d] != 0) flat /= out_dims[d];
    }
  }
  ctx.set_output(0, std::move(out_idx));
  ctx.set_output(1, Tensor::FromVector<int64_t>(out_dims));
  return OkStatus();
}

}  // namespace

void RegisterSparseTensorOps(OpRegistry& registry) {
  registry.Register(ir::OpDefBuilder("SparseToDense")
                        .Input("sparse_indices: Tindices")
                        .Input("output_shape: Tindices")
                        .Input("sparse_values: T")
                        .Input("default_value: T")
                        .Output("dense: T")
                        .Attr("validate_indices: bool = true")
                        .Attr("T: type")
                        .Attr("Tindices: {int32, int64}"),
                    SparseToDense);
  registry.Register(ir::OpDefBuilder("SparseFillEmptyRows")
                        .Input("indices: int64")
                        .Input("values: T")
                        .Input("dense_shape: int64")
                        .Input("default_value: T")
                        .Output("output_indices: int64")
                        .Output("output_values: T")
                        .Output("empty_row_indicator: bool")
                        .Output("reverse_index_map: int64")
                        .Attr("T: type"),
                    SparseFillEmptyRows);
  registry.Register(ir::OpDefBuilder("SparseReshape")
                        .Input("input_indices: int64")
                        .Input("input_shape: int64")
                        .Input("new_shape: int64")
                        .Output("output_indices: int64")
                        .Output("output_shape: int64"),
                    SparseReshape);
}

}  // namespace tfhost::ops::sparse
