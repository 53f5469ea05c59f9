#include "backends/cuda/cudnn_pool.h"

#include <cuda_runtime.h>
#include <cudnn.h>

#include <cstring>
#include <limits>
#include <memory>
#include <mutex>
#include <vector>

#include "backends/cuda/broadcast_shape.h"
#include "backends/cuda/conv_plan.h"
#include "backends/cuda/cuda_backend.h"
#include "backends/cuda/cudnn_handle.h"
#include "backends/cuda/elementwise_kernels.h"

namespace tfhost::backends::cuda {
namespace {

#define TFHOST_CUDNN_POOL_CALL(expr, what)                                         \
  do {                                                                             \
    if (cudnnStatus_t cudnn_status = (expr); cudnn_status != CUDNN_STATUS_SUCCESS) \
      return CudnnError(cudnn_status, what, ctx.node(), env.device);               \
  } while (0)

struct PoolDescriptors {
  cudnnTensorDescriptor_t x = nullptr, y = nullptr;
  cudnnPoolingDescriptor_t pool = nullptr;
  ~PoolDescriptors() {
    if (pool) cudnnDestroyPoolingDescriptor(pool);
    if (y) cudnnDestroyTensorDescriptor(y);
    if (x) cudnnDestroyTensorDescriptor(x);
  }
};

cudnnStatus_t MakeNhwc(cudnnTensorDescriptor_t* desc, const Shape& s) {
  if (cudnnStatus_t st = cudnnCreateTensorDescriptor(desc); st != CUDNN_STATUS_SUCCESS) return st;
  return cudnnSetTensor4dDescriptor(*desc, CUDNN_TENSOR_NHWC, CUDNN_DATA_FLOAT, static_cast<int>(s.dim(0)),
                                    static_cast<int>(s.dim(3)), static_cast<int>(s.dim(1)), static_cast<int>(s.dim(2)));
}

// AvgPoolScale on the device as [1, out_h, out_w, 1], kept for the input
// size it was made for.
class ScaleCache {
 public:
  StatusOr<Tensor> Get(const CudaKernelEnv& env, ops::KernelContext& ctx, const ConvPlan& p) {
    std::lock_guard<std::mutex> lock(mu_);
    if (scale_.valid() && in_h_ == p.h.in && in_w_ == p.w.in) return scale_;
    const std::vector<float> host = AvgPoolScale(p);
    TFHOST_ASSIGN_OR_RETURN(Tensor scale, ctx.AllocateOutput(DType::kFloat, Shape({1, p.h.out, p.w.out, 1})));
    // From pageable memory the call returns once the bytes are staged, so
    // `host` may go when it returns.
    if (cudaError_t e = cudaMemcpyAsync(scale.raw_data(), host.data(), host.size() * sizeof(float),
                                        cudaMemcpyHostToDevice, KernelStream(ctx));
        e != cudaSuccess) {
      return CudaError(e, "uploading AvgPool's scale for node '" + ctx.node().name + "'", env.device);
    }
    scale_ = scale;
    in_h_ = p.h.in;
    in_w_ = p.w.in;
    return scale;
  }

