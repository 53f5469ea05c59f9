#include "ops/image/image_ops.h"

namespace tfhost::ops {

void RegisterImageOps(OpRegistry& registry) {
  image::RegisterNmsOps(registry);
  image::RegisterCropAndResizeOps(registry);
  image::RegisterDecodeImageOps(registry);
  image::RegisterResizeOps(registry);
  image::RegisterExtractImagePatchesOps(registry);
  image::RegisterNmsWithOverlapsOps(registry);
  image::RegisterDecodeGifOps(registry);
  image::RegisterColorOps(registry);
  image::RegisterScaleAndTranslateOp(registry);
}

}  // namespace tfhost::ops
