#include "ops/op_registry.h"

namespace tfhost::ops {

void RegisterMathOps(OpRegistry& registry) {
}

}  // namespace tfhost::ops
