// MaxPoolWithArgmax: NHWC max pooling that also returns where each maximum
// came from, as segmentation decoders (SegNet-style unpooling) consume it.
// The argmax of output (b, y, x, c) is the flattened input index
//   ((b * height + iy) * width + ix) * channels + c   (include_batch_in_index)
//   (iy * width + ix) * channels + c                  (otherwise)
// Ties keep the first maximum in window order (row-major), as TensorFlow's
// CPU kernel does (it takes the window's first tap, then replaces it only by
// a strictly greater value, so a NaN first tap wins and later NaNs lose);
// taps in SAME padding take no part.
#include <cstring>
#include <limits>

#include "ops/array/array_util.h"
#include "ops/nn/conv_geometry.h"
#include "ops/nn/nn_registrations.h"
#include "ops/nn/nn_util.h"

namespace tfhost::ops::nn {
namespace {

// Compares values in K (the dtype itself, or float for half/bfloat16) and
// copies the winning element's bytes, so every dtype returns its own values.
template <typename K, typename Load>
void PoolLoop(const ConvGeometry& g, bool include_batch, Load load, const char* x, size_t es, char* y,
              int64_t* argmax) {
  int64_t o = 0;
  for (int64_t b = 0; b < g.batch; ++b)
    for (int64_t oy = 0; oy < g.out_h; ++oy)
      for (int64_t ox = 0; ox < g.out_w; ++ox)
        for (int64_t c = 0; c < g.in_c; ++c, ++o) {
          K best{};
          int64_t best_index = -1;
          for (int64_t ky = 0; ky < g.k_h; ++ky) {
            const int64_t iy = oy * g.stride_h - g.pad_top + ky;
            if (iy < 0 || iy >= g.in_h) continue;
            for (int64_t kx = 0; kx < g.k_w; ++kx) {
              const int64_t ix = ox * g.stride_w - g.pad_left + kx;
              if (ix < 0 || ix >= g.in_w) continue;
              const int64_t flat = ((b * g.in_h + iy) * g.in_w + ix) * g.in_c + c;
              const K v = load(flat);
              // The first tap is taken whatever it holds (a NaN there stays),
              // later ones only when strictly greater (ties keep the first).
              if (best_index < 0 || best < v) {
                best = v;
                best_index = flat;
              }
            }
          }
          std::memcpy(y + o * es, x + best_index * es, es);
          const int64_t batch_offset = b * g.in_h * g.in_w * g.in_c;
          argmax[o] = include_batch ? best_index : best_index - batch_offset;
        }
}

Status MaxPoolWithArgmax(KernelContext& ctx) {
  const Tensor& input = ctx.input(0);
  if (input.rank() != 4) return ctx.Error("input must be 4-D NHWC, got shape " + input.shape().ToString());
  TFHOST_ASSIGN_OR_RETURN(std::vector<int64_t> ksize, ctx.Attr<std::vector<int64_t>>("ksize"));
  TFHOST_ASSIGN_OR_RETURN(std::vector<int64_t> strides, ctx.Attr<std::vector<int64_t>>("strides"));
  TFHOST_ASSIGN_OR_RETURN(std::string padding, ctx.Attr<std::string>("padding"));
  TFHOST_ASSIGN_OR_RETURN(bool include_batch, ctx.AttrOr<bool>("include_batch_in_index", false));
  TFHOST_ASSIGN_OR_RETURN(DType targmax, ctx.AttrOr<DType>("Targmax", DType::kInt64));
  if (ksize.size() != 4 || ksize[0] != 1 || ksize[3] != 1) {
    return ctx.Error("ksize must be [1, h, w, 1] (pooling over batch or depth is not supported), got [" +
                     array::JoinInts(ksize) + "]");
  }
  if (targmax != DType::kInt32 && targmax != DType::kInt64) {
    return ctx.Error("Targmax must be int32 or int64, got " + DTypeShortName(targmax));
  }
  auto w = MakeWindow2D(strides, padding, {}, "NHWC", {}, /*allow_explicit=*/false);
  if (!w.ok()) return ctx.Error(w.status().message());
  auto geometry = ComputeConvGeometry(*w, input.shape(), ksize[1], ksize[2]);
  if (!geometry.ok()) return ctx.Error(geometry.status().message());
  const ConvGeometry& g = *geometry;
  if (targmax == DType::kInt32 && input.NumElements() > std::numeric_limits<int32_t>::max()) {
    return ctx.Error("input has too many elements for int32 argmax indices");
  }
  auto y_or = AllocateChecked(input.dtype(), {g.batch, g.out_h, g.out_w, g.in_c}, "output");
  if (!y_or.ok()) return ctx.Error(y_or.status().message());
  Tensor y = std::move(*y_or);
  std::vector<int64_t> argmax(static_cast<size_t>(y.NumElements()));
  const char* xp = static_cast<const char*>(input.raw_data());
  char* yp = static_cast<char*>(y.raw_data());
  const size_t es = DTypeSize(input.dtype());
  bool supported = true;
  if (input.dtype() == DType::kHalf) {
    const uint16_t* h = input.data<uint16_t>();
    PoolLoop<float>(g, include_batch, [h](int64_t i) { return HalfToFloat(h[i]); }, xp, es, yp, argmax.data());
  } else if (input.dtype() == DType::kBFloat16) {
    const uint16_t* h = input.data<uint16_t>();
    PoolLoop<float>(g, include_batch, [h](int64_t i) { return BFloat16ToFloat(h[i]); }, xp, es, yp,
                    argmax.data());
  } else if (input.dtype() == DType::kBool) {
    supported = false;
  } else {
    TFHOST_SWITCH_REAL_TYPES(input.dtype(), {
      const T* p = input.data<T>();
      PoolLoop<T>(g, include_batch, [p](int64_t i) { return p[i]; }, xp, es, yp, argmax.data());
    }, { supported = false; });
  }
  if (!supported) {
    return Unimplemented(ir::NodeContext(ctx.node()) + ": dtype " + DTypeShortName(input.dtype()) +
                         " is not supported");
  }
  Tensor argmax_t(targmax, y.shape());
  for (size_t i = 0; i < argmax.size(); ++i) {
    if (targmax == DType::kInt64) argmax_t.data<int64_t>()[i] = argmax[i];
    else argmax_t.data<int32_t>()[i] = static_cast<int32_t>(argmax[i]);
  }
  ctx.set_output(0, std::move(y));
  ctx.set_output(1, std::move(argmax_t));
  return OkStatus();
}

}  // namespace

void RegisterMaxPoolWithArgmaxOps(OpRegistry& registry) {
  registry.Register(ir::OpDefBuilder("MaxPoolWithArgmax")
                        .Input("input: T")
                        .Output("output: T")
                        .Output("argmax: Targmax")
                        .Attr("ksize: list(int) >= 4")
                        .Attr("strides: list(int) >= 4")
                        .Attr("Targmax: {int32, int64} = DT_INT64")
                        .Attr("padding: {'SAME', 'VALID'}")
                        .Attr("include_batch_in_index: bool = false")
                        .Attr("T: {float, double, int32, uint8, int16, int8, int64, bfloat16, uint16, half, "
                              "uint32, uint64}"),
                    MaxPoolWithArgmax);
}

}  // namespace tfhost::ops::nn
