// SparseReorder, SparseSlice, SparseSplit and SparseConcat: ops that move the
// entries of SparseTensors around without computing on values, so they take
// values of any dtype.
//
//   SparseReorder: sorts entries into row-major (canonical) order; entries
//     with equal indices keep their input order.
//   SparseSlice: keeps the entries with start[d] <= index[d] < start[d] +
//     size[d] in every dim, shifted by -start, in input order; the output
//     shape is the slice clipped to dense_shape: max(min(start + size,
//     shape) - start, 0) per dim.
//   SparseSplit: splits dim split_dim into num_split slices; the first
//     (size % num_split) slices are one longer, as tf.sparse.split documents
//     ([2, 7] into 3 -> [2, 3], [2, 2], [2, 2]); entries keep input order.
//   SparseConcat: concatenates along concat_dim (negative counts from the
//     back); the other dims must agree. TensorFlow reorders every input and
//     the output, so the output is in row-major order whatever the inputs'.
#include <algorithm>
#include <numeric>

#include "ops/array/array_util.h"
#include "ops/sparse/sparse_ops.h"
#include "ops/sparse/sparse_tensor_util.h"

namespace tfhost::ops::sparse {
namespace {

std::string Str(int64_t v) { return std::to_string(v); }

// Builds the output triple from `sp`'s entries `order` (in that order), with
// each index row rewritten by `remap(row_in, row_out)`.
template <typename Remap>
void EmitEntries(const SparseView& sp, const std::vector<int64_t>& order, Remap remap, Tensor& out_idx,
                 Tensor& out_values) {
  const int64_t n = static_cast<int64_t>(order.size());
  out_idx = Tensor(DType::kInt64, Shape({n, sp.rank}));
  out_values = Tensor(sp.values->dtype(), Shape({n}));
  for (int64_t k = 0; k < n; ++k) {
    remap(sp.Index(order[k]), out_idx.data<int64_t>() + k * sp.rank);
    array::CopyElements(*sp.values, order[k], out_values, k, 1);
  }
}

void CopyRow(const int64_t* in, int64_t* out, int64_t rank) { std::copy(in, in + rank, out); }

Status SparseReorder(KernelContext& ctx) {
  TFHOST_ASSIGN_OR_RETURN(SparseView sp, ReadSparseTensor(ctx, 0, 1, 2, "input"));
  TFHOST_RETURN_IF_ERROR(array::CheckMovable(ctx, sp.values->dtype()));
  std::vector<int64_t> order(sp.nnz);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](int64_t a, int64_t b) { return CompareIndex(sp.Index(a), sp.Index(b), sp.rank) < 0; });
  Tensor out_idx, out_values;
  EmitEntries(sp, order, [&](const int64_t* in, int64_t* out) { CopyRow(in, out, sp.rank); }, out_idx, out_values);
  ctx.set_output(0, std::move(out_idx));
  ctx.set_output(1, std::move(out_values));
  return OkStatus();
}

Status SparseSlice(KernelContext& ctx) {
  TFHOST_ASSIGN_OR_RETURN(SparseView sp, ReadSparseTensor(ctx, 0, 1, 2, "input"));
  TFHOST_RETURN_IF_ERROR(array::CheckMovable(ctx, sp.values->dtype()));
  TFHOST_ASSIGN_OR_RETURN(std::vector<int64_t> start, array::ReadIndexVector(ctx, 3, "start"));
  TFHOST_ASSIGN_OR_RETURN(std::vector<int64_t> size, array::ReadIndexVector(ctx, 4, "size"));
  if (ctx.input(3).rank() != 1 || static_cast<int64_t>(start.size()) != sp.rank) {
    return ctx.Error("start must be a vector of " + Str(sp.rank) + " entries (the input's rank), got shape " +
                     ctx.input(3).shape().ToString());
  }
  if (ctx.input(4).rank() != 1 || static_cast<int64_t>(size.size()) != sp.rank) {
    return ctx.Error("size must be a vector of " + Str(sp.rank) + " entries (the input's rank), got shape " +
                     ctx.input(4).shape().ToString());
  }
  std::vector<int64_t> out_shape(sp.rank);
  for (int64_t d = 0; d < sp.rank; ++d) {
    if (start[d] < 0 || size[d] < 0) {
      return ctx.Error("start and size must be non-negative, got start[" + Str(d) + "] = " + Str(start[d]) +
                       ", size[" + Str(d) + "] = " + Str(size[d]));
    }
    // min(start + size, shape) - start without overflowing start + size.
    const int64_t room = sp.shape[d] > start[d] ? sp.shape[d] - start[d] : 0;
    out_shape[d] = std::min(size[d], room);
  }
  std::vector<int64_t> order;
  for (int64_t i = 0; i < sp.nnz; ++i) {
    const int64_t* row = sp.Index(i);
    bool inside = true;
    for (int64_t d = 0; d < sp.rank && inside; ++d) inside = row[d] >= start[d] && row[d] - start[d] < size[d];
    if (inside) order.push_back(i);
  }
  Tensor out_idx, out_values;
  EmitEntries(
      sp, order,
      [&](const int64_t* in, int64_t* out) {
        for (int64_t d = 0; d < sp.rank; ++d) out[d] = in[d] - start[d];
      },
      out_idx, out_values);
  ctx.set_output(0, std::move(out_idx));
  ctx.set_output(1, std::move(out_values));
  ctx.set_output(2, Tensor::FromVector<int64_t>(out_shape));
  return OkStatus();
}

