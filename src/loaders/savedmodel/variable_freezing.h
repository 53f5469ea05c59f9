// Variable freezing: a SavedModel reads its weights through variables
// (VarHandleOp + ReadVariableOp in TF2, VariableV2 + `/read` Identity in
// TF1), and the graph passes cannot see through a variable: a Keras batch
// norm after a convolution stays a per-channel Mul and Add over the whole
// activation because its scale is a ReadVariableOp, not a Const. When no
// node the model serves or initializes can write a variable, its value after
// the restore step is a constant of the model. The loader then restores the
// checkpoint once into a throwaway session, turns every read into a Const
// holding the value, and hands that graph to the passes. This is what
// TensorFlow's freeze_graph and the converters of ONNX Runtime, OpenVINO and
// LiteRT do ahead of time; the served session no longer holds variables.
//
// All or nothing: the served session either restores the checkpoint (as
// before) or holds no variable at all, so a model never carries its weights
// twice. Freezing is declined, with the reason, when
//   - a served node uses a variable other than by reading it (an assign,
//     a stateful random op's state, a handle passed into a call, or into a
//     While loop that does more than read it);
//   - a ReadVariableOp reads a handle that is not a variable node;
//   - the init op touches variables (its writes would be lost).
//
// Thread-safety: plain functions on a graph the caller owns.
#pragma once

#include <string>
#include <vector>

#include "base/status.h"
#include "base/tensor.h"
#include "ir/graph.h"

namespace tfhost::loaders {

struct FreezePlan {
  struct Variable {
    std::string resource;
    // The node the variable's value is fetched through after the restore:
    // a VarHandleOp (read with a ReadVariableOp) or a TF1 VariableV2.
    std::string source;
    // The served nodes that read it: ReadVariableOp, ResourceGather,
    // ResourceGatherNd, or a TF1 VariableV2 whose output is the value.
    std::vector<std::string> reads;
    // While loops that get the variable as input `second` and only read it
    // (loop_variable_inputs.h): they get the value instead.
    std::vector<std::pair<std::string, int>> loop_inputs;
  };
  std::vector<Variable> variables;
  // Empty when the graph can be frozen; otherwise why not, naming the node.
  std::string declined;
};

// Decides which reads to freeze. `served` are the node indices the
// signatures (and kept names) start from, `init` the init op's.
FreezePlan PlanVariableFreezing(const ir::Graph& graph, const std::vector<int>& served,
                                const std::vector<int>& init);

// Adds one Const per variable holding values[k] and rewrites its reads in
// place (names and control inputs kept): ReadVariableOp and VariableV2 become
// Identity of the Const (identity_elimination then removes them),
// ResourceGather becomes GatherV2 and ResourceGatherNd GatherNd on it. Fails
// naming the node when a value's dtype is not the one the read declares.
Status FreezeVariables(ir::Graph& graph, const FreezePlan& plan, std::vector<Tensor> values);

}  // namespace tfhost::loaders
