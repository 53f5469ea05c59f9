// The nn op family: convolutions (plain, fused, depthwise, transposed),
// activations, bias, pooling, batch norm, image resize and LRN.
#include "ops/nn/nn_registrations.h"
#include "ops/op_registry.h"

namespace tfhost::ops {

void RegisterNnOps(OpRegistry& registry) {
  nn::RegisterConv2DOps(registry);
  nn::RegisterConv2DBackpropOps(registry);
  nn::RegisterDepthwiseConvOps(registry);
  nn::RegisterFusedMatMulOps(registry);
  nn::RegisterExpandDepthwiseOps(registry);
  nn::RegisterLayerNormOps(registry);
  nn::RegisterLstmCellOps(registry);
  nn::RegisterLstmLoopOps(registry);
  nn::RegisterBiasAddOps(registry);
  nn::RegisterActivationOps(registry);
  nn::RegisterPoolingOps(registry);
  nn::RegisterFusedBatchNormOps(registry);
  nn::RegisterImageResizeOps(registry);
  nn::RegisterLrnOps(registry);
  nn::RegisterConv3DPool3DOps(registry);
  nn::RegisterFakeQuantOps(registry);
  nn::RegisterDilation2DOps(registry);
  nn::RegisterMaxPoolWithArgmaxOps(registry);
  nn::RegisterDepthwiseConvBackpropOps(registry);
  nn::RegisterConv3DBackpropOps(registry);
}

}  // namespace tfhost::ops
