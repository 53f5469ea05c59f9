// SparseTensorDenseMatMul: product = op(A) x op(B) with A a 2-D SparseTensor
// (a_indices [N, 2], a_values [N], a_shape [2]) and B dense; op() transposes
// when adjoint_a / adjoint_b is set (real dtypes: adjoint = transpose).
// Duplicate entries of A add up, as in TensorFlow. Accumulates in double.
#include "ops/array/array_util.h"
#include "ops/sparse/sparse_ops.h"
#include "ops/sparse/sparse_util.h"

namespace tfhost::ops::sparse {
namespace {

std::string Str(int64_t v) { return std::to_string(v); }

Status SparseTensorDenseMatMul(KernelContext& ctx) {
  TFHOST_ASSIGN_OR_RETURN(bool adj_a, ctx.AttrOr<bool>("adjoint_a", false));
  TFHOST_ASSIGN_OR_RETURN(bool adj_b, ctx.AttrOr<bool>("adjoint_b", false));
  const Tensor& idx_t = ctx.input(0);
  const Tensor& values = ctx.input(1);
  const Tensor& shape_t = ctx.input(2);
  const Tensor& b = ctx.input(3);
  if (idx_t.rank() != 2 || idx_t.dim(1) != 2) {
    return ctx.Error("a_indices must be a matrix [N, 2], got " + idx_t.shape().ToString());
  }
  if (values.rank() != 1 || values.dim(0) != idx_t.dim(0)) {
    return ctx.Error("a_values must be a vector of " + Str(idx_t.dim(0)) + " entries, got " +
                     values.shape().ToString());
  }
  if (shape_t.rank() != 1 || shape_t.dim(0) != 2) return ctx.Error("a_shape must be a vector of 2 entries");
  if (b.rank() != 2) return ctx.Error("b must be a matrix, got " + b.shape().ToString());
  if (values.dtype() != b.dtype() || !IsRealNumber(b.dtype())) {
    return ctx.Error("a_values and b must have the same real number dtype");
  }
  const int64_t* shp = shape_t.data<int64_t>();
  if (shp[0] < 0 || shp[1] < 0) return ctx.Error("a_shape must be non-negative");
  const int64_t out_rows = adj_a ? shp[1] : shp[0];
  const int64_t inner_a = adj_a ? shp[0] : shp[1];
  const int64_t inner_b = adj_b ? b.dim(1) : b.dim(0);
  const int64_t out_cols = adj_b ? b.dim(0) : b.dim(1);
  if (inner_a != inner_b) {
    return ctx.Error("Cannot multiply A and B because inner dimension does not match: " + Str(inner_a) + " vs. " +
                     Str(inner_b));
  }
  TFHOST_ASSIGN_OR_RETURN(Shape out_shape, array::OutputShape(ctx, {out_rows, out_cols}, "product"));
  auto idx = idx_t.ToInt64Vector();
  if (!idx.ok()) return ctx.Error("a_indices must be an integer tensor");
  const std::vector<double> av = values.ToDoubleVector();
  const std::vector<double> bv = b.ToDoubleVector();
  std::vector<double> acc(static_cast<size_t>(out_shape.num_elements()), 0.0);
  for (int64_t i = 0; i < idx_t.dim(0); ++i) {
    int64_t r = (*idx)[2 * i], c = (*idx)[2 * i + 1];
    if (r < 0 || r >= shp[0] || c < 0 || c >= shp[1]) {
      return ctx.Error("a_indices[" + Str(i) + "] = [" + Str(r) + ", " + Str(c) + "] is out of bounds of [" +
                       Str(shp[0]) + ", " + Str(shp[1]) + "]");
    }
    const int64_t m = adj_a ? c : r;  // output row
    const int64_t k = adj_a ? r : c;  // inner index
    for (int64_t n = 0; n < out_cols; ++n) {
      const double bkn = adj_b ? bv[n * b.dim(1) + k] : bv[k * b.dim(1) + n];
      acc[m * out_cols + n] += av[i] * bkn;
    }
  }
  Tensor out(b.dtype(), out_shape);
  StoreDoubles(acc, out);
  ctx.set_output(0, std::move(out));
  return OkStatus();
}

}  // namespace

void RegisterSparseMatMulOps(OpRegistry& registry) {
  registry.Register(ir::OpDefBuilder("SparseTensorDenseMatMul")
                        .Input("a_indices: Tindices")
                        .Input("a_values: T")
                        .Input("a_shape: int64")
                        .Input("b: T")
                        .Output("product: T")
                        .Attr("T: type")
                        .Attr("Tindices: {int32,int64} = DT_INT64")
                        .Attr("adjoint_a: bool = false")
                        .Attr("adjoint_b: bool = false"),
                    SparseTensorDenseMatMul);
}

}  // namespace tfhost::ops::sparse
