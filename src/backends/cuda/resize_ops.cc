#include "backends/cuda/resize_ops.h"

#include <cuda_runtime.h>

#include <string>

#include "backends/cuda/cuda_backend.h"
#include "backends/cuda/resize_kernels.h"
#include "ir/attrs.h"
#include "ops/nn/image_resize.h"

namespace tfhost::backends::cuda {
namespace {

bool IsBilinear(const std::string& op) { return op == "ResizeBilinear"; }

Status ResizeSupportStatus(const ir::Node& node) {
  auto t = ir::GetAttr<DType>(node, "T");
  if (!t.ok()) return Unimplemented("no T attr to check");
  if (IsBilinear(node.op)) {
    if (*t != DType::kFloat) return Unimplemented("the GPU's ResizeBilinear takes float32 images only");
    return OkStatus();
  }
  const size_t bytes = DTypeSize(*t);
  if (*t == DType::kBool || (bytes != 1 && bytes != 2 && bytes != 4 && bytes != 8)) {
    return Unimplemented("the GPU moves elements of 1, 2, 4 or 8 bytes, not " + DTypeShortName(*t));
  }
  if (*t == DType::kInt32) return Unimplemented("int32 tensors stay in host memory, as TensorFlow keeps them");
  return OkStatus();
}

Status RunResize(const CudaKernelEnv& env, bool bilinear, ops::KernelContext& ctx) {
  const Tensor& images = ctx.input(0);
  TFHOST_ASSIGN_OR_RETURN(ops::nn::ResizeSetup s, ops::nn::ParseResize(ctx, images, ctx.input(1)));
  ResizeGeometry g;
  g.batch = s.batch;
  g.in_h = s.in_h;
  g.in_w = s.in_w;
  g.channels = s.channels;
  g.out_h = s.out_h;
  g.out_w = s.out_w;
  g.align_corners = s.align_corners;
  g.half_pixel_centers = s.half_pixel_centers;
  g.scale_h = ResizeScaleOf(s.in_h, s.out_h, s.align_corners);
  g.scale_w = ResizeScaleOf(s.in_w, s.out_w, s.align_corners);
  TFHOST_ASSIGN_OR_RETURN(Tensor y, ctx.AllocateOutput(bilinear ? DType::kFloat : images.dtype(),
                                                       Shape({s.batch, s.out_h, s.out_w, s.channels})));
  cudaStream_t stream = KernelStream(ctx);
  TFHOST_RETURN_IF_ERROR(KernelLaunched(
      bilinear ? LaunchResizeBilinear(images.data<float>(), y.data<float>(), g, stream)
               : LaunchResizeNearest(images.raw_data(), y.raw_data(), DTypeSize(images.dtype()), g, stream),
      ctx, env.device));
  ctx.set_output(0, std::move(y));
  return OkStatus();
}

}  // namespace

bool IsResizeOp(const std::string& op) { return op == "ResizeBilinear" || op == "ResizeNearestNeighbor"; }

bool ResizeInputInHostMemory(const ir::Node& node, int index) { return index == 1 && IsResizeOp(node.op); }

NodeSupport ResizeSupports(const CudaKernelEnv& env, const ir::Node& node) {
  Status st = ResizeSupportStatus(node);
  if (!st.ok()) return NodeSupport::No(env.backend_name + ": " + st.message());
  return NodeSupport::Yes();
}

ops::KernelFn MakeResizeKernel(const CudaKernelEnv& env, const ir::Node& node, const ops::KernelFn& fallback) {
  auto t = ir::GetAttr<DType>(node, "T");
  if (!ResizeSupportStatus(node).ok() || !t.ok()) return {};
  return [env, bilinear = IsBilinear(node.op), dtype = *t, fallback](ops::KernelContext& ctx) -> Status {
    // A dtype the graph did not state (a function's generic input) goes
    // to the next kernel of this memory space.
    if (ctx.input(0).dtype() != dtype) return fallback(ctx);
    cudaSetDevice(env.device);
    return RunResize(env, bilinear, ctx);
  };
}

}  // namespace tfhost::backends::cuda
