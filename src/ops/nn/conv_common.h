// What Conv2D and DepthwiseConv2dNative (and their fused forms _FusedConv2D
// and FusedDepthwiseConv2dNative) share around their row kernels: the kernel
// wrapper, the operand checks, and running the rows with a fused epilogue.
// Only the per-row math and the filter-shape rules differ between them.
#pragma once

#include <string>
#include <vector>

#include "ops/nn/conv_geometry.h"
#include "ops/nn/fused_activation.h"
#include "ops/nn/nn_util.h"

namespace tfhost::ops::nn {

// The body of a convolution with a plain and a fused form (`fused`: the
// fused_ops epilogue args start at input 2).
using ConvImpl = Status (*)(const KernelContext& ctx, const std::vector<Tensor>& in,
                            std::vector<Tensor>& out, bool fused);

// A kernel running `impl` with half/bfloat16 widened (at least 2 inputs; T
// from input 0; output 0 narrowed back).
inline KernelFn MakeConvKernel(ConvImpl impl, bool fused) {
  return [impl, fused](KernelContext& ctx) {
    return RunWidened(ctx, 2, 0, {0},
                      [impl, fused](const KernelContext& c, const std::vector<Tensor>& in,
                                    std::vector<Tensor>& out) { return impl(c, in, out, fused); });
  };
}

// Input and filter must be 4-D and of one dtype; `filter_dims` names the
// filter's dims in the error (e.g. "[kh, kw, in_c, out_c]").
inline Status CheckConvOperands(const KernelContext& ctx, const Tensor& input,
                                const Tensor& filter, const std::string& filter_dims) {
  if (input.rank() != 4) {
    return ctx.Error("input must be 4-D, got shape " + input.shape().ToString());
  }
  if (filter.rank() != 4) {
    return ctx.Error("filter must be 4-D " + filter_dims + ", got shape " +
                     filter.shape().ToString());
  }
  if (input.dtype() != filter.dtype()) {
    return ctx.Error("input and filter dtypes differ: " + DTypeShortName(input.dtype()) + " vs " +
                     DTypeShortName(filter.dtype()));
  }
  return OkStatus();
}

// For `y` (NHWC, g.batch x g.out_h rows, float or double, else Unimplemented)
// builds the epilogue (from in[2...] when `fused`, identity otherwise; its
// channels are y's last dim) and runs rows_fn(epi, y.data<T>(), begin, end)
// over all rows in parallel.
template <typename RowsFn>
Status RunConvRows(const KernelContext& ctx, const std::vector<Tensor>& in, bool fused,
                   const ConvGeometry& g, Tensor& y, const RowsFn& rows_fn) {
  return DispatchFloatOrDouble(ctx, y.dtype(), [&](auto zero) -> Status {
    using T = decltype(zero);
    FusedEpilogue<T> epi;
    if (fused) {
      TFHOST_ASSIGN_OR_RETURN(epi, BuildFusedEpilogue<T>(ctx, in, 2, y.shape(), true));
    }
    epi.channels = y.dim(3);
    T* yp = y.data<T>();
    ParallelRows(ctx, g.batch * g.out_h,
                 [&](int64_t begin, int64_t end) { rows_fn(epi, yp, begin, end); });
    return OkStatus();
  });
}

}  // namespace tfhost::ops::nn
