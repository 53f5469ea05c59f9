#include "backends/cuda/cuda_plugin_options.h"

#include <cstdlib>

namespace tfhost::backends::cuda {

std::string DefaultAlgorithmCachePath(const char* xdg_cache_home, const char* home) {
  constexpr char kFile[] = "/tfhost/gpu_algorithms.tsv";
  if (xdg_cache_home != nullptr && xdg_cache_home[0] == '/') return std::string(xdg_cache_home) + kFile;
  if (home != nullptr && home[0] != '\0') return std::string(home) + "/.cache" + kFile;
  return "";
}

StatusOr<CudaBackendOptions> ParseCudaPluginOptions(const BackendPluginOptions& options) {
  CudaBackendOptions read;
  TFHOST_ASSIGN_OR_RETURN(DeviceMemoryOptions memory,
                          ReadDeviceMemoryOptions(options, "cuda", read.memory_fraction, read.allow_growth));
  read.memory_fraction = memory.memory_fraction;
  read.allow_growth = memory.allow_growth;
  TFHOST_ASSIGN_OR_RETURN(DeviceAlgorithmOptions algorithms, ReadDeviceAlgorithmOptions(options, "cuda"));
  read.algorithm_cache_path = algorithms.cache_path.has_value()
                                  ? *algorithms.cache_path
                                  : DefaultAlgorithmCachePath(std::getenv("XDG_CACHE_HOME"), std::getenv("HOME"));
  read.exhaustive_search = algorithms.exhaustive_search;
  return read;
}

}  // namespace tfhost::backends::cuda
