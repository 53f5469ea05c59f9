// _TfhostLayerNorm: layer normalization over the last axis, as Keras 3's
// LayerNormalization (keras.ops.layer_norm) writes it in ops:
//   mean = Mean(x, -1, keep_dims); var = Mean(SquaredDifference(x, mean), -1, keep_dims)
//   m = Rsqrt(var + epsilon) * gamma; y = x * m + (-mean * m + beta)
// passes/layer_norm_fusion writes it in place of those eleven nodes, so that
// a backend reads each row once and writes it once (BERT-base ran them as
// 25 x 7 nodes, about 2% of a batch-1 run).
//
// Inputs: x [..., C], gamma and beta with C values each (shape [C] or
// [1, ..., 1, C], of rank at most x's). Attrs: T (float), epsilon. Output:
// y, x's shape.
//
// The reference kernel computes every value as the ops' reference kernels
// do (the means summed in double and rounded to float, the rest in float in
// the order above), so the fused node gives exactly their results.
#pragma once

#include <cstdint>

#include "ops/op_kernel.h"

namespace tfhost::ops::nn {

inline constexpr const char* kLayerNormOp = "_TfhostLayerNorm";
// _TfhostAddLayerNorm(a, b, gamma, beta): the layer norm of AddV2(a, b), a
// transformer's residual sum and the norm after it (BERT's post-norm
// layers), so the sum is never written out. The reference kernel runs
// AddV2's reference kernel (broadcasting as it does), then the layer norm.
inline constexpr const char* kAddLayerNormOp = "_TfhostAddLayerNorm";

struct LayerNormGeometry {
  int64_t rows = 0;
  int64_t channels = 0;
};

// Checks the inputs' dtypes and shapes; errors name the node and the input.
StatusOr<LayerNormGeometry> CheckLayerNormInputs(const KernelContext& ctx);
// The same for the operands of the norm held elsewhere (the residual sum).
StatusOr<LayerNormGeometry> CheckLayerNormOperands(const KernelContext& ctx, const Tensor& x, const Tensor& gamma,
                                                   const Tensor& beta);

// One row of `channels` values as the reference kernel computes it.
void LayerNormRowReference(const float* x, const float* gamma, const float* beta, float epsilon, float* y,
                           int64_t channels);

}  // namespace tfhost::ops::nn
