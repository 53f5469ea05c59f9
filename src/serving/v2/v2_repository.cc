#include "serving/v2/v2_repository.h"

namespace tfhost::serving::v2 {

namespace {

// Load and unload read the config, change it and apply it: two at once
// would each drop the other's change.
std::mutex& RepositoryMutex() {
  static std::mutex mu;
  return mu;
}

const char* StateName(VersionState state) {
  switch (state) {
    case VersionState::kAvailable: return "READY";
    case VersionState::kStart:
    case VersionState::kLoading: return "LOADING";
    case VersionState::kUnloading: return "UNLOADING";
    default: return "UNAVAILABLE";
  }
}

Status CheckParameters(const Parameters& parameters, const std::string& action, const std::string& name) {
  for (const auto& [key, value] : parameters) {
    if (key == "config" || key.rfind("file:", 0) == 0) {
      return InvalidArgument("cannot " + action + " model '" + name + "' with parameter '" + key +
                             "': tfhost loads models only from the model server config's base paths, not from a "
                             "config or files sent with the request");
    }
  }
  return OkStatus();
}

}  // namespace

V2Repository::V2Repository(ServerCore* core) : core_(core) {
  std::lock_guard lock(RepositoryMutex());
  RememberCurrentConfig();
}

void V2Repository::RememberCurrentConfig() {
  ModelServerConfig config = core_->manager().config();
  for (const ModelConfig& m : config.model_config_list().config()) known_[m.name()] = m;
}

std::string V2Repository::KnownNames() const {
  std::string s;
  for (const auto& [name, config] : known_) s += (s.empty() ? "" : ", ") + name;
  return s.empty() ? "none" : s;
}

std::vector<RepositoryModel> V2Repository::Index(bool ready_only) {
  std::lock_guard lock(RepositoryMutex());
  RememberCurrentConfig();
  std::map<std::string, ModelSummary> served;
  for (ModelSummary& m : core_->ListModels()) served.emplace(m.name, std::move(m));
  std::vector<RepositoryModel> out;
  for (const auto& [name, config] : known_) {
    auto it = served.find(name);
    if (it == served.end()) {
      if (!ready_only) out.push_back({name, "", "UNAVAILABLE", "unloaded"});
      continue;
    }
    if (it->second.versions.empty() && !ready_only) {
      out.push_back({name, "", "UNAVAILABLE",
                     it->second.scan_error.empty() ? "no version loaded yet" : it->second.scan_error});
    }
    for (const VersionStatus& v : it->second.versions) {
      RepositoryModel m{name, std::to_string(v.version), StateName(v.state), v.status.message()};
      if (ready_only && m.state != "READY") continue;
      out.push_back(std::move(m));
    }
  }
  return out;
}

Status V2Repository::Load(const std::string& name, const Parameters& parameters) {
  TFHOST_RETURN_IF_ERROR(CheckParameters(parameters, "load", name));
  std::lock_guard lock(RepositoryMutex());
  RememberCurrentConfig();
  auto known = known_.find(name);
  if (known == known_.end()) {
    return NotFound("model '" + name + "' is not in the model repository (models the server config has named: " +
                    KnownNames() + ")");
  }
  ModelServerConfig config = core_->manager().config();
  for (const ModelConfig& m : config.model_config_list().config()) {
    if (m.name() == name) {
      // Already served: a reload looks for new versions on disk.
      core_->manager().PollFileSystem();
      if (!core_->manager().WaitUntilSettled(std::chrono::minutes(10))) {
        return Status(StatusCode::kDeadlineExceeded,
                      "model '" + name + "': the versions found on disk did not finish loading within 10 minutes");
      }
      return OkStatus();
    }
  }
  *config.mutable_model_config_list()->add_config() = known->second;
  Status st = core_->ReloadConfig(config);
  if (!st.ok()) return st.WithContext("loading model '" + name + "'");
  return OkStatus();
}

Status V2Repository::Unload(const std::string& name, const Parameters& parameters) {
  TFHOST_RETURN_IF_ERROR(CheckParameters(parameters, "unload", name));
  std::lock_guard lock(RepositoryMutex());
  RememberCurrentConfig();
  if (!known_.count(name)) {
    return NotFound("model '" + name + "' is not in the model repository (models the server config has named: " +
                    KnownNames() + ")");
  }
  ModelServerConfig config = core_->manager().config();
  auto* list = config.mutable_model_config_list()->mutable_config();
  bool found = false;
  for (int i = 0; i < list->size(); ++i) {
    if (list->Get(i).name() == name) {
      list->DeleteSubrange(i, 1);
      found = true;
      break;
    }
  }
  if (!found) return OkStatus();
  Status st = core_->ReloadConfig(config);
  if (!st.ok()) return st.WithContext("unloading model '" + name + "'");
  return OkStatus();
}

}  // namespace tfhost::serving::v2
