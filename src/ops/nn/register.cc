#include "ops/op_registry.h"

namespace tfhost::ops {

void RegisterNnOps(OpRegistry& registry) {
}

}  // namespace tfhost::ops
