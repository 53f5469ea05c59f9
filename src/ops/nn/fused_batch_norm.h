// FusedBatchNorm, FusedBatchNormV2 and FusedBatchNormV3 (fused_batch_norm.cc):
// the checks of x, its parameters and the attrs, shared by the reference
// kernel and the device backends' kernels so that both refuse the same
// inputs in the same words.
//
// Thread-safety: pure functions.
#pragma once

#include <cstdint>

#include "ops/op_kernel.h"

namespace tfhost::ops::nn {

struct BatchNormSetup {
  float epsilon = 0.0001f;
  float avg_factor = 1.0f;
  bool is_training = true;
  bool channels_last = true;  // NHWC / NDHWC
  int64_t channels = 0;
  int64_t outer = 0;  // x viewed as [outer, channels, inner]
  int64_t inner = 0;
};

// x is 4-D (NHWC, NCHW) or 5-D (NDHWC, NCDHW) as data_format says; scale,
// offset, mean and variance (`params`) hold one value per channel, except
// that training with exponential_avg_factor 1 allows an empty mean and
// variance. Errors name the node and the input.
StatusOr<BatchNormSetup> ParseBatchNorm(const KernelContext& ctx, const Tensor& x, const Tensor* const params[4]);

}  // namespace tfhost::ops::nn
