#include "backends/backend.h"

namespace tfhost::backends {

StatusOr<Tensor> Backend::CopyIn(const Tensor& src) const {
  return Unimplemented("backend '" + name() + "' (" + memory_space().ToString() +
                       ") has no copies from host memory");
}

StatusOr<Tensor> Backend::CopyOut(const Tensor& src) const {
  return Unimplemented("backend '" + name() + "' (" + memory_space().ToString() +
                       ") has no copies to host memory");
}

std::optional<DeviceMemoryStats> Backend::device_memory() const {
  if (memory_space().host_accessible() || allocator() == nullptr) return std::nullopt;
  DeviceMemoryStats s;
  s.allocator = allocator()->stats();
  s.bytes_reserved = s.allocator.bytes_in_use;
  return s;
}

}  // namespace tfhost::backends
