// --device cpu|gpu|gpu:N|auto: the backend registry a session places its
// nodes on. cpu is BackendRegistry::Global() (the host backends). gpu:N is
// those plus the CUDA plugin's cuda:N backend (gpu = gpu:0), so nodes that
// GPU takes run there and the rest on the host, with copies between. auto
// is gpu:0 when the plugin gave one, else cpu, saying why.
//
// The CUDA plugin is loaded once per process, on the first request for a
// GPU, with the options SetGpuPluginOptions gave; its backends and every registry made here live until the process
// ends (the GPU backends must not be torn down after the CUDA runtime).
//
// Thread-safety: ForDevice may be called from several threads at once.
#pragma once

#include <string>
#include <vector>

#include "backends/backend_registry.h"
#include "backends/plugin_loader.h"

namespace tfhost::backends {

struct DeviceChoice {
  enum class Kind { kCpu, kGpu, kAuto } kind = Kind::kCpu;
  int gpu = 0;  // for kGpu
};

// "cpu", "gpu", "gpu:N", "auto"; an error quotes the text and the spellings.
StatusOr<DeviceChoice> ParseDevice(const std::string& text);

struct DeviceRegistry {
  const BackendRegistry* registry = nullptr;
  std::string device;  // what the nodes may run on: "cpu", or "cuda:N" (+ the host)
  std::string note;    // for auto without a GPU: why the CPU
};

// FailedPrecondition for gpu/gpu:N when that GPU is not usable, with the
// plugin's reason (no driver, no device, no plugin in this build).
StatusOr<DeviceRegistry> ForDevice(const DeviceChoice& choice);

// The options the CUDA plugin is loaded with (plugin_options.h: the GPU
// memory flags). Call before the first ForDevice, CudaPluginReport or
// GpuBackends; once the plugin is loaded its GPUs keep the options they were
// made with, so a later call with other options is FailedPrecondition
// naming both (the same options again are fine).
Status SetGpuPluginOptions(const BackendPluginOptions& options);

// What loading the CUDA plugin gave, and the GPU backends it added (loads
// it if no one has yet).
const PluginReport& CudaPluginReport();
std::vector<const Backend*> GpuBackends();

}  // namespace tfhost::backends
