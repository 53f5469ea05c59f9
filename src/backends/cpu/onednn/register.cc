// The onednn backend: convolutions, matrix products and pooling on oneDNN
// (float32, and bf16 on CPUs with native bf16).
#include "backends/cpu/onednn/onednn_conv.h"
#include "backends/cpu/onednn/onednn_engine.h"
#include "backends/cpu/onednn/onednn_matmul.h"
#include "backends/cpu/onednn/onednn_pool.h"
#include "backends/builtin/builtin_backends.h"
#include "backends/kernel_table.h"

namespace tfhost::backends {

std::unique_ptr<Backend> MakeOneDnnBackend() {
  KernelTable table;
  for (const char* op : {"Conv2D", "_FusedConv2D", "DepthwiseConv2dNative", "FusedDepthwiseConv2dNative"}) {
    table.Add(op, onednn::MakeConvKernel);
  }
  for (const char* op :
       {"MatMul", "_FusedMatMul", "BatchMatMul", "BatchMatMulV2", "BatchMatMulV3", onednn::kFusedBatchMatMulOp}) {
    table.Add(op, onednn::MakeMatMulKernel);
  }
  for (const char* op : {"MaxPool", "AvgPool"}) table.Add(op, onednn::MakePoolKernel);
  BackendCapabilities capabilities;
  capabilities.native_bf16 = onednn::CpuHasBf16();
  return std::make_unique<HostKernelBackend>("onednn", kOneDnnPriority, capabilities, std::move(table));
}

}  // namespace tfhost::backends
