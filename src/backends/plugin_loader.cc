#include "backends/plugin_loader.h"

#include <dlfcn.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>

namespace tfhost::backends {
namespace {

namespace fs = std::filesystem;

std::string ExecutableDir() {
  std::error_code ec;
  fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  return ec ? std::string() : exe.parent_path().string();
}

}  // namespace

std::vector<std::string> PluginSearchPath() {
  std::vector<std::string> dirs;
  if (const char* env = std::getenv("TFHOST_PLUGIN_PATH"); env != nullptr) {
    std::string list = env;
    size_t start = 0;
    while (start <= list.size()) {
      size_t colon = list.find(':', start);
      std::string dir = list.substr(start, colon == std::string::npos ? std::string::npos : colon - start);
      if (!dir.empty()) dirs.push_back(dir);
      if (colon == std::string::npos) break;
      start = colon + 1;
    }
  }
  const std::string exe = ExecutableDir();
  if (!exe.empty()) {
    dirs.push_back(exe);
    dirs.push_back((fs::path(exe).parent_path() / "lib").string());
  }
  return dirs;
}

PluginReport LoadBackendPlugin(const std::string& name, BackendRegistry& registry,
                               const BackendPluginOptions& options) {
  PluginReport report;
  report.name = name;
  const std::string file = "libtfhost_" + name + ".so";
  std::string searched;
  for (const std::string& dir : PluginSearchPath()) {
    std::error_code ec;
    const fs::path candidate = fs::path(dir) / file;
    if (fs::exists(candidate, ec)) {
      report.path = candidate.string();
      break;
    }
    searched += (searched.empty() ? "" : ", ") + dir;
  }
  if (report.path.empty()) {
    report.detail = "no " + file + " in " + (searched.empty() ? std::string("any folder") : searched);
    return report;
  }
  // RTLD_LOCAL: the plugin's own libraries (the CUDA runtime) stay out of
  // the global namespace; RTLD_NOW: a missing symbol fails here, not later.
  void* handle = ::dlopen(report.path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    const char* why = ::dlerror();
    report.detail = "cannot load it: " + std::string(why != nullptr ? why : "unknown dlopen error");
    return report;
  }
  using AbiFn = int (*)();
  using RegisterFn = int (*)(BackendRegistry*, const BackendPluginOptions*, char*, size_t);
  auto abi = reinterpret_cast<AbiFn>(::dlsym(handle, "tfhost_backend_plugin_abi"));
  auto add = reinterpret_cast<RegisterFn>(::dlsym(handle, "tfhost_backend_plugin_register"));
  if (abi == nullptr || add == nullptr) {
    report.detail = "not a tfhost backend plugin (tfhost_backend_plugin_abi or tfhost_backend_plugin_register missing)";
    ::dlclose(handle);
    return report;
  }
  if (abi() != kBackendPluginAbi) {
    report.detail = "built for plugin ABI " + std::to_string(abi()) + ", this tfhost loads ABI " +
                    std::to_string(kBackendPluginAbi) + " (rebuild the plugin with this tfhost)";
    ::dlclose(handle);
    return report;
  }
  // Kept loaded for the life of the process: its backends live in `registry`.
  report.loaded = true;
  char detail[512] = {0};
  report.backends = add(&registry, &options, detail, sizeof(detail));
  detail[sizeof(detail) - 1] = '\0';
  report.detail = detail;
  return report;
}

}  // namespace tfhost::backends
