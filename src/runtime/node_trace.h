// The trace slice of one node execution (base/trace/trace.h): what
// RunKernel records for a traced run (ExecEnv::trace_run).
//
//   name  the node's name
//   cat   "copy" for placement's copy nodes (backends::kCopyOp), else "node"
//   args  op, backend (the one whose kernel computed the call, as
//         NodeProfile counts it), run (the Session::Run slice's id),
//         outputs (dtype and shape of each output, "f32[1,10]"), and for
//         copies from, to (memory spaces) and bytes
//
// Thread-safety: called concurrently from the threads running one run's nodes.
#pragma once

#include <chrono>
#include <cstdint>

#include "base/trace/trace.h"
#include "ir/graph.h"
#include "ops/op_kernel.h"

namespace tfhost::runtime {

void RecordNodeSlice(const ir::Node& node, ops::KernelContext& ctx, uint64_t run,
                     std::chrono::steady_clock::time_point start, std::chrono::steady_clock::time_point end);

}  // namespace tfhost::runtime
