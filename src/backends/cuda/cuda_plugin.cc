// libtfhost_cuda.so's entry points (backends/plugin_loader.h): one CUDA
// backend per GPU the runtime can use, or one line saying why none.
#include <cuda_runtime.h>

#include <cstdio>
#include <iostream>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "backends/algorithm_cache_file.h"
#include "backends/cuda/cuda_backend.h"
#include "backends/cuda/cuda_plugin_options.h"
#include "backends/plugin_loader.h"

namespace {

void Say(char* detail, size_t size, const std::string& text) {
  if (size == 0) return;
  std::snprintf(detail, size, "%s", text.c_str());
}

// The GPU backends live until the process ends and are never destroyed
// (backends/builtin/device_registry.h), so neither is the algorithm cache
// they share: this object's destructor, run at exit, writes what the
// process added since the last periodic save. It touches no CUDA state, so
// running after the CUDA runtime has gone is harmless.
class FlushAtExit {
 public:
  void Add(std::weak_ptr<tfhost::backends::AlgorithmCacheFile> file) {
    std::lock_guard<std::mutex> lock(mu_);
    files_.push_back(std::move(file));
  }
  ~FlushAtExit() {
    std::lock_guard<std::mutex> lock(mu_);
    for (auto& weak : files_) {
      if (auto file = weak.lock()) file->Flush();
    }
  }

 private:
  std::mutex mu_;
  std::vector<std::weak_ptr<tfhost::backends::AlgorithmCacheFile>> files_;
};
FlushAtExit flush_at_exit;

}  // namespace

extern "C" int tfhost_backend_plugin_abi() { return tfhost::backends::kBackendPluginAbi; }

extern "C" int tfhost_backend_plugin_register(tfhost::backends::BackendRegistry* registry,
                                              const tfhost::backends::BackendPluginOptions* options, char* detail,
                                              size_t detail_size) {
  // Checked before the devices are touched: a bad option is the user's
  // error and reads the same on every machine.
  auto parsed = tfhost::backends::cuda::ParseCudaPluginOptions(*options);
  if (!parsed.ok()) {
    Say(detail, detail_size, parsed.status().message());
    return 0;
  }
  const tfhost::backends::cuda::CudaBackendOptions& backend_options = *parsed;
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
  // One cache for every GPU, so that one object reads and writes the file.
  // A file it cannot read is reported on stderr and left for the next save
  // to replace: the GPUs start either way.
  auto algorithms = std::make_shared<tfhost::backends::AlgorithmCacheFile>(
      backend_options.algorithm_cache_path, tfhost::backends::cuda::kAlgorithmCacheSaveInterval, std::cerr);
  flush_at_exit.Add(algorithms);
  std::string added, failed;
  int made = 0;
  for (int device = 0; device < count; ++device) {
    auto backend = tfhost::backends::cuda::CudaBackend::Create(device, backend_options, algorithms);
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
