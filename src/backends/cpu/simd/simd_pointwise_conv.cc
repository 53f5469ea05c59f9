// 1x1 convolution, stride 1, NHWC float32 (Conv2D and _FusedConv2D with an
// optional BiasAdd, residual Add and Relu, Relu6, Sigmoid or Swish):
// MobileNetV2's and EfficientNet's expansions and projections and BlazeFace's
// 1x1 layers, where oneDNN 2.6's NHWC kernel
// (brgconv_1x1) reaches 40-75% of the FMA peak on the narrow ones (few input
// channels: little work per output float stored) and wakes its second
// OpenMP thread for layers shorter than the wake-up (docs/perf.md, "1x1
// convolution").
//
// It is a matrix product: pixels x input channels times the filter
// (input x output channels). The filter is packed once per filter buffer into
// panels of up to 4 vectors of output channels (as even as that allows),
// zero-padded past the last channel, with the bias beside it. A tile of MR
// pixels x NV vectors keeps its MR * NV <= 24 sums in registers over every
// input channel; each step loads the panel's NV weight vectors and
// broadcasts MR input values. The sums start from the bias; the residual and
// the activation are applied in registers before the only store, and the last
// vector of a row is a masked load/store, so any channel count works.
//
// A unit of parallel work is (block of pixels, panel): a block's inputs (at
// most kBlockInputBytes) stay in L2 while each panel's weights (in_c x NV x
// 64 bytes) pass over them. Inputs larger than L2 are prefetched a tile
// ahead.
//
// bf16 (--precision bf16; docs/backends.md, "bf16"), on CPUs with
// avx512_bf16:
// - A node the precision pass marked bf16 multiplies bf16 activations by
//   bf16 weights (rounded to nearest even when packed) with VDPBF16PS, two
//   input channels a step, summing in float32 (simd_pointwise_tiles.cc).
//   Float32 activations are converted a block at a time as oneDNN's bf16
//   kernels convert them. Per layer it ran 0.92-1.52x oneDNN 2.6's bf16
//   brgconv_1x1 on nsfw_mobilenet_v2's shapes (commit a6d9d3e),
//   faster on the wide expansions, about even on the projections.
// - bf16 activations (a bf16 edge) are read as they are, at half the bytes.
//   A float32 node (a widening reader) broadcasts each as the 32 bits that
//   end with it, lower half cleared, and keeps its float32 weights. (Widening
//   a block into a float32 buffer first ran slower: the widening pass and
//   the tiles no longer overlapped memory with compute.)
// - An output that is a bf16 edge is stored in bf16 from the same
//   registers, rounded as bf16 readers round (VCVTNEPS2BF16), into a new
//   buffer.
//
// Everything else goes to the kernel registered after this one (oneDNN's):
// other filter sizes, strides, padding, NCHW, batch norm and other
// activations, CPUs without AVX-512 (or, for bf16 nodes and outputs,
// without avx512_bf16), and inputs of more than 2048 channels
// (PointwiseConvTakes).
#include <algorithm>
#include <cstring>
#include <memory>
#include <vector>

#include "backends/cpu/simd/cpu_features.h"
#include "backends/cpu/simd/simd_conv_epilogue.h"
#include "backends/cpu/simd/simd_kernels.h"
#include "backends/cpu/simd/simd_math.h"
#include "backends/cpu/simd/simd_pointwise_tiles.h"
#include "backends/cpu/simd/simd_util.h"
#include "backends/cpu/simd/simd_weight_cache.h"
#include "ir/precision_attrs.h"
#include "ops/nn/conv_geometry.h"

namespace tfhost::backends::simd {

namespace pointwise {

std::shared_ptr<const PackedFilter> PackFilter(const Tensor& filter, const Tensor* bias, int64_t in_c, int64_t out_c,
                                               bool pairs) {
  auto packed = std::make_shared<PackedFilter>();
  const int64_t vectors = (out_c + kLanes - 1) / kLanes;
  const int64_t panels = (vectors + kMaxNv - 1) / kMaxNv;
  const int64_t steps = pairs ? (in_c + 1) / 2 : in_c;  // k steps of the tiles
  if (pairs) {
    packed->weight_pairs.assign(vectors * steps * kLanes, 0);
  } else {
    packed->weights.assign(vectors * steps * kLanes, 0.0f);
  }
  packed->bias.assign(vectors * kLanes, 0.0f);
  const float* f = filter.data<float>();  // [1][1][in_c][out_c]
  auto bf16 = [&](int64_t k, int64_t c) { return k < in_c ? uint32_t{FloatToBFloat16(f[k * out_c + c])} : 0u; };
  for (int64_t panel = 0; panel < panels; ++panel) {
    const int64_t first_vector = PanelBegin(vectors, panels, panel);
    const int64_t c0 = first_vector * kLanes;
    const int64_t width = (PanelBegin(vectors, panels, panel + 1) - first_vector) * kLanes;
    const int64_t offset = first_vector * steps * kLanes;
    for (int64_t k = 0; k < steps; ++k) {
      for (int64_t j = 0; j < width && c0 + j < out_c; ++j) {
        if (pairs) {
          packed->weight_pairs[offset + k * width + j] = bf16(2 * k, c0 + j) | bf16(2 * k + 1, c0 + j) << 16;
        } else {
          packed->weights[offset + k * width + j] = f[k * out_c + c0 + j];
        }
      }
    }
  }
  if (bias != nullptr) std::memcpy(packed->bias.data(), bias->data<float>(), out_c * sizeof(float));
  return packed;
}

}  // namespace pointwise

namespace {

using pointwise::kBlockInputBytes;
using pointwise::kL2Bytes;
using pointwise::kLanes;
using pointwise::kMaxMr;
using pointwise::kMaxNv;
using pointwise::PackedFilter;
using pointwise::PanelBegin;
using pointwise::PointwiseArgs;

class PointwiseConvKernel {
 public:
  PointwiseConvKernel(ConvEpilogue epilogue, bool bf16_weights, bool bf16_output, ops::KernelFn fallback,
                      bool apply_shape_rule)
      : epilogue_(epilogue),
        bf16_weights_(bf16_weights),
        bf16_output_(bf16_output),
        apply_shape_rule_(apply_shape_rule),
        fallback_(std::move(fallback)),
        filters_(std::make_shared<WeightCache<PackedFilter>>()) {}

