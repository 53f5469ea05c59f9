#include "cli/gpu_memory_flags.h"

#include <cerrno>
#include <cmath>
#include <cstdlib>

#include "backends/builtin/device_registry.h"
#include "cli/command_util.h"

namespace tfhost::cli {

void AddGpuMemoryFlags(FlagParser& flags, GpuMemoryFlags* gpu) {
  flags.AddString("per_process_gpu_memory_fraction", &gpu->memory_fraction, "F",
                  "share of each GPU's memory this process may use, in [0, 1] (TF Serving's flag); 0, the default, "
                  "lets the backend choose (90% of the memory free at start). No effect without a usable GPU");
  flags.AddString("gpu_allow_growth", &gpu->allow_growth, "true|false",
                  "true (default): take GPU memory as needed, up to the share; false: take the whole share at the "
                  "first allocation (TensorFlow's allow_growth). No effect without a usable GPU");
  flags.AddOptionalString("gpu_algorithm_cache", &gpu->algorithm_cache, "PATH",
                          "file where cuDNN's and cuBLASLt's algorithm choices persist across starts; \"\" keeps "
                          "them in memory only (default $XDG_CACHE_HOME/tfhost/gpu_algorithms.tsv, else "
                          "~/.cache/tfhost/gpu_algorithms.tsv). No effect without a usable GPU");
  flags.AddString("gpu_algorithm_search", &gpu->algorithm_search, "heuristic|exhaustive",
                  "heuristic (default): take the libraries' heuristic algorithm for each new shape; exhaustive: "
                  "time the candidates once per shape and keep the fastest (a slower first run). No effect without "
                  "a usable GPU");
}

StatusOr<backends::BackendPluginOptions> ParseGpuMemoryFlags(const GpuMemoryFlags& gpu) {
  backends::BackendPluginOptions options;
  const std::string& text = gpu.memory_fraction;
  errno = 0;
  char* end = nullptr;
  const double fraction = std::strtod(text.c_str(), &end);
  if (text.empty() || end != text.c_str() + text.size() || errno == ERANGE || !std::isfinite(fraction) ||
      fraction < 0 || fraction > 1) {
    return InvalidArgument("--per_process_gpu_memory_fraction must be a number in [0, 1], got '" + text + "'");
  }
  if (gpu.allow_growth != "true" && gpu.allow_growth != "false") {
    return InvalidArgument("--gpu_allow_growth must be true or false, got '" + gpu.allow_growth + "'");
  }
  if (gpu.algorithm_search != "heuristic" && gpu.algorithm_search != "exhaustive") {
    return InvalidArgument("--gpu_algorithm_search must be heuristic or exhaustive, got '" + gpu.algorithm_search +
                           "'");
  }
  if (fraction > 0) options.Set(backends::kMemoryFractionOption, text);
  if (gpu.allow_growth != "true") options.Set(backends::kAllowGrowthOption, gpu.allow_growth);
  if (gpu.algorithm_cache.has_value()) options.Set(backends::kAlgorithmCacheOption, *gpu.algorithm_cache);
  if (gpu.algorithm_search != "heuristic") options.Set(backends::kAlgorithmSearchOption, gpu.algorithm_search);
  return options;
}

StatusOr<const backends::BackendRegistry*> ApplyDeviceFlags(const std::string& device, const GpuMemoryFlags& gpu,
                                                            const char* command, std::ostream& err) {
  TFHOST_ASSIGN_OR_RETURN(backends::BackendPluginOptions options, ParseGpuMemoryFlags(gpu));
  TFHOST_ASSIGN_OR_RETURN(backends::DeviceChoice choice, backends::ParseDevice(device));
  // On the CPU the plugin is never loaded: the flags were checked, and that
  // is all they do.
  if (choice.kind != backends::DeviceChoice::Kind::kCpu) {
    TFHOST_RETURN_IF_ERROR(backends::SetGpuPluginOptions(options));
  }
  return ApplyDeviceFlag(device, command, err);
}

}  // namespace tfhost::cli
