// Select (TensorFlow 1 semantics) and SelectV2 (three-way broadcasting):
// output[i] = condition[i] ? t[i] : e[i], for any element type.
//
// Select requires t and e of one shape, and a condition that is a scalar, has
// t's shape, or is a vector of t.dim(0) picking whole rows. Both reduce to the
// broadcasting walk: a row condition [n] is viewed as [n, 1, ..., 1].
#include <type_traits>

#include "ops/math/broadcast.h"
#include "ops/math/math_ops.h"
#include "ops/math/math_util.h"

namespace tfhost::ops::math {
namespace {

// The shape without its last dim (rank 0 stays a scalar).
Shape WithoutLastDim(const Shape& s) {
  if (s.rank() == 0) return s;
  return Shape(std::vector<int64_t>(s.dims().begin(), s.dims().end() - 1));
}

// Row by row when the output's last dim is long and each operand either has
// it or broadcasts along it (an attention mask [1, 1, T, T] against scores
// [B, H, T, T], a scalar fill): the inner loop then steps each operand by 0
// or 1 without the per-element offset walk. False when that does not apply.
template <typename T>
bool SelectRows(const KernelContext& ctx, const Shape& cs, const Shape& ts, const Shape& es, const Shape& out,
                const bool* c, const T* t, const T* e, T* o) {
  if (out.rank() == 0) return false;
  const int64_t len = out.dim(out.rank() - 1);
  if (len < 16) return false;
  const Shape* shapes[3] = {&cs, &ts, &es};
  int64_t step[3];
  std::vector<Shape> rows;
  for (int k = 0; k < 3; ++k) {
    const Shape& s = *shapes[k];
    const int64_t last = s.rank() == 0 ? 1 : s.dim(s.rank() - 1);
    step[k] = last == len ? 1 : 0;
    rows.push_back(WithoutLastDim(s));
  }
  auto bc = Broadcaster::MakeTo(rows, WithoutLastDim(out));
  if (!bc.ok()) return false;
  // Split by elements (the pool's grain), each row to the chunk holding its
  // first element, so no two chunks write one row.
  ParallelElementwise(ctx, out.num_elements(), [&](int64_t begin, int64_t end) {
    const int64_t first = (begin + len - 1) / len, last = (end + len - 1) / len;
    bc->ForEach(first, last, [&](int64_t r, const int64_t* off) {
      const bool* cr = c + off[0] * (step[0] ? len : 1);
      const T* tr = t + off[1] * (step[1] ? len : 1);
      const T* er = e + off[2] * (step[2] ? len : 1);
      T* orow = o + r * len;
      for (int64_t j = 0; j < len; ++j) orow[j] = cr[j * step[0]] ? tr[j * step[1]] : er[j * step[2]];
    });
  });
  return true;
}

template <typename T>
void SelectLoop(const KernelContext& ctx, const Broadcaster& bc, const Shape& cs, const Shape& ts, const Shape& es,
                const bool* c, const T* t, const T* e, T* o) {
  const int64_t n = bc.num_elements();
  if (bc.IsIdentity(0) && bc.IsIdentity(1) && bc.IsIdentity(2)) {
    for (int64_t i = 0; i < n; ++i) o[i] = c[i] ? t[i] : e[i];
    return;
  }
  if constexpr (std::is_arithmetic_v<T>) {
    if (SelectRows(ctx, cs, ts, es, bc.output_shape(), c, t, e, o)) return;
  }
  bc.ForEach(0, n, [&](int64_t i, const int64_t* off) { o[i] = c[off[0]] ? t[off[1]] : e[off[2]]; });
}

// Selects between inputs 1 and 2 by input 0; `bc` broadcasts (cond, t, e),
// the condition viewed as `cond_shape`.
Status RunSelect(KernelContext& ctx, const Broadcaster& bc, const Shape& cond_shape) {
  const Tensor& cond = ctx.input(0);
  const Tensor& t = ctx.input(1);
  const Tensor& e = ctx.input(2);
  Tensor out(t.dtype(), bc.output_shape());
  const bool* c = cond.data<bool>();
  const Shape& ts = t.shape();
  const Shape& es = e.shape();
  if (IsStringLike(t.dtype())) {
    SelectLoop<std::string>(ctx, bc, cond_shape, ts, es, c, t.strings(), e.strings(), out.strings());
  } else {
    bool supported = true;
    TFHOST_SWITCH_POD_TYPES(
        t.dtype(), SelectLoop<T>(ctx, bc, cond_shape, ts, es, c, t.data<T>(), e.data<T>(), out.data<T>()),
        supported = false);
    if (!supported) return UnsupportedDType(ctx, t.dtype());
  }
  ctx.set_output(0, std::move(out));
  return OkStatus();
}

Status CheckInputs(const KernelContext& ctx) {
  TFHOST_RETURN_IF_ERROR(ctx.CheckDType(0, DType::kBool));
  if (ctx.input(1).dtype() != ctx.input(2).dtype()) {
    return ctx.Error("t and e must have the same dtype, got " + DTypeShortName(ctx.input(1).dtype()) +
                     " and " + DTypeShortName(ctx.input(2).dtype()));
  }
  return OkStatus();
}

Status SelectKernel(KernelContext& ctx) {
  TFHOST_RETURN_IF_ERROR(CheckInputs(ctx));
  const Shape& cs = ctx.input(0).shape();
  const Shape& ts = ctx.input(1).shape();
  const Shape& es = ctx.input(2).shape();
  if (ts != es) {
    return ctx.Error("t and e must have the same shape, got " + ts.ToString() + " and " + es.ToString());
  }
  Shape cond_view = cs;
  if (cs.rank() == 1 && ts.rank() > 1) {
    if (cs.dim(0) != ts.dim(0)) {
      return ctx.Error("a vector condition must have t's first dimension, got condition " +
                       cs.ToString() + " and t " + ts.ToString());
    }
    std::vector<int64_t> dims(ts.rank(), 1);
    dims[0] = cs.dim(0);
    cond_view = Shape(dims);
  } else if (!cs.IsScalar() && cs != ts) {
    return ctx.Error("condition must be a scalar, a vector of t's first dimension, or have t's shape; got "
                     "condition " + cs.ToString() + " and t " + ts.ToString());
  }
  TFHOST_ASSIGN_OR_RETURN(Broadcaster bc, Broadcaster::MakeTo({cond_view, ts, es}, ts));
  return RunSelect(ctx, bc, cond_view);
}

Status SelectV2Kernel(KernelContext& ctx) {
  TFHOST_RETURN_IF_ERROR(CheckInputs(ctx));
  auto bc = Broadcaster::Make({ctx.input(0).shape(), ctx.input(1).shape(), ctx.input(2).shape()});
  if (!bc.ok()) return ctx.Error(bc.status().message());
  return RunSelect(ctx, *bc, ctx.input(0).shape());
}

}  // namespace

void RegisterSelectOps(OpRegistry& registry) {
  registry.Register(ir::OpDefBuilder("Select")
                        .Input("condition: bool")
                        .Input("t: T")
                        .Input("e: T")
                        .Output("output: T")
                        .Attr("T: type"),
                    SelectKernel);
  registry.Register(ir::OpDefBuilder("SelectV2")
                        .Input("condition: bool")
                        .Input("t: T")
                        .Input("e: T")
                        .Output("output: T")
                        .Attr("T: type"),
                    SelectV2Kernel);
}

}  // namespace tfhost::ops::math
