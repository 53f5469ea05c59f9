#include "ops/math/math_util.h"

#include <algorithm>

namespace tfhost::ops::math {

Status UnsupportedDType(const KernelContext& ctx, DType dtype) {
  return ctx.Error(ctx.node().op + " does not support dtype " + DTypeShortName(dtype));
}

Tensor HalfLikeToFloat(const Tensor& t) {
  Tensor out(DType::kFloat, t.shape());
  const uint16_t* in = t.data<uint16_t>();
  float* o = out.data<float>();
  const int64_t n = t.NumElements();
  if (t.dtype() == DType::kHalf) {
    for (int64_t i = 0; i < n; ++i) o[i] = HalfToFloat(in[i]);
  } else {
    for (int64_t i = 0; i < n; ++i) o[i] = BFloat16ToFloat(in[i]);
  }
  return out;
}

Tensor FloatToHalfLike(const Tensor& t, DType dtype) {
  Tensor out(dtype, t.shape());
  const float* in = t.data<float>();
  uint16_t* o = out.data<uint16_t>();
  const int64_t n = t.NumElements();
  if (dtype == DType::kHalf) {
    for (int64_t i = 0; i < n; ++i) o[i] = FloatToHalf(in[i]);
  } else {
    for (int64_t i = 0; i < n; ++i) o[i] = FloatToBFloat16(in[i]);
  }
  return out;
}

namespace {

Status CheckAxisDType(const KernelContext& ctx, const Tensor& axes, const std::string& what) {
  if (axes.dtype() != DType::kInt32 && axes.dtype() != DType::kInt64) {
    return ctx.Error(what + " must be int32 or int64, got " + DTypeShortName(axes.dtype()));
  }
  return OkStatus();
}

StatusOr<int> WrapAxis(const KernelContext& ctx, int64_t axis, int rank, const std::string& what) {
  if (axis < -rank || axis >= rank) {
    return ctx.Error(what + " " + std::to_string(axis) + " is out of range for a tensor of rank " +
                     std::to_string(rank) + " (expected [" + std::to_string(-rank) + ", " +
                     std::to_string(rank) + "))");
  }
  return static_cast<int>(axis < 0 ? axis + rank : axis);
}

}  // namespace

StatusOr<std::vector<int>> ReadAxes(const KernelContext& ctx, const Tensor& axes, int rank,
                                    const std::string& what) {
  TFHOST_RETURN_IF_ERROR(CheckAxisDType(ctx, axes, what));
  if (axes.rank() > 1) {
    return ctx.Error(what + " must be a scalar or 1-D, got shape " + axes.shape().ToString());
  }
  TFHOST_ASSIGN_OR_RETURN(std::vector<int64_t> values, axes.ToInt64Vector());
  std::vector<int> result;
  std::vector<bool> seen(rank, false);
  for (int64_t v : values) {
    TFHOST_ASSIGN_OR_RETURN(int a, WrapAxis(ctx, v, rank, what));
    if (seen[a]) {
      return ctx.Error(what + " contains duplicate dimension " + std::to_string(a));
    }
    seen[a] = true;
    result.push_back(a);
  }
  std::sort(result.begin(), result.end());
  return result;
}

StatusOr<int> ReadScalarAxis(const KernelContext& ctx, const Tensor& axis, int rank,
                             const std::string& what) {
  TFHOST_RETURN_IF_ERROR(CheckAxisDType(ctx, axis, what));
  if (axis.NumElements() != 1 || axis.rank() > 1) {
    return ctx.Error(what + " must be a scalar, got shape " + axis.shape().ToString());
  }
  TFHOST_ASSIGN_OR_RETURN(std::vector<int64_t> values, axis.ToInt64Vector());
  return WrapAxis(ctx, values[0], rank, what);
}

void ParallelElementwiseOnPool(ThreadPool* pool, int64_t n, const std::function<void(int64_t, int64_t)>& fn) {
  pool->ParallelFor(n, kParallelElementwiseMinChunk, fn);
}

}  // namespace tfhost::ops::math
