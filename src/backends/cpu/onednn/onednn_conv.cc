// Each node keeps, per (input shape, filter shape), the convolution primitive
// and the filter reordered into the primitive's preferred blocked layout.
// Activations stay in the graph's NHWC/NCHW layout (src and dst descriptors
// are plain), so only the weights are ever reordered, and only when the
// filter tensor changes: a Const filter is the same buffer on every run.
//
// A residual Add (fused_ops [BiasAdd, Add, act], residual_add_fusion) is a
// sum post-op: oneDNN adds what dst already holds, so dst is the residual's
// own buffer when this node is its last reader (written in place, no copy),
// else a copy of it.
//
// bf16 nodes (NodeWantsBf16, on a CPU with native bf16) convert the filter to
// bf16 once in the same reorder, and the input activations to bf16 on every
// call (in whatever layout the primitive picks); bias, post-ops and
// accumulation stay float32. Across a bf16 edge
// (passes/bf16_activation_chaining.cc) activations arrive in bf16, NHWC, and
// are read as they are, and a node whose output is such an edge writes it in
// bf16 after its float32 epilogue: the rounding its readers would have done.
#include "backends/cpu/onednn/onednn_conv.h"

#include <string>

#include "backends/cpu/onednn/onednn_engine.h"
#include "ir/attrs.h"
#include "ops/nn/conv_geometry.h"
#include "ops/nn/nn_util.h"

namespace tfhost::backends::onednn {
namespace {

using dnnl::memory;
using ops::nn::DataFormat;
using ops::nn::Window2D;

struct ConvConfig {
  bool depthwise = false;
  bool fused = false;
  bool bf16 = false;  // node marked bf16 and the CPU has it (float32 input)
  bool bf16_output = false;  // output 0 is a bf16 edge
  bool marked_bf16 = false;  // the precision pass marked the node (depthwise included)
  Window2D window;
  Epilogue epilogue;
};

struct ConvEntry {
  bool ok = false;  // false: oneDNN had no primitive for this shape
  dnnl::convolution_forward prim;
  memory::desc src_md, dst_md, weights_user_md, weights_md, bias_md, scratchpad_md;
  // bf16: src_md is the primitive's bf16 source; src_user_md the float32
  // activations as the graph holds them.
  bool bf16 = false;
  bool src_dense_copy = false;  // the bf16 source has the activations' own layout
  bool src_bf16 = false;        // the activations arrive in bf16 (src_md is theirs)
  bool dst_bf16 = false;        // the output is written in bf16
  memory::desc src_user_md;
  bool reorder_weights = false;
  Shape out_shape;  // in the node's data_format
  int64_t out_c = 0;

