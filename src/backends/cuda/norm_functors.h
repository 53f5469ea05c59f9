// The math of the CUDA backend's normalizations (norm_kernels.cu and
// softmax_kernels.cu), written once for the device and the host, where
// norm_functors_test.cc composes them as the kernels do and compares the
// result with the ops' reference kernels:
//   - _TfhostLayerNorm and _TfhostAddLayerNorm (ops/nn/layer_norm.h): a
//     row's mean, then the mean of its squared differences from it, then
//     each output from the value, the mean and 1/sqrt(var + epsilon), in
//     the reference kernel's order of operations;
//   - _TfhostMaskedSoftmax (ops/math/masked_softmax.h): each logit where the
//     mask holds and the fill where it does not, then the softmax
//     (softmax_functors.h), and with zero_masked a 0 where the mask fails;
//   - FusedBatchNorm/V2/V3 at inference: a multiplier and a shift per
//     channel from scale, offset, mean and variance.
// The device sums in float, in a tree; the reference sums in double, so
// the test allows float rounding.
//
// Thread-safety: stateless.
#pragma once

#include <cmath>

#include "backends/cuda/softmax_functors.h"

namespace tfhost::backends::cuda {

TFHOST_HD float LayerNormInvStd(float var, float epsilon) { return 1.0f / sqrtf(var + epsilon); }

// y = x * m + (-mean * m + beta) with m = inv_std * gamma, as
// keras.ops.layer_norm writes it.
TFHOST_HD float LayerNormOut(float x, float mean, float inv_std, float gamma, float beta) {
  const float m = inv_std * gamma;
  return x * m + (-mean * m + beta);
}

// FusedBatchNorm's inference output, y = x * m + (offset - mean * m) with
// m = scale / sqrt(variance + epsilon) per channel, in float (the reference
// kernel computes m and the shift in double).
TFHOST_HD float BatchNormMultiplier(float scale, float variance, float epsilon) {
  return scale / sqrtf(variance + epsilon);
}
TFHOST_HD float BatchNormOut(float x, float multiplier, float offset, float mean) {
  return x * multiplier + (offset - mean * multiplier);
}

// SelectV2(mask, logits, fill)'s value at one position.
TFHOST_HD float MaskedLogit(bool keep, float logit, float fill) { return keep ? logit : fill; }

// The softmax's output at a position whose masked logit is `v`.
TFHOST_HD float MaskedSoftmaxOut(bool keep, bool zero_masked, float v, float max, float sum) {
  return zero_masked && !keep ? 0.0f : SoftmaxOut(false, v, max, sum);
}

}  // namespace tfhost::backends::cuda
