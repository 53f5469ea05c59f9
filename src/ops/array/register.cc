#include "ops/op_registry.h"

namespace tfhost::ops {

void RegisterArrayOps(OpRegistry& registry) {
}

}  // namespace tfhost::ops
