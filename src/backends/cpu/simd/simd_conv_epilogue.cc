#include "backends/cpu/simd/simd_conv_epilogue.h"

#include <string>
#include <vector>

#include "ir/attrs.h"

namespace tfhost::backends::simd {

bool ParseConvEpilogue(const ir::Node& node, bool allow_residual, ConvEpilogue* out) {
  auto fused_ops = ir::GetAttrOr<std::vector<std::string>>(node, "fused_ops", {});
  auto num_args = ir::GetAttrOr<int64_t>(node, "num_args", 0);
  auto num_host_args = ir::GetAttrOr<int64_t>(node, "num_host_args", 0);
  if (!fused_ops.ok() || !num_args.ok() || !num_host_args.ok() || *num_host_args != 0) return false;
  const std::vector<std::string>& ops = *fused_ops;
  ConvEpilogue e;
  size_t i = 0;
  if (i < ops.size() && ops[i] == "BiasAdd") {
    e.bias = true;
    ++i;
  }
  if (i < ops.size() && ops[i] == "Add") {
    if (!allow_residual) return false;
    e.residual = true;
    ++i;
  }
  if (i < ops.size()) {
    auto act = ops::nn::ParseFusedActivation(ops[i]);
    if (!act.ok() || (*act != ops::nn::Activation::kRelu && *act != ops::nn::Activation::kRelu6 &&
                      !IsLogisticActivation(*act))) {
      return false;
    }
    e.act = *act;
    ++i;
  }
  if (i != ops.size() || *num_args != (e.bias ? 1 : 0) + (e.residual ? 1 : 0)) return false;
  *out = e;
  return true;
}

#ifdef TFHOST_SIMD_X86
__attribute__((target("avx512f,avx512bw,avx512dq,avx512vl,avx2,fma"))) void ApplyLogisticActivationAvx512(
    float* data, int64_t n, ops::nn::Activation act) {
  int64_t i = 0;
  for (; i + 16 <= n; i += 16) _mm512_storeu_ps(data + i, ApplyLogisticActivation(_mm512_loadu_ps(data + i), act));
  if (i < n) {
    const __mmask16 mask = static_cast<__mmask16>((1u << (n - i)) - 1);
    _mm512_mask_storeu_ps(data + i, mask, ApplyLogisticActivation(_mm512_maskz_loadu_ps(mask, data + i), act));
  }
}
#else
void ApplyLogisticActivationAvx512(float*, int64_t, ops::nn::Activation) {}
#endif

}  // namespace tfhost::backends::simd
