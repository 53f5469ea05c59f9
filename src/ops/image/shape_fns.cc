// Shape functions of the image (detection post-processing) ops.
#include "ops/image/image_ops.h"

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

}  // namespace

void RegisterImageShapeFns(ShapeFnRegistry& registry) {
  registry.Register({"NonMaxSuppression", "NonMaxSuppressionV2", "NonMaxSuppressionV3", "NonMaxSuppressionV4", "NonMaxSuppressionV5"},
                    NmsShape);
  registry.Register("CombinedNonMaxSuppression", CombinedNmsShape);
  registry.Register("CropAndResize", CropAndResizeShape);
  registry.Register({"DecodeJpeg", "DecodePng", "DecodeBmp", "DecodeImage"}, DecodedImageShape);
  registry.Register("ExtractJpegShape", [](ShapeContext& ctx) {
    ctx.set_output(0, PartialShape::Known({3}));
    return OkStatus();
  });
}

}  // namespace tfhost::ops
