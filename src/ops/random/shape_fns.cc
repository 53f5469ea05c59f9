// Shape functions of the random ops: the output shape is the `shape` input.
#include <string>
#include <vector>

#include "ops/shape_inference.h"

namespace tfhost::ops {

void RegisterRandomShapeFns(ShapeFnRegistry& registry) {
  registry.Register({"RandomUniform", "RandomStandardNormal", "TruncatedNormal", "RandomUniformInt"},
                    [](ShapeContext& ctx) {
                      ctx.set_output(0, ctx.InputAsShape(0));
                      return OkStatus();
                    });
  // Stateless ops: the output shape is the `shape` input; the seed must be [2]
  // and, for V2, the key [1] (a definite conflict fails the load, as in TF).
  auto check_vector = [](ShapeContext& ctx, int i, int64_t size, const char* what) -> Status {
    const ir::PartialShape& s = ctx.input(i);
    if (s.rank_known() && (s.rank() != 1 || (s.dim(0) >= 0 && s.dim(0) != size))) {
      return ctx.Error(std::string(what) + " must have shape [" + std::to_string(size) + "], got " + s.ToString());
    }
    return OkStatus();
  };
  registry.Register({"StatelessRandomUniform", "StatelessRandomNormal", "StatelessTruncatedNormal",
                     "StatelessRandomUniformInt", "StatelessRandomUniformFullInt"},
                    [check_vector](ShapeContext& ctx) {
                      TFHOST_RETURN_IF_ERROR(check_vector(ctx, 1, 2, "seed"));
                      ctx.set_output(0, ctx.InputAsShape(0));
                      return OkStatus();
                    });
  registry.Register({"StatelessRandomUniformV2", "StatelessRandomNormalV2", "StatelessTruncatedNormalV2",
                     "StatelessRandomUniformIntV2", "StatelessRandomUniformFullIntV2"},
                    [check_vector](ShapeContext& ctx) {
                      TFHOST_RETURN_IF_ERROR(check_vector(ctx, 1, 1, "key"));
                      ctx.set_output(0, ctx.InputAsShape(0));
                      return OkStatus();
                    });
  registry.Register({"StatelessRandomGetKeyCounter", "StatelessRandomGetKeyCounterAlg"},
                    [check_vector](ShapeContext& ctx) {
                      TFHOST_RETURN_IF_ERROR(check_vector(ctx, 0, 2, "seed"));
                      ctx.set_output(0, ir::PartialShape::Known({1}));
                      ctx.set_output(1, ir::PartialShape::Known({2}));
                      ctx.set_output(2, ir::PartialShape::Scalar());
                      return OkStatus();
                    });
  registry.Register("StatelessRandomGetAlg", [](ShapeContext& ctx) {
    ctx.set_output(0, ir::PartialShape::Scalar());
    return OkStatus();
  });
}

}  // namespace tfhost::ops
