// The reference backend: every op's own kernel from the op registry
// (src/ops), in host memory. Priority 0, so it runs what no faster backend
// takes; it is the oracle every other backend's kernels are checked against.
//
// Thread-safety: stateless; see backend.h.
#pragma once

#include "backends/backend.h"

namespace tfhost::backends {

class ReferenceBackend : public Backend {
 public:
  const std::string& name() const override;
  int priority() const override { return 0; }
  MemorySpace memory_space() const override { return MemorySpace::Host(); }
  BackendCapabilities capabilities() const override { return {}; }
  Allocator* allocator() const override { return nullptr; }
  Stream* stream() const override { return nullptr; }
  // Every op the registry has a kernel for.
  NodeSupport Supports(const ir::Node& node) const override;
  ops::KernelFn MakeKernel(const ir::Node& node, const ops::KernelFn& fallback) const override;
};

}  // namespace tfhost::backends
