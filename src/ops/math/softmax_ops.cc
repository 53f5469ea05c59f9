// Softmax and LogSoftmax over the last axis. Numerically stable: each row's
// maximum is subtracted before exponentiating, and sums run in double, so huge
// logits stay finite. Rows are split over the intra-op pool.
#include <algorithm>
#include <cmath>
#include <limits>

#include "ops/math/math_ops.h"
#include "ops/math/math_util.h"

namespace tfhost::ops::math {
namespace {

template <bool kLog, typename T>
void SoftmaxRows(const KernelContext& ctx, const T* in, T* out, int64_t rows, int64_t depth) {
  auto run = [&](int64_t begin, int64_t end) {
    for (int64_t r = begin; r < end; ++r) {
      const T* x = in + r * depth;
      T* y = out + r * depth;
      double max = -std::numeric_limits<double>::infinity();
      for (int64_t i = 0; i < depth; ++i) max = std::max(max, static_cast<double>(x[i]));
      double sum = 0;
      for (int64_t i = 0; i < depth; ++i) sum += std::exp(static_cast<double>(x[i]) - max);
      if constexpr (kLog) {
        const double log_sum = std::log(sum);
        for (int64_t i = 0; i < depth; ++i) y[i] = static_cast<T>(static_cast<double>(x[i]) - max - log_sum);
      } else {
        for (int64_t i = 0; i < depth; ++i) y[i] = static_cast<T>(std::exp(static_cast<double>(x[i]) - max) / sum);
      }
    }
  };
  ThreadPool* pool = ctx.intra_op();
  if (pool != nullptr && pool->num_threads() > 0 && rows > 1) {
    pool->ParallelFor(rows, std::max<int64_t>(1, 8192 / std::max<int64_t>(1, depth)), run);
  } else {
    run(0, rows);
  }
}

template <bool kLog>
Status SoftmaxKernel(KernelContext& ctx) {
  Tensor x = ctx.input(0);
  const DType dtype = x.dtype();
  if (x.rank() < 1) return ctx.Error("logits must have rank >= 1, got a scalar");
  const int64_t depth = x.dim(x.rank() - 1);
  const int64_t rows = depth == 0 ? 0 : x.NumElements() / depth;
  const bool half_like = IsHalfLike(dtype);
  if (half_like) x = HalfLikeToFloat(x);
  Tensor out(x.dtype(), x.shape());
  if (x.dtype() == DType::kFloat) {
    SoftmaxRows<kLog>(ctx, x.data<float>(), out.data<float>(), rows, depth);
  } else if (x.dtype() == DType::kDouble) {
    SoftmaxRows<kLog>(ctx, x.data<double>(), out.data<double>(), rows, depth);
  } else {
    return UnsupportedDType(ctx, dtype);
  }
  if (half_like) out = FloatToHalfLike(out, dtype);
  ctx.set_output(0, std::move(out));
  return OkStatus();
}

}  // namespace

void RegisterSoftmaxOps(OpRegistry& registry) {
  registry.Register(ir::OpDefBuilder("Softmax")
                        .Input("logits: T")
                        .Output("softmax: T")
                        .Attr(std::string("T: ") + kFloatTypes),
                    SoftmaxKernel<false>);
  registry.Register(ir::OpDefBuilder("LogSoftmax")
                        .Input("logits: T")
                        .Output("logsoftmax: T")
                        .Attr(std::string("T: ") + kFloatTypes),
                    SoftmaxKernel<true>);
}

}  // namespace tfhost::ops::math
