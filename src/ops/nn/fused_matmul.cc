// _FusedMatMul: MatMul followed by the fused_ops epilogue (BiasAdd and an
// optional activation), as grappler and the TF.js converter emit it for dense
// layers; _TfhostFusedBatchMatMul, the same for batched products of rank >= 3.
// The matmul is a small local one (row of A times B, accumulating a
// contiguous row of C) so this family does not depend on the math family.
#include <algorithm>
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

// _TfhostFusedBatchMatMul: BatchMatMulV2 (adj_x/adj_y, batch dims broadcast
// NumPy-style, ranks >= 2) followed by the same epilogue, channels along the
// last dim, or by ["Add" (, activation)] with a tensor addend that broadcasts
// to the output.
Status FusedBatchMatMulImpl(const KernelContext& ctx, const std::vector<Tensor>& in,
                            std::vector<Tensor>& out) {
  const Tensor& a = in[0];
  const Tensor& b = in[1];
  TFHOST_ASSIGN_OR_RETURN(bool adj_x, ctx.AttrOr<bool>("adj_x", false));
  TFHOST_ASSIGN_OR_RETURN(bool adj_y, ctx.AttrOr<bool>("adj_y", false));
  if (a.rank() < 2 || b.rank() < 2) {
    return ctx.Error("x and y must have rank >= 2, got shapes " + a.shape().ToString() + " and " +
                     b.shape().ToString());
  }
  if (a.dtype() != b.dtype()) {
    return ctx.Error("x and y dtypes differ: " + DTypeShortName(a.dtype()) + " vs " + DTypeShortName(b.dtype()));
  }
  const int r = std::max(a.rank(), b.rank());
  std::vector<int64_t> ad(r - a.rank(), 1), bd(r - b.rank(), 1);
  ad.insert(ad.end(), a.shape().dims().begin(), a.shape().dims().end());
  bd.insert(bd.end(), b.shape().dims().begin(), b.shape().dims().end());
  const int64_t m = adj_x ? ad[r - 1] : ad[r - 2];
  const int64_t k = adj_x ? ad[r - 2] : ad[r - 1];
  const int64_t kb = adj_y ? bd[r - 1] : bd[r - 2];
  const int64_t n = adj_y ? bd[r - 2] : bd[r - 1];
  if (k != kb) {
    return ctx.Error("inner dimensions differ: x " + a.shape().ToString() + (adj_x ? " (adjoint)" : "") +
                     " and y " + b.shape().ToString() + (adj_y ? " (adjoint)" : ""));
  }
  std::vector<int64_t> cd(r);
  for (int i = 0; i < r - 2; ++i) {
    if (ad[i] != bd[i] && ad[i] != 1 && bd[i] != 1) {
      return ctx.Error("batch dimensions do not broadcast: x " + a.shape().ToString() + " and y " +
                       b.shape().ToString());
    }
    cd[i] = ad[i] == 1 ? bd[i] : ad[i];
  }
  cd[r - 2] = m;
  cd[r - 1] = n;
  TFHOST_ASSIGN_OR_RETURN(Shape out_shape, MakeShape(cd, ir::NodeContext(ctx.node()) + " output"));
  // The output before the per-batch index tables: a session's tensor limit
  // refuses a huge output first, and an empty one (a zero dim beside dims of
  // 2^40) needs no tables at all.
  Tensor c(a.dtype(), out_shape);
  // Each output batch's operand matrices (broadcast dims repeat matrix 0).
  const int64_t batches = c.NumElements() == 0 ? 0 : c.NumElements() / (m * n);
  std::vector<int64_t> a_batch(batches), b_batch(batches);
  for (int64_t bi = 0; bi < batches; ++bi) {
    int64_t rest = bi, a_idx = 0, b_idx = 0, a_stride = 1, b_stride = 1;
    for (int i = r - 3; i >= 0; --i) {
      const int64_t pos = rest % cd[i];
      rest /= cd[i];
      if (ad[i] != 1) a_idx += pos * a_stride;
      if (bd[i] != 1) b_idx += pos * b_stride;
      a_stride *= ad[i];
      b_stride *= bd[i];
    }
    a_batch[bi] = a_idx;
    b_batch[bi] = b_idx;
  }
  // fused_ops ["Add" (, activation)]: a tensor addend broadcast to the output
  // (an attention mask), the spelling of grappler's oneDNN BatchMatMul fusion.
  TFHOST_ASSIGN_OR_RETURN(auto fused_ops, ctx.AttrOr<std::vector<std::string>>("fused_ops", {}));
  const bool addend_form = !fused_ops.empty() && fused_ops[0] == "Add";
  Activation addend_act = Activation::kNone;
  std::vector<double> addend;
  if (addend_form) {
    if (in.size() < 3 || fused_ops.size() > 2) {
      return ctx.Error("fused_ops [Add, ...] needs one addend arg and at most one activation after it");
    }
    if (fused_ops.size() == 2) {
      TFHOST_ASSIGN_OR_RETURN(addend_act, ParseFusedActivation(fused_ops[1]));
      if (addend_act == Activation::kPrelu) return ctx.Error("Prelu cannot follow Add");
    }
    auto values = BroadcastValues(in[2], out_shape);
    if (!values.ok()) return ctx.Error("addend: " + values.status().message());
    addend = std::move(*values);
  }
  TFHOST_ASSIGN_OR_RETURN(float leaky_alpha, ctx.AttrOr<float>("leakyrelu_alpha", 0.2f));
  auto run = [&](auto zero) -> Status {
    using T = decltype(zero);
    FusedEpilogue<T> epi;
    if (!addend_form) {
      TFHOST_ASSIGN_OR_RETURN(epi, BuildFusedEpilogue<T>(ctx, in, 2, c.shape(), false));
    }
    if (c.NumElements() == 0) return OkStatus();
    std::vector<T> b_t;
    const T* bp = b.data<T>();
    if (adj_y) {  // every [n, k] matrix -> [k, n], so the inner loop is contiguous
      b_t.resize(static_cast<size_t>(b.NumElements()));
      for (int64_t mat = 0; mat < b.NumElements() / std::max<int64_t>(1, k * n); ++mat) {
        const T* src = bp + mat * k * n;
        T* dst = b_t.data() + mat * k * n;
        for (int64_t j = 0; j < n; ++j)
          for (int64_t p = 0; p < k; ++p) dst[p * n + j] = src[j * k + p];
      }
      bp = b_t.data();
    }
    const T* ap = a.data<T>();
    T* cp = c.data<T>();
    auto body = [&](int64_t begin, int64_t end) {  // rows of the [batches * m, n] output
      for (int64_t row = begin; row < end;) {
        const int64_t bi = row / m, i0 = row % m;
        const int64_t i1 = std::min(m, i0 + (end - row));
        MatMulRows<T>(ap + a_batch[bi] * m * k, adj_x, bp + b_batch[bi] * k * n, m, k, n, cp + bi * m * n, i0, i1);
        row += i1 - i0;
      }
      if (!epi.IsIdentity()) epi.Apply(cp + begin * n, begin * n, (end - begin) * n);
      if (addend_form) {
        for (int64_t i = begin * n; i < end * n; ++i) cp[i] = static_cast<T>(cp[i] + static_cast<T>(addend[i]));
        ApplyActivation<T>(addend_act, static_cast<T>(leaky_alpha), cp + begin * n, (end - begin) * n);
      }
    };
    ParallelRows(ctx, batches * m, body);
    return OkStatus();
  };
  TFHOST_RETURN_IF_ERROR(DispatchFloatOrDouble(ctx, a.dtype(), run));
  out[0] = c;
  return OkStatus();
}

Status FusedBatchMatMulKernel(KernelContext& ctx) {
  return RunWidened(ctx, 2, 0, {0}, FusedBatchMatMulImpl);
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
  // tfhost's own (conv_bias_activation_fusion writes it for batched products
  // of rank >= 3, which _FusedMatMul's 2-D schema cannot hold; TensorFlow has
  // no fused op of this meaning).
  registry.Register(ir::OpDefBuilder("_TfhostFusedBatchMatMul")
                        .Input("x: T")
                        .Input("y: T")
                        .Input("args: num_args * T")
                        .Output("output: T")
                        .Attr("adj_x: bool = false")
                        .Attr("adj_y: bool = false")
                        .Attr("T: {half, bfloat16, float, double}")
                        .Attr("num_args: int >= 0")
                        .Attr("fused_ops: list(string) = []")
                        .Attr("epsilon: float = 0.0001")
                        .Attr("leakyrelu_alpha: float = 0.2"),
                    FusedBatchMatMulKernel);
}

}  // namespace tfhost::ops::nn
