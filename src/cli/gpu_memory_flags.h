// The flags that become GPU plugin options (backends/plugin_options.h),
// which the commands that take --device (run, bench, predict, serve) take
// too and hand to the plugin before it is loaded:
//   --per_process_gpu_memory_fraction, --gpu_allow_growth: how much of each
//     GPU's memory a tfhost process may take, and when (memory_fraction,
//     allow_growth);
//   --gpu_algorithm_cache PATH: where cuDNN's and cuBLASLt's algorithm
//     choices persist across starts, "" for nowhere (algorithm_cache; when
//     absent, the plugin's default under $XDG_CACHE_HOME or ~/.cache);
//   --gpu_algorithm_search heuristic|exhaustive: take the libraries'
//     heuristic choice, or time the candidates of each new shape once
//     (algorithm_search).
//
// The fraction is TF Serving's flag, with its meaning: the share of each
// GPU's memory the process may use, 0 (the default) letting the backend
// choose (the CUDA backend takes up to 90% of the memory free when it
// starts). TF Serving spells allow-growth only inside a session config;
// tfhost gives it a flag. On a machine without a usable GPU (or with
// --device cpu) all four are checked and have no effect.
//
// Thread-safety: plain values and functions, used by one thread.
#pragma once

#include <optional>
#include <ostream>
#include <string>

#include "backends/backend_registry.h"
#include "backends/plugin_options.h"
#include "cli/flags.h"

namespace tfhost::cli {

// Every GPU plugin flag (the name is from when they were all about memory).
struct GpuMemoryFlags {
  std::string memory_fraction = "0";
  std::string allow_growth = "true";
  std::optional<std::string> algorithm_cache;  // nullopt: not given, the plugin's default
  std::string algorithm_search = "heuristic";
};

void AddGpuMemoryFlags(FlagParser& flags, GpuMemoryFlags* gpu);

// The plugin options the flags stand for; InvalidArgument naming the flag,
// the text and what is expected ("--per_process_gpu_memory_fraction must be
// a number in [0, 1], got '1.5'"). Only the flags that differ from their
// defaults (or, for --gpu_algorithm_cache, were given) become options, so
// the plugin's own defaults stay its own.
StatusOr<backends::BackendPluginOptions> ParseGpuMemoryFlags(const GpuMemoryFlags& gpu);

// --device with the GPU memory flags (command_util.h's ApplyDeviceFlag,
// after the flags' options are given to the GPU plugin): a usage error
// (InvalidArgument) for a bad flag value, whatever the device.
StatusOr<const backends::BackendRegistry*> ApplyDeviceFlags(const std::string& device, const GpuMemoryFlags& gpu,
                                                            const char* command, std::ostream& err);

}  // namespace tfhost::cli
