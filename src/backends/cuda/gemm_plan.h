// The host-side half of the CUDA backend's matrix products: how TensorFlow's
// row-major MatMul / BatchMatMulV2 (with adj_x/adj_y or transpose_a/b and
// broadcast batch dims) maps onto cuBLASLt's column-major GEMM. Header-only
// so that the CPU tests evaluate a plan with a column-major reference GEMM
// and compare it with the ops' reference kernels.
//
// The mapping: a row-major [r, c] matrix is a column-major [c, r] one with
// the same bytes, so the row-major product Z[M, N] = X[M, K] Y[K, N] is the
// column-major Z^T[N, M] = Y^T[N, K] X^T[K, M]. cuBLASLt's "A" is therefore
// TensorFlow's y and its "B" is x; a transposed operand keeps its bytes and
// flips its cuBLAS op. The bias of an epilogue runs along Z's last dim,
// which is the column-major result's rows, as cuBLASLt's BIAS epilogue
// wants.
//
// Batches: equal batch dims give one strided-batched call. A y shared by
// every batch (rank 2, or batch dims of 1) with an untransposed x folds the
// batch into M: one call over [batch * M, K]. Every other broadcast gives
// one call per output batch, at the offsets the plan lists, so that no
// stride-0 batch is ever asked of the library.
//
// Thread-safety: pure functions.
#pragma once

#include <algorithm>
#include <string>
#include <vector>

#include "base/shape.h"
#include "base/status.h"

namespace tfhost::backends::cuda {

// One column-major operand as cuBLASLt's matrix layout and op see it.
struct GemmOperand {
  int64_t rows = 0;  // of the stored matrix, before its op
  int64_t cols = 0;
  int64_t ld = 0;
  bool transpose = false;  // CUBLAS_OP_T
  int64_t batch_stride = 0;  // elements between batches (strided calls)
};

struct GemmPlan {
  // D[m, n] = op(A)[m, k] op(B)[k, n], column-major; m = N, n = M (folded: batch * M).
  int64_t m = 0, n = 0, k = 0;
  GemmOperand a;  // TensorFlow's y
  GemmOperand b;  // TensorFlow's x
  int64_t d_ld = 0;
  int64_t d_batch_stride = 0;
  // Products per call; one call unless `calls` is non-empty.
  int64_t batch = 1;
  // Per call when the batches do not stride evenly: element offsets into y,
  // x and the output. Each call then has batch 1.
  struct Call {
    int64_t y_offset = 0, x_offset = 0, out_offset = 0;
  };
  std::vector<Call> calls;
  Shape out_shape;
};

// x and y as MatMul (rank 2) or BatchMatMulV2 (rank >= 2, batch dims
// broadcast) see them. InvalidArgument, quoting both shapes, when the inner
// dims differ or the batch dims do not broadcast.
inline StatusOr<GemmPlan> MakeGemmPlan(const Shape& x, const Shape& y, bool adj_x, bool adj_y) {
  if (x.rank() < 2 || y.rank() < 2) {
    return InvalidArgument("matrix product operands must be at least 2-D, got " + x.ToString() + " and " +
                           y.ToString());
  }
  const int64_t xr = x.dim(x.rank() - 2), xc = x.dim(x.rank() - 1);
  const int64_t yr = y.dim(y.rank() - 2), yc = y.dim(y.rank() - 1);
  const int64_t M = adj_x ? xc : xr, K = adj_x ? xr : xc;
  const int64_t Ky = adj_y ? yc : yr, N = adj_y ? yr : yc;
  if (K != Ky) {
    return InvalidArgument("In[0] and In[1] have incompatible inner dims: " + x.ToString() +
                           (adj_x ? " (adjoint)" : "") + " and " + y.ToString() + (adj_y ? " (adjoint)" : ""));
  }
  // Broadcast batch dims, right-aligned.
  const int xb_rank = x.rank() - 2, yb_rank = y.rank() - 2;
  const int b_rank = std::max(xb_rank, yb_rank);
  std::vector<int64_t> batch_dims(b_rank), x_bdims(b_rank, 1), y_bdims(b_rank, 1);
  for (int d = 0; d < b_rank; ++d) {
    const int xd = d - (b_rank - xb_rank), yd = d - (b_rank - yb_rank);
    x_bdims[d] = xd >= 0 ? x.dim(xd) : 1;
    y_bdims[d] = yd >= 0 ? y.dim(yd) : 1;
    if (x_bdims[d] != y_bdims[d] && x_bdims[d] != 1 && y_bdims[d] != 1) {
      return InvalidArgument("In[0] and In[1] must have compatible batch dimensions: " + x.ToString() + " vs. " +
                             y.ToString());
    }
    batch_dims[d] = (x_bdims[d] == 0 || y_bdims[d] == 0) ? 0 : std::max(x_bdims[d], y_bdims[d]);
  }
  int64_t batch = 1, x_batch = 1, y_batch = 1;
  for (int d = 0; d < b_rank; ++d) {
    batch *= batch_dims[d];
    x_batch *= x_bdims[d];
    y_batch *= y_bdims[d];
  }
  std::vector<int64_t> out_dims = batch_dims;
  out_dims.push_back(M);
  out_dims.push_back(N);

  GemmPlan p;
  p.out_shape = Shape(out_dims);
  p.m = N;
  p.n = M;
  p.k = K;
  // cuBLASLt's A: y's bytes as column-major. Untransposed y is row-major
  // [K, N] = column-major [N, K]; adj_y's y is row-major [N, K] = column-major [K, N].
  p.a = adj_y ? GemmOperand{K, N, K, true, N * K} : GemmOperand{N, K, N, false, K * N};
  // cuBLASLt's B: x's bytes. Untransposed x is row-major [M, K] = column-major [K, M].
  p.b = adj_x ? GemmOperand{M, K, M, true, M * K} : GemmOperand{K, M, K, false, K * M};
  p.d_ld = N;
  p.d_batch_stride = M * N;
  if (batch <= 1 || (x_batch == batch && y_batch == batch)) {
    p.batch = batch;
    return p;
  }
  if (y_batch == 1 && x_batch == batch && !adj_x) {
    // Every product shares y: x's batches are consecutive rows of one [batch * M, K] matrix.
    p.n = batch * M;
    p.b.cols = batch * M;
    p.batch = 1;
    return p;
  }
  // One call per output batch, at the offsets broadcasting gives.
  p.batch = 1;
  p.calls.resize(static_cast<size_t>(batch));
  std::vector<int64_t> coord(b_rank, 0);
  for (int64_t i = 0; i < batch; ++i) {
    int64_t xi = 0, yi = 0;
    for (int d = 0; d < b_rank; ++d) {
      xi = xi * x_bdims[d] + (x_bdims[d] == 1 ? 0 : coord[d]);
      yi = yi * y_bdims[d] + (y_bdims[d] == 1 ? 0 : coord[d]);
    }
    p.calls[i] = {yi * K * N, xi * M * K, i * M * N};
    for (int d = b_rank - 1; d >= 0; --d) {
      if (++coord[d] < batch_dims[d]) break;
      coord[d] = 0;
    }
  }
  return p;
}

}  // namespace tfhost::backends::cuda