  std::mutex weights_mu;
  Tensor weights_source;                  // filter the cached weights came from
  std::shared_ptr<memory> weights;        // in weights_md's layout
};

memory::format_tag ActivationTag(DataFormat f) {
  return f == DataFormat::kNhwc ? memory::format_tag::nhwc : memory::format_tag::nchw;
}

// Builds the primitive for one shape; entry->ok stays false when oneDNN (or
// the geometry) rejects it, so the reference kernel handles that shape.
// `bf16`: compute in bf16; `src_bf16`: x holds bf16 (implies bf16).
std::shared_ptr<ConvEntry> BuildEntry(const ConvConfig& cfg, const Tensor& x, const Tensor& f, bool bf16,
                                      bool src_bf16) {
  auto entry = std::make_shared<ConvEntry>();
  const Window2D& w = cfg.window;
  const bool nhwc = w.format == DataFormat::kNhwc;
  const int64_t n = x.dim(0);
  const int64_t h = nhwc ? x.dim(1) : x.dim(2);
  const int64_t wd = nhwc ? x.dim(2) : x.dim(3);
  const int64_t c = nhwc ? x.dim(3) : x.dim(1);
  const int64_t kh = f.dim(0), kw = f.dim(1), fic = f.dim(2);
  int64_t groups = 1, oc = 0;
  // No input channels: no groups to divide by (the reference kernel says what is wrong).
  if (c == 0) return entry;
  if (cfg.depthwise) {
    if (fic != c) return entry;
    groups = c;
    oc = c * f.dim(3);
  } else {
    if (fic <= 0 || c % fic != 0) return entry;
    groups = c / fic;
    oc = f.dim(3);
    if (oc % groups != 0) return entry;
  }
  // fic input channels per group in the filter (1 for depthwise).
  const int64_t group_in = cfg.depthwise ? 1 : fic;
  const int64_t group_out = oc / groups;
  auto dh = ops::nn::ComputeWindowDim(h, kh, w.stride_h, w.dilation_h, w.padding, w.pad_top, w.pad_bottom);
  auto dw = ops::nn::ComputeWindowDim(wd, kw, w.stride_w, w.dilation_w, w.padding, w.pad_left, w.pad_right);
  if (!dh.ok() || !dw.ok()) return entry;
  if (n == 0 || c == 0 || oc == 0 || dh->out <= 0 || dw->out <= 0) return entry;

  entry->out_c = oc;
  entry->out_shape = nhwc ? Shape({n, dh->out, dw->out, oc}) : Shape({n, oc, dh->out, dw->out});
  const Epilogue& e = cfg.epilogue;
  entry->src_md = memory::desc({n, c, h, wd}, src_bf16 ? memory::data_type::bf16 : memory::data_type::f32,
                               ActivationTag(w.format));
  entry->src_user_md = entry->src_md;
  entry->bf16 = bf16;
  entry->src_bf16 = src_bf16;
  // A residual sum accumulates into its float32 residual.
  entry->dst_bf16 = bf16 && cfg.bf16_output && !e.has_sum;
  const memory::data_type compute = bf16 ? memory::data_type::bf16 : memory::data_type::f32;
  // float32 activations bound for bf16 are converted anyway, so the primitive
  // may pick their layout; bf16 ones are taken as they come.
  const memory::desc src_arg =
      bf16 && !src_bf16 ? memory::desc({n, c, h, wd}, compute, memory::format_tag::any) : entry->src_md;
  entry->dst_md = memory::desc({n, oc, dh->out, dw->out},
                               entry->dst_bf16 ? memory::data_type::bf16 : memory::data_type::f32,
                               ActivationTag(w.format));
  // The HWIO filter [kh, kw, group_in, oc] (output channel = g * group_out + o)
  // described in oneDNN's (g, o, i, h, w) order by strides.
  memory::dims wdims, wstrides;
  if (groups == 1) {
    wdims = {oc, group_in, kh, kw};
    wstrides = {1, oc, kw * group_in * oc, group_in * oc};
  } else {
    wdims = {groups, group_out, group_in, kh, kw};
    wstrides = {group_out, 1, oc, kw * group_in * oc, group_in * oc};
  }
  entry->weights_user_md = memory::desc(wdims, memory::data_type::f32, wstrides);
  const memory::desc weights_any(wdims, compute, memory::format_tag::any);
  const memory::dims strides = {w.stride_h, w.stride_w};
  const memory::dims dilates = {w.dilation_h - 1, w.dilation_w - 1};
  const memory::dims pad_l = {dh->pad_before, dw->pad_before};
  const memory::dims pad_r = {dh->pad_after, dw->pad_after};
  try {
    dnnl::primitive_attr attr;
    attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
    attr.set_post_ops(MakePostOps(e, 4, oc));
    std::unique_ptr<dnnl::convolution_forward::desc> desc;
    if (e.affine == Epilogue::Affine::kBias) {
      entry->bias_md = PlainDesc({oc});
      desc = std::make_unique<dnnl::convolution_forward::desc>(
          dnnl::prop_kind::forward_inference, dnnl::algorithm::convolution_direct, src_arg,
          weights_any, entry->bias_md, entry->dst_md, strides, dilates, pad_l, pad_r);
    } else {
      desc = std::make_unique<dnnl::convolution_forward::desc>(
          dnnl::prop_kind::forward_inference, dnnl::algorithm::convolution_direct, src_arg,
          weights_any, entry->dst_md, strides, dilates, pad_l, pad_r);
    }
    dnnl::convolution_forward::primitive_desc pd(*desc, attr, Engine());
    // Not every jit kernel takes a sum post-op (oneDNN 2.6 on AVX2 has none
    // for batch norm's binary post-ops followed by sum) and the fallback is
    // oneDNN's naive reference convolution; tfhost's reference kernel does
    // the same work with its epilogue in cache.
    if (e.has_sum && std::string(pd.impl_info_str()).rfind("ref", 0) == 0) return entry;
    // The primitive must take activations as they are: a plain layout it
    // cannot use would need reorders of its own (let the reference run).
    if (pd.dst_desc() != entry->dst_md) return entry;
    if (bf16 && !src_bf16) {
      entry->src_md = pd.src_desc();
      entry->src_dense_copy =
          entry->src_md == memory::desc({n, c, h, wd}, memory::data_type::bf16, ActivationTag(w.format));
    } else if (pd.src_desc() != entry->src_md) {
      return entry;
    }
    entry->weights_md = pd.weights_desc();
    entry->scratchpad_md = pd.scratchpad_desc();
    entry->reorder_weights = entry->weights_md != entry->weights_user_md;
    entry->prim = dnnl::convolution_forward(pd);
  } catch (const dnnl::error&) {
    return entry;
  }
  entry->ok = true;
  return entry;
}

// The filter in the primitive's layout: reordered once per filter buffer.
std::shared_ptr<memory> WeightsFor(ConvEntry& entry, const Tensor& f) {
  if (!entry.reorder_weights) return std::make_shared<memory>(Wrap(entry.weights_user_md, f));
  std::lock_guard<std::mutex> lock(entry.weights_mu);
  // Holding weights_source keeps its buffer alive, so an equal buffer
  // pointer means the same, unchanged filter (tensors are immutable once
  // shared; a variable update replaces the buffer).
  if (entry.weights && entry.weights_source.SharesBufferWith(f)) return entry.weights;
  auto reordered = std::make_shared<memory>(entry.weights_md, Engine());
  memory user = Wrap(entry.weights_user_md, f);
  Execute(dnnl::reorder(user, *reordered), memory::desc(), {{DNNL_ARG_FROM, user}, {DNNL_ARG_TO, *reordered}});
  entry.weights_source = f;
  entry.weights = reordered;
  return reordered;
}

// The dst of a sum post-op, holding the residual input `arg`: the residual
// itself when nothing else holds its buffer (the executor drops its own
// reference at a tensor's last use, and constants and feeds always keep one,
// so this is an intermediate nobody reads after this node), else a copy.
Tensor ResidualAsDst(ops::KernelContext& ctx, int arg) {
  Tensor r = ctx.TakeInput(arg);
  if (r.RefCountIsOne()) return r;
  Tensor y = Tensor::Uninitialized(DType::kFloat, r.shape());
  ParallelCopy(ctx, y.raw_data(), r.raw_data(), static_cast<int64_t>(r.ByteSize()));
  return y;
}

class ConvKernel {
 public:
  ConvKernel(ConvConfig cfg, ops::KernelFn reference)
      : cfg_(std::move(cfg)), reference_(std::move(reference)), cache_(std::make_shared<ShapeCache<ConvEntry>>()) {}

