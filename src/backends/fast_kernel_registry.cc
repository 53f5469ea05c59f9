#include "backends/fast_kernel_registry.h"

#include <algorithm>
#include <mutex>
#include <vector>

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

namespace {

std::mutex& BackendNamesMutex() {
  static std::mutex mu;
  return mu;
}

std::vector<std::string>& BackendNameTable() {
  static std::vector<std::string> names = {"reference"};
  return names;
}

// `kernel`, marking each call it receives as computed by backend `id` (until
// a kernel it hands the call to marks it again).
ops::KernelFn MarkedWithBackend(int id, ops::KernelFn kernel) {
  return [id, kernel = std::move(kernel)](ops::KernelContext& ctx) {
    ctx.set_backend_id(id);
    return kernel(ctx);
  };
}

}  // namespace

int BackendId(const std::string& name) {
  std::lock_guard<std::mutex> lock(BackendNamesMutex());
  std::vector<std::string>& names = BackendNameTable();
  auto it = std::find(names.begin(), names.end(), name);
  if (it != names.end()) return static_cast<int>(it - names.begin());
  // More backends than a profile's mask holds would be a programming error;
  // they share the last id rather than corrupt a mask.
  if (names.size() == kMaxBackends) return kMaxBackends - 1;
  names.push_back(name);
  return static_cast<int>(names.size()) - 1;
}

std::string BackendName(int id) {
  std::lock_guard<std::mutex> lock(BackendNamesMutex());
  const std::vector<std::string>& names = BackendNameTable();
  return id >= 0 && id < static_cast<int>(names.size()) ? names[id] : "backend#" + std::to_string(id);
}

std::string BackendNames(uint32_t mask) {
  std::string joined;
  for (int id = 0; id < kMaxBackends; ++id) {
    if ((mask >> id & 1u) == 0) continue;
    if (!joined.empty()) joined += '+';
    joined += BackendName(id);
  }
  return joined;
}

const FastKernelRegistry& FastKernelRegistry::Global() {
  static const FastKernelRegistry* registry = [] {
    auto* r = new FastKernelRegistry;
    // Ahead of oneDNN's convolutions, for the shapes where they are faster
    // (docs/perf.md, "Kernel benchmarks"); oneDNN's kernel is their fallback.
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
  ops::KernelFn fallback = MarkedWithBackend(0, reference);
  for (auto e = it->second.rbegin(); e != it->second.rend(); ++e) {
    if (!only.empty() && e->backend != only) continue;
    ops::KernelFn kernel = e->factory(node, fallback);
    if (!kernel) continue;
    fallback = MarkedWithBackend(BackendId(e->backend), std::move(kernel));
    made = FastKernel{e->backend, fallback};
  }
  return made;
}

std::vector<std::string> FastKernelRegistry::Ops() const {
  std::vector<std::string> ops;
  for (const auto& [op, entries] : factories_) ops.push_back(op);
  std::sort(ops.begin(), ops.end());
  return ops;
}

std::vector<std::string> FastKernelRegistry::Backends(const std::string& op) const {
  std::vector<std::string> backends;
  auto it = factories_.find(op);
  if (it == factories_.end()) return backends;
  for (const Entry& e : it->second) {
    if (std::find(backends.begin(), backends.end(), e.backend) == backends.end()) backends.push_back(e.backend);
  }
  return backends;
}

}  // namespace tfhost::backends
