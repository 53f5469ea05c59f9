// Every tolerance the op conformance suite allows, in one place: per op and
// output dtype. A value passes when |got - want| <= atol + rtol * |want|.
// Integer, bool and string outputs must match exactly.
//
// Why these numbers: the float32 references (TensorFlow's own CPU kernels,
// TensorFlow.js, or values derived by hand in double) and tfhost's kernels
// both round once per element, but may sum in a different order or
// precision; 1e-5 covers an element-wise op or a short sum. Convolutions and
// long contractions sum dozens of products in float32 on the reference side,
// hence 1e-4. The audio front end takes logs of filterbank energies (Mfcc)
// and the reference values are quoted to 8 digits, hence 1e-4. float16 and
// bfloat16 results carry 11 and 8 significant bits, hence 1e-2.
#pragma once

#include <string>

#include "base/dtype.h"

namespace tfhost::conformance {

struct Tolerance {
  double rtol = 0;
  double atol = 0;
};

inline Tolerance ToleranceFor(const std::string& op, DType dtype) {
  if (dtype != DType::kFloat && dtype != DType::kDouble && dtype != DType::kHalf && dtype != DType::kBFloat16) {
    return {0, 0};
  }
  // Checked before the per-op entries: a float16/bfloat16 result is only as
  // exact as its type, whatever the op (a half-precision convolution would
  // otherwise get the 1e-4 of its float32 sums).
  if (dtype == DType::kHalf || dtype == DType::kBFloat16) return {1e-2, 1e-2};
  if (op == "Conv2D" || op == "Conv3D" || op == "DepthwiseConv2dNative" || op == "Conv2DBackpropInput" || op == "Einsum" ||
      op == "Mfcc" || op == "AudioSpectrogram" || op == "SparseTensorDenseMatMul") {
    return {1e-4, 1e-4};
  }
  // Transposed convolutions sum dozens of float32 products on the TensorFlow.js side, like Conv2DBackpropInput.
  if (op == "DepthwiseConv2dNativeBackpropInput" || op == "Conv3DBackpropInputV2") return {1e-4, 1e-4};
  return {1e-5, 1e-5};
}

}  // namespace tfhost::conformance
