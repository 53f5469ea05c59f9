// TF1 reference variables (VariableV2 / Variable) made explicit for tfhost's
// kernels. In TensorFlow a VariableV2 output is a mutable reference that
// Assign/AssignAdd/... write through. tfhost tensors are values, so the
// loader rewrites every op that takes a variable's ref as input 0:
//   * attr `_tfhost_var_name` = the variable's resource name (shared_name if
//     set, else the VariableV2 node's name), which the state kernels use to
//     find the variable in the session's ResourceManager;
//   * input 0 comes from a new node "<V>/_tfhost_handle" =
//     VarHandleOp(shared_name = resource name, dtype, shape) instead of V,
//     so that assigning (the restore step, init ops) never reads V's value,
//     which would fail while the variable is uninitialized.
// Reads (`x/read` Identity, signatures fetching `counter:0`) keep reading V.
#pragma once

#include <string>

#include "ir/graph.h"
#include "ir/op_def_util.h"

namespace tfhost::loaders {

// Whether `op` is a TF1 reference variable op (VariableV2, Variable).
bool IsRefVariableOp(const std::string& op);

// Name of the ResourceManager variable behind a VariableV2/Variable/
// VarHandleOp node.
std::string VariableResourceName(const ir::Node& node);

// Rewrites the graph as described above. `lookup` says which ops take a
// reference as input 0 (OpDef input_arg(0).is_ref); a fixed list of TF's
// ref-consuming state ops is used where the schema is unknown.
// Returns the number of rewritten nodes.
StatusOr<int> RewriteRefVariables(ir::Graph& graph, const ir::OpDefLookup& lookup);

}  // namespace tfhost::loaders
