// TensorFlow's pools ignore padded cells: MaxPool never picks one and AvgPool
// leaves them out of the count, which is oneDNN's pooling_max and
// pooling_avg_exclude_padding. One primitive per input shape is cached.
#include "backends/cpu/onednn/onednn_pool.h"

#include "backends/cpu/onednn/onednn_engine.h"
#include "ir/attrs.h"
#include "ops/nn/conv_geometry.h"

namespace tfhost::backends::onednn {
namespace {

using dnnl::memory;
using ops::nn::DataFormat;
using ops::nn::Window2D;

struct PoolConfig {
  bool is_max = false;
  Window2D window;
  int64_t k_h = 1, k_w = 1;
};

struct PoolEntry {
  bool ok = false;
  dnnl::pooling_forward prim;
  memory::desc src_md, dst_md, scratchpad_md;
  Shape out_shape;
};

std::shared_ptr<PoolEntry> BuildEntry(const PoolConfig& cfg, const Tensor& x) {
  auto entry = std::make_shared<PoolEntry>();
  const Window2D& w = cfg.window;
  const bool nhwc = w.format == DataFormat::kNhwc;
  const int64_t n = x.dim(0);
  const int64_t h = nhwc ? x.dim(1) : x.dim(2);
  const int64_t wd = nhwc ? x.dim(2) : x.dim(3);
  const int64_t c = nhwc ? x.dim(3) : x.dim(1);
  auto dh = ops::nn::ComputeWindowDim(h, cfg.k_h, w.stride_h, 1, w.padding, w.pad_top, w.pad_bottom);
  auto dw = ops::nn::ComputeWindowDim(wd, cfg.k_w, w.stride_w, 1, w.padding, w.pad_left, w.pad_right);
  if (!dh.ok() || !dw.ok()) return entry;
  if (n == 0 || c == 0 || dh->out <= 0 || dw->out <= 0) return entry;
  // A window wholly inside padding (explicit pads >= the window) has a
  // TF-defined value oneDNN does not produce; the reference handles it.
  if (dh->pad_before >= cfg.k_h || dh->pad_after >= cfg.k_h || dw->pad_before >= cfg.k_w ||
      dw->pad_after >= cfg.k_w) {
    return entry;
  }
  const memory::format_tag tag = nhwc ? memory::format_tag::nhwc : memory::format_tag::nchw;
  entry->src_md = memory::desc({n, c, h, wd}, memory::data_type::f32, tag);
  entry->dst_md = memory::desc({n, c, dh->out, dw->out}, memory::data_type::f32, tag);
  entry->out_shape = nhwc ? Shape({n, dh->out, dw->out, c}) : Shape({n, c, dh->out, dw->out});
  try {
    dnnl::primitive_attr attr;
    attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
    dnnl::pooling_forward::desc desc(
        dnnl::prop_kind::forward_inference,
        cfg.is_max ? dnnl::algorithm::pooling_max : dnnl::algorithm::pooling_avg_exclude_padding,
        entry->src_md, entry->dst_md, {w.stride_h, w.stride_w}, {cfg.k_h, cfg.k_w},
        {dh->pad_before, dw->pad_before}, {dh->pad_after, dw->pad_after});
    dnnl::pooling_forward::primitive_desc pd(desc, attr, Engine());
    entry->scratchpad_md = pd.scratchpad_desc();
    entry->prim = dnnl::pooling_forward(pd);
  } catch (const dnnl::error&) {
    return entry;
  }
  entry->ok = true;
  return entry;
}

class PoolKernel {
 public:
  PoolKernel(PoolConfig cfg, ops::KernelFn reference)
      : cfg_(std::move(cfg)), reference_(std::move(reference)),
        cache_(std::make_shared<ShapeCache<PoolEntry>>()) {}

  Status operator()(ops::KernelContext& ctx) const {
    return RunGuarded(ctx, [&] { return Run(ctx); });
  }

 private:
  Status Run(ops::KernelContext& ctx) const {
    // Before any primitive is created: some oneDNN implementations (the
    // gemm-based MatMul) fix their thread split when they are built.
    SetThreadsFor(ctx);
    if (ctx.num_inputs() < 1) return reference_(ctx);
    const Tensor& x = ctx.input(0);
    if (x.dtype() != DType::kFloat || x.rank() != 4) return reference_(ctx);
    std::shared_ptr<PoolEntry> entry = cache_->Find(x.shape().dims());
    if (entry == nullptr) {
      entry = BuildEntry(cfg_, x);
      cache_->Insert(x.shape().dims(), entry);
    }
    if (!entry->ok) return reference_(ctx);
    Tensor y = Tensor::Uninitialized(DType::kFloat, entry->out_shape);  // oneDNN writes all of it
    Execute(entry->prim, entry->scratchpad_md,
            {{DNNL_ARG_SRC, Wrap(entry->src_md, x)}, {DNNL_ARG_DST, Wrap(entry->dst_md, y)}});
    ctx.set_output(0, std::move(y));
    return OkStatus();
  }

  PoolConfig cfg_;
  ops::KernelFn reference_;
  std::shared_ptr<ShapeCache<PoolEntry>> cache_;
};

}  // namespace

ops::KernelFn MakePoolKernel(const ir::Node& node, const ops::KernelFn& reference) {
  PoolConfig cfg;
  cfg.is_max = node.op == "MaxPool";
  if (!AttrIsFloat(node, "T")) return {};
  auto ksize = ir::GetAttr<std::vector<int64_t>>(node, "ksize");
  auto strides = ir::GetAttr<std::vector<int64_t>>(node, "strides");
  auto padding = ir::GetAttr<std::string>(node, "padding");
  auto explicit_paddings = ir::GetAttrOr<std::vector<int64_t>>(node, "explicit_paddings", {});
  auto data_format = ir::GetAttrOr<std::string>(node, "data_format", "NHWC");
  if (!ksize.ok() || !strides.ok() || !padding.ok() || !explicit_paddings.ok() || !data_format.ok()) return {};
  auto window = ops::nn::MakeWindow2D(*strides, *padding, *explicit_paddings, *data_format, {},
                                      /*allow_explicit=*/cfg.is_max);
  if (!window.ok() || ksize->size() != 4) return {};
  cfg.window = *window;
  const bool nhwc = window->format == DataFormat::kNhwc;
  const int c_dim = nhwc ? 3 : 1, h_dim = nhwc ? 1 : 2;
  if ((*ksize)[0] != 1 || (*ksize)[c_dim] != 1) return {};
  cfg.k_h = (*ksize)[h_dim];
  cfg.k_w = (*ksize)[h_dim + 1];
  if (cfg.k_h <= 0 || cfg.k_w <= 0 || cfg.k_h > ops::nn::kMaxWindowValue || cfg.k_w > ops::nn::kMaxWindowValue) {
    return {};
  }
  return PoolKernel(std::move(cfg), reference);
}

}  // namespace tfhost::backends::onednn
