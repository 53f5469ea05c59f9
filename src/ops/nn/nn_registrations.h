// Per-file registration hooks of the nn op family, called from register.cc.
// Internal to src/ops/nn.
#pragma once

#include "ops/op_registry.h"

namespace tfhost::ops::nn {

void RegisterConv2DOps(OpRegistry& registry);            // conv2d.cc
void RegisterConv2DBackpropOps(OpRegistry& registry);    // conv2d_backprop_input.cc
void RegisterDepthwiseConvOps(OpRegistry& registry);     // depthwise_conv2d.cc
void RegisterFusedMatMulOps(OpRegistry& registry);       // fused_matmul.cc
void RegisterBiasAddOps(OpRegistry& registry);           // bias_add.cc
void RegisterActivationOps(OpRegistry& registry);        // activation_ops.cc
void RegisterPoolingOps(OpRegistry& registry);           // pooling.cc
void RegisterFusedBatchNormOps(OpRegistry& registry);    // fused_batch_norm.cc
void RegisterImageResizeOps(OpRegistry& registry);       // image_resize.cc
void RegisterLrnOps(OpRegistry& registry);               // lrn.cc
void RegisterConv3DPool3DOps(OpRegistry& registry);      // conv3d_pool3d.cc
void RegisterFakeQuantOps(OpRegistry& registry);         // fake_quant.cc
void RegisterDilation2DOps(OpRegistry& registry);        // dilation2d.cc
void RegisterMaxPoolWithArgmaxOps(OpRegistry& registry); // max_pool_with_argmax.cc
void RegisterDepthwiseConvBackpropOps(OpRegistry& registry);  // depthwise_conv2d_backprop_input.cc
void RegisterConv3DBackpropOps(OpRegistry& registry);    // conv3d_backprop_input.cc
void RegisterExpandDepthwiseOps(OpRegistry& registry);  // expand_depthwise.cc
void RegisterLayerNormOps(OpRegistry& registry);         // layer_norm.cc
void RegisterLstmCellOps(OpRegistry& registry);          // lstm_cell.cc
void RegisterLstmLoopOps(OpRegistry& registry);          // lstm_loop.cc

}  // namespace tfhost::ops::nn
