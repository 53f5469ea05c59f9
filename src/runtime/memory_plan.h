// Liveness-based memory plan of one run: which tensors a run allocates, when
// each dies (after its last consumer, as the executor releases it:
// PlannedNode::output_use_counts), and so the most bytes alive at once — the
// arena one run needs, which the session's BufferPool (base/buffer_pool.h)
// reaches as its high-water mark once warm.
//
// The figure follows the order in which the dataflow executor runs nodes on
// one thread (the inter-op pool off), and counts only what the run itself
// allocates: node outputs. Constants (decoded once at load) and fed tensors
// are not counted; outputs that share their input's buffer (Identity,
// Reshape, Squeeze, ExpandDims, ...) add nothing and keep that buffer alive.
// It is an upper bound in one respect: element-wise kernels that write into
// an input they own (KernelContext::TakeInput) need no new buffer, which the
// plan cannot know. Sizes come from static shapes (ir::Node::output_shapes,
// inferred again with the fed shapes); where those are not fully known, from
// the sizes the latest run of the same plan produced (`observed_outputs`);
// outputs known neither way are counted in `unknown_outputs` and add nothing.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "base/tensor.h"
#include "ir/graph.h"

namespace tfhost::runtime {

class ExecutionPlan;

struct MemoryPlan {
  int64_t peak_bytes = 0;       // most bytes of run-allocated tensors alive at once
  int64_t total_bytes = 0;      // bytes of all run-allocated tensors (no reuse at all)
  int64_t fetched_bytes = 0;    // of which the fetched tensors (alive at the end)
  int64_t planned_outputs = 0;  // outputs that allocate, with a known size
  int64_t observed_outputs = 0; // of planned_outputs, sized from a previous run
  int64_t unknown_outputs = 0;  // outputs whose size is known neither way
  std::string peak_node;        // the node whose outputs brought the peak
  std::string ToString() const;
};

// Plans over the shapes recorded in `graph` (which must be the graph `plan`
// was built for). `constants[i]` is valid for Const nodes decoded at load.
// `observed` (optional; per planned node and output, bytes or -1) gives the
// sizes a previous run saw, used where the static shape is not fully known
// (ops without a shape function, data-dependent shapes).
MemoryPlan PlanMemory(const ExecutionPlan& plan, const ir::Graph& graph, const std::vector<Tensor>& constants,
                      const std::vector<std::vector<int64_t>>* observed = nullptr);

// Whether output `index` of `op` shares the buffer of an input (and which),
// rather than allocating: -1 when it allocates.
int AliasedInput(const std::string& op, int index);

// A copy of `graph` with the fed tensors' producers replaced by Placeholders
// of the fed shapes and shapes inferred again, so a plan sees the shapes a
// run with these feeds has. Feeds of a multi-output node's output keep their
// inferred shape.
StatusOr<ir::Graph> GraphWithFedShapes(const ir::Graph& graph,
                                       const std::vector<std::pair<std::string, Tensor>>& feeds);

}  // namespace tfhost::runtime
