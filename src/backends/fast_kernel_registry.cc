#include "backends/fast_kernel_registry.h"

#include <algorithm>

#include "backends/cpu/simd/simd_kernels.h"

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
    // Ahead of oneDNN's convolutions, for the shapes where they are faster
    // (docs/perf.md, sessions 8 and 9); oneDNN's kernel is their fallback.
    simd::RegisterDepthwiseConvKernels(*r);
    simd::RegisterPointwiseConvKernels(*r);
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
  return MakeChained(node, reference, "");
}

FastKernel FastKernelRegistry::MakeFrom(const std::string& backend, const ir::Node& node,
                                        const ops::KernelFn& reference) const {
  return MakeChained(node, reference, backend);
}

FastKernel FastKernelRegistry::MakeChained(const ir::Node& node, const ops::KernelFn& reference,
                                           const std::string& only) const {
  auto it = factories_.find(node.op);
  if (it == factories_.end()) return {};
  // From the last factory to the first, each given what the ones after it
  // made (or the reference kernel) as the kernel for calls it declines.
  FastKernel made;
  ops::KernelFn fallback = reference;
  for (auto e = it->second.rbegin(); e != it->second.rend(); ++e) {
    if (!only.empty() && e->backend != only) continue;
    ops::KernelFn kernel = e->factory(node, fallback);
    if (!kernel) continue;
    fallback = kernel;
    made = FastKernel{e->backend, std::move(kernel)};
  }
  return made;
}

std::vector<std::string> FastKernelRegistry::Ops() const {
  std::vector<std::string> ops;
  for (const auto& [op, entries] : factories_) ops.push_back(op);
  std::sort(ops.begin(), ops.end());
  return ops;
}

}  // namespace tfhost::backends