 private:
  std::mutex mu_;
  Tensor scale_;
  int64_t in_h_ = -1, in_w_ = -1;
};

struct PoolNode {
  WindowOp op = WindowOp::kMaxPool;
  PoolWindow window;
};

Status RunPool(const CudaKernelEnv& env, const PoolNode& node, ScaleCache& scales, ops::KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  auto plan = MakePoolPlan(node.op, node.window.window, x.shape(), node.window.k_h, node.window.k_w);
  if (!plan.ok()) return Status(plan.status().code(), ir::NodeContext(ctx.node()) + ": " + plan.status().message());
  const ConvPlan& p = *plan;
  TFHOST_ASSIGN_OR_RETURN(Tensor y, ctx.AllocateOutput(DType::kFloat, p.y));
  if (y.NumElements() == 0) {
    ctx.set_output(0, std::move(y));
    return OkStatus();
  }
  const bool max = node.op == WindowOp::kMaxPool;
  // MaxPool's padded cells hold -inf, which only a window of -inf picks
  // (where TensorFlow's answer is -inf too); AvgPool's hold zeros.
  uint32_t pad_bits = 0;
  if (max) {
    const float lowest = -std::numeric_limits<float>::infinity();
    std::memcpy(&pad_bits, &lowest, sizeof(pad_bits));
  }
  TFHOST_ASSIGN_OR_RETURN(Tensor xin, PaddedCopy(x, p.pre_paddings(), pad_bits, ctx, env.device));
  Tensor scale;
  if (!max && p.pre_padded()) {
    TFHOST_ASSIGN_OR_RETURN(scale, scales.Get(env, ctx, p));
  }
  TFHOST_ASSIGN_OR_RETURN(CudnnContext::Lease lease, env.cudnn->Acquire(KernelStream(ctx), ctx.node()));
  PoolDescriptors d;
  TFHOST_CUDNN_POOL_CALL(MakeNhwc(&d.x, p.padded_x()), "describing the input");
  TFHOST_CUDNN_POOL_CALL(MakeNhwc(&d.y, p.y), "describing the output");
  TFHOST_CUDNN_POOL_CALL(cudnnCreatePoolingDescriptor(&d.pool), "cudnnCreatePoolingDescriptor");
  const cudnnPoolingMode_t mode = max              ? CUDNN_POOLING_MAX
                                  : p.pre_padded() ? CUDNN_POOLING_AVERAGE_COUNT_INCLUDE_PADDING
                                                   : CUDNN_POOLING_AVERAGE_COUNT_EXCLUDE_PADDING;
  TFHOST_CUDNN_POOL_CALL(
      cudnnSetPooling2dDescriptor(d.pool, mode, max ? CUDNN_NOT_PROPAGATE_NAN : CUDNN_PROPAGATE_NAN, static_cast<int>(p.h.k), static_cast<int>(p.w.k),
                                  static_cast<int>(p.h.pad), static_cast<int>(p.w.pad),
                                  static_cast<int>(p.h.stride), static_cast<int>(p.w.stride)),
      "cudnnSetPooling2dDescriptor");
  // The plan's arithmetic and cuDNN's must agree on the output.
  int n = 0, c = 0, h = 0, w = 0;
  TFHOST_CUDNN_POOL_CALL(cudnnGetPooling2dForwardOutputDim(d.pool, d.x, &n, &c, &h, &w),
                         "cudnnGetPooling2dForwardOutputDim");
  if (n != p.y.dim(0) || c != p.y.dim(3) || h != p.y.dim(1) || w != p.y.dim(2)) {
    return Internal(ir::NodeContext(ctx.node()) + ": cuDNN computes an output of NCHW " + std::to_string(n) + "x" +
                    std::to_string(c) + "x" + std::to_string(h) + "x" + std::to_string(w) + ", the plan " +
                    p.y.ToString() + " (NHWC)");
  }
  // MaxPool passes NaN over as the reference kernel's comparison does.
  const float one = 1.0f, zero = 0.0f;
  TFHOST_CUDNN_POOL_CALL(
      cudnnPoolingForward(lease.handle(), d.pool, &one, d.x, xin.raw_data(), &zero, d.y, y.raw_data()),
      "cudnnPoolingForward");
  if (scale.valid()) {
    Shape out;
    auto shape = MakeBinaryShape(y.shape(), scale.shape(), &out);
    if (!shape.ok()) return ctx.Error(shape.status().message());
    if (int e = LaunchBinary(BinaryOp::kMul, y.data<float>(), scale.data<float>(), *shape, y.data<float>(),
                             y.NumElements(), KernelStream(ctx));
        e != 0) {
      return CudaError(e, "launching AvgPool's rescaling for node '" + ctx.node().name + "'", env.device);
    }
  }
  ctx.set_output(0, std::move(y));
  return OkStatus();
}

}  // namespace

ops::KernelFn MakeCudnnPoolKernel(const CudaKernelEnv& env, const ir::Node& node, const ops::KernelFn& fallback) {
  PoolNode pool;
  pool.op = node.op == "MaxPool" ? WindowOp::kMaxPool : WindowOp::kAvgPool;
  auto window = ParsePoolWindow(node);
  if (env.cudnn == nullptr || !window.ok()) return {};
  pool.window = *window;
  auto scales = std::make_shared<ScaleCache>();
  return [env, pool, scales, fallback](ops::KernelContext& ctx) -> Status {
    // A dtype the graph did not state goes to the next kernel of this
    // memory space.
    if (ctx.input(0).dtype() != DType::kFloat) return fallback(ctx);
    cudaSetDevice(env.device);
    return RunPool(env, pool, *scales, ctx);
  };
}

}  // namespace tfhost::backends::cuda
