// _FusedMatMul: MatMul followed by the fused_ops epilogue (BiasAdd and an
// optional activation), as grappler and the TF.js converter emit it for dense
// layers. The matmul is a small local one (row of A times B, accumulating a
// contiguous row of C) so this family does not depend on the math family.
#include <vector>

#include "ops/nn/fused_activation.h"
#include "ops/nn/nn_registrations.h"
#include "ops/nn/nn_util.h"

namespace tfhost::ops::nn {

namespace {

// C[m, n] = op(A) * op(B) with C zero-initialized; rows [row_begin, row_end).
// `b` is already [k, n] (the caller transposes when transpose_b).
template <typename T>
void MatMulRows(const T* a, bool transpose_a, const T* b, int64_t m, int64_t k, int64_t n, T* c,
                int64_t row_begin, int64_t row_end) {
  for (int64_t i = row_begin; i < row_end; ++i) {
    T* __restrict c_row = c + i * n;
    for (int64_t p = 0; p < k; ++p) {
      const T v = transpose_a ? a[p * m + i] : a[i * k + p];
      const T* __restrict b_row = b + p * n;
      for (int64_t j = 0; j < n; ++j) c_row[j] += v * b_row[j];
    }
  }
}

Status FusedMatMulImpl(const KernelContext& ctx, const std::vector<Tensor>& in,
                       std::vector<Tensor>& out) {
  const Tensor& a = in[0];
  const Tensor& b = in[1];
  TFHOST_ASSIGN_OR_RETURN(bool transpose_a, ctx.AttrOr<bool>("transpose_a", false));
  TFHOST_ASSIGN_OR_RETURN(bool transpose_b, ctx.AttrOr<bool>("transpose_b", false));
  if (a.rank() != 2 || b.rank() != 2) {
    return ctx.Error("a and b must be 2-D, got shapes " + a.shape().ToString() + " and " +
                     b.shape().ToString());
  }
  if (a.dtype() != b.dtype()) {
    return ctx.Error("a and b dtypes differ: " + DTypeShortName(a.dtype()) + " vs " +
                     DTypeShortName(b.dtype()));
  }
  const int64_t m = transpose_a ? a.dim(1) : a.dim(0);
  const int64_t k = transpose_a ? a.dim(0) : a.dim(1);
  const int64_t kb = transpose_b ? b.dim(1) : b.dim(0);
  const int64_t n = transpose_b ? b.dim(0) : b.dim(1);
  if (k != kb) {
    return ctx.Error("inner dimensions differ: a " + a.shape().ToString() +
                     (transpose_a ? " (transposed)" : "") + " and b " + b.shape().ToString() +
                     (transpose_b ? " (transposed)" : ""));
  }
  Tensor c(a.dtype(), Shape({m, n}));
  auto run = [&](auto zero) -> Status {
    using T = decltype(zero);
    TFHOST_ASSIGN_OR_RETURN(FusedEpilogue<T> epi,
                            BuildFusedEpilogue<T>(ctx, in, 2, c.shape(), false));
    std::vector<T> b_t;
    const T* bp = b.data<T>();
    if (transpose_b) {  // [n, k] -> [k, n] so the inner loop is contiguous.
      b_t.resize(static_cast<size_t>(k * n));
      for (int64_t j = 0; j < n; ++j)
        for (int64_t p = 0; p < k; ++p) b_t[p * n + j] = bp[j * k + p];
      bp = b_t.data();
    }
    const T* ap = a.data<T>();
    T* cp = c.data<T>();
    auto body = [&](int64_t begin, int64_t end) {
      MatMulRows<T>(ap, transpose_a, bp, m, k, n, cp, begin, end);
      if (!epi.IsIdentity()) epi.Apply(cp + begin * n, begin * n, (end - begin) * n);
    };
    ParallelRows(ctx, m, body);
    return OkStatus();
  };
  TFHOST_RETURN_IF_ERROR(DispatchFloatOrDouble(ctx, a.dtype(), run));
  out[0] = c;
  return OkStatus();
}

Status FusedMatMulKernel(KernelContext& ctx) {
  return RunWidened(ctx, 2, 0, {0}, FusedMatMulImpl);
}

}  // namespace

void RegisterFusedMatMulOps(OpRegistry& registry) {
  registry.Register(ir::OpDefBuilder("_FusedMatMul")
                        .Input("a: T")
                        .Input("b: T")
                        .Input("args: num_args * T")
                        .Output("product: T")
                        .Attr("transpose_a: bool = false")
                        .Attr("transpose_b: bool = false")
                        .Attr("T: {half, bfloat16, float, double}")
                        .Attr("num_args: int >= 0")
                        .Attr("fused_ops: list(string) = []")
                        .Attr("epsilon: float = 0.0001")
                        .Attr("leakyrelu_alpha: float = 0.2"),
                    FusedMatMulKernel);
}

}  // namespace tfhost::ops::nn
