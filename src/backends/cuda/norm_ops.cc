#include "backends/cuda/norm_ops.h"

#include <cuda_runtime.h>

#include <string>
#include <vector>

#include "backends/cuda/broadcast_shape.h"
#include "backends/cuda/cuda_backend.h"
#include "backends/cuda/norm_kernels.h"
#include "backends/cuda/softmax_kernels.h"
#include "ir/attrs.h"
#include "ops/math/masked_softmax.h"
#include "ops/nn/fused_batch_norm.h"
#include "ops/nn/layer_norm.h"

namespace tfhost::backends::cuda {
namespace {

enum class NormOp { kNone, kLayerNorm, kAddLayerNorm, kMaskedSoftmax, kBatchNorm };

NormOp NormOpOf(const std::string& op) {
  if (op == ops::nn::kLayerNormOp) return NormOp::kLayerNorm;
  if (op == ops::nn::kAddLayerNormOp) return NormOp::kAddLayerNorm;
  if (op == ops::math::kMaskedSoftmaxOp) return NormOp::kMaskedSoftmax;
  if (op == "FusedBatchNorm" || op == "FusedBatchNormV2" || op == "FusedBatchNormV3") return NormOp::kBatchNorm;
  return NormOp::kNone;
}

// The dtypes the kernel reads, input by input.
std::vector<DType> InputDtypes(NormOp op) {
  switch (op) {
    case NormOp::kLayerNorm: return {DType::kFloat, DType::kFloat, DType::kFloat};
    case NormOp::kAddLayerNorm: return {DType::kFloat, DType::kFloat, DType::kFloat, DType::kFloat};
    case NormOp::kBatchNorm: return std::vector<DType>(5, DType::kFloat);
    default: return {DType::kFloat, DType::kBool, DType::kFloat};
  }
}

// Unimplemented, saying why, for the nodes the GPU leaves to the host.
Status NormSupportStatus(NormOp op, const ir::Node& node) {
  for (const char* attr : {"T", "U"}) {
    if (op != NormOp::kBatchNorm && std::string(attr) == "U") continue;
    auto t = ir::GetAttrOr<DType>(node, attr, DType::kFloat);
    if (!t.ok() || *t != DType::kFloat) return Unimplemented("the GPU's " + node.op + " takes float32 only");
  }
  if (op != NormOp::kBatchNorm) return OkStatus();
  auto training = ir::GetAttrOr<bool>(node, "is_training", true);
  if (!training.ok() || *training) return Unimplemented("the GPU's " + node.op + " runs inference only");
  auto format = ir::GetAttrOr<std::string>(node, "data_format", "NHWC");
  if (!format.ok() || (*format != "NHWC" && *format != "NDHWC")) {
    return Unimplemented("the GPU's " + node.op + " takes NHWC and NDHWC only");
  }
  return OkStatus();
}

// x's (or a + b's) broadcast shape, then the host kernel's checks of gamma
// and beta against it.
Status RunLayerNorm(const CudaKernelEnv& env, bool add, ops::KernelContext& ctx) {
  std::vector<Shape> shapes = {ctx.input(0).shape()};
  if (add) shapes.push_back(ctx.input(1).shape());
  Shape out_shape;
  auto operands = MakeRowOperands(shapes, &out_shape);
  if (!operands.ok()) return ctx.Error(operands.status().message());
  TFHOST_ASSIGN_OR_RETURN(float epsilon, ctx.Attr<float>("epsilon"));
  TFHOST_ASSIGN_OR_RETURN(Tensor y, ctx.AllocateOutput(DType::kFloat, out_shape));
  const int first = add ? 2 : 1;
  const Tensor& gamma = ctx.input(first);
  const Tensor& beta = ctx.input(first + 1);
  // y has the normalized tensor's dtype and shape: the checks read nothing else.
  TFHOST_ASSIGN_OR_RETURN(ops::nn::LayerNormGeometry g, ops::nn::CheckLayerNormOperands(ctx, y, gamma, beta));
  TFHOST_RETURN_IF_ERROR(KernelLaunched(
      LaunchLayerNorm(ctx.input(0).data<float>(), add ? ctx.input(1).data<float>() : nullptr, *operands,
                      gamma.data<float>(), beta.data<float>(), epsilon, y.data<float>(), g.rows, g.channels,
                      KernelStream(ctx)),
      ctx, env.device));
  ctx.set_output(0, std::move(y));
  return OkStatus();
}

Status RunMaskedSoftmax(const CudaKernelEnv& env, ops::KernelContext& ctx) {
  Shape out_shape;
  auto operands =
      MakeRowOperands({ctx.input(0).shape(), ctx.input(1).shape(), ctx.input(2).shape()}, &out_shape);
  if (!operands.ok()) return ctx.Error(operands.status().message());
  if (out_shape.rank() < 1) {
    return ctx.Error("logits, mask and fill must broadcast to at least one dim (the softmax's axis), got "
                     "scalars");
  }
  TFHOST_ASSIGN_OR_RETURN(bool zero_masked, ctx.AttrOr<bool>("zero_masked", false));
  TFHOST_ASSIGN_OR_RETURN(Tensor y, ctx.AllocateOutput(DType::kFloat, out_shape));
  const int64_t cols = out_shape.dim(out_shape.rank() - 1);
  const int64_t rows = cols == 0 ? 0 : out_shape.num_elements() / cols;
  TFHOST_RETURN_IF_ERROR(KernelLaunched(
      LaunchMaskedSoftmax(ctx.input(0).data<float>(), ctx.input(1).data<bool>(), ctx.input(2).data<float>(),
                          *operands, zero_masked, y.data<float>(), rows, cols, KernelStream(ctx)),
      ctx, env.device));
  ctx.set_output(0, std::move(y));
  return OkStatus();
}

// y from the per-channel parameters; batch_mean, batch_variance and the
// two reserve spaces are the mean and variance, as the reference kernel
// passes them through (here the inputs themselves: nothing writes them),
// and V3's reserve_space_3 is empty.
Status RunBatchNorm(const CudaKernelEnv& env, ops::KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  const Tensor* const params[4] = {&ctx.input(1), &ctx.input(2), &ctx.input(3), &ctx.input(4)};
  TFHOST_ASSIGN_OR_RETURN(ops::nn::BatchNormSetup s, ops::nn::ParseBatchNorm(ctx, x, params));
  if (s.is_training || !s.channels_last) {
    return ctx.Error("the GPU kernel runs inference in NHWC or NDHWC only");  // Supports refuses the rest
  }
  TFHOST_ASSIGN_OR_RETURN(Tensor y, ctx.AllocateOutput(DType::kFloat, x.shape()));
  TFHOST_RETURN_IF_ERROR(KernelLaunched(
      LaunchBatchNormInference(x.data<float>(), params[0]->data<float>(), params[1]->data<float>(),
                               params[2]->data<float>(), params[3]->data<float>(), s.epsilon, y.data<float>(),
                               x.NumElements(), s.channels, KernelStream(ctx)),
      ctx, env.device));
  ctx.set_output(0, std::move(y));
  const Tensor& mean = *params[2];
  const Tensor& variance = *params[3];
  for (int i : {1, 3}) ctx.set_output(i, mean);
  for (int i : {2, 4}) ctx.set_output(i, variance);
  if (ctx.num_outputs() > 5) {
    TFHOST_ASSIGN_OR_RETURN(Tensor empty, ctx.AllocateOutput(DType::kFloat, Shape({0})));
    ctx.set_output(5, std::move(empty));
  }
  return OkStatus();
}

}  // namespace

bool IsNormOp(const std::string& op) { return NormOpOf(op) != NormOp::kNone; }

NodeSupport NormSupports(const CudaKernelEnv& env, const ir::Node& node) {
  Status st = NormSupportStatus(NormOpOf(node.op), node);
  if (!st.ok()) return NodeSupport::No(env.backend_name + ": " + st.message());
  return NodeSupport::Yes();
}

ops::KernelFn MakeNormKernel(const CudaKernelEnv& env, const ir::Node& node, const ops::KernelFn& fallback) {
  const NormOp op = NormOpOf(node.op);
  if (op == NormOp::kNone || !NormSupports(env, node).supported) return {};
  return [env, op, fallback](ops::KernelContext& ctx) -> Status {
    const std::vector<DType> dtypes = InputDtypes(op);
    for (int i = 0; i < static_cast<int>(dtypes.size()); ++i) {
      // A dtype the graph did not state (a function's generic input) goes
      // to the next kernel of this memory space.
      if (ctx.input(i).dtype() != dtypes[i]) return fallback(ctx);
    }
    cudaSetDevice(env.device);
    if (op == NormOp::kMaskedSoftmax) return RunMaskedSoftmax(env, ctx);
    if (op == NormOp::kBatchNorm) return RunBatchNorm(env, ctx);
    return RunLayerNorm(env, op == NormOp::kAddLayerNorm, ctx);
  };
}

}  // namespace tfhost::backends::cuda
