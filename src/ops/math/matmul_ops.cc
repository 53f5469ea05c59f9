// Matrix products: MatMul (2-D, transpose_a/b), BatchMatMul (equal batch
// dims), BatchMatMulV2 (batch dims broadcast) and BatchMatMulV3 (operands of
// dtypes Ta/Tb cast to the output dtype Tout first). adj_x/adj_y transpose the
// last two dims (for real dtypes the adjoint is the transpose).
//
// Reference kernel: floats accumulate in double, integers in 64 bits (wrapping
// back to the element type, like TensorFlow). Loop order is i-p-j over a
// row-major copy of the right operand, so the innermost loop streams through
// contiguous memory; output rows are split over the intra-op pool.
#include <algorithm>

#include "ops/math/broadcast.h"
#include "ops/math/cast_op.h"
#include "ops/math/math_ops.h"
#include "ops/math/math_util.h"

namespace tfhost::ops::math {
namespace {

// One product C = op(A) · op(B) per output batch; x_batch[b] / y_batch[b] are
// the matrix indices of x and y used for output batch b.
struct GemmPlan {
  int64_t m = 0, n = 0, k = 0;
  bool adj_x = false, adj_y = false;
  std::vector<int64_t> x_batch, y_batch;
};

template <typename T>
using AccType = std::conditional_t<kIsFloat<T>, double,
                                   std::conditional_t<std::is_signed_v<T>, int64_t, uint64_t>>;

template <typename T>
void BatchGemm(const KernelContext& ctx, const GemmPlan& p, const Tensor& x, const Tensor& y,
               Tensor& out) {
  using Acc = AccType<T>;
  const int64_t m = p.m, n = p.n, k = p.k;
  const int64_t num_batches = static_cast<int64_t>(p.x_batch.size());
  if (m == 0 || n == 0 || num_batches == 0) return;
  // Every matrix of y as a row-major [k, n] array of Acc.
  const int64_t y_matrices = k * n == 0 ? 0 : y.NumElements() / (k * n);
  std::vector<Acc> rhs(static_cast<size_t>(y_matrices * k * n));
  const T* yd = y.data<T>();
  for (int64_t b = 0; b < y_matrices; ++b) {
    const T* src = yd + b * k * n;
    Acc* dst = rhs.data() + b * k * n;
    for (int64_t r = 0; r < k; ++r) {
      for (int64_t c = 0; c < n; ++c) {
        dst[r * n + c] = static_cast<Acc>(p.adj_y ? src[c * k + r] : src[r * n + c]);
      }
    }
  }
  const T* xd = x.data<T>();
  T* od = out.data<T>();
  auto rows = [&](int64_t begin, int64_t end) {
    std::vector<Acc> acc(n);
    for (int64_t row = begin; row < end; ++row) {
      const int64_t b = row / m, i = row % m;
      const T* a = xd + p.x_batch[b] * m * k;
      const Acc* bm = rhs.data() + p.y_batch[b] * k * n;
      std::fill(acc.begin(), acc.end(), Acc(0));
      for (int64_t q = 0; q < k; ++q) {
        const Acc av = static_cast<Acc>(p.adj_x ? a[q * m + i] : a[i * k + q]);
        const Acc* brow = bm + q * n;
        for (int64_t j = 0; j < n; ++j) acc[j] = WrapAdd(acc[j], WrapMul(av, brow[j]));
      }
      T* o = od + b * m * n + i * n;
      for (int64_t j = 0; j < n; ++j) o[j] = static_cast<T>(acc[j]);
    }
  };
  const int64_t total_rows = num_batches * m;
  ThreadPool* pool = ctx.intra_op();
  if (pool != nullptr && pool->num_threads() > 0) {
    const int64_t min_chunk = std::max<int64_t>(1, (int64_t{1} << 16) / std::max<int64_t>(1, n * k));
    pool->ParallelFor(total_rows, min_chunk, rows);
  } else {
    rows(0, total_rows);
  }
}

// Runs the plan for x, y of one dtype, converting half/bfloat16 via float32.
Status RunGemm(KernelContext& ctx, const GemmPlan& plan, Tensor x, Tensor y, const Shape& out_shape) {
  const DType dtype = x.dtype();
  const bool half_like = IsHalfLike(dtype);
  if (half_like) {
    x = HalfLikeToFloat(x);
    y = HalfLikeToFloat(y);
  }
  Tensor out(x.dtype(), out_shape);
  TFHOST_RETURN_IF_ERROR(VisitDType(
      x.dtype(),
      [&](auto tag) -> Status {
        using T = typename decltype(tag)::type;
        if constexpr (kIsReal<T>) {
          BatchGemm<T>(ctx, plan, x, y, out);
          return OkStatus();
        } else {
          return UnsupportedDType(ctx, dtype);
        }
      },
      [&] { return UnsupportedDType(ctx, dtype); }));
  if (half_like) out = FloatToHalfLike(out, dtype);
  ctx.set_output(0, std::move(out));
  return OkStatus();
}

Status CheckSameDType(const KernelContext& ctx, const Tensor& x, const Tensor& y) {
  if (x.dtype() != y.dtype()) {
    return ctx.Error("both operands must have the same dtype, got " + DTypeShortName(x.dtype()) +
                     " and " + DTypeShortName(y.dtype()));
  }
  return OkStatus();
}

Status MatMulKernel(KernelContext& ctx) {
  const Tensor& a = ctx.input(0);
  const Tensor& b = ctx.input(1);
  TFHOST_RETURN_IF_ERROR(CheckSameDType(ctx, a, b));
  TFHOST_ASSIGN_OR_RETURN(bool ta, ctx.AttrOr<bool>("transpose_a", false));
  TFHOST_ASSIGN_OR_RETURN(bool tb, ctx.AttrOr<bool>("transpose_b", false));
  if (a.rank() != 2 || b.rank() != 2) {
    return ctx.Error("both operands must be 2-D, got shapes " + a.shape().ToString() + " and " +
                     b.shape().ToString());
  }
  GemmPlan plan;
  plan.adj_x = ta;
  plan.adj_y = tb;
  plan.m = ta ? a.dim(1) : a.dim(0);
  plan.k = ta ? a.dim(0) : a.dim(1);
  const int64_t kb = tb ? b.dim(1) : b.dim(0);
  plan.n = tb ? b.dim(0) : b.dim(1);
  if (plan.k != kb) {
    return ctx.Error("inner dimensions do not match: a " + a.shape().ToString() +
                     (ta ? " (transposed)" : "") + " times b " + b.shape().ToString() +
                     (tb ? " (transposed)" : ""));
  }
  plan.x_batch = {0};
  plan.y_batch = {0};
  return RunGemm(ctx, plan, a, b, Shape({plan.m, plan.n}));
}

// The batch matmuls. `broadcast` = V2/V3 (batch dims broadcast); V1 needs
// equal ranks and batch dims.
Status BatchMatMulImpl(KernelContext& ctx, Tensor x, Tensor y, bool broadcast) {
  TFHOST_RETURN_IF_ERROR(CheckSameDType(ctx, x, y));
  TFHOST_ASSIGN_OR_RETURN(bool adj_x, ctx.AttrOr<bool>("adj_x", false));
  TFHOST_ASSIGN_OR_RETURN(bool adj_y, ctx.AttrOr<bool>("adj_y", false));
  if (x.rank() < 2 || y.rank() < 2) {
    return ctx.Error("operands must have rank >= 2, got shapes " + x.shape().ToString() + " and " +
                     y.shape().ToString());
  }
  const int xr = x.rank(), yr = y.rank();
  GemmPlan plan;
  plan.adj_x = adj_x;
  plan.adj_y = adj_y;
  plan.m = adj_x ? x.dim(xr - 1) : x.dim(xr - 2);
  plan.k = adj_x ? x.dim(xr - 2) : x.dim(xr - 1);
  const int64_t ky = adj_y ? y.dim(yr - 1) : y.dim(yr - 2);
  plan.n = adj_y ? y.dim(yr - 2) : y.dim(yr - 1);
  if (plan.k != ky) {
    return ctx.Error("inner dimensions do not match: x " + x.shape().ToString() +
                     (adj_x ? " (adjoint)" : "") + " times y " + y.shape().ToString() +
                     (adj_y ? " (adjoint)" : ""));
  }
  Shape xb(std::vector<int64_t>(x.shape().dims().begin(), x.shape().dims().end() - 2));
  Shape yb(std::vector<int64_t>(y.shape().dims().begin(), y.shape().dims().end() - 2));
  if (!broadcast && xb != yb) {
    return ctx.Error("batch dimensions must be equal, got shapes " + x.shape().ToString() + " and " +
                     y.shape().ToString());
  }
  auto bc = Broadcaster::Make({xb, yb});
  if (!bc.ok()) {
    return ctx.Error("batch dimensions do not broadcast: x " + x.shape().ToString() + " and y " +
                     y.shape().ToString());
  }
  const int64_t batches = bc->num_elements();
  std::vector<int64_t> out_dims = bc->output_shape().dims();
  out_dims.push_back(plan.m);
  out_dims.push_back(plan.n);
  TFHOST_ASSIGN_OR_RETURN(Shape out_shape, MakeShape(out_dims, ir::NodeContext(ctx.node()) + " output"));
  // Nothing to compute: no per-batch offsets either (there may be 2^40 of
  // empty matrices).
  if (out_shape.num_elements() == 0) {
    ctx.set_output(0, Tensor(x.dtype(), out_shape));
    return OkStatus();
  }
  // The plan keeps two offsets per batch; past 2^31 batches (32 GiB of
  // offsets) no real product runs, and the allocation would fail anyway.
  if (batches > (int64_t{1} << 31)) {
    return ResourceExhausted(ir::NodeContext(ctx.node()) + ": " + std::to_string(batches) +
                             " batches of matrices; the limit is 2^31");
  }
  plan.x_batch.resize(batches);
  plan.y_batch.resize(batches);
  bc->ForEach(0, batches, [&](int64_t i, const int64_t* off) {
    plan.x_batch[i] = off[0];
    plan.y_batch[i] = off[1];
  });
  return RunGemm(ctx, plan, std::move(x), std::move(y), out_shape);
}

Status BatchMatMulKernel(KernelContext& ctx) {
  return BatchMatMulImpl(ctx, ctx.input(0), ctx.input(1), /*broadcast=*/false);
}

Status BatchMatMulV2Kernel(KernelContext& ctx) {
  return BatchMatMulImpl(ctx, ctx.input(0), ctx.input(1), /*broadcast=*/true);
}

Status BatchMatMulV3Kernel(KernelContext& ctx) {
  TFHOST_ASSIGN_OR_RETURN(DType tout, ctx.Attr<DType>("Tout"));
  auto x = CastTensor(ctx.input(0), tout);
  if (!x.ok()) return ctx.Error("x: " + x.status().message());
  auto y = CastTensor(ctx.input(1), tout);
  if (!y.ok()) return ctx.Error("y: " + y.status().message());
  return BatchMatMulImpl(ctx, std::move(*x), std::move(*y), /*broadcast=*/true);
}

}  // namespace

void RegisterMatMulOps(OpRegistry& registry) {
  const std::string types = std::string("T: ") + kRealTypes;
  registry.Register(ir::OpDefBuilder("MatMul")
                        .Input("a: T")
                        .Input("b: T")
                        .Output("product: T")
                        .Attr("transpose_a: bool = false")
                        .Attr("transpose_b: bool = false")
                        .Attr(types)
                        .Attr("grad_a: bool = false")
                        .Attr("grad_b: bool = false"),
                    MatMulKernel);
  registry.Register(ir::OpDefBuilder("BatchMatMul")
                        .Input("x: T")
                        .Input("y: T")
                        .Output("output: T")
                        .Attr(types)
                        .Attr("adj_x: bool = false")
                        .Attr("adj_y: bool = false"),
                    BatchMatMulKernel);
  registry.Register(ir::OpDefBuilder("BatchMatMulV2")
                        .Input("x: T")
                        .Input("y: T")
                        .Output("output: T")
                        .Attr(types)
                        .Attr("adj_x: bool = false")
                        .Attr("adj_y: bool = false")
                        .Attr("grad_x: bool = false")
                        .Attr("grad_y: bool = false"),
                    BatchMatMulV2Kernel);
  registry.Register(ir::OpDefBuilder("BatchMatMulV3")
                        .Input("x: Ta")
                        .Input("y: Tb")
                        .Output("output: Tout")
                        .Attr(std::string("Ta: ") + kRealTypes)
                        .Attr(std::string("Tb: ") + kRealTypes)
                        .Attr(std::string("Tout: ") + kRealTypes)
                        .Attr("adj_x: bool = false")
                        .Attr("adj_y: bool = false")
                        .Attr("grad_x: bool = false")
                        .Attr("grad_y: bool = false"),
                    BatchMatMulV3Kernel);
}

}  // namespace tfhost::ops::math
