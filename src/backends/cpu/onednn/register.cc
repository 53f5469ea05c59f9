// oneDNN kernels for convolutions, matrix products and pooling (float32).
#include "backends/cpu/onednn/onednn_conv.h"
#include "backends/cpu/onednn/onednn_matmul.h"
#include "backends/cpu/onednn/onednn_pool.h"
#include "backends/fast_kernel_registry.h"

namespace tfhost::backends {

void RegisterOneDnnKernels(FastKernelRegistry& registry) {
  for (const char* op : {"Conv2D", "_FusedConv2D", "DepthwiseConv2dNative", "FusedDepthwiseConv2dNative"}) {
    registry.Register(op, "onednn", onednn::MakeConvKernel);
  }
  for (const char* op :
       {"MatMul", "_FusedMatMul", "BatchMatMul", "BatchMatMulV2", "BatchMatMulV3", onednn::kFusedBatchMatMulOp}) {
    registry.Register(op, "onednn", onednn::MakeMatMulKernel);
  }
  for (const char* op : {"MaxPool", "AvgPool"}) registry.Register(op, "onednn", onednn::MakePoolKernel);
}

}  // namespace tfhost::backends
