// ExtractImagePatches (tf.image.extract_patches): every ksize_rows x
// ksize_cols window of an NHWC image, sampled with `rates` (atrous) and moved
// by `strides`, flattened into the depth dimension:
//   patches[b, r, c, (ky * ksize_cols + kx) * depth + d] =
//       images[b, r * stride_rows + ky * rate_rows - pad_top,
//                 c * stride_cols + kx * rate_cols - pad_left, d]
// and 0 where that falls in SAME padding. Output sizes follow the conv
// arithmetic with the effective window (k - 1) * rate + 1. Values are only
// moved, so every dtype is handled as bytes.
#include <cstring>

#include "ops/array/array_util.h"
#include "ops/image/image_ops.h"
#include "ops/nn/conv_geometry.h"

namespace tfhost::ops::image {
namespace {

// `name` must be [1, rows, cols, 1] with positive rows and cols.
StatusOr<std::pair<int64_t, int64_t>> ReadWindowAttr(const KernelContext& ctx, const char* name) {
  TFHOST_ASSIGN_OR_RETURN(std::vector<int64_t> v, ctx.Attr<std::vector<int64_t>>(name));
  if (v.size() != 4 || v[0] != 1 || v[3] != 1 || v[1] < 1 || v[2] < 1) {
    return ctx.Error(std::string(name) + " must be [1, rows, cols, 1] with positive rows and cols, got [" +
                     array::JoinInts(v) + "]");
  }
  return std::make_pair(v[1], v[2]);
}

Status ExtractImagePatches(KernelContext& ctx) {
  const Tensor& images = ctx.input(0);
  if (images.rank() != 4) {
    return ctx.Error("images must be 4-D [batch, rows, cols, depth], got shape " + images.shape().ToString());
  }
  TFHOST_ASSIGN_OR_RETURN(auto ksize, ReadWindowAttr(ctx, "ksizes"));
  TFHOST_ASSIGN_OR_RETURN(auto stride, ReadWindowAttr(ctx, "strides"));
  TFHOST_ASSIGN_OR_RETURN(auto rate, ReadWindowAttr(ctx, "rates"));
  TFHOST_ASSIGN_OR_RETURN(std::string padding_s, ctx.Attr<std::string>("padding"));
  auto padding = nn::ParsePadding(padding_s, /*allow_explicit=*/false);
  if (!padding.ok()) return ctx.Error(padding.status().message());
  const int64_t batch = images.dim(0), in_r = images.dim(1), in_c = images.dim(2), depth = images.dim(3);
  auto rows = nn::ComputeWindowDim(in_r, ksize.first, stride.first, rate.first, *padding, 0, 0);
  if (!rows.ok()) return ctx.Error("rows: " + std::string(rows.status().message()));
  auto cols = nn::ComputeWindowDim(in_c, ksize.second, stride.second, rate.second, *padding, 0, 0);
  if (!cols.ok()) return ctx.Error("cols: " + std::string(cols.status().message()));
  const int64_t kr = ksize.first, kc = ksize.second;
  if (kr * kc > (int64_t{1} << 20)) return ctx.Error("ksizes window of " + std::to_string(kr * kc) + " is too large");
  TFHOST_ASSIGN_OR_RETURN(Shape shape,
                          array::OutputShape(ctx, {batch, rows->out, cols->out, kr * kc * depth}, "patches"));
  const size_t es = DTypeSize(images.dtype());
  if (es == 0) {
    return Unimplemented(ir::NodeContext(ctx.node()) + ": dtype " + DTypeShortName(images.dtype()) +
                         " is not supported");
  }
  Tensor out(images.dtype(), shape);  // zeros: the padding's value
  const char* src = static_cast<const char*>(images.raw_data());
  char* dst = static_cast<char*>(out.raw_data());
  const size_t px = static_cast<size_t>(depth) * es;
  for (int64_t b = 0; b < batch; ++b)
    for (int64_t r = 0; r < rows->out; ++r)
      for (int64_t c = 0; c < cols->out; ++c)
        for (int64_t ky = 0; ky < kr; ++ky)
          for (int64_t kx = 0; kx < kc; ++kx, dst += px) {
            const int64_t iy = r * stride.first + ky * rate.first - rows->pad_before;
            const int64_t ix = c * stride.second + kx * rate.second - cols->pad_before;
            if (iy < 0 || iy >= in_r || ix < 0 || ix >= in_c) continue;
            std::memcpy(dst, src + ((b * in_r + iy) * in_c + ix) * px, px);
          }
  ctx.set_output(0, std::move(out));
  return OkStatus();
}

}  // namespace

void RegisterExtractImagePatchesOps(OpRegistry& registry) {
  registry.Register(ir::OpDefBuilder("ExtractImagePatches")
                        .Input("images: T")
                        .Output("patches: T")
                        .Attr("ksizes: list(int) >= 4")
                        .Attr("strides: list(int) >= 4")
                        .Attr("rates: list(int) >= 4")
                        .Attr("T: {bfloat16, half, float, double, int8, int16, int32, int64, uint8, uint16, "
                              "uint32, uint64, complex64, complex128, bool}")
                        .Attr("padding: {'SAME', 'VALID'}"),
                    ExtractImagePatches);
}

}  // namespace tfhost::ops::image
