#include "ops/control_flow/control_flow_ops.h"
#include "ops/op_registry.h"

namespace tfhost::ops {

void RegisterControlFlowOps(OpRegistry& registry) { RegisterGraphPlumbingOps(registry); }

}  // namespace tfhost::ops
