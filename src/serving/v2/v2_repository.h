// The Open Inference Protocol's model repository extension over ServerCore:
// index, load and unload. The repository is the set of models the model
// server config has named since the server started (the initial config and
// any later one, e.g. from --model_config_file polling or
// HandleReloadConfigRequest); a model's entry keeps the ModelConfig it had
// (name, base_path, platform, version policy, labels).
//   Unload: applies the current config without the model (ServerCore::
//     ReloadConfig: its versions unload once in-flight requests finish).
//     Unloading a model that is already unloaded succeeds.
//   Load: applies the current config with the model's entry added back and
//     waits until its versions settle; the error of a version that failed to
//     load is the answer. A model already loaded is re-scanned on disk, so
//     that new version folders are picked up.
// Only names from the repository can be loaded: load parameters that would
// supply a config or files ("config", "file:...") are refused as
// INVALID_ARGUMENT, since a load from uploaded files is not implemented.
// A config file poller that later applies its own file replaces what these
// calls did, as any config change does.
//
// Thread-safety: all methods may be called concurrently; loads and unloads
// are applied one at a time across every V2Repository of the process (the
// REST and gRPC front ends each hold one over the same core). Load and Unload block until the change settles.
#pragma once

#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "base/status.h"
#include "serving/server_core.h"
#include "serving/v2/v2_service.h"

namespace tfhost::serving::v2 {

struct RepositoryModel {
  std::string name;
  std::string version;  // "" for a model that is not loaded
  std::string state;    // "READY", "LOADING", "UNLOADING", "UNAVAILABLE"
  std::string reason;   // why not READY, when known
};

class V2Repository {
 public:
  // `core` must outlive the repository.
  explicit V2Repository(ServerCore* core);

  // Every model of the repository with each of its versions, sorted by name
  // then version; only READY ones when `ready_only`.
  std::vector<RepositoryModel> Index(bool ready_only);
  // NOT_FOUND for a name the repository does not hold (naming those it
  // does); INVALID_ARGUMENT for unsupported parameters.
  Status Load(const std::string& name, const Parameters& parameters);
  Status Unload(const std::string& name, const Parameters& parameters);

 private:
  // Adds the models of the config in force to known_; caller holds the
  // process-wide repository lock.
  void RememberCurrentConfig();
  std::string KnownNames() const;

  ServerCore* core_;
  std::map<std::string, ModelConfig> known_;
};

}  // namespace tfhost::serving::v2
