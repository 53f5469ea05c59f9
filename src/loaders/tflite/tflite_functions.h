// The subgraphs a TFLite model runs through control flow, as functions of
// the ir::Graph's library: IF's branches and WHILE's cond and body become
// FunctionDefs ("tflite_subgraph_<index>") that the runtime's TF If/While
// call, so TFLite control flow runs exactly like a TF2 SavedModel's. A
// subgraph is converted once however many operators call it, by building it
// with its own GraphBuilder into a scratch graph and writing that graph out
// in the function-body grammar (docs/formats.md §1.6).
//
// CALL_ONCE's init subgraphs are only recorded here: they have no inputs or
// outputs and run once per model, so the loader builds them into the main
// graph and runs them at load, the way a SavedModel's init op runs.
//
// Also tracks which subgraphs are being built, so a subgraph that calls
// itself (directly or through others) is an error instead of endless
// recursion.
//
// Thread-safety: single-threaded, one per load; `file` and `graph` must
// outlive it.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "ir/graph.h"
#include "loaders/tflite/tflite_file.h"

namespace tfhost::loaders::tflite {

// Deepest chain of subgraphs calling subgraphs accepted at load; bounds the
// loader's recursion on a crafted file (the runtime's own call-depth limit
// applies at run time).
inline constexpr int kMaxSubgraphNesting = 64;

// The arity and dtypes of one subgraph, read from the flatbuffer.
struct SubgraphSignature {
  std::vector<DType> inputs, outputs;
};

class SubgraphLibrary {
 public:
  SubgraphLibrary(const TfliteFile& file, ir::Graph* graph) : file_(file), graph_(graph) {}

  int num_subgraphs() const { return static_cast<int>(file_.model->subgraphs()->size()); }

  // Checks that `index` names a subgraph; `what` is the operator field that
  // names it ("then_subgraph_index"), `where` the operator.
  Status CheckIndex(int index, const std::string& what, const std::string& where) const;
  // The dtypes of subgraph `index`'s inputs and outputs; errors name the
  // tensor whose type tfhost cannot pass between subgraphs.
  StatusOr<SubgraphSignature> Signature(int index) const;

  // The library function that runs subgraph `index`, converted on first use.
  // Fails when the subgraph is being built already (a call cycle), names the
  // subgraph operator that cannot be mapped, or nests too deep. A WHILE's
  // `condition` returns TFLite's one bool (shape [] or [1]) as the scalar
  // TensorFlow's While tests; [1] would read as "has elements", always true.
  StatusOr<std::string> FunctionFor(int index, const std::string& what, const std::string& where,
                                    bool condition = false);
  // Whether the function of `index` (converted) runs stateful ops, so that
  // its caller must be the stateful If/While and keep its place in order.
  bool IsStateful(int index) const;

  // CALL_ONCE: records `index` to run once at load (first call wins).
  Status AddInitSubgraph(int index, const std::string& where);
  const std::vector<int>& init_subgraphs() const { return init_; }

  // Marks subgraph `index` as being built (GraphBuilder::Build); Leave
  // undoes the innermost Enter.
  Status Enter(int index);
  void Leave() { building_.pop_back(); }

 private:
  Status BuildFunction(int index, const std::string& name, bool condition);
  std::string Chain(int index) const;

  const TfliteFile& file_;
  ir::Graph* graph_;
  std::vector<int> building_;             // subgraphs being built, outermost first
  std::map<std::pair<int, bool>, std::string> functions_;  // (subgraph, condition) -> function
  std::map<int, bool> stateful_;          // subgraph -> runs stateful ops
  std::vector<int> init_;
};

// The dtype a subgraph boundary or resource op carries for a TFLite tensor
// type: DTypeOf's, plus STRING and RESOURCE, which cross subgraphs as
// tensors of strings and resource handles; kInvalid for the rest.
DType BoundaryDTypeOf(fb::TensorType type);

}  // namespace tfhost::loaders::tflite
