// The _TfhostFusedElementwise interpreter (fused_elementwise.cc has the
// program format) made available to faster backends: a backend that has its
// own vectorized versions of some unary ops builds the kernel for a node
// with them in place of the reference loops. Each replacement keeps the op's
// semantics within the tolerance that backend states for the standalone op.
//
// Thread-safety: the returned kernel may run on many threads at once.
#pragma once

#include <cstdint>
#include <map>
#include <string>

#include "base/status.h"
#include "ir/graph.h"
#include "ops/op_kernel.h"

namespace tfhost::ops::math {

// y[i] = op(x[i]) for i < n; `alpha` is the instruction's (LeakyRelu's) alpha.
using FusedUnaryFn = void (*)(const float* x, float* y, int64_t n, float alpha);
// Unary op name (TensorFlow spelling, or GeluExact / GeluApproximate) ->
// its replacement.
using FusedUnaryOverrides = std::map<std::string, FusedUnaryFn>;

// The kernel of `node`, its program parsed once here; InvalidArgument naming
// the node when the program is malformed.
StatusOr<KernelFn> MakeFusedElementwiseKernel(const ir::Node& node, const FusedUnaryOverrides& overrides);

}  // namespace tfhost::ops::math
