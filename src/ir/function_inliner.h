// Function inlining: replaces every function call in a graph by the body of
// the called FunctionDef, so that the runtime only ever executes plain ops.
// TF2 SavedModels route every signature, the restore step and most model
// code through calls (StatefulPartitionedCall -> library function), so this
// runs on every SavedModel load.
//
// A call node is a StatefulPartitionedCall / PartitionedCall (function in
// attr `f`), or any node whose op names a function of graph.library(). The
// body is resolved with the function-body input grammar of docs/formats.md §1.6
// ("arg", "arg:i", "node:outarg", "node:outarg:i", "^node").
//
// Naming: body node `n` of a call node `c` becomes "c/n". The call node keeps
// its name and becomes an IdentityN over the function's `ret` tensors with
// control inputs on the `control_ret` nodes, so every tensor name that
// referred to the call ("StatefulPartitionedCall_5:0", a signature output)
// stays valid. Body nodes without any input inherit the call's control
// inputs. Nested calls are inlined too (depth-limited); a function that
// calls itself, directly or not, is an error naming the cycle.
#pragma once

#include "ir/graph.h"
#include "ir/op_def_util.h"

namespace tfhost::ir {

struct InlineOptions {
  // Deepest chain of nested calls accepted.
  int max_depth = 64;
  // Total node count the graph may grow to; bounds the work that a small
  // file with many nested calls of the same big function can demand.
  int max_nodes = 2'000'000;
  // Serialized body bytes all inlined copies together may add, at least this
  // much and at least 32 times the library's own size: a function called
  // from many sites is copied once per site.
  int64_t min_inlined_bytes_budget = int64_t{1} << 30;
};

// `lookup` gives the OpDefs of body ops (model OpDefs first, then tfhost's
// registry); its output_arg names resolve "node:outarg:i". Calls to
// functions absent from the library are left alone (the runtime reports
// them as unsupported ops if they are ever needed).
Status InlineFunctionCalls(Graph& graph, const OpDefLookup& lookup,
                           const InlineOptions& options = InlineOptions());

// A function instantiated as a standalone graph, for the runtime to run
// bodies of If/While/Case and calls it does not inline: one Placeholder
// "_arg_<k>" per flat input, the body (nested calls inlined) under the prefix
// "_ret/", and the IdentityN "_ret" over the flat outputs, with control inputs
// on the control_ret nodes. Output dtypes are inferred with `lookup`. The
// graph's library holds only the functions the body can reach.
struct FunctionGraph {
  Graph graph;
  std::vector<DType> arg_types;  // flat inputs
  std::vector<DType> ret_types;  // flat outputs of "_ret"
};
StatusOr<FunctionGraph> InstantiateFunction(const tensorflow::FunctionDefLibrary& library,
                                            const std::string& name, const AttrMap& attrs,
                                            const OpDefLookup& lookup,
                                            const InlineOptions& options = InlineOptions());

// Whether `node` is a call InlineFunctionCalls would inline; sets the
// function name.
bool IsFunctionCall(const Graph& graph, const Node& node, std::string* function_name);

}  // namespace tfhost::ir
