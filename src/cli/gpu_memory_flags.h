// --per_process_gpu_memory_fraction and --gpu_allow_growth: how much of each
// GPU's memory a tfhost process may take, and when. The commands that take
// --device (run, bench, predict, serve) take them too and hand them to the
// GPU plugin as its memory_fraction and allow_growth options
// (backends/plugin_options.h) before it is loaded.
//
// The fraction is TF Serving's flag, with its meaning: the share of each
// GPU's memory the process may use, 0 (the default) letting the backend
// choose (the CUDA backend takes up to 90% of the memory free when it
// starts). TF Serving spells allow-growth only inside a session config;
// tfhost gives it a flag. On a machine without a usable GPU (or with
// --device cpu) both are checked and have no effect.
//
// Thread-safety: plain values and functions, used by one thread.
#pragma once

#include <ostream>
#include <string>

#include "backends/backend_registry.h"
#include "backends/plugin_options.h"
#include "cli/flags.h"

namespace tfhost::cli {

struct GpuMemoryFlags {
  std::string memory_fraction = "0";
  std::string allow_growth = "true";
};

void AddGpuMemoryFlags(FlagParser& flags, GpuMemoryFlags* gpu);

// The plugin options the flags stand for; InvalidArgument naming the flag,
// the text and what is expected ("--per_process_gpu_memory_fraction must be
// a number in [0, 1], got '1.5'"). Only the flags that differ from their
// defaults become options, so the plugin's own defaults stay its own.
StatusOr<backends::BackendPluginOptions> ParseGpuMemoryFlags(const GpuMemoryFlags& gpu);

// --device with the GPU memory flags (command_util.h's ApplyDeviceFlag,
// after the flags' options are given to the GPU plugin): a usage error
// (InvalidArgument) for a bad flag value, whatever the device.
StatusOr<const backends::BackendRegistry*> ApplyDeviceFlags(const std::string& device, const GpuMemoryFlags& gpu,
                                                            const char* command, std::ostream& err);

}  // namespace tfhost::cli
