#include "ops/image/image_ops.h"

namespace tfhost::ops {

void RegisterImageOps(OpRegistry& registry) {
  image::RegisterNmsOps(registry);
  image::RegisterCropAndResizeOps(registry);
  image::RegisterDecodeImageOps(registry);
}

}  // namespace tfhost::ops
