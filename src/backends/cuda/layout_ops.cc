#include "backends/cuda/layout_ops.h"

#include <cuda_runtime.h>

#include <cstring>
#include <string>

#include "backends/backend.h"
#include "backends/cuda/cuda_backend.h"
#include "backends/cuda/layout_kernels.h"
#include "ir/attrs.h"
#include "ops/array/array_util.h"

namespace tfhost::backends::cuda {
namespace {

enum class LayoutOp { kNone, kTranspose, kConcatV2, kSlice, kStridedSlice, kPad, kPadV2, kGatherV2, kCast };

LayoutOp LayoutOpOf(const std::string& op) {
  static const struct { const char* name; LayoutOp op; } kOps[] = {
      {"Transpose", LayoutOp::kTranspose}, {"ConcatV2", LayoutOp::kConcatV2}, {"Slice", LayoutOp::kSlice},
      {"StridedSlice", LayoutOp::kStridedSlice}, {"Pad", LayoutOp::kPad}, {"PadV2", LayoutOp::kPadV2},
      {"GatherV2", LayoutOp::kGatherV2}, {"Cast", LayoutOp::kCast}};
  for (const auto& e : kOps) {
    if (op == e.name) return e.op;
  }
  return LayoutOp::kNone;
}

// The node's element dtype attr.
const char* LayoutTypeAttr(LayoutOp op) {
  return op == LayoutOp::kCast ? "SrcT" : op == LayoutOp::kGatherV2 ? "Tparams" : "T";
}

// Unimplemented, saying why, for the nodes the GPU leaves to the host.
Status LayoutSupportStatus(const ir::Node& node) {
  const LayoutOp op = LayoutOpOf(node.op);
  auto t = ir::GetAttr<DType>(node, LayoutTypeAttr(op));
  if (!t.ok()) return Unimplemented("no " + std::string(LayoutTypeAttr(op)) + " attr to check");
  if (op == LayoutOp::kCast) {
    CastType c;
    auto dst = ir::GetAttr<DType>(node, "DstT");
    if (!CastTypeOf(*t, &c) || !dst.ok() || !CastTypeOf(*dst, &c)) {
      return Unimplemented("the GPU casts among float32, float16, bfloat16, int32, int64 and bool only");
    }
    return OkStatus();
  }
  const size_t bytes = DTypeSize(*t);
  if (bytes != 1 && bytes != 2 && bytes != 4 && bytes != 8) {
    return Unimplemented("the GPU moves elements of 1, 2, 4 or 8 bytes, not " + DTypeShortName(*t));
  }
  if (*t == DType::kInt32) return Unimplemented("int32 tensors stay in host memory, as TensorFlow keeps them");
  if (op == LayoutOp::kGatherV2) {
    auto batch_dims = ir::GetAttrOr<int64_t>(node, "batch_dims", 0);
    if (!batch_dims.ok() || *batch_dims != 0) return Unimplemented("the GPU gathers with batch_dims 0 only");
    auto ti = ir::GetAttr<DType>(node, "Tindices");
    if (!ti.ok() || (*ti != DType::kInt32 && *ti != DType::kInt64)) {
      return Unimplemented("the GPU gathers with int32 or int64 indices only");
    }
  }
  return OkStatus();
}

// A builder's error with the node named, its code kept.
Status LayoutError(const ops::KernelContext& ctx, const Status& st) {
  return Status(st.code(), ir::NodeContext(ctx.node()) + ": " + st.message());
}

// Transpose, Slice, StridedSlice: input 0 gathered as `g` into `out`.
Status RunStridedGather(const CudaKernelEnv& env, ops::KernelContext& ctx, const StatusOr<StridedGather>& g,
                               const Shape& out) {
  if (!g.ok()) return LayoutError(ctx, g.status());
  const Tensor& x = ctx.input(0);
  if (g->count > 0 && IsIdentityGather(*g, x.NumElements())) {  // the same bytes: share them
    TFHOST_ASSIGN_OR_RETURN(Tensor y, x.Reshaped(out));
    ctx.set_output(0, std::move(y));
    return OkStatus();
  }
  TFHOST_ASSIGN_OR_RETURN(Tensor y, ctx.AllocateOutput(x.dtype(), out));
  TFHOST_RETURN_IF_ERROR(KernelLaunched(
      LaunchStridedGather(static_cast<int>(DTypeSize(x.dtype())), *g, x.raw_data(), y.raw_data(), KernelStream(ctx)),
      ctx, env.device));
  ctx.set_output(0, std::move(y));
  return OkStatus();
}

Status RunStridedSlice(const CudaKernelEnv& env, ops::KernelContext& ctx) {
  std::vector<int64_t> spec[3];
  const char* names[3] = {"begin", "end", "strides"};
  for (int k = 0; k < 3; ++k) {
    if (ctx.input(k + 1).rank() != 1) {
      return ctx.Error(std::string(names[k]) + " must be 1-D, got shape " + ctx.input(k + 1).shape().ToString());
    }
    TFHOST_ASSIGN_OR_RETURN(spec[k], ops::array::ReadIndexVector(ctx, k + 1, names[k]));
  }
  ops::array::StridedSliceMasks m;
  TFHOST_ASSIGN_OR_RETURN(m.begin_mask, ctx.AttrOr<int64_t>("begin_mask", 0));
  TFHOST_ASSIGN_OR_RETURN(m.end_mask, ctx.AttrOr<int64_t>("end_mask", 0));
  TFHOST_ASSIGN_OR_RETURN(m.ellipsis_mask, ctx.AttrOr<int64_t>("ellipsis_mask", 0));
  TFHOST_ASSIGN_OR_RETURN(m.new_axis_mask, ctx.AttrOr<int64_t>("new_axis_mask", 0));
  TFHOST_ASSIGN_OR_RETURN(m.shrink_axis_mask, ctx.AttrOr<int64_t>("shrink_axis_mask", 0));
  Shape out;
  auto g = MakeStridedSliceGather(ctx.input(0).shape(), spec[0], spec[1], spec[2], m, &out);
  return RunStridedGather(env, ctx, g, out);
}

Status RunTransposeOrSlice(const CudaKernelEnv& env, LayoutOp op, ops::KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  Shape out;
  if (op == LayoutOp::kTranspose) {
    if (ctx.input(1).rank() != 1) return ctx.Error("perm must be 1-D, got shape " + ctx.input(1).shape().ToString());
    TFHOST_ASSIGN_OR_RETURN(std::vector<int64_t> perm, ops::array::ReadIndexVector(ctx, 1, "perm"));
    auto g = MakeTransposeGather(x.shape(), perm, &out);
    return RunStridedGather(env, ctx, g, out);
  }
  TFHOST_ASSIGN_OR_RETURN(std::vector<int64_t> begin, ops::array::ReadIndexVector(ctx, 1, "begin"));
  TFHOST_ASSIGN_OR_RETURN(std::vector<int64_t> size, ops::array::ReadIndexVector(ctx, 2, "size"));
  if (ctx.input(1).rank() != 1 || ctx.input(2).rank() != 1) {
    return ctx.Error("begin " + JoinInts(begin) + " and size " + JoinInts(size) +
                     " must be 1-D with one entry per dim of input shape " + x.shape().ToString());
  }
  auto g = MakeSliceGather(x.shape(), begin, size, &out);
  return RunStridedGather(env, ctx, g, out);
}

Status RunPad(const CudaKernelEnv& env, bool v2, ops::KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  const Tensor& paddings = ctx.input(1);
  const int rank = x.rank();
  if (paddings.rank() != 2 || paddings.dim(0) != rank || paddings.dim(1) != 2) {
    return ctx.Error("paddings must have shape [" + std::to_string(rank) + ", 2] for an input of rank " +
                     std::to_string(rank) + ", got " + paddings.shape().ToString());
  }
  auto pads = paddings.ToInt64Vector();
  if (!pads.ok()) return ctx.Error("paddings must be an integer tensor, got " + DTypeShortName(paddings.dtype()));
  uint64_t value = 0;  // Pad's zeros
  if (v2) {
    const Tensor& c = ctx.input(2);
    if (c.dtype() != x.dtype() || c.rank() != 0) {
      return ctx.Error("constant_values must be a " + DTypeShortName(x.dtype()) + " scalar, got " +
                       DTypeShortName(c.dtype()) + c.shape().ToString());
    }
    std::memcpy(&value, c.raw_data(), DTypeSize(c.dtype()));
  }
  Shape out;
  auto p = MakePadIndexing(x.shape(), *pads, &out);
  if (!p.ok()) return LayoutError(ctx, p.status());
  TFHOST_ASSIGN_OR_RETURN(Tensor y, ctx.AllocateOutput(x.dtype(), out));
  TFHOST_RETURN_IF_ERROR(KernelLaunched(LaunchPad(static_cast<int>(DTypeSize(x.dtype())), *p, x.raw_data(), value,
                                                  y.raw_data(), KernelStream(ctx)),
                                        ctx, env.device));
  ctx.set_output(0, std::move(y));
  return OkStatus();
}

Status RunConcat(const CudaKernelEnv& env, ops::KernelContext& ctx) {
  const int n = ctx.num_inputs() - 1;
  TFHOST_ASSIGN_OR_RETURN(int64_t axis, ops::array::ReadIndexScalar(ctx, n, "axis"));
  const DType dtype = ctx.input(0).dtype();
  std::vector<Shape> shapes;
  for (int k = 0; k < n; ++k) {
    if (ctx.input(k).dtype() != dtype) {
      return ctx.Error("value " + std::to_string(k) + " has dtype " + DTypeShortName(ctx.input(k).dtype()) +
                       ", expected " + DTypeShortName(dtype));
    }
    shapes.push_back(ctx.input(k).shape());
  }
  Shape out;
  auto plan = MakeConcatPlan(shapes, axis, &out);
  if (!plan.ok()) return LayoutError(ctx, plan.status());
  TFHOST_ASSIGN_OR_RETURN(Tensor y, ctx.AllocateOutput(dtype, out));
  for (int k = 0; k < n && y.NumElements() > 0; ++k) {
    TFHOST_RETURN_IF_ERROR(KernelLaunched(
        LaunchConcatPiece(static_cast<int>(DTypeSize(dtype)), ctx.input(k).raw_data(), plan->outer, plan->rows[k],
                          plan->out_row, plan->columns[k], y.raw_data(), KernelStream(ctx)),
        ctx, env.device));
  }
  ctx.set_output(0, std::move(y));
  return OkStatus();
}

// The indices are checked on the device; the call waits for the verdict.
Status RunGatherV2(const CudaKernelEnv& env, ops::KernelContext& ctx) {
  const Tensor& params = ctx.input(0);
  const Tensor& indices = ctx.input(1);
  TFHOST_ASSIGN_OR_RETURN(int64_t axis, ops::array::ReadIndexScalar(ctx, 2, "axis"));
  TFHOST_ASSIGN_OR_RETURN(int64_t batch_dims, ctx.AttrOr<int64_t>("batch_dims", 0));
  if (batch_dims != 0) return LayoutError(ctx, Unimplemented("the GPU gathers with batch_dims 0 only"));
  if (indices.dtype() != DType::kInt32 && indices.dtype() != DType::kInt64) {
    return ctx.Error("indices must be int32 or int64 on the GPU, got " + DTypeShortName(indices.dtype()));
  }
  Shape out;
  auto g = MakeGatherIndexing(params.shape(), indices.shape(), axis, &out);
  if (!g.ok()) return LayoutError(ctx, g.status());
  TFHOST_ASSIGN_OR_RETURN(Tensor y, ctx.AllocateOutput(params.dtype(), out));
  if (g->n > 0) {
    TFHOST_ASSIGN_OR_RETURN(Tensor flag, ctx.AllocateOutput(DType::kInt64, Shape({1})));
    auto* first_bad = static_cast<unsigned long long*>(flag.raw_data());
    const bool wide = indices.dtype() == DType::kInt64;
    const cudaStream_t stream = KernelStream(ctx);
    TFHOST_RETURN_IF_ERROR(KernelLaunched(LaunchGatherV2(static_cast<int>(DTypeSize(params.dtype())), wide, *g,
                                                         params.raw_data(), indices.raw_data(), y.raw_data(),
                                                         first_bad, stream),
                                          ctx, env.device));
    unsigned long long bad = 0;
    cudaError_t e = cudaMemcpyAsync(&bad, first_bad, sizeof(bad), cudaMemcpyDeviceToHost, stream);
    if (e == cudaSuccess) e = cudaStreamSynchronize(stream);
    if (e != cudaSuccess) return CudaError(e, "reading back the index check of node '" + ctx.node().name + "'", env.device);
    if (bad != ~0ull) {
      int64_t index = 0;  // the bad value, an int32 one sign-extended
      int32_t narrow = 0;
      const char* at = static_cast<const char*>(indices.raw_data()) + bad * (wide ? 8 : 4);
      e = cudaMemcpyAsync(wide ? static_cast<void*>(&index) : static_cast<void*>(&narrow), at, wide ? 8 : 4,
                          cudaMemcpyDeviceToHost, stream);
      if (e == cudaSuccess) e = cudaStreamSynchronize(stream);
      if (e != cudaSuccess) return CudaError(e, "reading the bad index of node '" + ctx.node().name + "'", env.device);
      if (!wide) index = narrow;
      return ctx.Error("indices[" + std::to_string(bad) + "] = " + std::to_string(index) + " is not in [0, " +
                       std::to_string(g->limit) + ")");
    }
  }
  ctx.set_output(0, std::move(y));
  return OkStatus();
}

Status RunCast(const CudaKernelEnv& env, ops::KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  TFHOST_ASSIGN_OR_RETURN(DType dst, ctx.Attr<DType>("DstT"));
  TFHOST_ASSIGN_OR_RETURN(bool truncate, ctx.AttrOr<bool>("Truncate", false));
  CastType s, d;
  if (!CastTypeOf(x.dtype(), &s) || !CastTypeOf(dst, &d)) {
    return LayoutError(ctx, Unimplemented("Cast from " + DTypeShortName(x.dtype()) + " to " + DTypeShortName(dst) +
                                          " has no GPU kernel"));
  }
  if (x.dtype() == dst) {  // as the reference: the input itself
    ctx.set_output(0, x);
    return OkStatus();
  }
  TFHOST_ASSIGN_OR_RETURN(Tensor y, ctx.AllocateOutput(dst, x.shape()));
  TFHOST_RETURN_IF_ERROR(KernelLaunched(
      LaunchCast(s, d, truncate, x.raw_data(), y.raw_data(), x.NumElements(), KernelStream(ctx)), ctx, env.device));
  ctx.set_output(0, std::move(y));
  return OkStatus();
}
}  // namespace

bool IsLayoutOp(const std::string& op) { return LayoutOpOf(op) != LayoutOp::kNone; }

bool LayoutInputInHostMemory(const ir::Node& node, int index) {
  switch (LayoutOpOf(node.op)) {
    case LayoutOp::kTranspose:
    case LayoutOp::kPad: return index == 1;
    case LayoutOp::kSlice:
    case LayoutOp::kStridedSlice:
    case LayoutOp::kPadV2: return index >= 1;
    case LayoutOp::kGatherV2: return index == 2;
    case LayoutOp::kConcatV2: {
      auto n = ir::GetAttr<int64_t>(node, "N");  // a node built alone has no input edges to count
      return index == (n.ok() ? static_cast<int>(*n) : static_cast<int>(node.inputs.size()) - 1);
    }
    default: return false;
  }
}

NodeSupport LayoutSupports(const CudaKernelEnv& env, const ir::Node& node) {
  const Status st = LayoutSupportStatus(node);
  if (st.ok()) return NodeSupport::Yes();
  return NodeSupport::No(env.backend_name + "'s " + node.op + " kernel: " + st.message());
}

ops::KernelFn MakeLayoutKernel(const CudaKernelEnv& env, const ir::Node& node, const ops::KernelFn& fallback) {
  const LayoutOp op = LayoutOpOf(node.op);
  auto t = ir::GetAttr<DType>(node, LayoutTypeAttr(op));
  if (!LayoutSupportStatus(node).ok() || !t.ok()) return {};
  return [env, op, dtype = *t, fallback](ops::KernelContext& ctx) -> Status {
    // A dtype the graph did not state (a function's generic input) goes
    // to the next kernel of this memory space.
    if (ctx.input(0).dtype() != dtype) return fallback(ctx);
    cudaSetDevice(env.device);
    switch (op) {
      case LayoutOp::kStridedSlice: return RunStridedSlice(env, ctx);
      case LayoutOp::kPad: return RunPad(env, false, ctx);
      case LayoutOp::kPadV2: return RunPad(env, true, ctx);
      case LayoutOp::kConcatV2: return RunConcat(env, ctx);
      case LayoutOp::kGatherV2: return RunGatherV2(env, ctx);
      case LayoutOp::kCast: return RunCast(env, ctx);
      default: return RunTransposeOrSlice(env, op, ctx);
    }
  };
}
}  // namespace tfhost::backends::cuda
