// What the graph fuzzers do with a parsed GraphDef: everything a loader does
// before running it (build the IR, fill defaults, infer dtypes, decode
// constants, create a Session). None of it may crash on any input.
#pragma once

#include "ir/graph.h"
#include "ir/op_def_util.h"
#include "ops/op_registry.h"
#include "runtime/session.h"

namespace tfhost::fuzz {

inline void ExerciseGraphDef(const tensorflow::GraphDef& graph_def) {
  auto graph = ir::Graph::FromGraphDef(graph_def);
  if (!graph.ok()) return;
  if (!ir::InferTypes(*graph, ops::OpRegistry::Global().Lookup()).ok()) return;
  (void)graph->TopologicalOrder();
  runtime::SessionOptions options;
  options.intra_op_threads = 1;
  (void)runtime::Session::Create(std::move(*graph), options);
}

}  // namespace tfhost::fuzz
