// View ops: ops whose kernel only relabels its input 0 (the same bytes under
// a new shape, or the tensor itself) and reads nothing else but small index
// inputs. Their reference kernels therefore run unchanged on tensors in any
// memory space, so a device backend takes them as they are rather than
// sending the tensor to the host and back. Placement puts a view op beside
// its input (backends/placement.h), and its index inputs (Reshape's shape,
// ExpandDims' dim) are read in host memory.
//
// Thread-safety: pure functions; the registry lookups read the global op
// registry, which is filled before any backend makes kernels.
#pragma once

#include <string>

#include "ir/graph.h"
#include "ops/op_kernel.h"

namespace tfhost::backends {

// Identity, StopGradient, Snapshot, PreventGradient, Reshape, Squeeze, ExpandDims.
bool IsViewOp(const std::string& op);
// A view op whose tensor can live in device memory: its T is a fixed-size
// dtype (not string, resource or variant). What a device backend takes.
bool IsDeviceViewOp(const ir::Node& node);
// Whether a view op reads input `index` in host memory (an index input).
bool ViewOpInputInHostMemory(const std::string& op, int index);
// The op's registered (reference) kernel; empty for an op that is not a view op.
ops::KernelFn ViewOpKernel(const std::string& op);

}  // namespace tfhost::backends
