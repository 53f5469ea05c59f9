#include "backends/backend_registry.h"

#include <algorithm>
#include <mutex>

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
  static std::vector<std::string> names = {kReferenceBackend};
  return names;
}

// Placement put copies where spaces meet, so an input a kernel cannot read
// is a runtime bug; it fails the call instead of reading foreign memory.
// Bit i of `host_inputs` marks input i as one the kernel reads in host
// memory whatever its own space (Backend::InputInHostMemory; the first 32
// inputs, which covers every op that has such inputs).
Status CheckInputSpaces(const ops::KernelContext& ctx, MemorySpace space, uint32_t host_inputs = 0) {
  for (int i = 0; i < ctx.num_inputs(); ++i) {
    const MemorySpace in = ctx.input(i).memory_space();
    const MemorySpace reader = i < 32 && (host_inputs >> i & 1u) ? MemorySpace::Host() : space;
    if (in == reader || (in.host_accessible() && reader.host_accessible())) continue;
    return Internal(ir::NodeContext(ctx.node()) + ": input " + std::to_string(i) + " is in " + in.ToString() +
                    ", but the kernel reads it in " + reader.ToString() + " (no copy was placed on this edge)");
  }
  return OkStatus();
}

// `kernel`, marking each call it receives as computed by `backend` (until a
// kernel it hands the call to marks it again), in that backend's memory.
ops::KernelFn MarkedWith(const Backend& backend, const ir::Node& node, ops::KernelFn kernel) {
  uint32_t host_inputs = 0;
  if (!backend.memory_space().host_accessible()) {
    for (int k = 0; k < 32; ++k) {
      if (backend.InputInHostMemory(node, k)) host_inputs |= 1u << k;
    }
  }
  return [id = BackendId(backend.name()), space = backend.memory_space(), allocator = backend.allocator(),
          stream = backend.stream(), host_inputs, kernel = std::move(kernel)](ops::KernelContext& ctx) {
    ctx.set_backend_id(id);
    ctx.set_device(space, allocator, stream);
    TFHOST_RETURN_IF_ERROR(CheckInputSpaces(ctx, space, host_inputs));
    return kernel(ctx);
  };
}

ops::KernelFn MarkedAsReference(ops::KernelFn kernel) {
  return [kernel = std::move(kernel)](ops::KernelContext& ctx) {
    ctx.set_backend_id(0);
    ctx.set_device(MemorySpace::Host(), nullptr, nullptr);
    TFHOST_RETURN_IF_ERROR(CheckInputSpaces(ctx, MemorySpace::Host()));
    return kernel(ctx);
  };
}

// The end of a device space's chain: no kernel of that space took the call,
// and falling back to a host kernel would read device memory.
ops::KernelFn NoFallbackIn(MemorySpace space) {
  return [space](ops::KernelContext& ctx) {
    return Unimplemented(ir::NodeContext(ctx.node()) + ": no kernel in " + space.ToString() +
                         " accepts this call (its shapes or attrs), and kernels fall back only within one memory space");
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

Status BackendRegistry::Add(std::unique_ptr<Backend> backend) {
  const Backend* b = backend.get();
  TFHOST_RETURN_IF_ERROR(AddBorrowed(b));
  owned_.push_back(std::move(backend));
  return OkStatus();
}

Status BackendRegistry::AddBorrowed(const Backend* b) {
  if (Find(b->name()) != nullptr) {
    return AlreadyExists("backend '" + b->name() + "' is already registered");
  }
  // Stable: among equal priorities, the earlier added stays first.
  auto at = std::upper_bound(order_.begin(), order_.end(), b, [](const Backend* x, const Backend* y) {
    return x->priority() > y->priority();
  });
  order_.insert(at, b);
  BackendId(b->name());
  return OkStatus();
}

const Backend* BackendRegistry::Find(const std::string& name) const {
  for (const Backend* b : order_) {
    if (b->name() == name) return b;
  }
  return nullptr;
}

const Backend* BackendRegistry::Choose(const ir::Node& node, KernelChoice choice) const {
  if (choice == KernelChoice::kReference) return reference();
  for (const Backend* b : order_) {
    if (b->Supports(node).supported) return b;
  }
  return nullptr;
}

NodeKernel BackendRegistry::MakeKernel(const ir::Node& node, const Backend& placed,
                                       const ops::KernelFn& host_reference) const {
  if (placed.name() == kReferenceBackend) return NodeKernel{"", host_reference};
  const MemorySpace space = placed.memory_space();
  ops::KernelFn fallback =
      space.host_accessible() ? MarkedAsReference(host_reference) : NoFallbackIn(space);
  NodeKernel made;
  // From the lowest priority up to `placed`, each given what the ones below
  // it made as the kernel for the calls it declines.
  for (auto it = order_.rbegin(); it != order_.rend(); ++it) {
    const Backend* b = *it;
    if (b->name() == kReferenceBackend || b->memory_space() != space) continue;
    if (b->priority() > placed.priority() || (b->priority() == placed.priority() && b != &placed)) continue;
    ops::KernelFn kernel = b->MakeKernel(node, fallback);
    if (!kernel) continue;
    fallback = MarkedWith(*b, node, std::move(kernel));
    made = NodeKernel{b->name(), fallback};
  }
  return made;
}

NodeKernel BackendRegistry::MakeFastKernel(const ir::Node& node, const ops::KernelFn& host_reference) const {
  const Backend* placed = Choose(node, KernelChoice::kFast);
  if (placed == nullptr || placed->name() == kReferenceBackend) return {};
  return MakeKernel(node, *placed, host_reference);
}

NodeKernel BackendRegistry::MakeKernelFrom(const std::string& name, const ir::Node& node,
                                           const ops::KernelFn& host_reference) const {
  const Backend* b = Find(name);
  if (b == nullptr || !b->Supports(node).supported) return {};
  if (name == kReferenceBackend) return NodeKernel{"", host_reference};
  const MemorySpace space = b->memory_space();
  ops::KernelFn kernel =
      b->MakeKernel(node, space.host_accessible() ? MarkedAsReference(host_reference) : NoFallbackIn(space));
  if (!kernel) return {};
  return NodeKernel{name, MarkedWith(*b, node, std::move(kernel))};
}

bool BackendRegistry::HasDeviceBackend() const {
  for (const Backend* b : order_) {
    if (!b->memory_space().host_accessible()) return true;
  }
  return false;
}

bool BackendRegistry::HostHasNativeBf16() const {
  for (const Backend* b : order_) {
    if (b->memory_space().host_accessible() && b->capabilities().native_bf16) return true;
  }
  return false;
}

}  // namespace tfhost::backends
