// Graph plumbing and control-flow ops: Const, Placeholder, Identity, NoOp,
// Assert, Switch, Merge; TF1 loops (Enter, Exit, NextIteration, LoopCond);
// the schemas of TF2 functional ops (If, While, Case, calls), which the
// runtime executes; and the TensorArray / TensorList families
// (ops/tensor_array/).
#pragma once

#include "ops/op_registry.h"

namespace tfhost::ops {

void RegisterGraphPlumbingOps(OpRegistry& registry);
void RegisterLoopOps(OpRegistry& registry);
void RegisterTensorArrayOps(OpRegistry& registry);
void RegisterTensorListOps(OpRegistry& registry);

}  // namespace tfhost::ops
