// The CUDA plugin's settings (CudaBackendOptions) and how its key/value
// options (backends/plugin_options.h) become them. Kept apart from the
// backend so that it builds, and is tested, without CUDA: the plugin reads
// its options before it touches a device, and a bad option is the user's
// error, reading the same on every machine.
//
// Thread-safety: plain values; ParseCudaPluginOptions reads the environment.
#pragma once

#include <chrono>
#include <string>

#include "backends/plugin_options.h"
#include "base/status.h"

namespace tfhost::backends::cuda {

struct CudaBackendOptions {
  // The share of the device's memory the allocator may take (TF Serving's
  // --per_process_gpu_memory_fraction, which the plugin's memory_fraction
  // option sets); of the memory free at creation, so that other processes'
  // use is not promised again. In (0, 1].
  double memory_fraction = 0.9;
  // Take memory as needed (TensorFlow's allow_growth; the plugin's
  // allow_growth option, --gpu_allow_growth) rather than all of it at the
  // first allocation.
  bool allow_growth = true;
  // Float32 products may round their operands to TF32 on the tensor cores,
  // as TensorFlow allows by default.
  bool allow_tf32 = true;
  // Where cuDNN's and cuBLASLt's algorithm choices persist across starts
  // (the algorithm_cache option, --gpu_algorithm_cache); "" keeps them in
  // memory only.
  std::string algorithm_cache_path;
  // Time the candidates of each new shape and keep the fastest (the
  // algorithm_search option, --gpu_algorithm_search exhaustive) instead of
  // taking the libraries' heuristic choice.
  bool exhaustive_search = false;
};

// How often, at most, the plugin rewrites the algorithm cache after a new
// entry: a crash loses at most this much of the choices made.
inline constexpr std::chrono::seconds kAlgorithmCacheSaveInterval{10};

// $XDG_CACHE_HOME/tfhost/gpu_algorithms.tsv where XDG_CACHE_HOME is an
// absolute path (the XDG spec ignores a relative one), else
// $HOME/.cache/tfhost/gpu_algorithms.tsv; "" (no persistence) with neither.
// Null arguments are unset variables.
std::string DefaultAlgorithmCachePath(const char* xdg_cache_home, const char* home);

// The plugin's options as settings: memory_fraction, allow_growth,
// algorithm_cache (absent: DefaultAlgorithmCachePath of this process's
// environment) and algorithm_search. InvalidArgument naming the "cuda"
// plugin, the option and what it takes for an unknown key or a bad value.
StatusOr<CudaBackendOptions> ParseCudaPluginOptions(const BackendPluginOptions& options);

}  // namespace tfhost::backends::cuda