  Status operator()(ops::KernelContext& ctx) const {
    return RunGuarded(ctx, [&] { return Run(ctx); });
  }

 private:
  Status Run(ops::KernelContext& ctx) const {
    // Before any primitive is created: some oneDNN implementations (the
    // gemm-based MatMul) fix their thread split when they are built.
    SetThreadsFor(ctx);
    const Epilogue& e = cfg_.epilogue;
    if (ctx.num_inputs() < 2 + e.num_args) return reference_(ctx);
    const Tensor& f = ctx.input(1);
    const bool x_bf16 = ctx.input(0).dtype() == DType::kBFloat16;
    if ((ctx.input(0).dtype() != DType::kFloat && !x_bf16) || f.dtype() != DType::kFloat ||
        ctx.input(0).rank() != 4 || f.rank() != 4) {
      return reference_(ctx);  // a bf16 edge's reader widens it (runtime/bf16_edges.h)
    }
    std::shared_ptr<ConvEntry> entry = EntryFor(ctx.input(0), f);
    if (!entry->ok && x_bf16) {
      // No bf16 primitive takes these activations as they are: widen them.
      ctx.set_input(0, ops::nn::WidenToFloat(ctx.input(0)));
      entry = EntryFor(ctx.input(0), f);
    }
    if (!entry->ok) return reference_(ctx);
    const Tensor& x = ctx.input(0);

    std::unordered_map<int, memory> args;
    Tensor bn_scale, bn_shift;
    if (e.affine == Epilogue::Affine::kBias) {
      const Tensor& bias = ctx.input(2);
      if (!IsFloatVector(bias, entry->out_c)) return reference_(ctx);
      args.emplace(DNNL_ARG_BIAS, Wrap(entry->bias_md, bias));
    } else if (e.affine == Epilogue::Affine::kBatchNorm) {
      if (!FoldBatchNorm(ctx.input(2), ctx.input(3), ctx.input(4), ctx.input(5), e.epsilon, entry->out_c,
                         &bn_scale, &bn_shift)) {
        return reference_(ctx);
      }
      const memory::desc md = PlainDesc({1, entry->out_c, 1, 1});
      args.emplace(DNNL_ARG_ATTR_MULTIPLE_POST_OP(0) | DNNL_ARG_SRC_1, Wrap(md, bn_scale));
      args.emplace(DNNL_ARG_ATTR_MULTIPLE_POST_OP(1) | DNNL_ARG_SRC_1, Wrap(md, bn_shift));
    }
    // The residual (last fused arg) seeds dst for the sum post-op.
    const int residual_arg = 2 + e.num_args - 1;
    if (e.has_sum) {
      const Tensor& r = ctx.input(residual_arg);
      if (!r.valid() || r.dtype() != DType::kFloat || r.shape() != entry->out_shape) return reference_(ctx);
    }
    // oneDNN writes every element of the output: a zero fill first would be
    // one more pass over memory (and a serial one) per convolution.
    Tensor y = e.has_sum ? ResidualAsDst(ctx, residual_arg)
                         : Tensor::Uninitialized(entry->dst_bf16 ? DType::kBFloat16 : DType::kFloat,
                                                 entry->out_shape);
    std::shared_ptr<memory> weights = WeightsFor(*entry, f);
    if (entry->src_bf16) {
      args.emplace(DNNL_ARG_SRC, Wrap(entry->src_md, x));
    } else if (entry->bf16) {
      // Into this thread's buffer (slot 1; slot 0 is Execute's scratchpad):
      // at batch 32 a fresh buffer per call was an mmap and its page faults.
      memory src(entry->src_md, Engine(), ThreadBuffer(1, entry->src_md.get_size()));
      if (entry->src_dense_copy) {
        ConvertToBf16Into(x, src, ctx);
      } else {
        ReorderInto(entry->src_user_md, x, src);
      }
      args.emplace(DNNL_ARG_SRC, src);
    } else {
      args.emplace(DNNL_ARG_SRC, Wrap(entry->src_md, x));
    }
    args.emplace(DNNL_ARG_WEIGHTS, *weights);
    args.emplace(DNNL_ARG_DST, Wrap(entry->dst_md, y));
    Execute(entry->prim, entry->scratchpad_md, std::move(args));
    ctx.set_output(0, std::move(y));
    return OkStatus();
  }

