#include "ops/op_registry.h"

namespace tfhost::ops {

void RegisterStateOps(OpRegistry& registry) {
}

}  // namespace tfhost::ops
