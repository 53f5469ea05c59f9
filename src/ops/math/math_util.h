// Shared plumbing for the math kernels: compile-time type categories, a dtype
// visitor, half/bfloat16 <-> float32 conversion (those types are computed in
// float32 and rounded back to nearest even), integer arithmetic that wraps like
// TensorFlow's instead of being undefined, axis parsing, and a helper that
// spreads element-wise work over the intra-op pool.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <type_traits>
#include <vector>

#include "base/tensor.h"
#include "base/thread_pool.h"
#include "ops/op_kernel.h"
#include "ops/wrapping_arithmetic.h"

namespace tfhost::ops::math {

// ---- type categories -------------------------------------------------------

template <typename T>
inline constexpr bool kIsFloat = std::is_floating_point_v<T>;
template <typename T>
inline constexpr bool kIsInt = std::is_integral_v<T> && !std::is_same_v<T, bool>;
template <typename T>
inline constexpr bool kIsReal = kIsFloat<T> || kIsInt<T>;
template <typename T>
inline constexpr bool kIsBool = std::is_same_v<T, bool>;
template <typename T>
inline constexpr bool kIsString = std::is_same_v<T, std::string>;

// Schema type lists in REGISTER_OP spelling.
inline constexpr const char* kFloatTypes = "{bfloat16, half, float, double}";
inline constexpr const char* kRealTypes =
    "{bfloat16, half, float, double, int8, int16, int32, int64, uint8, uint16, uint32, uint64}";
inline constexpr const char* kSignedTypes =
    "{bfloat16, half, float, double, int8, int16, int32, int64}";

template <typename T>
struct TypeTag {
  using type = T;
};

// Calls f(TypeTag<T>{}) with T the storage type of `dtype` for float, double,
// every integer, bool and string; returns `other` for any other dtype
// (half/bfloat16 are converted to float by the callers first).
template <typename F>
Status VisitDType(DType dtype, F&& f, const std::function<Status()>& other) {
  switch (dtype) {
    case DType::kFloat: return f(TypeTag<float>{});
    case DType::kDouble: return f(TypeTag<double>{});
    case DType::kInt8: return f(TypeTag<int8_t>{});
    case DType::kInt16: return f(TypeTag<int16_t>{});
    case DType::kInt32: return f(TypeTag<int32_t>{});
    case DType::kInt64: return f(TypeTag<int64_t>{});
    case DType::kUInt8: return f(TypeTag<uint8_t>{});
    case DType::kUInt16: return f(TypeTag<uint16_t>{});
    case DType::kUInt32: return f(TypeTag<uint32_t>{});
    case DType::kUInt64: return f(TypeTag<uint64_t>{});
    case DType::kBool: return f(TypeTag<bool>{});
    case DType::kString: return f(TypeTag<std::string>{});
    default: return other();
  }
}

// "node 'x' (Sqrt): Sqrt does not support dtype int32".
Status UnsupportedDType(const KernelContext& ctx, DType dtype);

// ---- half / bfloat16 ---------------------------------------------------------

inline bool IsHalfLike(DType d) { return d == DType::kHalf || d == DType::kBFloat16; }
// A float32 copy of a half/bfloat16 tensor.
Tensor HalfLikeToFloat(const Tensor& t);
// `t` (float32) rounded to half/bfloat16 (nearest even).
Tensor FloatToHalfLike(const Tensor& t, DType dtype);

// ---- axes ----------------------------------------------------------------------

// Reads an int32/int64 scalar or 1-D axis tensor, wraps negatives into
// [0, rank) and rejects out-of-range and duplicate axes. `what` names the input.
StatusOr<std::vector<int>> ReadAxes(const KernelContext& ctx, const Tensor& axes, int rank,
                                    const std::string& what);
// Reads one scalar axis in [-rank, rank) and wraps it.
StatusOr<int> ReadScalarAxis(const KernelContext& ctx, const Tensor& axis, int rank,
                             const std::string& what);

// ---- parallelism ---------------------------------------------------------------

// Runs fn(begin, end) over [0, n): on the intra-op pool when there is one and
// the work is large enough, otherwise inline. The inline case makes no
// std::function (a lambda capturing more than two references would be
// copied to the heap): small tensors, a While loop's scalars, are most calls.
inline constexpr int64_t kParallelElementwiseMinChunk = 1 << 15;
void ParallelElementwiseOnPool(ThreadPool* pool, int64_t n, const std::function<void(int64_t, int64_t)>& fn);
template <typename Fn>
void ParallelElementwise(const KernelContext& ctx, int64_t n, Fn&& fn) {
  ThreadPool* pool = ctx.intra_op();
  if (pool == nullptr || pool->num_threads() == 0 || n < 2 * kParallelElementwiseMinChunk) {
    if (n > 0) fn(int64_t{0}, n);
    return;
  }
  ParallelElementwiseOnPool(pool, n, fn);
}

}  // namespace tfhost::ops::math
