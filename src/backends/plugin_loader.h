// Backend plugins: shared libraries that add backends at run time, so that
// the tfhost binary needs none of their libraries to start. The CUDA backend
// is one (libtfhost_cuda.so, which links the CUDA runtime): where there is no
// driver or no GPU, loading it says why and adds nothing.
//
// Where a plugin is looked for: each folder of $TFHOST_PLUGIN_PATH (colon-
// separated), then the executable's folder, then ../lib beside it (the
// layout of the release tarball).
//
// The plugin contract (ABI version kBackendPluginAbi): a plugin exports
//   extern "C" int tfhost_backend_plugin_abi(void);
//   extern "C" int tfhost_backend_plugin_register(
//       tfhost::backends::BackendRegistry* registry,
//       const tfhost::backends::BackendPluginOptions* options,
//       char* detail, size_t detail_size);
// The first returns the ABI it was built for. The second adds its backends,
// made with `options` (plugin_options.h; never null), to `registry` and
// returns how many it added (0 when none is usable or an option is bad), and
// writes one line into `detail`: what it added, or why nothing. A plugin
// resolves tfhost's own symbols from the executable (which exports them),
// so it must be built from the same sources as the binary loading it.
//
// Thread-safety: loading is not; call it once, before the registry is
// shared.
#pragma once

#include <string>
#include <vector>

#include "backends/backend_registry.h"
#include "backends/plugin_options.h"

namespace tfhost::backends {

// 2: the register function takes options; Backend has device_memory().
inline constexpr int kBackendPluginAbi = 2;

struct PluginReport {
  std::string name;           // "cuda"
  std::string path;           // the library loaded, or "" when none was found
  bool loaded = false;        // the library and both symbols loaded
  int backends = 0;           // backends it added
  std::string detail;         // what it added, or why nothing
};

// The folders searched for plugins, in order.
std::vector<std::string> PluginSearchPath();

// Loads libtfhost_<name>.so from the search path into `registry`, its
// backends made with `options`. Never fails: the report says what happened
// (a bad option: loaded, no backends, the plugin's reason in `detail`).
PluginReport LoadBackendPlugin(const std::string& name, BackendRegistry& registry,
                               const BackendPluginOptions& options = {});

}  // namespace tfhost::backends
