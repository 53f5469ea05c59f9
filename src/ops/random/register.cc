#include "ops/op_registry.h"
#include "ops/random/random_ops.h"
#include "ops/random/stateless_random_ops.h"

namespace tfhost::ops {

void RegisterRandomOps(OpRegistry& registry) {
  random::RegisterRandomOpKernels(registry);
  random::RegisterStatelessRandomOpKernels(registry);
}

}  // namespace tfhost::ops
