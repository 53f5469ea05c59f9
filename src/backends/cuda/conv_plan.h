// The CUDA backend's convolution and pooling plans for cuDNN: how one
// TensorFlow NHWC window op (Conv2D, DepthwiseConv2dNative, their fused forms,
// Conv2DBackpropInput, MaxPool, AvgPool) maps onto cuDNN's legacy
// descriptors. Pure arithmetic over ops/nn/conv_geometry.h (which decides
// output sizes and padding, as for every CPU kernel), so that
// conv_plan_test checks it on the CPU against the reference kernels.
//
// Padding. cuDNN takes one symmetric pad per spatial dim. TensorFlow's SAME
// pads the far side one more when the total is odd (every stride-2 layer of
// a ResNet or MobileNet on an even image), and EXPLICIT takes any pair. A
// plan gives cuDNN the symmetric part and has the rest written into a padded
// copy of the input first (zeros; the lowest float for MaxPool, which never
// picks it), as TensorFlow's own GPU kernels do. Conv2DBackpropInput
// computes the gradient of that padded copy and crops it.
//
// AvgPool divides by the real cells of each window (TensorFlow excludes
// padding). Without a padded copy cuDNN's COUNT_EXCLUDE_PADDING does that;
// with one, the copy's zeros would count as cells, so the plan averages
// over whole windows (COUNT_INCLUDE_PADDING) and multiplies each output
// pixel by window / real cells (AvgPoolScale).
//
// Filters. TensorFlow's HWIO [kh, kw, in_c / groups, out_c] becomes KRSC
// [out_c, kh, kw, in_c / groups], cuDNN's NHWC filter layout. A depthwise
// filter [kh, kw, C, M] is HWIO with in 1 and out C * M: a grouped
// convolution of C groups, output channel c * M + q reading input channel c,
// the order TensorFlow gives its outputs.
//
// Thread-safety: plain functions and values.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "backends/algorithm_cache.h"
#include "backends/cuda/elementwise_functors.h"
#include "backends/cuda/layout_functors.h"
#include "ir/attrs.h"
#include "ops/nn/conv_geometry.h"

namespace tfhost::backends::cuda {

enum class WindowOp { kConv2D, kDepthwise, kBackpropInput, kMaxPool, kAvgPool };

// One spatial dim as cuDNN is told it.
struct CudnnDim {
  int64_t in = 0;   // TensorFlow's input size
  int64_t out = 0;  // TensorFlow's output size
  int64_t k = 1, stride = 1, dilation = 1;
  int64_t pad = 0;                        // symmetric, given to cuDNN
  int64_t pre_before = 0, pre_after = 0;  // written into the padded copy
  int64_t padded_in() const { return in + pre_before + pre_after; }
  // Where output o's window starts in the original input (may be negative).
  int64_t origin(int64_t o) const { return o * stride - pad - pre_before; }
};

// cuDNN's documented output size of a convolution or pooling window (for a
// non-negative numerator, which every plan with an output has).
inline int64_t CudnnOutputSize(int64_t in, int64_t pad, int64_t k, int64_t stride, int64_t dilation) {
  return 1 + (in + 2 * pad - ((k - 1) * dilation + 1)) / stride;
}

// TensorFlow's window (ops::nn::ComputeWindowDim) split into cuDNN's
// symmetric pad and the padded copy. Output o starts at o * stride - before
// in both; the copy gets just enough far-side cells that cuDNN's output size
// is TensorFlow's.
inline StatusOr<CudnnDim> MakeCudnnDim(int64_t in, int64_t k, int64_t stride, int64_t dilation,
                                       ops::nn::Padding padding, int64_t explicit_before, int64_t explicit_after) {
  auto w = ops::nn::ComputeWindowDim(in, k, stride, dilation, padding, explicit_before, explicit_after);
  if (!w.ok()) return w.status();
  CudnnDim d;
  d.in = in;
  d.out = w->out;
  d.k = k;
  d.stride = stride;
  d.dilation = dilation;
  if (d.out <= 0) return d;
  // The far-side cells the last window reaches past the input (negative:
  // cells of the input it leaves unread).
  const int64_t after = (d.out - 1) * stride + (k - 1) * dilation + 1 - in - w->pad_before;
  d.pad = std::min(w->pad_before, std::max<int64_t>(after, 0));
  d.pre_before = w->pad_before - d.pad;
  d.pre_after = std::max<int64_t>(after - d.pad, 0);
  return d;
}

struct ConvPlan {
  WindowOp op = WindowOp::kConv2D;
  int64_t batch = 0, in_c = 0, out_c = 0, groups = 1;
  CudnnDim h, w;
  Shape x;       // NHWC: the input, or for Conv2DBackpropInput the input gradient
  Shape y;       // NHWC: the output, or for Conv2DBackpropInput out_backprop
  Shape filter;  // KRSC [out_c, kh, kw, in_c / groups]; rank 0 for the pools

