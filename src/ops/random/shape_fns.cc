// Shape functions of the random ops: the output shape is the `shape` input.
#include "ops/shape_inference.h"

namespace tfhost::ops {

void RegisterRandomShapeFns(ShapeFnRegistry& registry) {
  registry.Register({"RandomUniform", "RandomStandardNormal", "TruncatedNormal", "RandomUniformInt"},
                    [](ShapeContext& ctx) {
                      ctx.set_output(0, ctx.InputAsShape(0));
                      return OkStatus();
                    });
}

}  // namespace tfhost::ops
