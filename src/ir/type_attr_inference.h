// Type attrs that a node omits but its inputs determine.
//
// TensorFlow's graph builder sets every attr that an OpDef binds to input
// args (input_arg.type_attr, number_attr, type_list_attr) from the inputs
// it is given, so writers often drop them: TF.js graph models carry a Prelu
// without "T", a ConcatV2 without "N" and "T". Whatever the op, such an
// attr is recovered here from the producers' output dtypes and the input
// count, so no loader needs a per-op patch. An attr that only outputs bind
// (Const's dtype, Cast's DstT) has nothing to be recovered from and stays a
// load error naming the node and the attr.
#pragma once

#include <vector>

#include "ir/graph.h"
#include "ir/op_def_util.h"

namespace tfhost::ir {

// Whether `node` lacks an attr that one of `def`'s input args binds (after
// defaults are filled: an attr with a default is never missing).
bool MissingInputBoundAttr(const tensorflow::OpDef& def, const Node& node);

// Fails when `node` lacks an attr that sets an output's type or count and
// that no input arg binds, so nothing can infer it; the error names the
// node, the attr and the output.
Status CheckOutputBoundAttrs(const tensorflow::OpDef& def, const Node& node);

// Sets the missing input-bound attrs of each node in `waiting` (all have a
// schema in `lookup`) and then its output_dtypes. A node's attrs come from
// its producers' output_dtypes, so the nodes are settled in dependency
// order, whatever their order in the graph; a TF1 loop Merge needs only one
// typed input, so back edges do not block. Fails naming the node and the
// attr when inputs disagree, when the type is not one the attr allows, or
// when no typed input determines an attr the outputs need (the error then
// names that input and its producer). An attr only inputs use that stays
// unknown is left unset, for the kernel to report should it read it.
Status InferMissingTypeAttrs(Graph& graph, const OpDefLookup& lookup, const std::vector<int>& waiting);

}  // namespace tfhost::ir
