#include "backends/kernel_table.h"

#include <algorithm>

namespace tfhost::backends {

void KernelTable::Add(const std::string& op, KernelFactory factory) {
  factories_[op].push_back(std::move(factory));
}

std::vector<std::string> KernelTable::Ops() const {
  std::vector<std::string> ops;
  for (const auto& [op, list] : factories_) ops.push_back(op);
  std::sort(ops.begin(), ops.end());
  return ops;
}

ops::KernelFn KernelTable::Make(const ir::Node& node, const ops::KernelFn& fallback) const {
  auto it = factories_.find(node.op);
  if (it == factories_.end()) return {};
  // From the last factory to the first, each given what the ones after it
  // made (or the backend's fallback) for the calls it declines.
  ops::KernelFn made;
  ops::KernelFn next = fallback;
  for (auto f = it->second.rbegin(); f != it->second.rend(); ++f) {
    ops::KernelFn kernel = (*f)(node, next);
    if (!kernel) continue;
    next = kernel;
    made = std::move(kernel);
  }
  return made;
}

NodeSupport HostKernelBackend::Supports(const ir::Node& node) const {
  if (!table_.Has(node.op)) return NodeSupport::No(name_ + " has no kernel for " + node.op);
  // Factories only read the node here; the kernel made is dropped.
  const ops::KernelFn probe = [](ops::KernelContext&) { return OkStatus(); };
  if (!table_.Make(node, probe)) return NodeSupport::No(name_ + "'s " + node.op + " kernels do not take this node's dtypes or attrs");
  return NodeSupport::Yes();
}

}  // namespace tfhost::backends