  bool pre_padded() const { return h.pre_before || h.pre_after || w.pre_before || w.pre_after; }
  // What cuDNN reads (or, for Conv2DBackpropInput, writes).
  Shape padded_x() const { return Shape({batch, h.padded_in(), w.padded_in(), in_c}); }
  // Pad's paddings (NHWC pairs) from x to padded_x.
  std::vector<int64_t> pre_paddings() const {
    return {0, 0, h.pre_before, h.pre_after, w.pre_before, w.pre_after, 0, 0};
  }
};

namespace conv_plan_internal {

inline StatusOr<ConvPlan> FinishPlan(ConvPlan p, const ops::nn::Window2D& win, int64_t k_h, int64_t k_w) {
  auto h = MakeCudnnDim(p.x.dim(1), k_h, win.stride_h, win.dilation_h, win.padding, win.pad_top, win.pad_bottom);
  if (!h.ok()) return h.status().WithContext("height");
  auto w = MakeCudnnDim(p.x.dim(2), k_w, win.stride_w, win.dilation_w, win.padding, win.pad_left, win.pad_right);
  if (!w.ok()) return w.status().WithContext("width");
  p.h = *h;
  p.w = *w;
  p.y = Shape({p.batch, p.h.out, p.w.out, p.out_c});
  // cuDNN's descriptors take int: bound every size the plan gives it.
  for (int64_t v : {p.batch, p.in_c, p.out_c, p.h.padded_in(), p.w.padded_in(), p.h.out, p.w.out}) {
    if (v > int64_t{1} << 30) return Unimplemented("sizes above 2^30 do not fit cuDNN's descriptors");
  }
  return p;
}

}  // namespace conv_plan_internal

// The plan of a convolution (kConv2D, kDepthwise) over NHWC `x` with a
// TensorFlow filter (HWIO; depthwise [kh, kw, C, M]), or of
// Conv2DBackpropInput (kBackpropInput) whose input gradient has shape `x`.
// InvalidArgument, saying what disagrees, where the filter does not fit.
inline StatusOr<ConvPlan> MakeConvPlan(WindowOp op, const ops::nn::Window2D& win, const Shape& x,
                                       const Shape& filter) {
  if (x.rank() != 4) return InvalidArgument("input must be 4-D, got shape " + x.ToString());
  if (filter.rank() != 4) return InvalidArgument("filter must be 4-D, got shape " + filter.ToString());
  ConvPlan p;
  p.op = op;
  p.x = x;
  p.batch = x.dim(0);
  p.in_c = x.dim(3);
  const int64_t k_h = filter.dim(0), k_w = filter.dim(1);
  if (op == WindowOp::kDepthwise) {
    if (filter.dim(2) != p.in_c) {
      return InvalidArgument("filter in_c " + std::to_string(filter.dim(2)) + " must equal the input's channels " +
                             std::to_string(p.in_c) + " (filter shape " + filter.ToString() + ")");
    }
    p.groups = p.in_c;
    p.out_c = p.in_c * filter.dim(3);
    p.filter = Shape({p.out_c, k_h, k_w, 1});
  } else {
    const int64_t per_group = filter.dim(2);
    if (per_group <= 0 || p.in_c <= 0 || p.in_c % per_group != 0) {
      return InvalidArgument("input has " + std::to_string(p.in_c) +
                             " channels, which is not a positive multiple of the filter's in_c " +
                             std::to_string(per_group) + " (filter shape " + filter.ToString() + ")");
    }
    p.groups = p.in_c / per_group;
    p.out_c = filter.dim(3);
    if (op == WindowOp::kBackpropInput && p.groups != 1) {
      return InvalidArgument("input_sizes channels " + std::to_string(p.in_c) + " differ from the filter's in_c " +
                             std::to_string(per_group));
    }
    if (p.out_c % p.groups != 0) {
      return InvalidArgument("filter out_c " + std::to_string(p.out_c) + " is not a multiple of the " +
                             std::to_string(p.groups) + " groups");
    }
    p.filter = Shape({p.out_c, k_h, k_w, per_group});
  }
  return conv_plan_internal::FinishPlan(std::move(p), win, k_h, k_w);
}

// The plan of MaxPool or AvgPool over NHWC `x` with a k_h x k_w window.
inline StatusOr<ConvPlan> MakePoolPlan(WindowOp op, const ops::nn::Window2D& win, const Shape& x, int64_t k_h,
                                       int64_t k_w) {
  if (x.rank() != 4) return InvalidArgument("input must be 4-D, got shape " + x.ToString());
  ConvPlan p;
  p.op = op;
  p.x = x;
  p.batch = x.dim(0);
  p.in_c = p.out_c = x.dim(3);
  return conv_plan_internal::FinishPlan(std::move(p), win, k_h, k_w);
}

// A MaxPool or AvgPool node's window: its attrs through
// ops::nn::MakeWindow2D, and the ksize. EXPLICIT padding (MaxPool only) as
// wide as the window is Unimplemented: a window wholly in padding has no
// value cuDNN is documented to give.
struct PoolWindow {
  ops::nn::Window2D window;
  int64_t k_h = 1, k_w = 1;
};

inline StatusOr<PoolWindow> ParsePoolWindow(const ir::Node& node) {
  auto ksize = ir::GetAttr<std::vector<int64_t>>(node, "ksize");
  auto strides = ir::GetAttr<std::vector<int64_t>>(node, "strides");
  auto padding = ir::GetAttr<std::string>(node, "padding");
  auto explicit_paddings = ir::GetAttrOr<std::vector<int64_t>>(node, "explicit_paddings", {});
  auto format = ir::GetAttrOr<std::string>(node, "data_format", "NHWC");
  if (!ksize.ok()) return ksize.status();
  if (!strides.ok()) return strides.status();
  if (!padding.ok()) return padding.status();
  if (!explicit_paddings.ok()) return explicit_paddings.status();
  if (!format.ok()) return format.status();
  PoolWindow p;
  auto w = ops::nn::MakeWindow2D(*strides, *padding, *explicit_paddings, *format, {}, node.op == "MaxPool");
  if (!w.ok()) return w.status();
  p.window = *w;
  const int h_dim = p.window.format == ops::nn::DataFormat::kNhwc ? 1 : 2;
  const int c_dim = p.window.format == ops::nn::DataFormat::kNhwc ? 3 : 1;
  if (ksize->size() != 4 || (*ksize)[0] != 1 || (*ksize)[c_dim] != 1) {
    return Unimplemented("ksize must have 4 entries with 1 for the batch and channels, got " + JoinInts(*ksize));
  }
  p.k_h = (*ksize)[h_dim];
  p.k_w = (*ksize)[h_dim + 1];
  if (p.k_h <= 0 || p.k_w <= 0) return InvalidArgument("ksize must be positive, got " + JoinInts(*ksize));
  const ops::nn::Window2D& win = p.window;
  if (win.padding == ops::nn::Padding::kExplicit &&
      (std::max(win.pad_top, win.pad_bottom) >= p.k_h || std::max(win.pad_left, win.pad_right) >= p.k_w)) {
    return Unimplemented("explicit padding as wide as the window (ksize " + JoinInts(*ksize) + ", explicit_paddings " +
                         JoinInts(*explicit_paddings) + ")");
  }
  return p;
}

// The gather (layout_functors.h) that writes a TensorFlow filter as the
// plan's KRSC filter: KRSC element i is filter element GatherSource(g, i).
inline StatusOr<StridedGather> MakeKrscGather(WindowOp op, const Shape& filter) {
  if (filter.rank() != 4) return InvalidArgument("filter must be 4-D, got shape " + filter.ToString());
  const Shape hwio =
      op == WindowOp::kDepthwise ? Shape({filter.dim(0), filter.dim(1), 1, filter.dim(2) * filter.dim(3)}) : filter;
  Shape krsc;
  return MakeTransposeGather(hwio, {3, 0, 1, 2}, &krsc);
}

// AvgPool of a padded copy: per output pixel (oy * out_w + ox), window cells
// over the real input cells its window covers.
inline std::vector<float> AvgPoolScale(const ConvPlan& p) {
  auto real = [](const CudnnDim& d, int64_t o) {
    const int64_t start = d.origin(o);
    return std::min(start + d.k, d.in) - std::max<int64_t>(start, 0);
  };
  std::vector<float> scale(static_cast<size_t>(p.h.out * p.w.out));
  for (int64_t oy = 0; oy < p.h.out; ++oy) {
    for (int64_t ox = 0; ox < p.w.out; ++ox) {
      scale[oy * p.w.out + ox] =
          static_cast<float>(static_cast<double>(p.h.k * p.w.k) / static_cast<double>(real(p.h, oy) * real(p.w, ox)));
    }
  }
  return scale;
}

// A fused convolution's epilogue: fused_ops [BiasAdd], [BiasAdd, act],
// [BiasAdd, Add] or [BiasAdd, Add, act] (the residual is input 3), act one
// of FusedActivationOf's. Relu runs in cudnnConvolutionBiasActivationForward,
// the others in an element-wise kernel after it.
struct ConvEpilogue {
  bool bias = false;
  bool residual = false;
  UnaryOp act = UnaryOp::kIdentity;
  // "none", "bias_identity", "bias_relu", with "_add" for a residual: the
  // algorithm key's part (identity forces cuDNN's IMPLICIT_PRECOMP_GEMM).
  std::string Name() const {
    if (!bias) return "none";
    return std::string(act == UnaryOp::kRelu ? "bias_relu" : "bias_identity") + (residual ? "_add" : "");
  }
};

// Unimplemented, naming the list, for what the GPU does not fuse.
inline StatusOr<ConvEpilogue> ParseConvEpilogue(const ir::Node& node) {
  ConvEpilogue e;
  if (node.op != "_FusedConv2D" && node.op != "FusedDepthwiseConv2dNative") return e;
  auto ops = ir::GetAttrOr<std::vector<std::string>>(node, "fused_ops", {});
  auto num_args = ir::GetAttrOr<int64_t>(node, "num_args", 0);
  auto host_args = ir::GetAttrOr<int64_t>(node, "num_host_args", 0);
  if (!ops.ok()) return ops.status();
  if (!num_args.ok()) return num_args.status();
  if (!host_args.ok() || *host_args != 0) return Unimplemented("host_args are not taken on the GPU");
  std::string list;
  for (const auto& o : *ops) list += (list.empty() ? "" : ", ") + o;
  const Status refused = Unimplemented("fused_ops [" + list +
                                       "]: the GPU fuses [BiasAdd], then an optional Add, then an optional "
                                       "Relu, Relu6, Elu, Sigmoid, Tanh, GeluApproximate, GeluExact or _MklSwish");
  size_t i = 0;
  if (ops->empty() || (*ops)[0] != "BiasAdd") return refused;
  e.bias = true;
  ++i;
  if (i < ops->size() && (*ops)[i] == "Add") {
    e.residual = true;
    ++i;
  }
  if (i < ops->size() && !FusedActivationOf((*ops)[i++].c_str(), &e.act)) return refused;
  if (i != ops->size()) return refused;
  if (*num_args != (e.residual ? 2 : 1)) {
    return InvalidArgument("fused_ops [" + list + "] take " + std::to_string(e.residual ? 2 : 1) +
                           " args, num_args is " + std::to_string(*num_args));
  }
  return e;
}

// What a cuDNN convolution algorithm choice depends on (AlgorithmCache):
// `direction` "fwd" or "bwd_data", the shapes cuDNN sees, strides,
// dilations, pads, groups, the epilogue, the math mode, the device and the
// library version.
inline AlgorithmKey CudnnConvKey(const ConvPlan& p, const std::string& direction, const ConvEpilogue& epilogue,
                                 bool allow_tf32, const std::string& device, const std::string& libraries) {
  AlgorithmKey key;
  key.op = "conv2d_" + direction;
  key.dtypes = {DType::kFloat, DType::kFloat, DType::kFloat};
  key.layout = "NHWC;KRSC";
  auto dims = [](const Shape& s) {
    std::vector<int64_t> v;
    for (int i = 0; i < s.rank(); ++i) v.push_back(s.dim(i));
    return v;
  };
  key.shapes = {dims(p.padded_x()), dims(p.filter), dims(p.y)};
  key.attrs = "stride=" + std::to_string(p.h.stride) + "," + std::to_string(p.w.stride) +
              ";dilation=" + std::to_string(p.h.dilation) + "," + std::to_string(p.w.dilation) +
              ";pad=" + std::to_string(p.h.pad) + "," + std::to_string(p.w.pad) +
              ";groups=" + std::to_string(p.groups) + ";epilogue=" + epilogue.Name() +
              ";math=" + (allow_tf32 ? "tf32" : "fp32");
  key.device = device;
  key.libraries = libraries;
  return key;
}

}  // namespace tfhost::backends::cuda