  // The cached primitive for these activations (dtype and shape) and filter
  // shape. float32 activations compute in bf16 when the node is marked,
  // bf16 ones (a bf16 edge) too, depthwise included; an unmarked node keeps
  // its float32 weights and reads bf16 activations widened (the precision
  // pass left it float32 for accuracy). No bf16 primitive for a float32
  // shape means float32 rather than the reference.
  std::shared_ptr<ConvEntry> EntryFor(const Tensor& x, const Tensor& f) const {
    const bool src_bf16 = x.dtype() == DType::kBFloat16 && CpuHasBf16() && cfg_.marked_bf16;
    std::vector<int64_t> key = x.shape().dims();
    // Keyed by the dtype, not the path taken: bf16 activations on a CPU
    // without bf16 must not leave their (declined) entry in float32's slot.
    key.push_back(x.dtype() == DType::kBFloat16 ? -2 : -1);
    key.insert(key.end(), f.shape().dims().begin(), f.shape().dims().end());
    std::shared_ptr<ConvEntry> entry = cache_->Find(key);
    if (entry != nullptr) return entry;
    if (x.dtype() == DType::kBFloat16 && !src_bf16) {
      entry = std::make_shared<ConvEntry>();  // not ok: the caller widens x
    } else {
      const bool bf16 = src_bf16 || cfg_.bf16;
      entry = BuildEntry(cfg_, x, f, bf16, src_bf16);
      if (!entry->ok && bf16 && !src_bf16) entry = BuildEntry(cfg_, x, f, false, false);
    }
    cache_->Insert(key, entry);
    return entry;
  }

  ConvConfig cfg_;
  ops::KernelFn reference_;
  std::shared_ptr<ShapeCache<ConvEntry>> cache_;
};

}  // namespace

ops::KernelFn MakeConvKernel(const ir::Node& node, const ops::KernelFn& reference) {
  ConvConfig cfg;
  cfg.depthwise = node.op == "DepthwiseConv2dNative" || node.op == "FusedDepthwiseConv2dNative";
  cfg.fused = node.op == "_FusedConv2D" || node.op == "FusedDepthwiseConv2dNative";
  if (!AttrIsFloat(node, "T")) return {};
  auto window = ops::nn::ParseWindowAttrs(node, /*has_dilations=*/true, /*allow_explicit=*/true);
  if (!window.ok()) return {};
  cfg.window = *window;
  // Depthwise convolutions stay float32: they are bound by memory traffic,
  // and converting their activations cost more than bf16 saved (measured on
  // nsfw_mobilenet_v2, docs/backends.md "bf16").
  // bf16 activations (a bf16 edge) are another matter: they compute in bf16.
  cfg.bf16 = NodeWantsBf16(node) && CpuHasBf16() && !cfg.depthwise;
  cfg.marked_bf16 = NodeWantsBf16(node);
  auto output_dtype = ir::GetAttrOr<DType>(node, ir::kOutputDtypeAttr, DType::kFloat);
  cfg.bf16_output = output_dtype.ok() && *output_dtype == DType::kBFloat16;
  if (cfg.fused) {
    auto filter_format = ir::GetAttrOr<std::string>(node, "filter_format", "HWIO");
    if (!filter_format.ok() || *filter_format != "HWIO") return {};
    if (!ParseEpilogue(node, /*allow_batch_norm=*/true, &cfg.epilogue, /*allow_sum=*/true)) return {};
  }
  return ConvKernel(std::move(cfg), reference);
}

}  // namespace tfhost::backends::onednn
