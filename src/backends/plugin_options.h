// BackendPluginOptions: the settings a backend plugin is created with, as
// key/value text (plugin_loader.h hands them to the plugin's register
// function). The core knows no plugin's keys: the command line turns its
// flags into options (cli/gpu_memory_flags.h for the GPU plugin) and the
// plugin reads the keys it takes, refusing any other, so a new plugin
// setting needs no change here.
//
// The keys device plugins take (the CUDA plugin and its test stand-in):
//   memory_fraction  a number in [0, 1]: the share of each device's memory
//                    the allocator may take; 0 means the plugin's default
//                    (TF Serving's --per_process_gpu_memory_fraction)
//   allow_growth     true|false: take device memory as needed rather than
//                    the whole share at the first allocation
//   algorithm_cache  a file path where the library algorithm choices persist
//                    (algorithm_cache_file.h); empty disables persistence;
//                    absent means the plugin's default path
//   algorithm_search heuristic|exhaustive: take the libraries' heuristic
//                    choice (the default) or time the candidates once per
//                    shape and keep the fastest
//
// Thread-safety: a plain value; const methods may be called concurrently.
#pragma once

#include <initializer_list>
#include <map>
#include <optional>
#include <string>

#include "base/status.h"

namespace tfhost::backends {

inline constexpr char kMemoryFractionOption[] = "memory_fraction";
inline constexpr char kAllowGrowthOption[] = "allow_growth";
inline constexpr char kAlgorithmCacheOption[] = "algorithm_cache";
inline constexpr char kAlgorithmSearchOption[] = "algorithm_search";

class BackendPluginOptions {
 public:
  // A later Set of the same key replaces the value.
  void Set(const std::string& key, std::string value) { values_[key] = std::move(value); }
  bool empty() const { return values_.empty(); }
  const std::map<std::string, std::string>& values() const { return values_; }

  // InvalidArgument naming `plugin`, the unknown key and the known ones.
  Status CheckKeys(const std::string& plugin, std::initializer_list<const char*> known) const;
  // `fallback` when the key is absent; InvalidArgument naming the key, the
  // text and the range [lo, hi] when it is not a number in it.
  StatusOr<double> GetDouble(const std::string& key, double fallback, double lo, double hi) const;
  // "true" or "false"; `fallback` when absent; InvalidArgument otherwise.
  StatusOr<bool> GetBool(const std::string& key, bool fallback) const;
  // The value, or nullopt when the key is absent.
  std::optional<std::string> Get(const std::string& key) const;

  // "allow_growth=false, memory_fraction=0.5" (key order); "" when empty.
  std::string ToString() const;

  friend bool operator==(const BackendPluginOptions& a, const BackendPluginOptions& b) {
    return a.values_ == b.values_;
  }

 private:
  std::map<std::string, std::string> values_;
};

// The memory_fraction and allow_growth options of a device plugin, read and
// checked, with every key checked against the four keys above.
// memory_fraction 0 (or absent) leaves `default_fraction`.
struct DeviceMemoryOptions {
  double memory_fraction = 0;
  bool allow_growth = true;
};
StatusOr<DeviceMemoryOptions> ReadDeviceMemoryOptions(const BackendPluginOptions& options, const std::string& plugin,
                                                      double default_fraction, bool default_allow_growth);

// The algorithm_cache and algorithm_search options of a device plugin, read
// and checked (the keys are ReadDeviceMemoryOptions' to check).
// InvalidArgument naming the plugin, the option, the text and the allowed
// values for a search other than heuristic or exhaustive.
struct DeviceAlgorithmOptions {
  std::optional<std::string> cache_path;  // nullopt: the plugin's default; "": no persistence
  bool exhaustive_search = false;
};
StatusOr<DeviceAlgorithmOptions> ReadDeviceAlgorithmOptions(const BackendPluginOptions& options,
                                                            const std::string& plugin);

}  // namespace tfhost::backends
