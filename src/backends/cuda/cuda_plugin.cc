// libtfhost_cuda.so's entry points (backends/plugin_loader.h): one CUDA
// backend per GPU the runtime can use, or one line saying why none.
#include <cuda_runtime.h>

#include <cstdio>
#include <string>

#include "backends/cuda/cuda_backend.h"
#include "backends/plugin_loader.h"

namespace {

void Say(char* detail, size_t size, const std::string& text) {
  if (size == 0) return;
  std::snprintf(detail, size, "%s", text.c_str());
}

}  // namespace

extern "C" int tfhost_backend_plugin_abi() { return tfhost::backends::kBackendPluginAbi; }

extern "C" int tfhost_backend_plugin_register(tfhost::backends::BackendRegistry* registry,
                                              const tfhost::backends::BackendPluginOptions* options, char* detail,
                                              size_t detail_size) {
  // Checked before the devices are touched: a bad option is the user's
  // error and reads the same on every machine.
  tfhost::backends::cuda::CudaBackendOptions backend_options;
  auto memory = tfhost::backends::ReadDeviceMemoryOptions(*options, "cuda", backend_options.memory_fraction,
                                                         backend_options.allow_growth);
  if (!memory.ok()) {
    Say(detail, detail_size, memory.status().message());
    return 0;
  }
  backend_options.memory_fraction = memory->memory_fraction;
  backend_options.allow_growth = memory->allow_growth;
  int runtime = 0, driver = 0;
  cudaRuntimeGetVersion(&runtime);
  cudaDriverGetVersion(&driver);
  const std::string versions = "CUDA runtime " + std::to_string(runtime / 1000) + "." +
                               std::to_string(runtime % 1000 / 10) + ", driver " +
                               (driver == 0 ? std::string("none") : std::to_string(driver / 1000) + "." +
                                                                        std::to_string(driver % 1000 / 10));
  int count = 0;
  if (cudaError_t e = cudaGetDeviceCount(&count); e != cudaSuccess) {
    Say(detail, detail_size,
        "no usable GPU: " + std::string(cudaGetErrorString(e)) + " (" + cudaGetErrorName(e) + "; " + versions + ")");
    return 0;
  }
  if (count == 0) {
    Say(detail, detail_size, "no usable GPU: the CUDA runtime sees no device (" + versions + ")");
    return 0;
  }
  std::string added, failed;
  int made = 0;
  for (int device = 0; device < count; ++device) {
    auto backend = tfhost::backends::cuda::CudaBackend::Create(device, backend_options);
    if (!backend.ok()) {
      failed += (failed.empty() ? "" : "; ") + backend.status().message();
      continue;
    }
    const std::string line = (*backend)->name() + " (" + (*backend)->description() + ")";
    if (registry->Add(std::move(*backend)).ok()) {
      added += (added.empty() ? "" : ", ") + line;
      ++made;
    }
  }
  Say(detail, detail_size,
      (made > 0 ? "added " + added : std::string("no usable GPU")) + (failed.empty() ? "" : "; failed: " + failed) +
          " (" + versions + ")");
  return made;
}
