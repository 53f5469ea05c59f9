// SparseBincount and RaggedBincount: the counts behind Keras preprocessing
// layers (CategoryEncoding, StringLookup / IntegerLookup / TextVectorization
// with output_mode "count" or "multi_hot") when their input is a SparseTensor
// or a RaggedTensor (tf.sparse.bincount, tf.math.bincount on ragged input).
//
//   SparseBincount: a 1-D sparse input gives output [size]; a 2-D one gives
//     [dense_shape[0], size], one row per index row. RaggedBincount: one
//     output row per ragged row, [splits.size() - 1, size].
//   Each stored value v adds weights[i] (or 1 when weights is empty) to bin v;
//   binary_output sets the bin to 1 instead. Values >= size are ignored,
//   negative values are an error, as in TensorFlow's kernels. Only stored
//   values count: the implicit zeros of a SparseTensor do not.
#include <type_traits>

#include "ops/array/array_util.h"
#include "ops/sparse/sparse_ops.h"

namespace tfhost::ops::sparse {
namespace {

std::string Str(int64_t v) { return std::to_string(v); }

// Adds `rows[i]`'s value i into a [num_rows, size] output (num_rows < 0: a
// 1-D output of [size]).
template <typename T>
Status Count(const KernelContext& ctx, const std::vector<int64_t>& values, const std::vector<int64_t>& rows,
             int64_t num_rows, int64_t size, const Tensor& weights, bool binary, Tensor& out) {
  const bool weighted = weights.NumElements() > 0;
  const T* w = weighted ? weights.data<T>() : nullptr;
  T* o = out.data<T>();
  for (size_t i = 0; i < values.size(); ++i) {
    const int64_t bin = values[i];
    if (bin < 0) return ctx.Error("values must be non-negative, got " + Str(bin) + " at " + Str(static_cast<int64_t>(i)));
    if (bin >= size) continue;
    const int64_t row = num_rows < 0 ? 0 : rows[i];
    T& cell = o[row * size + bin];
    if (binary) {
      cell = T(1);
    } else if constexpr (std::is_integral_v<T>) {
      using U = std::make_unsigned_t<T>;
      cell = static_cast<T>(static_cast<U>(cell) + static_cast<U>(weighted ? w[i] : T(1)));
    } else {
      cell += weighted ? w[i] : T(1);
    }
  }
  return OkStatus();
}

Status Bincount(KernelContext& ctx, const std::vector<int64_t>& values, const std::vector<int64_t>& rows,
                int64_t num_rows, int size_input, int weights_input) {
  TFHOST_ASSIGN_OR_RETURN(int64_t size, array::ReadIndexScalar(ctx, size_input, "size", false));
  if (size < 0) return ctx.Error("size must be non-negative, got " + Str(size));
  TFHOST_ASSIGN_OR_RETURN(bool binary, ctx.AttrOr<bool>("binary_output", false));
  const Tensor& weights = ctx.input(weights_input);
  if (weights.NumElements() > 0 && weights.NumElements() != static_cast<int64_t>(values.size())) {
    return ctx.Error("weights must be empty or have one entry per value (" + Str(static_cast<int64_t>(values.size())) +
                     "), got shape " + weights.shape().ToString());
  }
  std::vector<int64_t> dims = {size};
  if (num_rows >= 0) dims.insert(dims.begin(), num_rows);
  TFHOST_ASSIGN_OR_RETURN(Shape shape, array::OutputShape(ctx, dims, "output shape"));
  Tensor out(weights.dtype(), shape);
  switch (weights.dtype()) {
    case DType::kInt32: TFHOST_RETURN_IF_ERROR(Count<int32_t>(ctx, values, rows, num_rows, size, weights, binary, out)); break;
    case DType::kInt64: TFHOST_RETURN_IF_ERROR(Count<int64_t>(ctx, values, rows, num_rows, size, weights, binary, out)); break;
    case DType::kFloat: TFHOST_RETURN_IF_ERROR(Count<float>(ctx, values, rows, num_rows, size, weights, binary, out)); break;
    case DType::kDouble: TFHOST_RETURN_IF_ERROR(Count<double>(ctx, values, rows, num_rows, size, weights, binary, out)); break;
    default: return ctx.Error("weights must be int32, int64, float or double, got " + DTypeName(weights.dtype()));
  }
  ctx.set_output(0, std::move(out));
  return OkStatus();
}

Status SparseBincount(KernelContext& ctx) {
  const Tensor& idx = ctx.input(0);
  const Tensor& shape_t = ctx.input(2);
  if (idx.dtype() != DType::kInt64 || idx.rank() != 2) {
    return ctx.Error("indices must be a 2-D int64 tensor, got " + idx.shape().ToString());
  }
  if (shape_t.dtype() != DType::kInt64 || shape_t.rank() != 1 || shape_t.dim(0) != idx.dim(1)) {
    return ctx.Error("dense_shape must be an int64 vector with one entry per index column (" + Str(idx.dim(1)) +
                     "), got " + shape_t.shape().ToString());
  }
  const int64_t rank = idx.dim(1);
  if (rank != 1 && rank != 2) return ctx.Error("only 1-D and 2-D sparse inputs are supported, got rank " + Str(rank));
  TFHOST_ASSIGN_OR_RETURN(std::vector<int64_t> values, array::ReadIndexVector(ctx, 1, "values"));
  if (ctx.input(1).rank() != 1 || static_cast<int64_t>(values.size()) != idx.dim(0)) {
    return ctx.Error("values must be a vector with one entry per index row (" + Str(idx.dim(0)) + "), got shape " +
                     ctx.input(1).shape().ToString());
  }
  const int64_t* ix = idx.data<int64_t>();
  const int64_t* dense_shape = shape_t.data<int64_t>();
  for (int64_t d = 0; d < rank; ++d) {
    if (dense_shape[d] < 0) return ctx.Error("dense_shape[" + Str(d) + "] is negative");
  }
  std::vector<int64_t> rows(values.size());
  for (size_t i = 0; i < values.size(); ++i) {
    for (int64_t d = 0; d < rank; ++d) {
      const int64_t x = ix[i * rank + d];
      if (x < 0 || x >= dense_shape[d]) {
        return ctx.Error("indices[" + Str(static_cast<int64_t>(i)) + ", " + Str(d) + "] = " + Str(x) +
                         " is out of bounds of dense_shape " + array::JoinInts({dense_shape, dense_shape + rank}));
      }
    }
    rows[i] = ix[i * rank];
  }
  return Bincount(ctx, values, rows, rank == 1 ? -1 : dense_shape[0], 3, 4);
}

Status RaggedBincount(KernelContext& ctx) {
  const Tensor& splits_t = ctx.input(0);
  if (splits_t.dtype() != DType::kInt64 || splits_t.rank() != 1 || splits_t.dim(0) < 1) {
    return ctx.Error("splits must be a non-empty int64 vector, got " + splits_t.shape().ToString());
  }
  TFHOST_ASSIGN_OR_RETURN(std::vector<int64_t> values, array::ReadIndexVector(ctx, 1, "values"));
  if (ctx.input(1).rank() != 1) return ctx.Error("values must be a vector, got " + ctx.input(1).shape().ToString());
  const int64_t* s = splits_t.data<int64_t>();
  const int64_t num_rows = splits_t.dim(0) - 1;
  if (s[0] != 0) return ctx.Error("splits must start with 0, not with " + Str(s[0]));
  if (s[num_rows] != static_cast<int64_t>(values.size())) {
    return ctx.Error("splits must end with the number of values, got " + Str(s[num_rows]) + " instead of " +
                     Str(static_cast<int64_t>(values.size())));
  }
  // All splits are checked before any row is written: an entry past the
  // last one (a later entry then decreasing back) would index past `rows`.
  for (int64_t r = 0; r < num_rows; ++r) {
    if (s[r + 1] < s[r]) return ctx.Error("splits must be non-decreasing, but entry " + Str(r + 1) + " is below its predecessor");
  }
  std::vector<int64_t> rows(values.size());
  for (int64_t r = 0; r < num_rows; ++r) {
    for (int64_t i = s[r]; i < s[r + 1]; ++i) rows[i] = r;
  }
  return Bincount(ctx, values, rows, num_rows, 2, 3);
}

}  // namespace

void RegisterSparseBincountOps(OpRegistry& registry) {
  registry.Register(ir::OpDefBuilder("SparseBincount")
                        .Input("indices: int64")
                        .Input("values: Tidx")
                        .Input("dense_shape: int64")
                        .Input("size: Tidx")
                        .Input("weights: T")
                        .Attr("Tidx: {int32, int64}")
                        .Attr("T: {int32, int64, float, double}")
                        .Attr("binary_output: bool = false")
                        .Output("output: T"),
                    SparseBincount);
  registry.Register(ir::OpDefBuilder("RaggedBincount")
                        .Input("splits: int64")
                        .Input("values: Tidx")
                        .Input("size: Tidx")
                        .Input("weights: T")
                        .Attr("Tidx: {int32, int64}")
                        .Attr("T: {int32, int64, float, double}")
                        .Attr("binary_output: bool = false")
                        .Output("output: T"),
                    RaggedBincount);
}

}  // namespace tfhost::ops::sparse
