// Which nodes a set of roots needs, and pruning the graph to them.
//
// A model file may hold far more than its signatures run: TF1 SavedModels
// exported with their training graph keep optimizer slot variables and their
// ApplyAdam/Assign nodes, TF.js and frozen graphs keep debugging leftovers.
// TensorFlow never builds what no fetch reaches, so a node there that tfhost
// cannot type, shape or run must not fail the load. Loaders prune to the
// roots (signature tensors, init/restore ops, names the caller keeps) before
// any check that could fail on a node.
#pragma once

#include <string>
#include <vector>

#include "ir/graph.h"

namespace tfhost::ir {

// Nodes reachable backwards from `roots` (node indices; negative ones are
// skipped) through data and control inputs. Control inputs count because a
// node reached only by "^name" must still run first (TF1 init groups,
// restore_all, loop-constant pivots); data inputs cover whole TF1 while
// loops, since an Exit reaches its Switch, Merge, Enter and, through the
// Merge's NextIteration back edge, the body.
std::vector<bool> ReachableFrom(const Graph& graph, const std::vector<int>& roots);

// Removes every node that `root_names` do not reach. Names are node or
// tensor names ("n", "n:1", "^n"); a malformed name or one the graph lacks
// is skipped, so that whoever uses it later (a fetch, a signature check)
// reports it with its own context. Every Placeholder stays too: callers may
// feed one that nothing reads, and it has no inputs that could drag in
// more. Empty `root_names` keeps every node. Returns the number of nodes
// removed.
StatusOr<int> PruneToRoots(Graph& graph, const std::vector<std::string>& root_names);

}  // namespace tfhost::ir
