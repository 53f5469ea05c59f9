#include "backends/plugin_options.h"

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace tfhost::backends {
namespace {

std::string Number(double v) {
  char text[32];
  std::snprintf(text, sizeof(text), "%g", v);
  return text;
}

}  // namespace

Status BackendPluginOptions::CheckKeys(const std::string& plugin, std::initializer_list<const char*> known) const {
  for (const auto& [key, value] : values_) {
    bool found = false;
    std::string names;
    for (const char* k : known) {
      found = found || key == k;
      names += (names.empty() ? "" : ", ") + std::string(k);
    }
    if (!found) {
      return InvalidArgument(plugin + " plugin: unknown option '" + key + "' (it takes " +
                             (names.empty() ? std::string("none") : names) + ")");
    }
  }
  return OkStatus();
}

StatusOr<double> BackendPluginOptions::GetDouble(const std::string& key, double fallback, double lo,
                                                 double hi) const {
  auto it = values_.find(key);
  if (it == values_.end()) return fallback;
  const std::string& text = it->second;
  errno = 0;
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  // strtod takes "nan" and "inf"; neither is in any range.
  if (text.empty() || end != text.c_str() + text.size() || errno == ERANGE || !std::isfinite(v) || v < lo ||
      v > hi) {
    return InvalidArgument("option " + key + " must be a number in [" + Number(lo) + ", " + Number(hi) + "], got '" +
                           text + "'");
  }
  return v;
}

StatusOr<bool> BackendPluginOptions::GetBool(const std::string& key, bool fallback) const {
  auto it = values_.find(key);
  if (it == values_.end()) return fallback;
  if (it->second == "true") return true;
  if (it->second == "false") return false;
  return InvalidArgument("option " + key + " must be true or false, got '" + it->second + "'");
}

std::optional<std::string> BackendPluginOptions::Get(const std::string& key) const {
  auto it = values_.find(key);
  if (it == values_.end()) return std::nullopt;
  return it->second;
}

std::string BackendPluginOptions::ToString() const {
  std::string out;
  for (const auto& [key, value] : values_) out += (out.empty() ? "" : ", ") + key + "=" + value;
  return out;
}

StatusOr<DeviceMemoryOptions> ReadDeviceMemoryOptions(const BackendPluginOptions& options, const std::string& plugin,
                                                      double default_fraction, bool default_allow_growth) {
  TFHOST_RETURN_IF_ERROR(options.CheckKeys(
      plugin, {kMemoryFractionOption, kAllowGrowthOption, kAlgorithmCacheOption, kAlgorithmSearchOption}));
  DeviceMemoryOptions read;
  auto fraction = options.GetDouble(kMemoryFractionOption, 0, 0, 1);
  if (!fraction.ok()) return fraction.status().WithContext(plugin + " plugin");
  auto growth = options.GetBool(kAllowGrowthOption, default_allow_growth);
  if (!growth.ok()) return growth.status().WithContext(plugin + " plugin");
  // 0 is TF Serving's "let the runtime choose".
  read.memory_fraction = *fraction > 0 ? *fraction : default_fraction;
  read.allow_growth = *growth;
  return read;
}

StatusOr<DeviceAlgorithmOptions> ReadDeviceAlgorithmOptions(const BackendPluginOptions& options,
                                                            const std::string& plugin) {
  DeviceAlgorithmOptions read;
  read.cache_path = options.Get(kAlgorithmCacheOption);
  const std::string search = options.Get(kAlgorithmSearchOption).value_or("heuristic");
  if (search != "heuristic" && search != "exhaustive") {
    return InvalidArgument(plugin + " plugin: option " + kAlgorithmSearchOption +
                           " must be heuristic or exhaustive, got '" + search + "'");
  }
  read.exhaustive_search = search == "exhaustive";
  return read;
}

}  // namespace tfhost::backends
