// The math of the CUDA backend's Softmax and LogSoftmax (softmax_kernels.cu),
// over the last dim, one row at a time, in three steps: the row's maximum m,
// the sum s of exp(x - m), then each output from x, m and s. Written once for
// the device and the host, where softmax_functors_test.cc composes the steps
// and compares them with the ops' reference kernels. The device sums in
// float, in a tree (TensorFlow's GPU kernel sums in float too); the
// reference sums in double, so the test allows float rounding.
//
// Thread-safety: stateless.
#pragma once

#include <cmath>

#include "backends/cuda/elementwise_functors.h"

namespace tfhost::backends::cuda {

// The running maximum; a NaN in the row makes the sum, and so every output, NaN.
TFHOST_HD float SoftmaxMax(float running, float x) { return x > running ? x : running; }

TFHOST_HD float SoftmaxTerm(float x, float max) { return expf(x - max); }

TFHOST_HD float SoftmaxOut(bool log, float x, float max, float sum) {
  return log ? (x - max) - logf(sum) : expf(x - max) / sum;
}

}  // namespace tfhost::backends::cuda
