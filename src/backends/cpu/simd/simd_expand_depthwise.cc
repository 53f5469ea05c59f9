// _TfhostExpandDepthwise (ops/nn/expand_depthwise.h): a 1x1 expansion and
// the 3x3 depthwise convolution reading it, without writing the expanded
// tensor out. Run separately, the expansion writes H x W x E floats
// (MobileNetV2's first: 112 x 112 x 96, 4.8 MB) that the depthwise layer
// reads back from memory: in the model that layer took 1.6-2.4x its time on
// the same input in cache.
//
// Here each output row of the depthwise convolution is made from three
// expanded rows kept in a ring (slot iy % 3: the rows of one window are
// three consecutive ones, so they never share a slot), each expanded once
// per image and thread by the 1x1 kernel's tiles (simd_pointwise_tiles.h)
// with the expansion's bias and activation, then the depthwise row function
// of the strided kernel (simd_depthwise_pixels.h) with its own. So the
// expanded rows stay in L1/L2 (3 x W x E floats: 129 KB for that first
// layer) between their computation and their three reads.
//
// Work is split over the intra-op threads by output rows; each thread keeps
// its own ring, and the rows at the edges of its share are expanded by both
// neighbours.
//
// Stride 2 only. Per block of MobileNetV2 at batch 1 on one thread (Zen 5
// EPYC, `tfhost bench --profile`), fused against the two kernels: the
// stride-2 blocks ran 1.02-1.59x (the first, 112x112x96, 1.59x), the
// stride-1 ones 0.73-1.0x: there the separate flat depthwise kernel is the
// faster one, and an expanded row at a time re-reads the expansion's
// weights once per row (7x7x960 blocks: 0.73-0.77x).
//
// Everything else goes to the reference kernel, which runs the two layers'
// reference kernels: other dtypes and shapes, CPUs without AVX-512.
#include <algorithm>
#include <memory>
#include <vector>

#include "backends/cpu/simd/cpu_features.h"
#include "backends/cpu/simd/simd_conv_epilogue.h"
#include "backends/cpu/simd/simd_depthwise_pixels.h"
#include "backends/cpu/simd/simd_kernels.h"
#include "backends/cpu/simd/simd_pointwise_tiles.h"
#include "backends/cpu/simd/simd_util.h"
#include "backends/cpu/simd/simd_weight_cache.h"
#include "ops/nn/conv_geometry.h"
#include "ops/nn/expand_depthwise.h"

namespace tfhost::backends::simd {
namespace {

class ExpandDepthwiseKernel {
 public:
  ExpandDepthwiseKernel(ops::nn::Window2D window, ConvEpilogue expand, ConvEpilogue depthwise,
                        ops::KernelFn fallback)
      : window_(window),
        expand_(expand),
        depthwise_(depthwise),
        fallback_(std::move(fallback)),
        filters_(std::make_shared<WeightCache<pointwise::PackedFilter>>()),
        patterns_(std::make_shared<WeightCache<depthwise_pixels::Pattern>>()) {}

