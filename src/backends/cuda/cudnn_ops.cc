#include "backends/cuda/cudnn_ops.h"

#include "backends/cuda/conv_plan.h"
#include "ir/attrs.h"
#include "ir/precision_attrs.h"
#include "ops/nn/conv_geometry.h"

#ifdef TFHOST_CUDA_CUDNN
#include "backends/cuda/cudnn_conv.h"
#include "backends/cuda/cudnn_pool.h"
#endif

namespace tfhost::backends::cuda {
namespace {

bool IsPool(const std::string& op) { return op == "MaxPool" || op == "AvgPool"; }

// Unimplemented, saying why, for the nodes the GPU leaves to the host.
Status CudnnSupportStatus(const ir::Node& node) {
  auto t = ir::GetAttr<DType>(node, "T");
  if (!t.ok() || *t != DType::kFloat) return Unimplemented("the GPU takes float32 only");
  // --precision bf16 marks: a bf16 output or input is for kernels with a
  // bf16 path; this one computes float32 only.
  if (node.FindAttr(ir::kOutputDtypeAttr) != nullptr) return Unimplemented("its output is to be stored in bf16");
  auto bf16_input = ir::GetAttrOr<bool>(node, ir::kBf16InputAttr, false);
  if (!bf16_input.ok() || *bf16_input) return Unimplemented("its input may arrive in bf16");
  auto format = ir::GetAttrOr<std::string>(node, "data_format", "NHWC");
  if (!format.ok() || *format != "NHWC") {
    return Unimplemented("data_format " + (format.ok() ? *format : std::string("?")) +
                         ": the GPU takes NHWC only (NCHW stays on the host)");
  }
  if (IsPool(node.op)) return ParsePoolWindow(node).status();
  auto window = ops::nn::ParseWindowAttrs(node, /*has_dilations=*/true, /*allow_explicit=*/true);
  if (!window.ok()) return window.status();
  if (node.op == "_FusedConv2D") {
    auto filter_format = ir::GetAttrOr<std::string>(node, "filter_format", "HWIO");
    if (!filter_format.ok() || *filter_format != "HWIO") return Unimplemented("the GPU takes HWIO filters only");
  }
  return ParseConvEpilogue(node).status();
}

}  // namespace

bool IsCudnnOp(const std::string& op) {
  return op == "Conv2D" || op == "DepthwiseConv2dNative" || op == "_FusedConv2D" ||
         op == "FusedDepthwiseConv2dNative" || op == "Conv2DBackpropInput" || IsPool(op);
}

bool CudnnInputInHostMemory(const ir::Node& node, int index) {
  return node.op == "Conv2DBackpropInput" && index == 0;
}

NodeSupport CudnnSupports(const CudaKernelEnv& env, const ir::Node& node) {
  if (env.cudnn == nullptr) {
    return NodeSupport::No(env.backend_name + "'s " + node.op +
                           " kernel needs cuDNN, and this plugin was built without it");
  }
  const Status st = CudnnSupportStatus(node);
  if (st.ok()) return NodeSupport::Yes();
  return NodeSupport::No(env.backend_name + "'s " + node.op + " kernel: " + st.message());
}

ops::KernelFn MakeCudnnKernel(const CudaKernelEnv& env, const ir::Node& node, const ops::KernelFn& fallback) {
  if (env.cudnn == nullptr || !CudnnSupportStatus(node).ok()) return {};
#ifdef TFHOST_CUDA_CUDNN
  if (IsPool(node.op)) return MakeCudnnPoolKernel(env, node, fallback);
  return MakeCudnnConvKernel(env, node, fallback);
#else
  (void)fallback;
  return {};
#endif
}

}  // namespace tfhost::backends::cuda
