// The CUDA backend's kernels: which nodes it takes (Supports) and the kernel
// it makes for each (MakeKernel). Float32 computation today:
//   - element-wise: the unary and binary ops of elementwise_functors.h, and
//     BiasAdd (NHWC) as a broadcast Add;
//   - _TfhostFusedElementwise, the CPU passes' fused element-wise programs
//     (fused_program.h), up to 8 inputs and 32 instructions;
//   - Softmax and LogSoftmax over the last dim (softmax_kernels.cu);
//   - normalizations (norm_ops.h): the graph passes' _TfhostLayerNorm,
//     _TfhostAddLayerNorm and _TfhostMaskedSoftmax, and FusedBatchNorm/V2/V3
//     at inference;
//   - ResizeBilinear and ResizeNearestNeighbor, NHWC (resize_ops.h), the
//     size read in host memory;
//   - SelectV2 with TensorFlow's broadcasting (select_ops.h);
//   - Sum, Mean, Max, Min and Prod over any axes (reduce_kernels.cu), the
//     axes read in host memory;
//   - view ops of any fixed-size dtype (backends/view_ops.h: Reshape, Identity, ...),
//     their index inputs read in host memory;
//   - Transpose, ConcatV2, Slice, StridedSlice, Pad/PadV2, GatherV2 and Cast
//     (layout_ops.h), moving bytes of most dtypes;
//   - MatMul, BatchMatMul/V2/V3, _FusedMatMul and _TfhostFusedBatchMatMul
//     on cuBLASLt (cublaslt_matmul.h), fused_ops [BiasAdd] with an optional
//     activation: Relu in cuBLASLt's epilogue, the others in an element-wise
//     kernel over the result;
//   - on cuDNN (cudnn_ops.h), NHWC: Conv2D (grouped too), DepthwiseConv2dNative
//     (a grouped convolution), _FusedConv2D and FusedDepthwiseConv2dNative with
//     fused_ops [BiasAdd], optional Add (residual), optional activation (Relu
//     in cuDNN's epilogue, the others in an element-wise kernel),
//     Conv2DBackpropInput, MaxPool and AvgPool; filters rewritten to KRSC
//     once per filter buffer; padding cuDNN cannot take (asymmetric SAME,
//     EXPLICIT) written into a padded copy of the input. Refused, staying on
//     the host, where the plugin was built without cuDNN.
// Every kernel reads and writes device memory on the backend's stream and
// returns once its work is enqueued.
//
// Thread-safety: kernels may run from several threads at once.
#pragma once

#include <string>

#include "backends/backend.h"

namespace tfhost::backends::cuda {

class CublasLtMatmul;
class CudnnContext;

struct CudaKernelEnv {
  int device = 0;
  std::string backend_name;      // "cuda:0", for reasons
  CublasLtMatmul* matmul = nullptr;  // owned by the backend, which outlives its kernels
  CudnnContext* cudnn = nullptr;     // likewise; null where the plugin has no cuDNN
  bool allow_tf32 = true;  // unless a node says _tfhost_fp32_strict (ir/precision_attrs.h)
};

NodeSupport CudaSupports(const CudaKernelEnv& env, const ir::Node& node);
// The inputs its kernels read in host memory: view ops' shapes and dims,
// reductions' axes, layout ops' indices, Conv2DBackpropInput's input_sizes,
// resizes' sizes.
bool CudaInputInHostMemory(const ir::Node& node, int index);
ops::KernelFn MakeCudaKernel(const CudaKernelEnv& env, const ir::Node& node, const ops::KernelFn& fallback);

}  // namespace tfhost::backends::cuda
