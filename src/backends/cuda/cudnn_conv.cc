#include "backends/cuda/cudnn_conv.h"

#include <cuda_runtime.h>
#include <cudnn.h>

#include <memory>
#include <mutex>
#include <vector>

#include "backends/cuda/conv_plan.h"
#include "backends/cuda/cuda_backend.h"
#include "backends/cuda/cudnn_handle.h"
#include "backends/cuda/elementwise_kernels.h"
#include "backends/cuda/layout_kernels.h"
#include "ir/precision_attrs.h"

namespace tfhost::backends::cuda {
namespace {

#define TFHOST_CUDNN_CALL(expr, what)                                          \
  do {                                                                         \
    if (cudnnStatus_t cudnn_status = (expr); cudnn_status != CUDNN_STATUS_SUCCESS) \
      return CudnnError(cudnn_status, what, ctx.node(), env.device);           \
  } while (0)

// What a node's kernel knows before its first call.
struct ConvNode {
  WindowOp op = WindowOp::kConv2D;
  ops::nn::Window2D window;
  ConvEpilogue epilogue;
  bool allow_tf32 = true;
};

// The descriptors of one call, destroyed with it.
struct ConvDescriptors {
  cudnnTensorDescriptor_t x = nullptr, y = nullptr, bias = nullptr;
  cudnnFilterDescriptor_t w = nullptr;
  cudnnConvolutionDescriptor_t conv = nullptr;
  cudnnActivationDescriptor_t act = nullptr;
  ~ConvDescriptors() {
    if (act) cudnnDestroyActivationDescriptor(act);
    if (conv) cudnnDestroyConvolutionDescriptor(conv);
    if (w) cudnnDestroyFilterDescriptor(w);
    if (bias) cudnnDestroyTensorDescriptor(bias);
    if (y) cudnnDestroyTensorDescriptor(y);
    if (x) cudnnDestroyTensorDescriptor(x);
  }
};

cudnnStatus_t MakeNhwc(cudnnTensorDescriptor_t* desc, const Shape& s) {
  if (cudnnStatus_t st = cudnnCreateTensorDescriptor(desc); st != CUDNN_STATUS_SUCCESS) return st;
  return cudnnSetTensor4dDescriptor(*desc, CUDNN_TENSOR_NHWC, CUDNN_DATA_FLOAT, static_cast<int>(s.dim(0)),
                                    static_cast<int>(s.dim(3)), static_cast<int>(s.dim(1)), static_cast<int>(s.dim(2)));
}

// x is the padded input (forward) or padded input gradient (backward data).
Status MakeDescriptors(const CudaKernelEnv& env, const ops::KernelContext& ctx, const ConvPlan& p, bool allow_tf32,
                       ConvDescriptors* d) {
  TFHOST_CUDNN_CALL(MakeNhwc(&d->x, p.padded_x()), "describing the input");
  TFHOST_CUDNN_CALL(MakeNhwc(&d->y, p.y), "describing the output");
  TFHOST_CUDNN_CALL(cudnnCreateFilterDescriptor(&d->w), "cudnnCreateFilterDescriptor");
  TFHOST_CUDNN_CALL(cudnnSetFilter4dDescriptor(d->w, CUDNN_DATA_FLOAT, CUDNN_TENSOR_NHWC,
                                               static_cast<int>(p.filter.dim(0)), static_cast<int>(p.filter.dim(3)),
                                               static_cast<int>(p.filter.dim(1)), static_cast<int>(p.filter.dim(2))),
                    "cudnnSetFilter4dDescriptor (KRSC)");
  TFHOST_CUDNN_CALL(cudnnCreateConvolutionDescriptor(&d->conv), "cudnnCreateConvolutionDescriptor");
  TFHOST_CUDNN_CALL(cudnnSetConvolution2dDescriptor(d->conv, static_cast<int>(p.h.pad), static_cast<int>(p.w.pad),
                                                    static_cast<int>(p.h.stride), static_cast<int>(p.w.stride),
                                                    static_cast<int>(p.h.dilation), static_cast<int>(p.w.dilation),
                                                    CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT),
                    "cudnnSetConvolution2dDescriptor");
  TFHOST_CUDNN_CALL(cudnnSetConvolutionGroupCount(d->conv, static_cast<int>(p.groups)), "cudnnSetConvolutionGroupCount");
  // DEFAULT_MATH lets Ampere and newer use TF32 tensor cores for float32;
  // FMA_MATH keeps full float32 operands. (TENSOR_OP_MATH_ALLOW_CONVERSION
  // would also allow rounding to float16, less than TF32 keeps.)
  TFHOST_CUDNN_CALL(cudnnSetConvolutionMathType(d->conv, allow_tf32 ? CUDNN_DEFAULT_MATH : CUDNN_FMA_MATH),
                    "cudnnSetConvolutionMathType");
  // The plan's arithmetic and cuDNN's must agree on the output.
  int n = 0, c = 0, h = 0, w = 0;
  TFHOST_CUDNN_CALL(cudnnGetConvolution2dForwardOutputDim(d->conv, d->x, d->w, &n, &c, &h, &w),
                    "cudnnGetConvolution2dForwardOutputDim");
  if (n != p.y.dim(0) || c != p.y.dim(3) || h != p.y.dim(1) || w != p.y.dim(2)) {
    return Internal(ir::NodeContext(ctx.node()) + ": cuDNN computes an output of NCHW " + std::to_string(n) + "x" +
                    std::to_string(c) + "x" + std::to_string(h) + "x" + std::to_string(w) + ", the plan " +
                    p.y.ToString() + " (NHWC)");
  }
  return OkStatus();
}

// A heuristic result the node may run: it succeeded, fits the workspace and
// keeps the node's precision.
template <typename Perf>
bool Acceptable(const Perf& perf, bool allow_tf32) {
  if (perf.status != CUDNN_STATUS_SUCCESS || perf.memory > CudnnContext::kWorkspaceBytes) return false;
  if (perf.mathType == CUDNN_TENSOR_OP_MATH_ALLOW_CONVERSION) return false;
  return allow_tf32 || perf.mathType != CUDNN_TENSOR_OP_MATH;
}

// A cached choice that cannot be one of cuDNN's algorithms of the kind
// (a hand-edited file, say) is chosen again and replaced, rather than
// failing the node on every run.
bool InRange(int64_t algorithm, int count) { return algorithm >= 0 && algorithm < count; }

// Records a fresh choice: over a stale entry unconditionally, else as
// AlgorithmCache::Insert does.
void Record(const CudaKernelEnv& env, const AlgorithmKey& key, const AlgorithmChoice& choice, bool stale) {
  if (stale) {
    env.cudnn->algorithms().Replace(key, choice);
  } else {
    env.cudnn->algorithms().Insert(key, choice);
  }
}

// The first acceptable result of a Find...Ex call, which sorts them by
// measured time, with that time; -1 when none.
template <typename Perf>
int64_t FastestAcceptable(const Perf* perf, int found, bool allow_tf32, double* micros) {
  for (int i = 0; i < found; ++i) {
    if (Acceptable(perf[i], allow_tf32)) {
      *micros = static_cast<double>(perf[i].time) * 1000.0;  // cuDNN reports milliseconds
      return perf[i].algo;
    }
  }
  return -1;
}

// `x`, `w` and `y` are the call's buffers: exhaustive search runs the
// candidates on them (y is overwritten; the real call writes it after).
StatusOr<int64_t> ForwardAlgorithm(const CudaKernelEnv& env, const ops::KernelContext& ctx, const ConvNode& node,
                                   const ConvPlan& p, const ConvDescriptors& d, const CudnnContext::Lease& lease,
                                   const void* x, const void* w, void* y) {
  const AlgorithmKey key =
      CudnnConvKey(p, "fwd", node.epilogue, node.allow_tf32, env.cudnn->device_key(), env.cudnn->library());
  const bool forced = node.epilogue.bias && node.epilogue.act != UnaryOp::kRelu;
  // The one algorithm IDENTITY runs with leaves nothing to time.
  const bool exhaustive = env.cudnn->exhaustive_search() && !forced;
  const auto known = env.cudnn->algorithms().Lookup(key, CudnnContext::kWorkspaceBytes, exhaustive);
  if (known && InRange(known->algorithm, CUDNN_CONVOLUTION_FWD_ALGO_COUNT)) return known->algorithm;
  const bool stale = known.has_value();
  const cudnnHandle_t handle = lease.handle();
  AlgorithmChoice choice;
  cudnnConvolutionFwdAlgoPerf_t perf[CUDNN_CONVOLUTION_FWD_ALGO_COUNT];
  int found = 0;
  if (forced) {
    choice.algorithm = CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM;  // the only one IDENTITY runs with
  } else if (exhaustive) {
    TFHOST_CUDNN_CALL(cudnnFindConvolutionForwardAlgorithmEx(handle, d.x, x, d.w, w, d.conv, d.y, y,
                                                             CUDNN_CONVOLUTION_FWD_ALGO_COUNT, &found, perf,
                                                             lease.workspace(), CudnnContext::kWorkspaceBytes),
                      "cudnnFindConvolutionForwardAlgorithmEx");
    choice.algorithm = FastestAcceptable(perf, found, node.allow_tf32, &choice.micros);
  } else {
    TFHOST_CUDNN_CALL(cudnnGetConvolutionForwardAlgorithm_v7(handle, d.x, d.w, d.conv, d.y,
                                                             CUDNN_CONVOLUTION_FWD_ALGO_COUNT, &found, perf),
                      "cudnnGetConvolutionForwardAlgorithm_v7");
    for (int i = 0; i < found && choice.algorithm < 0; ++i) {
      if (Acceptable(perf[i], node.allow_tf32)) choice.algorithm = perf[i].algo;
    }
  }
  if (choice.algorithm < 0) {
    return Unimplemented(ir::NodeContext(ctx.node()) + ": cuDNN has no forward algorithm within a " +
                         std::to_string(CudnnContext::kWorkspaceBytes >> 20) + " MiB workspace for " +
                         key.ToString());
  }
  size_t bytes = 0;
  TFHOST_CUDNN_CALL(cudnnGetConvolutionForwardWorkspaceSize(handle, d.x, d.w, d.conv, d.y,
                                                            static_cast<cudnnConvolutionFwdAlgo_t>(choice.algorithm),
                                                            &bytes),
                    "cudnnGetConvolutionForwardWorkspaceSize");
  if (bytes > CudnnContext::kWorkspaceBytes) {
    return Unimplemented(ir::NodeContext(ctx.node()) + ": cuDNN's algorithm " + std::to_string(choice.algorithm) +
                         " needs " + std::to_string(bytes) + " bytes of workspace, more than the " +
                         std::to_string(CudnnContext::kWorkspaceBytes >> 20) + " MiB there is");
  }
  choice.workspace_bytes = static_cast<int64_t>(bytes);
  Record(env, key, choice, stale);
  return choice.algorithm;
}

// As ForwardAlgorithm: `dx` is overwritten by exhaustive search.
StatusOr<int64_t> BackwardDataAlgorithm(const CudaKernelEnv& env, const ops::KernelContext& ctx,
                                        const ConvNode& node, const ConvPlan& p, const ConvDescriptors& d,
                                        const CudnnContext::Lease& lease, const void* w, const void* dy, void* dx) {
  const AlgorithmKey key =
      CudnnConvKey(p, "bwd_data", node.epilogue, node.allow_tf32, env.cudnn->device_key(), env.cudnn->library());
  const bool exhaustive = env.cudnn->exhaustive_search();
  const auto known = env.cudnn->algorithms().Lookup(key, CudnnContext::kWorkspaceBytes, exhaustive);
  if (known && InRange(known->algorithm, CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT)) return known->algorithm;
  const bool stale = known.has_value();
  const cudnnHandle_t handle = lease.handle();
  cudnnConvolutionBwdDataAlgoPerf_t perf[CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT];
  int found = 0;
  AlgorithmChoice choice;
  if (exhaustive) {
    TFHOST_CUDNN_CALL(cudnnFindConvolutionBackwardDataAlgorithmEx(handle, d.w, w, d.y, dy, d.conv, d.x, dx,
                                                                  CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT, &found,
                                                                  perf, lease.workspace(),
                                                                  CudnnContext::kWorkspaceBytes),
                      "cudnnFindConvolutionBackwardDataAlgorithmEx");
    choice.algorithm = FastestAcceptable(perf, found, node.allow_tf32, &choice.micros);
  } else {
    TFHOST_CUDNN_CALL(cudnnGetConvolutionBackwardDataAlgorithm_v7(handle, d.w, d.y, d.conv, d.x,
                                                                  CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT, &found, perf),
                      "cudnnGetConvolutionBackwardDataAlgorithm_v7");
    for (int i = 0; i < found && choice.algorithm < 0; ++i) {
      if (Acceptable(perf[i], node.allow_tf32)) choice.algorithm = perf[i].algo;
    }
  }
  if (choice.algorithm < 0) {
    return Unimplemented(ir::NodeContext(ctx.node()) + ": cuDNN has no backward-data algorithm within a " +
                         std::to_string(CudnnContext::kWorkspaceBytes >> 20) + " MiB workspace for " +
                         key.ToString());
  }
  size_t bytes = 0;
  TFHOST_CUDNN_CALL(cudnnGetConvolutionBackwardDataWorkspaceSize(
                        handle, d.w, d.y, d.conv, d.x, static_cast<cudnnConvolutionBwdDataAlgo_t>(choice.algorithm),
                        &bytes),
                    "cudnnGetConvolutionBackwardDataWorkspaceSize");
  if (bytes > CudnnContext::kWorkspaceBytes) {
    return Unimplemented(ir::NodeContext(ctx.node()) + ": cuDNN's backward-data algorithm needs " +
                         std::to_string(bytes) + " bytes of workspace, more than there is");
  }
  choice.workspace_bytes = static_cast<int64_t>(bytes);
  Record(env, key, choice, stale);
  return choice.algorithm;
}

// The node's filter in KRSC, rewritten when a call brings another buffer.
class KrscFilterCache {
 public:
  StatusOr<Tensor> Get(const CudaKernelEnv& env, ops::KernelContext& ctx, WindowOp op, const Tensor& filter,
                       const Shape& krsc_shape) {
    std::lock_guard<std::mutex> lock(mu_);
    if (krsc_.valid() && source_.SharesBufferWith(filter) && source_.shape() == filter.shape() &&
        krsc_.shape() == krsc_shape) {
      return krsc_;
    }
    auto gather = MakeKrscGather(op, filter.shape());
    if (!gather.ok()) return ctx.Error(gather.status().message());
    Tensor krsc;
    if (IsIdentityGather(*gather, filter.NumElements())) {  // 1x1 depthwise, say: the same bytes
      TFHOST_ASSIGN_OR_RETURN(krsc, filter.Reshaped(krsc_shape));
    } else {
      TFHOST_ASSIGN_OR_RETURN(krsc, ctx.AllocateOutput(DType::kFloat, krsc_shape));
      if (int e = LaunchStridedGather(4, *gather, filter.raw_data(), krsc.raw_data(), KernelStream(ctx)); e != 0) {
        return CudaError(e, "launching the filter layout kernel for node '" + ctx.node().name + "'", env.device);
      }
    }
    source_ = filter;  // held, so its buffer is never another filter's
    krsc_ = krsc;
    return krsc;
  }

