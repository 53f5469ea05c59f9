// KernelTable and HostKernelBackend: a host backend made of per-op kernel
// factories (the simd and oneDNN backends).
//
// A factory is called once per graph node, when a session is created, so
// the kernel it returns can keep per-node state across runs (weights
// reordered into a blocked layout, primitives cached per input shape). A
// factory that does not handle the node (dtype, data_format, ...) returns
// an empty KernelFn. Of one op's factories in a table, the first (in the
// order added) that returns a kernel wins; the calls it declines go to what
// the later ones make, then to the backend's fallback.
//
// Thread-safety: tables are filled before the backend is shared; the
// kernels made may be called from several threads at once and must lock
// their own caches.
#pragma once

#include <functional>
#include <string>
#include <unordered_map>
#include <vector>

#include "backends/backend.h"

namespace tfhost::backends {

using KernelFactory = std::function<ops::KernelFn(const ir::Node& node, const ops::KernelFn& fallback)>;

class KernelTable {
 public:
  void Add(const std::string& op, KernelFactory factory);
  bool Has(const std::string& op) const { return factories_.count(op) > 0; }
  // Ops with at least one factory, sorted.
  std::vector<std::string> Ops() const;
  // The chained kernel for `node`, or an empty one when no factory takes it.
  ops::KernelFn Make(const ir::Node& node, const ops::KernelFn& fallback) const;

 private:
  std::unordered_map<std::string, std::vector<KernelFactory>> factories_;
};

class HostKernelBackend : public Backend {
 public:
  HostKernelBackend(std::string name, int priority, BackendCapabilities capabilities, KernelTable table)
      : name_(std::move(name)), priority_(priority), capabilities_(capabilities), table_(std::move(table)) {}

  const std::string& name() const override { return name_; }
  int priority() const override { return priority_; }
  MemorySpace memory_space() const override { return MemorySpace::Host(); }
  BackendCapabilities capabilities() const override { return capabilities_; }
  Allocator* allocator() const override { return nullptr; }
  Stream* stream() const override { return nullptr; }
  // Supported when a factory of the node's op makes a kernel for it (the
  // factories are where each kernel states the dtypes, attrs and static
  // shapes it takes).
  NodeSupport Supports(const ir::Node& node) const override;
  ops::KernelFn MakeKernel(const ir::Node& node, const ops::KernelFn& fallback) const override {
    return table_.Make(node, fallback);
  }
  const KernelTable& table() const { return table_; }

 private:
  std::string name_;
  int priority_;
  BackendCapabilities capabilities_;
  KernelTable table_;
};

}  // namespace tfhost::backends
