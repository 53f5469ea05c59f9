#include "backends/fast_kernel_registry.h"

#include <algorithm>

namespace tfhost::backends {

StatusOr<KernelChoice> ParseKernelChoice(const std::string& text) {
  if (text == "fast") return KernelChoice::kFast;
  if (text == "reference") return KernelChoice::kReference;
  return InvalidArgument("kernel choice '" + text + "' is not one of: fast, reference");
}

const char* KernelChoiceName(KernelChoice choice) {
  return choice == KernelChoice::kFast ? "fast" : "reference";
}

const FastKernelRegistry& FastKernelRegistry::Global() {
  static const FastKernelRegistry* registry = [] {
    auto* r = new FastKernelRegistry;
    RegisterOneDnnKernels(*r);
    RegisterSimdKernels(*r);
    return r;
  }();
  return *registry;
}

void FastKernelRegistry::Register(const std::string& op, const std::string& backend, FastKernelFactory factory) {
  factories_[op].push_back(Entry{backend, std::move(factory)});
}

FastKernel FastKernelRegistry::Make(const ir::Node& node, const ops::KernelFn& reference) const {
  auto it = factories_.find(node.op);
  if (it == factories_.end()) return {};
  for (const Entry& e : it->second) {
    ops::KernelFn kernel = e.factory(node, reference);
    if (kernel) return FastKernel{e.backend, std::move(kernel)};
  }
  return {};
}

std::vector<std::string> FastKernelRegistry::Ops() const {
  std::vector<std::string> ops;
  for (const auto& [op, entries] : factories_) ops.push_back(op);
  std::sort(ops.begin(), ops.end());
  return ops;
}

}  // namespace tfhost::backends
