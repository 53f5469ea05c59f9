// The fused_ops epilogues the SIMD convolution kernels apply themselves:
// [BiasAdd] [Add] [Relu | Relu6 | Sigmoid | _MklSwish] (an empty list too).
// Anything else (batch norm, other activations, host args) is for the kernel
// after them (oneDNN's). Sigmoid and Swish (x * sigmoid(x): EfficientNet's
// expansions and its squeeze-and-excitation gates) are within a few float
// ulps of the reference's.
#pragma once

#include <cstdint>

#include "backends/cpu/simd/simd_math.h"  // TFHOST_SIMD_X86, immintrin.h
#include "ir/graph.h"
#include "ops/nn/fused_activation.h"

namespace tfhost::backends::simd {

struct ConvEpilogue {
  bool bias = false;      // fused arg 0: one float per output channel
  bool residual = false;  // the last fused arg: a tensor of the output's shape
  // kNone, kRelu, kRelu6, kSigmoid or kSwish
  ops::nn::Activation act = ops::nn::Activation::kNone;
};

// Reads fused_ops / num_args / num_host_args; false for any other form, or a
// residual Add when !allow_residual.
bool ParseConvEpilogue(const ir::Node& node, bool allow_residual, ConvEpilogue* out);

inline bool IsLogisticActivation(ops::nn::Activation act) {
  return act == ops::nn::Activation::kSigmoid || act == ops::nn::Activation::kSwish;
}

#ifdef TFHOST_SIMD_X86
#define TFHOST_EPILOGUE_INLINE \
  inline __attribute__((always_inline, target("avx512f,avx512bw,avx512dq,avx512vl,avx2,fma")))

// Sigmoid or Swish of 16 lanes; any other activation returns v unchanged.
// An epilogue runs it on every output of a layer (EfficientNet's first
// expansion: 1.2M floats), so it is built for throughput: e^-|x| is
// ExpNonPositiveAvx512 (simd_math.h), and 1 / (1 + e) is VRCP14PS refined by
// a Newton step (relative error about 2^-28) instead of a division. Within a
// few float ulps of the exact sigmoid (simd_conv_epilogue_test). NaN stays
// NaN; Swish(-inf) is NaN (-inf * 0), as in the reference.
TFHOST_EPILOGUE_INLINE __m512 ApplyLogisticActivation(__m512 x, ops::nn::Activation act) {
  if (act != ops::nn::Activation::kSigmoid && act != ops::nn::Activation::kSwish) return x;
  // a = max(-|x|, -110), where e^a is 0 in float (as from -104 on): the
  // reduction needs a bounded n. max returns its second operand, a NaN x, as
  // it is.
  const __m512 a =
      _mm512_mask_max_ps(x, 0xffff, _mm512_set1_ps(-110.0f), _mm512_or_ps(x, _mm512_set1_ps(-0.0f)));
  const __m512 e = ExpNonPositiveAvx512(a);  // e^-|x|
  const __m512 d = _mm512_add_ps(e, _mm512_set1_ps(1.0f));
  __m512 inv = _mm512_mask_rcp14_ps(d, 0xffff, d);
  inv = _mm512_mul_ps(inv, _mm512_fnmadd_ps(d, inv, _mm512_set1_ps(2.0f)));  // 1 / (1 + e)
  // sigmoid(x) = 1 / (1 + e) for x >= 0, e / (1 + e) below (NaN too).
  const __mmask16 negative = _mm512_cmp_ps_mask(x, _mm512_setzero_ps(), _CMP_NGE_UQ);
  const __m512 sigmoid = _mm512_mask_mul_ps(inv, negative, e, inv);
  return act == ops::nn::Activation::kSwish ? _mm512_mul_ps(x, sigmoid) : sigmoid;
}

// The whole activation of a ConvEpilogue on 16 lanes, for the AVX-512
// kernels that apply it to their sums: Relu and Relu6 (max(0, v) and
// min(6, v) return v when it is NaN, as the reference; the all-lanes masked
// forms, as GCC 12 warns about the plain ones' undefined pass-through
// operand), or Sigmoid and Swish above.
TFHOST_EPILOGUE_INLINE __m512 ApplyConvActivation(__m512 v, ops::nn::Activation act) {
  if (act == ops::nn::Activation::kRelu || act == ops::nn::Activation::kRelu6) {
    v = _mm512_mask_max_ps(v, 0xffff, _mm512_setzero_ps(), v);
  }
  if (act == ops::nn::Activation::kRelu6) v = _mm512_mask_min_ps(v, 0xffff, _mm512_set1_ps(6.0f), v);
  return ApplyLogisticActivation(v, act);
}
#endif

// The same over n floats in place, on AVX-512 (callers are AVX-512 kernels):
// for kernels that apply it to rows they have just written, still in cache.
void ApplyLogisticActivationAvx512(float* data, int64_t n, ops::nn::Activation act);

}  // namespace tfhost::backends::simd
