// Small helpers shared by the nn op family: computing half/bfloat16 ops in
// float32, NCHW <-> NHWC transposes, and materializing a broadcast operand.
// Kernels in this folder are written for NHWC float/double; these helpers let
// them serve the other layouts and 16-bit float types without copies of the
// math.
#pragma once

#include <functional>
#include <vector>

#include "base/tensor.h"
#include "ops/op_kernel.h"

namespace tfhost::ops::nn {

inline bool IsHalfLike(DType d) { return d == DType::kHalf || d == DType::kBFloat16; }

// half/bfloat16 -> float32; any other tensor is returned unchanged (shared).
Tensor WidenToFloat(const Tensor& t);
// float32 -> `target` (half or bfloat16, round to nearest even); unchanged if
// `target` is not half-like or `t` is not float32.
Tensor NarrowFromFloat(const Tensor& t, DType target);

// The body of a kernel that computes on `inputs` (already widened) and fills
// `outputs` (sized to the node's output count). `ctx` is for attrs and errors.
using NnImpl = std::function<Status(const KernelContext& ctx, const std::vector<Tensor>& inputs,
                                    std::vector<Tensor>& outputs)>;

// Checks that the node has at least `min_inputs` inputs, then runs `impl`
// with every half/bfloat16 input widened to float32, and narrows the outputs
// listed in `narrow_outputs` back to the dtype of input `t_input` when that is
// half-like. Then sets the context's outputs.
Status RunWidened(KernelContext& ctx, int min_inputs, int t_input,
                  const std::vector<int>& narrow_outputs, const NnImpl& impl);

// Runs `body` over the row range [0, rows) on the context's intra-op pool
// (chunks of at least one row), or inline on this thread when it has none.
void ParallelRows(const KernelContext& ctx, int64_t rows,
                  const std::function<void(int64_t, int64_t)>& body);

// The Unimplemented error of a kernel that computes only in float32/float64
// (half and bfloat16 arrive widened by RunWidened), naming the node.
Status FloatOrDoubleOnlyError(const KernelContext& ctx, DType dtype);

// Returns fn(float{}) or fn(double{}) as `dtype` says; for any other dtype,
// FloatOrDoubleOnlyError without calling `fn`.
template <typename Fn>
Status DispatchFloatOrDouble(const KernelContext& ctx, DType dtype, Fn&& fn) {
  if (dtype == DType::kFloat) return fn(float{});
  if (dtype == DType::kDouble) return fn(double{});
  return FloatOrDoubleOnlyError(ctx, dtype);
}

// 4-D layout transposes for any fixed-size dtype. Precondition: rank 4.
Tensor NchwToNhwc(const Tensor& t);
Tensor NhwcToNchw(const Tensor& t);

// `t`'s values (any real dtype, half/bfloat16 included) broadcast to `shape`
// by NumPy rules, as a dense row-major vector. Fails naming both shapes when
// `t` does not broadcast to exactly `shape`.
StatusOr<std::vector<double>> BroadcastValues(const Tensor& t, const Shape& shape);

// Upper bound on elements of an output whose size an attr or input tensor
// chooses (resize sizes, explicit paddings, transposed-conv sizes), so that a
// corrupt model gets an error instead of a huge allocation: 2^31 elements.
inline constexpr int64_t kMaxOutputElements = int64_t{1} << 31;

// Allocates a zero-filled tensor after checking `dims` against
// kMaxOutputElements; the error names `what`.
StatusOr<Tensor> AllocateChecked(DType dtype, const std::vector<int64_t>& dims,
                                 const std::string& what);

}  // namespace tfhost::ops::nn
