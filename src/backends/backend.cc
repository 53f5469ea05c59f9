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

}  // namespace tfhost::backends
