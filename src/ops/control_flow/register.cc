#include "ops/control_flow/control_flow_ops.h"
#include "ops/op_registry.h"

namespace tfhost::ops {

void RegisterControlFlowOps(OpRegistry& registry) {
  RegisterGraphPlumbingOps(registry);
  RegisterLoopOps(registry);
  RegisterTensorArrayOps(registry);
  RegisterTensorListOps(registry);
}

}  // namespace tfhost::ops