  Status operator()(ops::KernelContext& ctx) const {
    const int num_inputs = 2 + (epilogue_.bias ? 1 : 0) + (epilogue_.residual ? 1 : 0);
    if (ctx.num_inputs() != num_inputs) return fallback_(ctx);
    const Tensor& x = ctx.input(0);
    const Tensor& f = ctx.input(1);
    const bool x_bf16 = x.dtype() == DType::kBFloat16;
    if ((x.dtype() != DType::kFloat && !x_bf16) || f.dtype() != DType::kFloat || x.rank() != 4 || f.rank() != 4) {
      return fallback_(ctx);
    }
    const int64_t in_c = x.dim(3), out_c = f.dim(3);
    if (f.dim(0) != 1 || f.dim(1) != 1 || f.dim(2) != in_c || in_c == 0 || out_c == 0) return fallback_(ctx);
    // No pixels (an empty batch): the blocking below divides by the pixel count.
    if (x.dim(0) == 0 || x.dim(1) == 0 || x.dim(2) == 0) return fallback_(ctx);
    const Shape out_shape({x.dim(0), x.dim(1), x.dim(2), out_c});
    const Tensor* bias = epilogue_.bias ? &ctx.input(2) : nullptr;
    if (bias != nullptr && (bias->dtype() != DType::kFloat || bias->NumElements() != out_c)) return fallback_(ctx);
    const int residual_arg = num_inputs - 1;
    if (epilogue_.residual && (ctx.input(residual_arg).dtype() != DType::kFloat ||
                               ctx.input(residual_arg).shape() != out_shape)) {
      return fallback_(ctx);
    }
    if (apply_shape_rule_ && !PointwiseConvTakes(in_c)) return fallback_(ctx);

    PointwiseArgs a;
    std::shared_ptr<const PackedFilter> packed =
        filters_->Get(f, bias, {in_c, out_c}, [&] { return pointwise::PackFilter(f, bias, in_c, out_c, bf16_weights_); });
    a.filter = packed.get();
    a.pixels = out_shape.dim(0) * out_shape.dim(1) * out_shape.dim(2);
    a.in_c = in_c;
    a.out_c = out_c;
    a.vectors = (out_c + kLanes - 1) / kLanes;
    a.panels = (a.vectors + kMaxNv - 1) / kMaxNv;
    a.act = epilogue_.act;
    // The tiles read bf16 when either is: a bf16 node converts float32
    // activations a block at a time, and its tiles read the block from L2.
    const int64_t x_bytes = x_bf16 || bf16_weights_ ? 2 : 4;
    if (x_bf16) {
      a.x_bf16 = x.data<uint16_t>();
    } else {
      a.x = x.data<float>();
    }
    a.prefetch = a.pixels * in_c * x_bytes > kL2Bytes && (x_bf16 || !bf16_weights_);
    // Blocks small enough for L2, and at least four per thread where the
    // panels alone would not give the pool enough units.
    const int threads = ctx.intra_op() != nullptr ? ctx.intra_op()->num_threads() + 1 : 1;
    const int64_t want_blocks = std::max<int64_t>(1, (4 * threads + a.panels - 1) / a.panels);
    const int64_t max_block = std::max<int64_t>(kMaxMr, kBlockInputBytes / (in_c * x_bytes));
    const int64_t target_blocks = std::max((a.pixels + max_block - 1) / max_block,
                                         std::min(want_blocks, (a.pixels + kMaxMr - 1) / kMaxMr));
    // Even blocks: 49 pixels in 3 blocks are 17, 17, 15, not 24, 24, 1.
    a.block_pixels = (a.pixels + target_blocks - 1) / target_blocks;
    const int64_t blocks = (a.pixels + a.block_pixels - 1) / a.block_pixels;
    Tensor y, residual;
    if (bf16_output_) {
      y = Tensor::Uninitialized(DType::kBFloat16, out_shape);
      a.y_bf16 = y.data<uint16_t>();
      if (epilogue_.residual) a.residual = ctx.input(residual_arg).data<float>();
    } else if (epilogue_.residual) {
      // The residual's own buffer when this node is its last reader: each
      // output float is written after its residual float is read.
      residual = ctx.TakeInput(residual_arg);
      y = ReuseOrAllocate(residual, out_shape);
      a.residual = residual.valid() ? residual.data<float>() : y.data<float>();
    } else {
      y = Tensor::Uninitialized(DType::kFloat, out_shape);
    }
    if (!bf16_output_) a.y = y.data<float>();
    // Units are (pixel block, panel), up to in_c * 64 multiply-adds a pixel.
    // Below about 2^21 multiply-adds waking a pool thread costs more than it
    // saves (as for the depthwise kernel).
    const int64_t unit_work = a.block_pixels * in_c * kMaxNv * kLanes;
    const int64_t min_units = std::max<int64_t>(1, (int64_t{1} << 21) / std::max<int64_t>(1, unit_work));
#ifdef TFHOST_SIMD_X86
    ParallelRange(ctx.intra_op(), blocks * a.panels, min_units,
                  [&](int64_t b, int64_t e) { pointwise::RunUnits(a, b, e); });
#endif
    ctx.set_output(0, std::move(y));
    return OkStatus();
  }

