// The part of a SavedModel's restore step that sets some variables: the
// loader freezes the variables the signatures read, and needs only their
// values, while the saver's RestoreV2 reads every tensor of the checkpoint.
// Keras 3 exports list each variable twice (as `variables` and
// `_all_variables`), so for BERT-base that was 876 MB read for 438 MB used.
//
// NarrowRestore rewrites a graph (the loader's throwaway copy) so that its
// RestoreV2 nodes read only the tensors that reach the given variables'
// assignments, and returns those assignments: running them restores exactly
// those variables, with the values the whole restore step would give them.
// It understands the restore step TensorFlow's savers write (each variable
// assigned once, by AssignVariableOp or Assign, from an output of a
// RestoreV2 whose tensor names and slices are Consts, possibly through
// Identity nodes); on any other shape it returns an empty list and leaves
// the graph unchanged, and the caller runs the whole step.
#pragma once

#include <string>
#include <vector>

#include "ir/graph.h"

namespace tfhost::loaders {

// `variables`: the names of the VarHandleOp or VariableV2 nodes whose values
// are wanted; `restore_op`: the node that runs the whole restore step.
std::vector<std::string> NarrowRestore(ir::Graph& graph, const std::string& restore_op,
                                       const std::vector<std::string>& variables);

}  // namespace tfhost::loaders
