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
    if (!act.ok() || (*act != ops::nn::Activation::kRelu && *act != ops::nn::Activation::kRelu6)) return false;
    e.act = *act;
    ++i;
  }
  if (i != ops.size() || *num_args != (e.bias ? 1 : 0) + (e.residual ? 1 : 0)) return false;
  *out = e;
  return true;
}

}  // namespace tfhost::backends::simd
