// Graph plumbing and control-flow ops (Const, Placeholder, Identity, NoOp,
// Assert, Switch, Merge). Function calls are inlined by the loaders, so
// StatefulPartitionedCall never reaches a kernel.
#pragma once

#include "ops/op_registry.h"

namespace tfhost::ops {

void RegisterGraphPlumbingOps(OpRegistry& registry);

}  // namespace tfhost::ops
