// oneDNN kernels for convolutions, matrix products and pooling.
#include "backends/fast_kernel_registry.h"

namespace tfhost::backends {

void RegisterOneDnnKernels(FastKernelRegistry& registry) {}

}  // namespace tfhost::backends
