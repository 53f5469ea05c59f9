#include "backends/builtin/builtin_backends.h"

#include "backends/backend_registry.h"
#include "backends/reference_backend.h"

namespace tfhost::backends {

void AddBuiltinBackends(BackendRegistry& registry) {
  // Names are distinct by construction, so Add cannot refuse one here.
  (void)registry.Add(std::make_unique<ReferenceBackend>());
#if TFHOST_HAVE_SIMD
  (void)registry.Add(MakeSimdBackend());
#endif
#if TFHOST_HAVE_ONEDNN
  (void)registry.Add(MakeOneDnnBackend());
#endif
}

// Here rather than in backend_registry.cc, so that only code that links the
// builtin backends can reach the global registry.
const BackendRegistry& BackendRegistry::Global() {
  static const BackendRegistry* registry = [] {
    auto* r = new BackendRegistry;
    AddBuiltinBackends(*r);
    return r;
  }();
  return *registry;
}

}  // namespace tfhost::backends
