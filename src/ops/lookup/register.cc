#include "ops/lookup/lookup_ops.h"
#include "ops/op_registry.h"

namespace tfhost::ops {

void RegisterLookupOps(OpRegistry& registry) { RegisterLookupTableOps(registry); }

}  // namespace tfhost::ops
