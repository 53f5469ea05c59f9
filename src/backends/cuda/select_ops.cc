#include "backends/cuda/select_ops.h"

#include <cuda_runtime.h>

#include <string>

#include "backends/cuda/broadcast_shape.h"
#include "backends/cuda/cuda_backend.h"
#include "backends/cuda/select_kernels.h"
#include "ir/attrs.h"

namespace tfhost::backends::cuda {
namespace {

Status SelectSupportStatus(const ir::Node& node) {
  auto t = ir::GetAttr<DType>(node, "T");
  if (!t.ok()) return Unimplemented("no T attr to check");
  const size_t bytes = DTypeSize(*t);
  if (bytes != 1 && bytes != 2 && bytes != 4 && bytes != 8) {
    return Unimplemented("the GPU moves elements of 1, 2, 4 or 8 bytes, not " + DTypeShortName(*t));
  }
  if (*t == DType::kInt32) return Unimplemented("int32 tensors stay in host memory, as TensorFlow keeps them");
  return OkStatus();
}

Status RunSelect(const CudaKernelEnv& env, ops::KernelContext& ctx) {
  const Tensor& condition = ctx.input(0);
  const Tensor& t = ctx.input(1);
  const Tensor& e = ctx.input(2);
  Shape out_shape;
  auto operands = MakeRowOperands({condition.shape(), t.shape(), e.shape()}, &out_shape);
  if (!operands.ok()) return ctx.Error(operands.status().message());
  if (out_shape.rank() == 0) {  // three scalars: one row of one value
    Shape one;
    operands = MakeRowOperands({Shape({1}), Shape({1}), Shape({1})}, &one);
  }
  TFHOST_ASSIGN_OR_RETURN(Tensor y, ctx.AllocateOutput(t.dtype(), out_shape));
  const int64_t n = out_shape.num_elements();
  const int64_t cols = out_shape.rank() == 0 ? 1 : out_shape.dim(out_shape.rank() - 1);
  TFHOST_RETURN_IF_ERROR(KernelLaunched(LaunchSelect(condition.data<bool>(), t.raw_data(), e.raw_data(), *operands,
                                                    DTypeSize(t.dtype()), y.raw_data(), n, cols, KernelStream(ctx)),
                                       ctx, env.device));
  ctx.set_output(0, std::move(y));
  return OkStatus();
}

}  // namespace

bool IsSelectOp(const std::string& op) { return op == "SelectV2"; }

NodeSupport SelectSupports(const CudaKernelEnv& env, const ir::Node& node) {
  Status st = SelectSupportStatus(node);
  if (!st.ok()) return NodeSupport::No(env.backend_name + ": " + st.message());
  return NodeSupport::Yes();
}

ops::KernelFn MakeSelectKernel(const CudaKernelEnv& env, const ir::Node& node, const ops::KernelFn& fallback) {
  auto t = ir::GetAttr<DType>(node, "T");
  if (!SelectSupportStatus(node).ok() || !t.ok()) return {};
  return [env, dtype = *t, fallback](ops::KernelContext& ctx) -> Status {
    // A dtype the graph did not state (a function's generic input) goes
    // to the next kernel of this memory space.
    if (ctx.input(0).dtype() != DType::kBool || ctx.input(1).dtype() != dtype || ctx.input(2).dtype() != dtype) {
      return fallback(ctx);
    }
    cudaSetDevice(env.device);
    return RunSelect(env, ctx);
  };
}

}  // namespace tfhost::backends::cuda
