// The constraints an OpDef puts on attr values, as TensorFlow checks them
// when a NodeDef is added to a graph: a type or string attr must be one of
// its allowed values, an int attr at least its minimum, a list at least its
// minimum length, and a type or int attr must hold a value of that kind.
// Kernels read attrs trusting these (Complex writes Tout-sized complex
// elements; a count below the minimum means fewer inputs than the kernel
// reads), so the kernel contract checks them before a node first runs
// (ops/kernel_contract.h) and a model that breaks them fails with an error
// naming the node, the attr, what it holds and what is allowed. Nodes that
// never run are not checked: a model may carry training ops of types tfhost
// does not take.
//
// Thread-safety: pure functions.
#pragma once

#include "base/status.h"
#include "ir/graph.h"
#include "tensorflow/core/framework/op_def.pb.h"

namespace tfhost::ir {

// Checks every attr of `node` that `def` declares and the node sets (absent
// attrs are the loader's and the kernels' business: they report them by name).
Status CheckAttrConstraints(const tensorflow::OpDef& def, const Node& node);

}  // namespace tfhost::ir
