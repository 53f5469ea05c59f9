// Stateful ops: TF2 resource variables (VarHandleOp, ReadVariableOp,
// AssignVariableOp, ...), TF1 reference variables (VariableV2, Assign, ...)
// and checkpoint I/O (RestoreV2, SaveV2, MergeV2Checkpoints, ShardedFilename).
//
// Variables live in the session's ResourceManager under a name:
// VariableResourceName(node) for the node that declares them. A DT_RESOURCE
// tensor carries that name as its string element.
//
// TF1 ref ops: the executor passes values, not references, so Assign,
// AssignAdd, AssignSub and IsVariableInitialized find their variable by the
// string attr kVarNameAttr ("_tfhost_var_name"), which the SavedModel loader
// adds to each such node (value: VariableResourceName of the VariableV2 node
// feeding input 0).
#pragma once

#include <string>

#include "ops/op_registry.h"

namespace tfhost::ops {

inline constexpr char kVarNameAttr[] = "_tfhost_var_name";

// The resource name of the variable declared by a VarHandleOp, VariableV2 or
// Variable node: its `shared_name` attr when non-empty, else the node name.
// (`container` is not part of the name: tfhost has one container per session.)
std::string VariableResourceName(const ir::Node& node);

void RegisterResourceVariableOps(OpRegistry& registry);
void RegisterRefVariableOps(OpRegistry& registry);
void RegisterCheckpointOps(OpRegistry& registry);

namespace state_internal {

// Returns `a + b` (or `a - b`) for equal-shaped numeric tensors of one dtype,
// computing half/bfloat16 in float32. `what` prefixes errors.
StatusOr<Tensor> AddOrSubtract(const Tensor& a, const Tensor& b, bool subtract, const std::string& what);

// Looks up the variable `name`, creating it (uninitialized, with `dtype`) if
// absent. Fails when it exists with another dtype.
StatusOr<std::shared_ptr<Variable>> LookupOrCreateVariable(ResourceManager* resources,
                                                           const std::string& name, DType dtype);

// The variable updates shared by the TF1 ref ops (Assign, AssignAdd,
// AssignSub, IsVariableInitialized) and the TF2 resource ops
// (AssignVariableOp, AssignAddVariableOp, ...). `name` is the variable;
// `dtype` is the node's dtype attr, called `dtype_attr` ("T" or "dtype") in
// errors. Errors carry the node context.

// Checks that `value` has `dtype`, then stores it in variable `name` (created
// if absent). With `validate_shape`, an initialized variable keeps its shape.
Status AssignVariable(const KernelContext& ctx, const std::string& name, DType dtype,
                      const std::string& dtype_attr, const Tensor& value, bool validate_shape);

// Checks that `delta` has `dtype`, then adds it to (or subtracts it from) the
// initialized variable `name` and returns the new value. FailedPrecondition
// when the variable does not exist or holds no value.
StatusOr<Tensor> UpdateVariable(const KernelContext& ctx, const std::string& name, DType dtype,
                                const std::string& dtype_attr, const Tensor& delta,
                                bool subtract);

// Whether variable `name` exists and holds a value.
bool VariableIsInitialized(const KernelContext& ctx, const std::string& name);

}  // namespace state_internal
}  // namespace tfhost::ops
