#include "ops/op_registry.h"

namespace tfhost::ops {

void RegisterStringOps(OpRegistry& registry) {
}

}  // namespace tfhost::ops
