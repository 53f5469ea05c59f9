// Shape functions of the image (detection post-processing) ops.
#include "ops/image/image_ops.h"
#include "ops/nn/conv_geometry.h"

namespace tfhost::ops {
namespace {

using ir::PartialShape;

int64_t ScalarOrUnknown(const ShapeContext& ctx, int i) {
  auto v = ctx.InputInts(i);
  return v && v->size() == 1 && (*v)[0] >= 0 ? (*v)[0] : -1;
}

Status NmsShape(ShapeContext& ctx) {
  const bool pad = ctx.AttrOr<bool>("pad_to_max_output_size", false).value_or(false);
  const int64_t n = pad ? ScalarOrUnknown(ctx, 2) : -1;
  ctx.set_output(0, PartialShape::Known({n}));
  if (ctx.num_outputs() == 2) ctx.set_output(1, PartialShape::Scalar());
  if (ctx.num_outputs() == 3) {
    ctx.set_output(1, PartialShape::Known({n}));
    ctx.set_output(2, PartialShape::Scalar());
  }
  return OkStatus();
}

Status CombinedNmsShape(ShapeContext& ctx) {
  const PartialShape& boxes = ctx.input(0);
  const int64_t batch = boxes.rank() == 4 ? boxes.dim(0) : -1;
  int64_t det = ScalarOrUnknown(ctx, 3);
  if (ctx.AttrOr<bool>("pad_per_class", false).value_or(false)) {
    const int64_t per_class = ScalarOrUnknown(ctx, 2);
    const PartialShape& scores = ctx.input(1);
    const int64_t classes = scores.rank() == 3 ? scores.dim(2) : -1;
    det = (det >= 0 && per_class >= 0 && classes >= 0) ? std::min(det, per_class * classes) : -1;
  }
  ctx.set_output(0, PartialShape::Known({batch, det, 4}));
  ctx.set_output(1, PartialShape::Known({batch, det}));
  ctx.set_output(2, PartialShape::Known({batch, det}));
  ctx.set_output(3, PartialShape::Known({batch}));
  return OkStatus();
}

Status CropAndResizeShape(ShapeContext& ctx) {
  const PartialShape& image = ctx.input(0);
  const PartialShape& boxes = ctx.input(1);
  auto crop = ctx.InputInts(3);
  const int64_t n = boxes.rank() == 2 ? boxes.dim(0) : -1;
  const int64_t depth = image.rank() == 4 ? image.dim(3) : -1;
  const bool known = crop && crop->size() == 2;
  ctx.set_output(0, PartialShape::Known({n, known ? (*crop)[0] : -1, known ? (*crop)[1] : -1, depth}));
  return OkStatus();
}

// Decoded images: [height, width, channels], channels known when the attr
// asks for some. DecodeImage may return [frames, h, w, c] for GIFs unless
// expand_animations is false.
Status DecodedImageShape(ShapeContext& ctx) {
  const int64_t channels = ctx.AttrOr<int64_t>("channels", 0).value_or(0);
  if (ctx.node().op == "DecodeImage" && ctx.AttrOr<bool>("expand_animations", true).value_or(true)) {
    return OkStatus();
  }
  ctx.set_output(0, PartialShape::Known({-1, -1, channels > 0 ? channels : -1}));
  return OkStatus();
}

// ResizeBicubic / ResizeArea / ScaleAndTranslate(images [N,H,W,C], size [2], ...)
// -> [N, h, w, C].
Status ResizeShape(ShapeContext& ctx) {
  const PartialShape& images = ctx.input(0);
  if (images.rank_known() && images.rank() != 4) {
    return ctx.Error("images must be 4-D, got shape " + images.ToString());
  }
  const PartialShape in = images.rank_known() ? images : PartialShape::UnknownOfRank(4);
  int64_t h = -1, w = -1;
  if (auto size = ctx.InputInts(1); size.has_value()) {
    if (size->size() != 2) return ctx.Error("size must have 2 elements, got " + std::to_string(size->size()));
    h = (*size)[0];
    w = (*size)[1];
  }
  ctx.set_output(0, PartialShape::Known({in.dim(0), h, w, in.dim(3)}));
  return OkStatus();
}

// ExtractImagePatches: a windowed op over rows and cols with `rates` as
// dilations; depth ksize_rows * ksize_cols * depth.
Status ExtractImagePatchesShape(ShapeContext& ctx) {
  const PartialShape& images = ctx.input(0);
  if (images.rank_known() && images.rank() != 4) {
    return ctx.Error("images must be 4-D, got shape " + images.ToString());
  }
  const PartialShape in = images.rank_known() ? images : PartialShape::UnknownOfRank(4);
  auto k = ctx.Attr<std::vector<int64_t>>("ksizes");
  auto s = ctx.Attr<std::vector<int64_t>>("strides");
  auto r = ctx.Attr<std::vector<int64_t>>("rates");
  auto padding = ctx.Attr<std::string>("padding");
  if (!k || !s || !r || !padding || k->size() != 4 || s->size() != 4 || r->size() != 4) {
    ctx.set_output(0, PartialShape::UnknownOfRank(4));
    return OkStatus();
  }
  auto p = nn::ParsePadding(*padding, /*allow_explicit=*/false);
  std::vector<int64_t> dims = {in.dim(0), -1, -1, -1};
  for (int d = 1; d <= 2; ++d) {
    if (!p.ok() || in.dim(d) < 0 || in.dim(d) > (int64_t{1} << 40)) continue;
    auto w = nn::ComputeWindowDim(in.dim(d), (*k)[d], (*s)[d], (*r)[d], *p, 0, 0);
    if (!w.ok()) return ctx.Error(w.status().message());
    dims[d] = w->out;
  }
  if (in.dim(3) >= 0 && (*k)[1] > 0 && (*k)[2] > 0) dims[3] = (*k)[1] * (*k)[2] * in.dim(3);
  ctx.set_output(0, PartialShape::Known(std::move(dims)));
  return OkStatus();
}

}  // namespace

void RegisterImageShapeFns(ShapeFnRegistry& registry) {
  registry.Register({"NonMaxSuppression", "NonMaxSuppressionV2", "NonMaxSuppressionV3", "NonMaxSuppressionV4", "NonMaxSuppressionV5"},
                    NmsShape);
  registry.Register("CombinedNonMaxSuppression", CombinedNmsShape);
  registry.Register("_TfhostBatchedNonMaxSuppression", [](ShapeContext& ctx) {
    ctx.set_output(0, PartialShape::Known({-1, 3}));
    return OkStatus();
  });
  registry.Register("CropAndResize", CropAndResizeShape);
  registry.Register({"ResizeBicubic", "ResizeArea", "ScaleAndTranslate"}, ResizeShape);
  registry.Register({"RGBToHSV", "HSVToRGB", "AdjustContrastv2"}, UnchangedShape);
  registry.Register("ExtractImagePatches", ExtractImagePatchesShape);
  registry.Register("NonMaxSuppressionWithOverlaps", [](ShapeContext& ctx) {
    ctx.set_output(0, PartialShape::Known({-1}));
    return OkStatus();
  });
  registry.Register("DecodeGif", [](ShapeContext& ctx) {
    ctx.set_output(0, PartialShape::Known({-1, -1, -1, 3}));
    return OkStatus();
  });
  registry.Register({"DecodeJpeg", "DecodePng", "DecodeBmp", "DecodeImage"}, DecodedImageShape);
  registry.Register("ExtractJpegShape", [](ShapeContext& ctx) {
    ctx.set_output(0, PartialShape::Known({3}));
    return OkStatus();
  });
}

}  // namespace tfhost::ops