Status SparseSplit(KernelContext& ctx) {
  TFHOST_ASSIGN_OR_RETURN(SparseView sp, ReadSparseTensor(ctx, 1, 2, 3, "input"));
  TFHOST_RETURN_IF_ERROR(array::CheckMovable(ctx, sp.values->dtype()));
  TFHOST_ASSIGN_OR_RETURN(int64_t num_split, ctx.Attr<int64_t>("num_split"));
  TFHOST_ASSIGN_OR_RETURN(int64_t split_dim, array::ReadIndexScalar(ctx, 0, "split_dim", /*allow_one_element=*/false));
  if (ctx.num_outputs() != 3 * num_split) {
    return ctx.Error("num_split is " + Str(num_split) + " but the node has " + Str(ctx.num_outputs()) + " outputs");
  }
  if (sp.rank < 1) return ctx.Error("cannot split a rank-0 SparseTensor");
  TFHOST_ASSIGN_OR_RETURN(int dim, array::NormalizeAxis(ctx, split_dim, static_cast<int>(sp.rank), "split_dim"));
  const int64_t dim_size = sp.shape[dim];
  if (num_split < 1 || num_split > dim_size) {
    return ctx.Error("num_split must be between 1 and the size of dim " + Str(dim) + " (" + Str(dim_size) +
                     "), got " + Str(num_split));
  }
  const int64_t base = dim_size / num_split;
  const int64_t residual = dim_size % num_split;
  // Slice s starts at s * base + min(s, residual).
  auto slice_of = [&](int64_t x) {
    const int64_t long_end = residual * (base + 1);
    return x < long_end ? x / (base + 1) : residual + (x - long_end) / base;
  };
  auto slice_start = [&](int64_t s) { return s * base + std::min(s, residual); };
  std::vector<std::vector<int64_t>> members(num_split);
  for (int64_t i = 0; i < sp.nnz; ++i) members[slice_of(sp.Index(i)[dim])].push_back(i);
  for (int64_t s = 0; s < num_split; ++s) {
    const int64_t offset = slice_start(s);
    Tensor out_idx, out_values;
    EmitEntries(
        sp, members[s],
        [&](const int64_t* in, int64_t* out) {
          CopyRow(in, out, sp.rank);
          out[dim] -= offset;
        },
        out_idx, out_values);
    std::vector<int64_t> shape = sp.shape;
    shape[dim] = base + (s < residual ? 1 : 0);
    ctx.set_output(static_cast<int>(s), std::move(out_idx));
    ctx.set_output(static_cast<int>(num_split + s), std::move(out_values));
    ctx.set_output(static_cast<int>(2 * num_split + s), Tensor::FromVector<int64_t>(shape));
  }
  return OkStatus();
}

