// The kernel contract: what is proven about a node before any kernel of it
// runs (the op's reference kernel, or a fast backend's kernel for the same
// node), so that kernels may trust it instead of re-checking on every call.
//
//   * the node has exactly as many data inputs and outputs as its op's
//     schema declares once attrs are resolved (N, list(type) lengths);
//   * every attr the node sets obeys the schema: allowed types and strings,
//     int and list-length minimums (ir/attr_constraints.h);
//   * every input carries the dtype the schema binds it to (a fixed type, a
//     type attr such as T, or the entries of a list(type) attr); input 0 of
//     a bf16 edge's reader (ir::kBf16InputAttr) may be bf16 for float32;
//   * allocation failure inside a kernel (std::bad_alloc) becomes
//     ResourceExhausted naming the node, and an input index outside the
//     node's inputs becomes Internal naming the node (KernelContext::input);
//   * no string value a kernel outputs is longer than the session allows
//     (ops/output_limits.h, --max_op_string_mb).
//
// Every error is a Status naming the node (ir::NodeContext) and what the
// schema expected. The check has a static half and a run-time half:
// CheckNodeContract runs once per node where kernels are made (the
// runtime's GraphRunner::Create, RunKernelOnNode for single ops), since a
// node's wiring and attrs do not change between runs; it proves every input
// dtype it can see before the run and returns the few it cannot (a producer
// whose output dtype is only known when it runs, such as a function call).
// Only those nodes pay a per-call check (CheckLateInputs). InvokeKernel is
// the one way a kernel is called, by the runtime and by the single-op path.
//
// Thread-safety: all functions are pure or act on one KernelContext; the
// kernels that WithLateInputChecks returns are as thread-safe as the kernel
// they wrap.
#pragma once

#include <vector>

#include "ir/graph.h"
#include "ops/op_kernel.h"
#include "tensorflow/core/framework/op_def.pb.h"

namespace tfhost::ops {

// The flat input dtypes the schema expects of `node`, in input order, with
// N and list(type) attrs resolved. kInvalid (any dtype) where a type attr
// is absent (the kernel then reports the missing attr itself) and for TF1
// reference inputs (Ref(T)): tfhost passes variables by name, so what
// arrives there is whatever the loader wired to it (a resource handle, a
// value) and is only forwarded or ignored. Fails, naming the node, when a
// count attr (N, list(type)) is missing or negative.
StatusOr<std::vector<DType>> ExpectedInputDTypes(const tensorflow::OpDef& def, const ir::Node& node);

// The static half. `input_dtypes[k]` is the dtype input k will carry
// (kInvalid: not known before the run). Checks the input count, the output
// count (against node.output_dtypes when types were inferred) and every
// known input dtype. Returns the inputs whose dtype must be checked when the
// node runs (empty for almost every node of a typed graph).
StatusOr<std::vector<int>> CheckNodeContract(const tensorflow::OpDef& def, const ir::Node& node,
                                             const std::vector<DType>& input_dtypes);

// The run-time half for the inputs CheckNodeContract left open: each live
// input in `late` must exist and have dtype expected[k]. Dead inputs (seen
// only by kernels that handle them, such as Merge) are skipped.
Status CheckLateInputs(const KernelContext& ctx, const std::vector<DType>& expected, const std::vector<int>& late);

// `kernel` preceded by CheckLateInputs; `kernel` itself when `late` is empty.
KernelFn WithLateInputChecks(KernelFn kernel, std::vector<DType> expected, std::vector<int> late);

// Calls `kernel` on `ctx`: std::bad_alloc becomes ResourceExhausted naming
// the node, and a read of an input the node does not have (recorded by
// KernelContext::input) becomes Internal naming the node and the index,
// whatever the kernel returned; a kernel that succeeded has its string
// outputs checked against the session's bound (CheckStringOutputs).
Status InvokeKernel(const KernelFn& kernel, KernelContext& ctx);

}  // namespace tfhost::ops
