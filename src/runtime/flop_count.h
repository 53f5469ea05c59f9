// FLOP count of a graph, for `tfhost bench`'s achieved GFLOP/s and its
// fraction of the machine's measured peak.
//
// Convention (the usual one for "model FLOPs"): a multiply-add counts as 2
// FLOPs, and only the ops that do dense multiply-adds are counted: Conv2D,
// _FusedConv2D, DepthwiseConv2dNative, (_)FusedDepthwiseConv2dNative,
// Conv2DBackpropInput, MatMul, _FusedMatMul, BatchMatMul(V2/V3) and
// two-operand Einsum without an ellipsis. Element-wise work (bias, batch-norm,
// activations fused into those ops, or standing alone), pooling, reductions
// and data movement count 0: they are memory-bound, small beside the
// contractions in the models benchmarked here, and counting them would make
// "% of peak FMA throughput" mean less.
//
// The count comes from static shapes: CountFlopsForFeeds copies the graph,
// replaces every fed tensor's producer by a Placeholder of the fed shape (a
// Const of the fed value for small tensors, so that shape arithmetic on
// scalars such as a resize ratio can be followed), and re-runs shape inference.
// Nodes of a counted op whose shapes stay unknown are reported, not guessed.
// Every node of the graph is counted once, so a node in a branch that does not
// run (Switch/Merge, If) still counts.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "base/tensor.h"
#include "ir/graph.h"

namespace tfhost::runtime {

struct FlopCount {
  double flops = 0;                  // total over counted nodes
  int64_t counted_nodes = 0;         // nodes of a counted op with known shapes
  std::vector<std::string> unknown;  // names of counted-op nodes whose shapes are not known
  std::map<std::string, double> flops_by_op;
};

// FLOPs of one node from the input and output shapes recorded in `graph`
// (ir::Node::output_shapes); -1 when the op is counted but a needed dim is
// unknown; 0 for ops that are not counted.
double NodeFlops(const ir::Graph& graph, const ir::Node& node);

// Whether NodeFlops counts this op at all.
bool IsCountedOp(const std::string& op);

// Counts over the shapes already recorded in `graph` (as the loader inferred
// them; unknown batch dims stay unknown).
FlopCount CountFlops(const ir::Graph& graph);

// Counts with the fed tensors' concrete shapes: `feeds` are graph tensor
// names ("x:0") with the values that will be fed. Fails only when shape
// inference finds the fed shapes in definite conflict with the graph.
StatusOr<FlopCount> CountFlopsForFeeds(const ir::Graph& graph,
                                       const std::vector<std::pair<std::string, const Tensor*>>& feeds);

}  // namespace tfhost::runtime
