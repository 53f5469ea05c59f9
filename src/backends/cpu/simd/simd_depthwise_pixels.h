// The row function of the strided/wide depthwise kernel
// (simd_depthwise_pixels.cc), for kernels that produce a depthwise
// convolution's input rows themselves (the fused expansion + depthwise
// kernel, simd_expand_depthwise.cc). AVX-512 only; stateless.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "base/tensor.h"
#include "ops/nn/conv_geometry.h"
#include "ops/nn/fused_activation.h"

namespace tfhost::backends::simd::depthwise_pixels {

// Filter taps and bias, channel block by channel block: block b holds its K*K
// tap vectors (ky-major) and then its bias vector, zero past the channels.
struct Pattern {
  std::vector<float> taps_and_bias;
};

// filter [k, k, channels, 1]; bias [channels] or null.
std::shared_ptr<const Pattern> BuildPattern(const Tensor& filter, const Tensor* bias, int64_t k, int64_t channels);

struct RowArgs {
  const float* pattern = nullptr;  // Pattern::taps_and_bias
  ops::nn::ConvGeometry g;         // in_w, out_w, stride_w and pad_left are read
  int64_t channels = 0;
  ops::nn::Activation act = ops::nn::Activation::kNone;  // as ConvEpilogue's
};

// One output row of a 3x3 depthwise convolution at stride g.stride_w (1 or 2)
// from its three input rows (rows[ky]: in_w x channels floats, or null
// where the window is in the padding), into out (out_w x channels floats).
void Row3x3(const RowArgs& a, const float* const rows[3], float* out);

}  // namespace tfhost::backends::simd::depthwise_pixels
