// Kernels at the ends of a bf16 edge (passes/bf16_activation_chaining.cc): a
// convolution that stores its output in bf16 and one that may read its
// input 0 in bf16. The oneDNN kernels do both natively; any other kernel the
// node runs on (the reference kernel, or a fast kernel's own fallback to it)
// is wrapped here so the graph's dtypes hold whatever kernel runs: a bf16
// input 0 is widened to float32 before the kernel, and a float32 output 0 is
// rounded to bf16 after it.
#pragma once

#include "ir/graph.h"
#include "ops/op_kernel.h"

namespace tfhost::runtime {

// Whether the node is at either end of a bf16 edge.
bool HasBf16Edge(const ir::Node& node);

// `kernel` wrapped for the node's bf16 edges, or `kernel` itself when it has
// none. `widen_input` false leaves input 0 as it comes (for kernels that read
// bf16 themselves); outputs are always made to match the node's dtype.
ops::KernelFn AdaptToBf16Edges(const ir::Node& node, ops::KernelFn kernel, bool widen_input = true);

}  // namespace tfhost::runtime
