#include "ops/op_registry.h"

namespace tfhost::ops {

void RegisterControlFlowOps(OpRegistry& registry) {
}

}  // namespace tfhost::ops