 private:
  ConvEpilogue epilogue_;
  bool bf16_weights_;  // a bf16 node: VDPBF16PS tiles
  bool bf16_output_;   // output 0 is a bf16 edge
  bool apply_shape_rule_;
  ops::KernelFn fallback_;
  std::shared_ptr<WeightCache<PackedFilter>> filters_;
};

}  // namespace

// Every 1x1 shape of blazeface and nsfw_mobilenet_v2 ran at 0.94-19x
// oneDNN's speed (docs/perf.md, "1x1 convolution": 8 of 72 rows below 1, by
// at most 6%), and nsfw's as bf16 nodes at 0.95-1.66x oneDNN's bf16 kernel
// (4 of 54 rows below 1, by at most 5%). Up to 2048 input channels a
// panel's weights (in_c x 256 bytes) stay in L2 beside a block of inputs;
// wider ones were not measured.
bool PointwiseConvTakes(int64_t in_c) { return in_c <= 2048; }

ops::KernelFn MakePointwiseConvKernel(const ir::Node& node, const ops::KernelFn& fallback, bool apply_shape_rule) {
#ifndef TFHOST_SIMD_X86
  return {};
#endif
  if (ActiveIsaLevel() != IsaLevel::kAvx512 || !IsFloatNode(node)) return {};
  // bf16 nodes compute in bf16 where the CPU has it and in float32
  // elsewhere, as the float32 nodes do (the mark is a hint).
  auto precision = ir::GetAttrOr<std::string>(node, ir::kPrecisionAttr, "");
  if (!precision.ok() || (!precision->empty() && *precision != "bf16")) return {};
  const bool bf16_weights = *precision == "bf16" && ActiveIsaHasBf16();
  // With AMX, oneDNN's bf16 convolution runs on the tile unit: ResNet-50's
  // 1x1 layers at batch 32, 2 threads, took 453 ms here in bf16 against
  // 280 ms in float32, while oneDNN's bf16 layers ran 2.2x its float32 ones.
  if (bf16_weights && CpuHasAmxBf16()) return {};
  auto out_dtype = ir::GetAttrOr<DType>(node, ir::kOutputDtypeAttr, DType::kFloat);
  if (!out_dtype.ok() || (*out_dtype != DType::kFloat && *out_dtype != DType::kBFloat16)) return {};
  if (*out_dtype == DType::kBFloat16 && !ActiveIsaHasBf16()) return {};
  auto window = ops::nn::ParseWindowAttrs(node, /*has_dilations=*/true, /*allow_explicit=*/true);
  if (!window.ok() || window->format != ops::nn::DataFormat::kNhwc || window->stride_h != 1 ||
      window->stride_w != 1) {
    return {};
  }
  if (window->pad_top != 0 || window->pad_bottom != 0 || window->pad_left != 0 || window->pad_right != 0) return {};
  ConvEpilogue epilogue;
  if (node.op == "_FusedConv2D" && !ParseConvEpilogue(node, /*allow_residual=*/true, &epilogue)) return {};
  return PointwiseConvKernel(epilogue, bf16_weights, *out_dtype == DType::kBFloat16, fallback, apply_shape_rule);
}

void RegisterPointwiseConvKernels(KernelTable& table) {
  for (const char* op : {"Conv2D", "_FusedConv2D"}) {
    table.Add(op, [](const ir::Node& node, const ops::KernelFn& fallback) {
      return MakePointwiseConvKernel(node, fallback, /*apply_shape_rule=*/true);
    });
  }
}

}  // namespace tfhost::backends::simd
