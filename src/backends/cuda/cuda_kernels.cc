#include "backends/cuda/cuda_kernels.h"

#include <cuda_runtime.h>

#include <vector>

#include "backends/cuda/broadcast_shape.h"
#include "backends/cuda/cublaslt_matmul.h"
#include "backends/cuda/cuda_backend.h"
#include "backends/cuda/cudnn_ops.h"
#include "backends/cuda/elementwise_kernels.h"
#include "backends/cuda/fused_program.h"
#include "backends/cuda/gemm_plan.h"
#include "backends/cuda/layout_ops.h"
#include "backends/cuda/norm_ops.h"
#include "backends/cuda/reduce_kernels.h"
#include "backends/cuda/resize_ops.h"
#include "backends/cuda/select_ops.h"
#include "backends/cuda/softmax_kernels.h"
#include "backends/view_ops.h"
#include "ir/attrs.h"
#include "ir/precision_attrs.h"

namespace tfhost::backends::cuda {
namespace {

enum class Family { kNone, kUnary, kBinary, kBiasAdd, kSoftmax, kMatMul, kFused, kReduce };

bool IsMatMul(const std::string& op) {
  return op == "MatMul" || op == "BatchMatMul" || op == "BatchMatMulV2" || op == "BatchMatMulV3" ||
         op == "_FusedMatMul" || op == "_TfhostFusedBatchMatMul";
}

Family FamilyOf(const std::string& op) {
  UnaryOp u;
  BinaryOp b;
  if (UnaryOpOf(op.c_str(), &u)) return Family::kUnary;
  if (BinaryOpOf(op.c_str(), &b)) return Family::kBinary;
  if (op == "BiasAdd" || op == "BiasAddV1") return Family::kBiasAdd;
  if (op == "Softmax" || op == "LogSoftmax") return Family::kSoftmax;
  if (IsMatMul(op)) return Family::kMatMul;
  if (op == "_TfhostFusedElementwise") return Family::kFused;
  ReduceOp r;
  if (ReduceOpOf(op, &r)) return Family::kReduce;
  return Family::kNone;
}

// The dtype attrs a node's kernel reads: T, or BatchMatMulV3's Ta/Tb/Tout.
std::vector<const char*> TypeAttrs(const std::string& op) {
  if (op == "BatchMatMulV3") return {"Ta", "Tb", "Tout"};
  return {"T"};
}

// The epilogue of a fused product: an activation after BiasAdd, or none.
struct FusedSpec {
  bool fused = false;    // has a bias input
  UnaryOp act = UnaryOp::kIdentity;
  bool allow_tf32 = true;  // the backend allows it and the node is not fp32-strict
};

StatusOr<FusedSpec> FusedSpecOf(const ir::Node& node) {
  FusedSpec spec;
  if (node.op != "_FusedMatMul" && node.op != "_TfhostFusedBatchMatMul") return spec;
  auto ops = ir::GetAttrOr<std::vector<std::string>>(node, "fused_ops", {});
  if (!ops.ok()) return ops.status();
  if (ops->empty() || (*ops)[0] != "BiasAdd" || ops->size() > 2) {
    std::string list;
    for (const auto& o : *ops) list += (list.empty() ? "" : ", ") + o;
    return Unimplemented("fused_ops [" + list + "]: the GPU fuses [BiasAdd] with at most one activation");
  }
  spec.fused = true;
  if (ops->size() == 2 && !FusedActivationOf((*ops)[1].c_str(), &spec.act)) {
    return Unimplemented("fused activation " + (*ops)[1] + " has no GPU kernel");
  }
  return spec;
}

// A fused program's input count: its N attr (a node built alone has no
// input edges to count).
int FusedInputCount(const ir::Node& node) {
  auto n = ir::GetAttr<int64_t>(node, "N");
  return n.ok() ? static_cast<int>(*n) : static_cast<int>(node.inputs.size());
}

Status RunElementwise(const CudaKernelEnv& env, Family family, ops::KernelContext& ctx) {
  const Tensor& a = ctx.input(0);
  Shape out_shape = a.shape();
  BinaryShape shape;
  if (family != Family::kUnary) {
    const Tensor& b = ctx.input(1);
    if (family == Family::kBiasAdd && (b.rank() != 1 || a.rank() < 1 || b.dim(0) != a.dim(a.rank() - 1))) {
      return ctx.Error("bias must be 1-D with the value's last dim (" +
                       (a.rank() < 1 ? std::string("none") : std::to_string(a.dim(a.rank() - 1))) +
                       ") elements, got " + b.shape().ToString());
    }
    auto made = MakeBinaryShape(a.shape(), b.shape(), &out_shape);
    if (!made.ok()) return ctx.Error(made.status().message());
    shape = *made;
  }
  TFHOST_ASSIGN_OR_RETURN(Tensor y, ctx.AllocateOutput(DType::kFloat, out_shape));
  int error = 0;
  if (family == Family::kUnary) {
    UnaryOp u = UnaryOp::kCount;
    UnaryOpOf(ctx.node().op.c_str(), &u);
    error = LaunchUnary(u, a.data<float>(), y.data<float>(), y.NumElements(), KernelStream(ctx));
  } else {
    BinaryOp bop = BinaryOp::kAdd;
    if (family == Family::kBinary) BinaryOpOf(ctx.node().op.c_str(), &bop);
    error = LaunchBinary(bop, a.data<float>(), ctx.input(1).data<float>(), shape, y.data<float>(), y.NumElements(),
                         KernelStream(ctx));
  }
  TFHOST_RETURN_IF_ERROR(KernelLaunched(error, ctx, env.device));
  ctx.set_output(0, std::move(y));
  return OkStatus();
}

Status RunSoftmax(const CudaKernelEnv& env, ops::KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  if (x.rank() < 1) return ctx.Error("logits must have rank >= 1, got a scalar");
  const int64_t cols = x.dim(x.rank() - 1);
  const int64_t rows = cols == 0 ? 0 : x.NumElements() / cols;
  TFHOST_ASSIGN_OR_RETURN(Tensor y, ctx.AllocateOutput(DType::kFloat, x.shape()));
  TFHOST_RETURN_IF_ERROR(KernelLaunched(LaunchSoftmax(ctx.node().op == "LogSoftmax", x.data<float>(), y.data<float>(),
                                                     rows, cols, KernelStream(ctx)),
                                       ctx, env.device));
  ctx.set_output(0, std::move(y));
  return OkStatus();
}

Status RunFused(const CudaKernelEnv& env, FusedProgram program, ops::KernelContext& ctx) {
  std::vector<Shape> shapes;
  FusedInputs inputs;
  for (int k = 0; k < ctx.num_inputs(); ++k) {
    shapes.push_back(ctx.input(k).shape());
    inputs.data[k] = ctx.input(k).data<float>();
  }
  Shape out_shape;
  if (Status st = SetFusedShapes(&program, shapes, &out_shape); !st.ok()) return ctx.Error(st.message());
  TFHOST_ASSIGN_OR_RETURN(Tensor y, ctx.AllocateOutput(DType::kFloat, out_shape));
  TFHOST_RETURN_IF_ERROR(KernelLaunched(
      LaunchFused(program, inputs, y.data<float>(), y.NumElements(), KernelStream(ctx)), ctx, env.device));
  ctx.set_output(0, std::move(y));
  return OkStatus();
}

Status RunReduce(const CudaKernelEnv& env, ops::KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  const Tensor& axes_t = ctx.input(1);  // in host memory (CudaInputInHostMemory)
  if (axes_t.rank() > 1 || (axes_t.dtype() != DType::kInt32 && axes_t.dtype() != DType::kInt64)) {
    return ctx.Error("reduction_indices must be an int32 or int64 scalar or vector, got " +
                     DTypeShortName(axes_t.dtype()) + " " + axes_t.shape().ToString());
  }
  std::vector<int64_t> axes;
  for (int64_t i = 0; i < axes_t.NumElements(); ++i) {
    axes.push_back(axes_t.dtype() == DType::kInt32 ? axes_t.data<int32_t>()[i] : axes_t.data<int64_t>()[i]);
  }
  TFHOST_ASSIGN_OR_RETURN(bool keep_dims, ctx.AttrOr<bool>("keep_dims", false));
  if (axes.empty()) {  // nothing to reduce: the input itself, as TensorFlow gives it
    ctx.set_output(0, x);
    return OkStatus();
  }
  Shape out_shape;
  auto indexing = MakeReduceIndexing(x.shape(), axes, keep_dims, &out_shape);
  if (!indexing.ok()) return ctx.Error(indexing.status().message());
  TFHOST_ASSIGN_OR_RETURN(Tensor y, ctx.AllocateOutput(DType::kFloat, out_shape));
  ReduceOp op = ReduceOp::kSum;
  ReduceOpOf(ctx.node().op, &op);
  TFHOST_RETURN_IF_ERROR(KernelLaunched(
      LaunchReduce(op, *indexing, x.data<float>(), y.data<float>(), KernelStream(ctx)), ctx, env.device));
  ctx.set_output(0, std::move(y));
  return OkStatus();
}

Status RunMatMul(const CudaKernelEnv& env, const FusedSpec& spec, ops::KernelContext& ctx) {
  const ir::Node& node = ctx.node();
  const bool two_d = node.op == "MatMul" || node.op == "_FusedMatMul";
  TFHOST_ASSIGN_OR_RETURN(bool adj_x, ctx.AttrOr<bool>(two_d ? "transpose_a" : "adj_x", false));
  TFHOST_ASSIGN_OR_RETURN(bool adj_y, ctx.AttrOr<bool>(two_d ? "transpose_b" : "adj_y", false));
  const Tensor& x = ctx.input(0);
  const Tensor& y = ctx.input(1);
  if (two_d && (x.rank() != 2 || y.rank() != 2)) {
    return ctx.Error("a and b must be 2-D, got shapes " + x.shape().ToString() + " and " + y.shape().ToString());
  }
  auto plan = MakeGemmPlan(x.shape(), y.shape(), adj_x, adj_y);
  if (!plan.ok()) return ctx.Error(plan.status().message());
  const float* bias = nullptr;
  if (spec.fused) {
    const Tensor& b = ctx.input(2);
    if (b.dtype() != DType::kFloat || b.rank() != 1 || b.dim(0) != plan->m) {
      return ctx.Error("BiasAdd's arg must be a float32 vector of the product's last dim (" +
                       std::to_string(plan->m) + "), got " + DTypeShortName(b.dtype()) + " " + b.shape().ToString());
    }
    bias = b.data<float>();
  }
  TFHOST_ASSIGN_OR_RETURN(Tensor out, ctx.AllocateOutput(DType::kFloat, plan->out_shape));
  const int64_t n = out.NumElements();
  cudaStream_t stream = KernelStream(ctx);
  if (n > 0 && plan->k == 0) {
    // An empty inner dim: the product is zeros, then the epilogue.
    if (cudaError_t e = cudaMemsetAsync(out.raw_data(), 0, out.ByteSize(), stream); e != cudaSuccess) {
      return CudaError(e, "cudaMemsetAsync for node '" + node.name + "'", env.device);
    }
    if (spec.fused) {
      TFHOST_RETURN_IF_ERROR(
          KernelLaunched(LaunchBiasActivation(spec.act, out.data<float>(), bias, plan->m, n, stream), ctx, env.device));
    }
  } else if (n > 0) {
    GemmEpilogue epilogue = GemmEpilogue::kNone;
    if (spec.fused) epilogue = spec.act == UnaryOp::kRelu ? GemmEpilogue::kReluBias : GemmEpilogue::kBias;
    Status st = env.matmul->Run(*plan, x.data<float>(), y.data<float>(), bias, epilogue, spec.allow_tf32,
                                out.data<float>(), stream);
    if (!st.ok()) return Status(st.code(), ir::NodeContext(node) + ": " + st.message());
    if (spec.fused && spec.act != UnaryOp::kRelu && spec.act != UnaryOp::kIdentity) {
      TFHOST_RETURN_IF_ERROR(KernelLaunched(
          LaunchBiasActivation(spec.act, out.data<float>(), nullptr, plan->m, n, stream), ctx, env.device));
    }
  }
  ctx.set_output(0, std::move(out));
  return OkStatus();
}

}  // namespace

bool CudaInputInHostMemory(const ir::Node& node, int index) {
  ReduceOp r;
  return ViewOpInputInHostMemory(node.op, index) || (index == 1 && ReduceOpOf(node.op, &r)) ||
         LayoutInputInHostMemory(node, index) || CudnnInputInHostMemory(node, index) ||
         ResizeInputInHostMemory(node, index);
}

NodeSupport CudaSupports(const CudaKernelEnv& env, const ir::Node& node) {
  if (IsDeviceViewOp(node)) return NodeSupport::Yes();  // any fixed-size dtype: the bytes stay where they are
  if (IsLayoutOp(node.op)) return LayoutSupports(env, node);
  if (IsCudnnOp(node.op)) return CudnnSupports(env, node);
  if (IsNormOp(node.op)) return NormSupports(env, node);
  if (IsResizeOp(node.op)) return ResizeSupports(env, node);
  if (IsSelectOp(node.op)) return SelectSupports(env, node);
  const Family family = FamilyOf(node.op);
  if (family == Family::kNone) return NodeSupport::No(env.backend_name + " has no kernel for " + node.op);
  for (const char* attr : TypeAttrs(node.op)) {
    auto t = ir::GetAttr<DType>(node, attr);
    if (!t.ok() || *t != DType::kFloat) {
      return NodeSupport::No(env.backend_name + "'s " + node.op + " kernel takes float32 only");
    }
  }
  if (family == Family::kBiasAdd) {
    auto format = ir::GetAttrOr<std::string>(node, "data_format", "NHWC");
    if (!format.ok() || *format != "NHWC") {
      return NodeSupport::No(env.backend_name + "'s BiasAdd kernel takes NHWC only");
    }
  }
  if (family == Family::kFused) {
    auto program = ParseFusedProgram(node, FusedInputCount(node));
    if (!program.ok()) return NodeSupport::No(env.backend_name + ": " + program.status().message());
  }
  if (family == Family::kMatMul) {
    if (env.matmul == nullptr) return NodeSupport::No(env.backend_name + " has no cuBLASLt");
    auto spec = FusedSpecOf(node);
    if (!spec.ok()) return NodeSupport::No(env.backend_name + ": " + spec.status().message());
  }
  return NodeSupport::Yes();
}

ops::KernelFn MakeCudaKernel(const CudaKernelEnv& env, const ir::Node& node, const ops::KernelFn& fallback) {
  if (!CudaSupports(env, node).supported) return {};
  if (IsViewOp(node.op)) return ViewOpKernel(node.op);
  if (IsLayoutOp(node.op)) return MakeLayoutKernel(env, node, fallback);
  if (IsCudnnOp(node.op)) return MakeCudnnKernel(env, node, fallback);
  if (IsNormOp(node.op)) return MakeNormKernel(env, node, fallback);
  if (IsResizeOp(node.op)) return MakeResizeKernel(env, node, fallback);
  if (IsSelectOp(node.op)) return MakeSelectKernel(env, node, fallback);
  const Family family = FamilyOf(node.op);
  FusedSpec spec;
  if (family == Family::kMatMul) {
    spec = *FusedSpecOf(node);
    auto strict = ir::GetAttrOr<bool>(node, ir::kStrictFp32Attr, false);
    spec.allow_tf32 = env.allow_tf32 && !(strict.ok() && *strict);
  }
  FusedProgram program;
  if (family == Family::kFused) {
    auto parsed = ParseFusedProgram(node, FusedInputCount(node));
    if (!parsed.ok()) return {};
    program = *parsed;
  }
  const int inputs = family == Family::kUnary || family == Family::kSoftmax || family == Family::kReduce ? 1
                     : family == Family::kFused                            ? program.num_inputs
                                                                           : (spec.fused ? 3 : 2);
  return [env, family, spec, program, inputs, fallback](ops::KernelContext& ctx) -> Status {
    for (int i = 0; i < inputs; ++i) {
      // A dtype the graph did not state (a function's generic input) goes
      // to the next kernel of this memory space.
      if (ctx.input(i).dtype() != DType::kFloat) return fallback(ctx);
    }
    cudaSetDevice(env.device);
    switch (family) {
      case Family::kSoftmax: return RunSoftmax(env, ctx);
      case Family::kMatMul: return RunMatMul(env, spec, ctx);
      case Family::kFused: return RunFused(env, program, ctx);
      case Family::kReduce: return RunReduce(env, ctx);
      default: return RunElementwise(env, family, ctx);
    }
  };
}

}  // namespace tfhost::backends::cuda
