#include "backends/reference_backend.h"

#include "backends/backend_registry.h"
#include "ops/op_registry.h"

namespace tfhost::backends {

const std::string& ReferenceBackend::name() const {
  static const std::string name = kReferenceBackend;
  return name;
}

NodeSupport ReferenceBackend::Supports(const ir::Node& node) const {
  if (ops::OpRegistry::Global().Find(node.op) == nullptr) {
    return NodeSupport::No("op '" + node.op + "' has no kernel in tfhost");
  }
  return NodeSupport::Yes();
}

ops::KernelFn ReferenceBackend::MakeKernel(const ir::Node& node, const ops::KernelFn&) const {
  const ops::OpRegistration* reg = ops::OpRegistry::Global().Find(node.op);
  return reg != nullptr ? reg->kernel : ops::KernelFn();
}

}  // namespace tfhost::backends