Status SparseConcat(KernelContext& ctx) {
  const int n = ctx.num_inputs() / 3;
  if (n < 2 || ctx.num_inputs() != 3 * n) {
    return ctx.Error("expected 3 * N inputs with N >= 2, got " + Str(ctx.num_inputs()));
  }
  TFHOST_ASSIGN_OR_RETURN(int64_t concat_dim_attr, ctx.Attr<int64_t>("concat_dim"));
  std::vector<SparseView> parts;
  for (int k = 0; k < n; ++k) {
    TFHOST_ASSIGN_OR_RETURN(SparseView sp, ReadSparseTensor(ctx, k, n + k, 2 * n + k, "input " + Str(k)));
    parts.push_back(std::move(sp));
  }
  const DType dtype = parts[0].values->dtype();
  TFHOST_RETURN_IF_ERROR(array::CheckMovable(ctx, dtype));
  const int64_t rank = parts[0].rank;
  if (rank < 1) return ctx.Error("cannot concatenate rank-0 SparseTensors");
  TFHOST_ASSIGN_OR_RETURN(int dim, array::NormalizeAxis(ctx, concat_dim_attr, static_cast<int>(rank), "concat_dim"));
  std::vector<int64_t> out_shape = parts[0].shape;
  out_shape[dim] = 0;
  std::vector<int64_t> offsets(n);
  int64_t total = 0;
  for (int k = 0; k < n; ++k) {
    const SparseView& sp = parts[k];
    if (sp.values->dtype() != dtype) return ctx.Error("input " + Str(k) + " values have another dtype than input 0");
    if (sp.rank != rank) {
      return ctx.Error("input " + Str(k) + " has rank " + Str(sp.rank) + " but input 0 has rank " + Str(rank));
    }
    for (int64_t d = 0; d < rank; ++d) {
      if (d != dim && sp.shape[d] != parts[0].shape[d]) {
        return ctx.Error("input " + Str(k) + " has dense_shape " + array::JoinInts(sp.shape) + " but input 0 has " +
                         array::JoinInts(parts[0].shape) + ": all dims but concat_dim " + Str(dim) + " must agree");
      }
    }
    offsets[k] = out_shape[dim];
    if (sp.shape[dim] > std::numeric_limits<int64_t>::max() - out_shape[dim]) {
      return ctx.Error("the concatenated dim overflows int64");
    }
    out_shape[dim] += sp.shape[dim];
    total += sp.nnz;
  }
  Tensor out_idx(DType::kInt64, Shape({total, rank}));
  Tensor cat_values(dtype, Shape({total}));
  int64_t* idx = out_idx.data<int64_t>();
  int64_t pos = 0;
  for (int k = 0; k < n; ++k) {
    for (int64_t i = 0; i < parts[k].nnz; ++i, ++pos) {
      CopyRow(parts[k].Index(i), idx + pos * rank, rank);
      idx[pos * rank + dim] += offsets[k];
      array::CopyElements(*parts[k].values, i, cat_values, pos, 1);
    }
  }
  // Row-major order, as TensorFlow's final reorder leaves it.
  std::vector<int64_t> order(total);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](int64_t a, int64_t b) { return CompareIndex(idx + a * rank, idx + b * rank, rank) < 0; });
  SparseView cat{total, rank, idx, &cat_values, out_shape};
  Tensor sorted_idx, sorted_values;
  EmitEntries(cat, order, [&](const int64_t* in, int64_t* out) { CopyRow(in, out, rank); }, sorted_idx,
              sorted_values);
  ctx.set_output(0, std::move(sorted_idx));
  ctx.set_output(1, std::move(sorted_values));
  ctx.set_output(2, Tensor::FromVector<int64_t>(out_shape));
  return OkStatus();
}

}  // namespace

void RegisterSparseReorderOps(OpRegistry& registry) {
  registry.Register(ir::OpDefBuilder("SparseReorder")
                        .Input("input_indices: int64")
                        .Input("input_values: T")
                        .Input("input_shape: int64")
                        .Output("output_indices: int64")
                        .Output("output_values: T")
                        .Attr("T: type"),
                    SparseReorder);
  registry.Register(ir::OpDefBuilder("SparseSlice")
                        .Input("indices: int64")
                        .Input("values: T")
                        .Input("shape: int64")
                        .Input("start: int64")
                        .Input("size: int64")
                        .Output("output_indices: int64")
                        .Output("output_values: T")
                        .Output("output_shape: int64")
                        .Attr("T: type"),
                    SparseSlice);
  registry.Register(ir::OpDefBuilder("SparseSplit")
                        .Input("split_dim: int64")
                        .Input("indices: int64")
                        .Input("values: T")
                        .Input("shape: int64")
                        .Output("output_indices: num_split * int64")
                        .Output("output_values: num_split * T")
                        .Output("output_shape: num_split * int64")
                        .Attr("num_split: int >= 1")
                        .Attr("T: type"),
                    SparseSplit);
  registry.Register(ir::OpDefBuilder("SparseConcat")
                        .Input("indices: N * int64")
                        .Input("values: N * T")
                        .Input("shapes: N * int64")
                        .Output("output_indices: int64")
                        .Output("output_values: T")
                        .Output("output_shape: int64")
                        .Attr("concat_dim: int")
                        .Attr("N: int >= 2")
                        .Attr("T: type"),
                    SparseConcat);
}

}  // namespace tfhost::ops::sparse