  Status operator()(ops::KernelContext& ctx) const {
    if (ctx.num_inputs() != 5) return fallback_(ctx);
    for (int i = 0; i < 5; ++i) {
      if (ctx.input(i).dtype() != DType::kFloat) return fallback_(ctx);
    }
    const Tensor& x = ctx.input(0);
    const Tensor& wf = ctx.input(1);
    const Tensor& bf = ctx.input(2);
    const Tensor& wd = ctx.input(3);
    const Tensor& bd = ctx.input(4);
    if (x.rank() != 4 || wf.rank() != 4 || wd.rank() != 4) return fallback_(ctx);
    const int64_t c = x.dim(3), e = wf.dim(3);
    if (wf.dim(0) != 1 || wf.dim(1) != 1 || wf.dim(2) != c || c == 0 || e == 0 || !PointwiseConvTakes(c)) {
      return fallback_(ctx);
    }
    if (wd.dim(0) != 3 || wd.dim(1) != 3 || wd.dim(2) != e || wd.dim(3) != 1 || bf.NumElements() != e ||
        bd.NumElements() != e) {
      return fallback_(ctx);  // the reference names the operand
    }
    if (x.NumElements() == 0) return fallback_(ctx);
    auto geo = ops::nn::ComputeConvGeometry(window_, Shape({x.dim(0), x.dim(1), x.dim(2), e}), 3, 3);
    if (!geo.ok() || geo->out_h <= 0 || geo->out_w <= 0) return fallback_(ctx);

    std::shared_ptr<const pointwise::PackedFilter> filter =
        filters_->Get(wf, &bf, {c, e}, [&] { return pointwise::PackFilter(wf, &bf, c, e, /*pairs=*/false); });
    std::shared_ptr<const depthwise_pixels::Pattern> pattern =
        patterns_->Get(wd, &bd, {3, e}, [&] { return depthwise_pixels::BuildPattern(wd, &bd, 3, e); });

    pointwise::PointwiseArgs row;  // one expanded row: a block of in_w pixels
    row.filter = filter.get();
    row.pixels = geo->in_w;
    row.block_pixels = geo->in_w;
    row.in_c = c;
    row.out_c = e;
    row.vectors = (e + pointwise::kLanes - 1) / pointwise::kLanes;
    row.panels = (row.vectors + pointwise::kMaxNv - 1) / pointwise::kMaxNv;
    row.act = expand_.act;
    depthwise_pixels::RowArgs dw;
    dw.pattern = pattern->taps_and_bias.data();
    dw.g = *geo;
    dw.channels = e;
    dw.act = depthwise_.act;

    Tensor y = Tensor::Uninitialized(DType::kFloat, Shape({geo->batch, geo->out_h, geo->out_w, e}));
    const float* xp = x.data<float>();
    float* yp = y.data<float>();
    const int64_t row_floats = geo->in_w * e;
    auto rows = [&](int64_t begin, int64_t end) {
      thread_local std::vector<float> ring;
      ring.resize(3 * row_floats);
      int64_t held[3] = {-1, -1, -1};  // input row in each slot, for image `image`
      int64_t image = -1;
      for (int64_t unit = begin; unit < end; ++unit) {
        const int64_t n = unit / geo->out_h, oy = unit % geo->out_h;
        if (n != image) {
          image = n;
          std::fill(std::begin(held), std::end(held), -1);
        }
        const float* in_rows[3];
        for (int ky = 0; ky < 3; ++ky) {
          const int64_t iy = oy * geo->stride_h - geo->pad_top + ky;
          if (iy < 0 || iy >= geo->in_h) {
            in_rows[ky] = nullptr;
            continue;
          }
          float* slot = ring.data() + (iy % 3) * row_floats;
          if (held[iy % 3] != iy) {
#ifdef TFHOST_SIMD_X86
            pointwise::PointwiseArgs a = row;
            a.x = xp + (n * geo->in_h + iy) * geo->in_w * c;
            a.y = slot;
            pointwise::RunUnits(a, 0, a.panels);
#endif
            held[iy % 3] = iy;
          }
          in_rows[ky] = slot;
        }
        depthwise_pixels::Row3x3(dw, in_rows, yp + (n * geo->out_h + oy) * geo->out_w * e);
      }
    };
    // An output row costs about its expanded rows' multiply-adds (stride
    // rows of in_w x c x e) and 9 per output float; a share is worth a
    // worker from about 2^21 (as for the other convolution kernels).
    const int64_t unit_work = geo->stride_h * geo->in_w * c * e + 9 * geo->out_w * e;
    const int64_t min_units = std::max<int64_t>(1, (int64_t{1} << 21) / std::max<int64_t>(1, unit_work));
    ParallelRange(ctx.intra_op(), geo->batch * geo->out_h, min_units, rows);
    ctx.set_output(0, std::move(y));
    return OkStatus();
  }

 private:
  ops::nn::Window2D window_;
  ConvEpilogue expand_, depthwise_;
  ops::KernelFn fallback_;
  std::shared_ptr<WeightCache<pointwise::PackedFilter>> filters_;
  std::shared_ptr<WeightCache<depthwise_pixels::Pattern>> patterns_;
};

}  // namespace

ops::KernelFn MakeExpandDepthwiseKernel(const ir::Node& node, const ops::KernelFn& fallback) {
#ifndef TFHOST_SIMD_X86
  return {};
#endif
  if (ActiveIsaLevel() != IsaLevel::kAvx512 || !IsFloatNode(node)) return {};
  auto parts = ops::nn::SplitExpandDepthwise(node);
  if (!parts.ok()) return {};
  ConvEpilogue expand, depthwise;
  if (!ParseConvEpilogue(parts->expand, /*allow_residual=*/false, &expand) ||
      !ParseConvEpilogue(parts->depthwise, /*allow_residual=*/false, &depthwise)) {
    return {};
  }
  auto window = ops::nn::ParseWindowAttrs(parts->depthwise, /*has_dilations=*/true, /*allow_explicit=*/true);
  if (!window.ok() || window->format != ops::nn::DataFormat::kNhwc || window->stride_h != 2 ||
      window->stride_w != 2 || window->dilation_h != 1 || window->dilation_w != 1) {
    return {};
  }
  return ExpandDepthwiseKernel(*window, expand, depthwise, fallback);
}

void RegisterExpandDepthwiseKernels(KernelTable& table) {
  table.Add(ops::nn::kExpandDepthwiseOp, MakeExpandDepthwiseKernel);
}

}  // namespace tfhost::backends::simd
