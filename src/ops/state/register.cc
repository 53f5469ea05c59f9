#include "ops/op_registry.h"
#include "ops/state/state_ops.h"

namespace tfhost::ops {

void RegisterStateOps(OpRegistry& registry) {
  RegisterResourceVariableOps(registry);
  RegisterRefVariableOps(registry);
  RegisterCheckpointOps(registry);
}

}  // namespace tfhost::ops