 private:
  std::mutex mu_;
  Tensor source_, krsc_;
};

Status RunForward(const CudaKernelEnv& env, const ConvNode& node, KrscFilterCache& cache, ops::KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  const Tensor& filter = ctx.input(1);
  auto plan = MakeConvPlan(node.op, node.window, x.shape(), filter.shape());
  if (!plan.ok()) return Status(plan.status().code(), ir::NodeContext(ctx.node()) + ": " + plan.status().message());
  const ConvPlan& p = *plan;
  const float* bias = nullptr;
  const float* residual = nullptr;
  if (node.epilogue.bias) {
    const Tensor& b = ctx.input(2);
    if (b.rank() != 1 || b.dim(0) != p.out_c) {
      return ctx.Error("BiasAdd's arg must be a vector of the output's " + std::to_string(p.out_c) +
                       " channels, got shape " + b.shape().ToString());
    }
    bias = b.data<float>();
  }
  if (node.epilogue.residual) {
    const Tensor& z = ctx.input(3);
    if (!(z.shape() == p.y)) {
      return ctx.Error("Add's arg must have the output's shape " + p.y.ToString() + ", got " + z.shape().ToString());
    }
    residual = z.data<float>();
  }
  TFHOST_ASSIGN_OR_RETURN(Tensor y, ctx.AllocateOutput(DType::kFloat, p.y));
  if (y.NumElements() > 0) {
    TFHOST_ASSIGN_OR_RETURN(Tensor krsc, cache.Get(env, ctx, node.op, filter, p.filter));
    TFHOST_ASSIGN_OR_RETURN(Tensor xin, PaddedCopy(x, p.pre_paddings(), 0, ctx, env.device));
    TFHOST_ASSIGN_OR_RETURN(CudnnContext::Lease lease, env.cudnn->Acquire(KernelStream(ctx), ctx.node()));
    ConvDescriptors d;
    TFHOST_RETURN_IF_ERROR(MakeDescriptors(env, ctx, p, node.allow_tf32, &d));
    TFHOST_ASSIGN_OR_RETURN(int64_t algo,
                            ForwardAlgorithm(env, ctx, node, p, d, lease, xin.raw_data(), krsc.raw_data(), y.raw_data()));
    const auto fwd = static_cast<cudnnConvolutionFwdAlgo_t>(algo);
    const float one = 1.0f, zero = 0.0f;
    if (!node.epilogue.bias) {
      TFHOST_CUDNN_CALL(cudnnConvolutionForward(lease.handle(), &one, d.x, xin.raw_data(), d.w, krsc.raw_data(),
                                                d.conv, fwd, lease.workspace(), CudnnContext::kWorkspaceBytes, &zero,
                                                d.y, y.raw_data()),
                        "cudnnConvolutionForward");
    } else {
      TFHOST_CUDNN_CALL(MakeNhwc(&d.bias, Shape({1, 1, 1, p.out_c})), "describing the bias");
      TFHOST_CUDNN_CALL(cudnnCreateActivationDescriptor(&d.act), "cudnnCreateActivationDescriptor");
      const bool relu = node.epilogue.act == UnaryOp::kRelu;
      TFHOST_CUDNN_CALL(cudnnSetActivationDescriptor(d.act, relu ? CUDNN_ACTIVATION_RELU : CUDNN_ACTIVATION_IDENTITY,
                                                     CUDNN_PROPAGATE_NAN, 0.0),
                        "cudnnSetActivationDescriptor");
      // y = act(conv(x) + alpha2 * z + bias); without a residual z is y
      // itself, scaled by 0.
      const float alpha2 = residual != nullptr ? 1.0f : 0.0f;
      const void* z = residual != nullptr ? static_cast<const void*>(residual) : y.raw_data();
      TFHOST_CUDNN_CALL(cudnnConvolutionBiasActivationForward(
                            lease.handle(), &one, d.x, xin.raw_data(), d.w, krsc.raw_data(), d.conv, fwd,
                            lease.workspace(), CudnnContext::kWorkspaceBytes, &alpha2, d.y, z, d.bias, bias, d.act,
                            d.y, y.raw_data()),
                        "cudnnConvolutionBiasActivationForward");
      if (!relu && node.epilogue.act != UnaryOp::kIdentity) {
        if (int e = LaunchBiasActivation(node.epilogue.act, y.data<float>(), nullptr, p.out_c, y.NumElements(),
                                         KernelStream(ctx));
            e != 0) {
          return CudaError(e, "launching the activation kernel for node '" + ctx.node().name + "'", env.device);
        }
      }
    }
  }
  ctx.set_output(0, std::move(y));
  return OkStatus();
}

// input_sizes (host memory) as the NHWC input gradient's shape.
StatusOr<Shape> InputSizes(const ops::KernelContext& ctx, const Tensor& sizes, const Tensor& dy,
                           const Tensor& filter) {
  if (sizes.rank() != 1 || (sizes.NumElements() != 4 && sizes.NumElements() != 2)) {
    return ctx.Error("input_sizes must be a vector of 4 (or 2 spatial) sizes, got shape " + sizes.shape().ToString());
  }
  auto s = sizes.ToInt64Vector();
  if (!s.ok()) return ctx.Error("input_sizes must be integers, got " + DTypeShortName(sizes.dtype()));
  if (dy.rank() != 4) return ctx.Error("out_backprop must be 4-D, got shape " + dy.shape().ToString());
  if (filter.rank() != 4) return ctx.Error("filter must be 4-D, got shape " + filter.shape().ToString());
  for (int64_t v : *s) {
    if (v < 0) return ctx.Error("input_sizes must be non-negative, got a " + std::to_string(v));
  }
  if (s->size() == 2) return Shape({dy.dim(0), (*s)[0], (*s)[1], filter.dim(2)});
  if ((*s)[0] != dy.dim(0)) {
    return ctx.Error("input_sizes batch " + std::to_string((*s)[0]) + " differs from out_backprop batch " +
                     std::to_string(dy.dim(0)));
  }
  return Shape(*s);
}

Status RunBackpropInput(const CudaKernelEnv& env, const ConvNode& node, KrscFilterCache& cache,
                        ops::KernelContext& ctx) {
  const Tensor& filter = ctx.input(1);
  const Tensor& dy = ctx.input(2);
  TFHOST_ASSIGN_OR_RETURN(Shape dx_shape, InputSizes(ctx, ctx.input(0), dy, filter));
  auto plan = MakeConvPlan(node.op, node.window, dx_shape, filter.shape());
  if (!plan.ok()) return Status(plan.status().code(), ir::NodeContext(ctx.node()) + ": " + plan.status().message());
  const ConvPlan& p = *plan;
  if (!(p.y == dy.shape())) {
    return ctx.Error("out_backprop has shape " + dy.shape().ToString() + ", but the forward convolution of " +
                     dx_shape.ToString() + " gives " + p.y.ToString());
  }
  TFHOST_ASSIGN_OR_RETURN(Tensor dx, ctx.AllocateOutput(DType::kFloat, p.x));
  const cudaStream_t stream = KernelStream(ctx);
  if (dx.NumElements() > 0 && dy.NumElements() == 0) {  // nothing flows back: zeros
    if (cudaError_t e = cudaMemsetAsync(dx.raw_data(), 0, dx.ByteSize(), stream); e != cudaSuccess) {
      return CudaError(e, "cudaMemsetAsync for node '" + ctx.node().name + "'", env.device);
    }
  } else if (dx.NumElements() > 0) {
    TFHOST_ASSIGN_OR_RETURN(Tensor krsc, cache.Get(env, ctx, node.op, filter, p.filter));
    Tensor dxp = dx;  // the padded copy's gradient, cropped below
    if (p.pre_padded()) {
      TFHOST_ASSIGN_OR_RETURN(dxp, ctx.AllocateOutput(DType::kFloat, p.padded_x()));
    }
    TFHOST_ASSIGN_OR_RETURN(CudnnContext::Lease lease, env.cudnn->Acquire(stream, ctx.node()));
    ConvDescriptors d;
    TFHOST_RETURN_IF_ERROR(MakeDescriptors(env, ctx, p, node.allow_tf32, &d));
    TFHOST_ASSIGN_OR_RETURN(int64_t algo, BackwardDataAlgorithm(env, ctx, node, p, d, lease, krsc.raw_data(),
                                                                dy.raw_data(), dxp.raw_data()));
    const float one = 1.0f, zero = 0.0f;
    TFHOST_CUDNN_CALL(cudnnConvolutionBackwardData(lease.handle(), &one, d.w, krsc.raw_data(), d.y, dy.raw_data(),
                                                   d.conv, static_cast<cudnnConvolutionBwdDataAlgo_t>(algo),
                                                   lease.workspace(), CudnnContext::kWorkspaceBytes, &zero, d.x,
                                                   dxp.raw_data()),
                      "cudnnConvolutionBackwardData");
    if (p.pre_padded()) {
      Shape cropped;
      auto g = MakeSliceGather(p.padded_x(), {0, p.h.pre_before, p.w.pre_before, 0},
                               {p.batch, p.h.in, p.w.in, p.in_c}, &cropped);
      if (!g.ok()) return ctx.Error(g.status().message());
      if (int e = LaunchStridedGather(4, *g, dxp.raw_data(), dx.raw_data(), stream); e != 0) {
        return CudaError(e, "launching the crop kernel for node '" + ctx.node().name + "'", env.device);
      }
    }
  }
  ctx.set_output(0, std::move(dx));
  return OkStatus();
}

}  // namespace

ops::KernelFn MakeCudnnConvKernel(const CudaKernelEnv& env, const ir::Node& node, const ops::KernelFn& fallback) {
  ConvNode conv;
  conv.op = node.op == "Conv2DBackpropInput"                                            ? WindowOp::kBackpropInput
            : node.op == "DepthwiseConv2dNative" || node.op == "FusedDepthwiseConv2dNative" ? WindowOp::kDepthwise
                                                                                          : WindowOp::kConv2D;
  auto window = ops::nn::ParseWindowAttrs(node, /*has_dilations=*/true, /*allow_explicit=*/true);
  auto epilogue = ParseConvEpilogue(node);
  if (env.cudnn == nullptr || !window.ok() || !epilogue.ok()) return {};
  conv.window = *window;
  conv.epilogue = *epilogue;
  auto strict = ir::GetAttrOr<bool>(node, ir::kStrictFp32Attr, false);
  conv.allow_tf32 = env.allow_tf32 && !(strict.ok() && *strict);
  auto cache = std::make_shared<KrscFilterCache>();
  // The float inputs: input and filter, out_backprop, the fused args.
  std::vector<int> floats = {0, 1};
  if (conv.op == WindowOp::kBackpropInput) floats = {1, 2};
  if (conv.epilogue.bias) floats.push_back(2);
  if (conv.epilogue.residual) floats.push_back(3);
  return [env, conv, cache, floats, fallback](ops::KernelContext& ctx) -> Status {
    for (int i : floats) {
      // A dtype the graph did not state (a function's generic input) goes
      // to the next kernel of this memory space.
      if (ctx.input(i).dtype() != DType::kFloat) return fallback(ctx);
    }
    cudaSetDevice(env.device);
    if (conv.op == WindowOp::kBackpropInput) return RunBackpropInput(env, conv, *cache, ctx);
    return RunForward(env, conv, *cache, ctx);
  };
}

}  // namespace tfhost::backends::cuda
