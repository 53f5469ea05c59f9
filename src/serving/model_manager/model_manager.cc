#include "serving/model_manager/model_manager.h"

#include <algorithm>
#include <filesystem>
#include <ctime>
#include <iostream>
#include <set>

#include "base/trace/trace.h"
#include "loaders/onnx/onnx_loader.h"
#include "loaders/tflite/tflite_loader.h"

namespace tfhost::serving {

namespace {

// Longest poll or retry wait honoured (~115 days); longer flag values are clamped.
constexpr int64_t kMaxWaitSeconds = 10000000;

std::string JsonEscape(const std::string& s) {
  std::string out;
  out.reserve(s.size() + 2);
  for (unsigned char c : s) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      default:
        if (c < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof(buf), "\\u%04x", c);
          out += buf;
        } else {
          out += static_cast<char>(c);
        }
    }
  }
  return out;
}

std::string NowUtc() {
  auto now = std::chrono::system_clock::now();
  std::time_t t = std::chrono::system_clock::to_time_t(now);
  auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch()).count() % 1000;
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[40];
  std::snprintf(buf, sizeof(buf), "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", tm.tm_year + 1900, tm.tm_mon + 1,
                tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, static_cast<int>(ms));
  return buf;
}

}  // namespace

std::string LogJsonEscape(const std::string& s) { return JsonEscape(s); }

const char* VersionStateName(VersionState state) {
  switch (state) {
    case VersionState::kStart: return "START";
    case VersionState::kLoading: return "LOADING";
    case VersionState::kAvailable: return "AVAILABLE";
    case VersionState::kUnloading: return "UNLOADING";
    case VersionState::kEnd: return "END";
    default: return "UNKNOWN";
  }
}

std::string ServableRequest::DebugString() const {
  if (version) return "Specific(" + name + ", " + std::to_string(*version) + ")";
  if (label) return "Label(" + name + ", " + *label + ")";
  return "Latest(" + name + ")";
}

struct ModelManager::VersionEntry {
  VersionState state = VersionState::kStart;
  Status status;
  std::string path;
  // What the loader was given (the folder, or its model.tflite / model.onnx):
  // the model_path label of the version's load metrics.
  std::string load_path;
  ServableHandle servable;  // set while AVAILABLE
  // The load is no longer wanted. Atomic so retry waits can check it without mu_.
  std::atomic<bool> cancelled{false};
  bool unloading = false;
  // FolderFingerprint of `path` when the load gave up: a later scan that
  // finds the folder changed loads it again (files still being copied
  // into a folder that appeared early).
  std::string failed_fingerprint;
};

namespace {

// What a change to a version folder changes: its files' count, total size
// and newest modification time. "" when it cannot be listed.
std::string FolderFingerprint(const std::string& path) {
  std::error_code ec;
  uint64_t files = 0, bytes = 0;
  int64_t newest = 0;
  for (auto it = std::filesystem::recursive_directory_iterator(path, ec);
       !ec && it != std::filesystem::recursive_directory_iterator(); it.increment(ec)) {
    std::error_code entry_ec;
    if (!it->is_regular_file(entry_ec)) continue;
    ++files;
    bytes += it->file_size(entry_ec);
    newest = std::max<int64_t>(newest, it->last_write_time(entry_ec).time_since_epoch().count());
  }
  if (ec) return "";
  return std::to_string(files) + "/" + std::to_string(bytes) + "/" + std::to_string(newest);
}

}  // namespace

struct ModelManager::ModelEntry {
  ModelConfig config;
  std::map<std::string, int64_t> labels;  // in force (UpdateVersionLabels)
  std::map<int64_t, std::shared_ptr<VersionEntry>> versions;
  std::set<int64_t> aspired;  // from the last successful scan
  std::string last_scan_error;
  // The last scan found base_path but no numeric version folder in it.
  bool no_version_folders = false;
};

ModelManager::ModelManager(ModelManagerOptions options) : options_(std::move(options)) {
  logger_ = std::thread([this] { LoggerLoop(); });
  if (!options_.loader) {
    loaders::LoadOptions load_options = options_.load_options;
    options_.loader = [load_options](const std::string& name, int64_t version, const std::string& path) {
      return LoadServable(name, version, path, load_options);
    };
  }
  if (options_.file_system_poll_wait_seconds > 0) {
    poller_ = std::thread([this] { PollLoop(); });
  }
}

ModelManager::~ModelManager() {
  {
    std::lock_guard lock(stop_mu_);
    stopping_ = true;
  }
  stop_cv_.notify_all();
  if (poller_.joinable()) poller_.join();
  {
    std::unique_lock lock(mu_);
    for (auto& [name, model] : models_) {
      for (auto& [version, entry] : model->versions) {
        entry->cancelled = true;
        if (entry->state == VersionState::kAvailable && !entry->unloading) StartUnload(*model, version);
      }
    }
  }
  stop_cv_.notify_all();
  // Threads may still spawn nothing new (stopping_), but they take mu_ to
  // finish, so join outside it.
  // A finishing load may still start an unload, so repeat until none is left.
  for (;;) {
    std::vector<Worker> workers;
    {
      std::unique_lock lock(mu_);
      workers.swap(threads_);
    }
    if (workers.empty()) break;
    for (auto& w : workers) {
      if (w.thread.joinable()) w.thread.join();
    }
  }
  {
    std::lock_guard lock(log_mu_);
    log_stop_ = true;
  }
  log_cv_.notify_all();
  logger_.join();  // emits what is still queued first
}

void ModelManager::LoggerLoop() {
  std::unique_lock lock(log_mu_);
  for (;;) {
    log_cv_.wait(lock, [this] { return log_stop_ || !log_queue_.empty(); });
    if (log_queue_.empty() && log_stop_) return;
    std::deque<std::string> batch;
    batch.swap(log_queue_);
    size_t dropped = log_dropped_;
    log_dropped_ = 0;
    log_busy_ = true;
    lock.unlock();
    for (const auto& line : batch) {
      if (options_.log_sink) {
        options_.log_sink(line);
      } else {
        std::cerr << (line + "\n");  // one write per line
      }
    }
    if (dropped > 0) {
      std::string line = "{\"time\":\"" + NowUtc() + "\",\"event\":\"log_lines_dropped\",\"count\":" +
                         std::to_string(dropped) + "}";
      if (options_.log_sink) {
        options_.log_sink(line);
      } else {
        std::cerr << (line + "\n");
      }
    }
    lock.lock();
    log_busy_ = false;
    log_cv_.notify_all();
  }
}

bool ModelManager::FlushLog(std::chrono::milliseconds timeout) const {
  std::unique_lock lock(log_mu_);
  return log_cv_.wait_for(lock, timeout, [this] { return log_queue_.empty() && !log_busy_; });
}

void ModelManager::LogLine(const std::string& line) const {
  if (line.size() < 2 || line.front() != '{' || line.rfind("{\"time\":", 0) == 0) {
    Log(line);
    return;
  }
  Log("{\"time\":\"" + NowUtc() + "\"," + line.substr(1));
}

void ModelManager::Log(const std::string& line) const {
  {
    std::lock_guard lock(log_mu_);
    if (log_queue_.size() >= kMaxQueuedLogLines) {
      ++log_dropped_;
      return;
    }
    log_queue_.push_back(line);
  }
  log_cv_.notify_all();
}

void ModelManager::SetState(const std::string& name, int64_t version, VersionEntry& entry, VersionState state,
                            const Status& status, const std::string& detail) {
  entry.state = state;
  entry.status = status;
  if (options_.metrics && options_.metrics->version_state) {
    options_.metrics->version_state->WithLabels({name, std::to_string(version)})->Set(static_cast<double>(state));
  }
  std::string line = "{\"time\":\"" + NowUtc() + "\",\"event\":\"model_version_state\",\"model\":\"" +
                     JsonEscape(name) + "\",\"version\":" + std::to_string(version) + ",\"state\":\"" +
                     VersionStateName(state) + "\",\"status\":\"" + StatusCodeName(status.code()) + "\"";
  if (!status.ok()) line += ",\"error\":\"" + JsonEscape(status.message()) + "\"";
  if (!detail.empty()) line += ",\"detail\":\"" + JsonEscape(detail) + "\"";
  line += ",\"path\":\"" + JsonEscape(entry.path) + "\"}";
  Log(line);
}

void ModelManager::Spawn(std::function<void()> fn) {
  ReapFinishedThreads();
  auto done = std::make_shared<std::atomic<bool>>(false);
  threads_.push_back(Worker{std::thread([fn = std::move(fn), done] {
                              trace::SetThreadName("model loader");
                              fn();
                              done->store(true);
                            }),
                            done});
}

void ModelManager::ReapFinishedThreads() {
  for (auto it = threads_.begin(); it != threads_.end();) {
    if (it->done->load()) {
      it->thread.join();
      it = threads_.erase(it);
    } else {
      ++it;
    }
  }
}

Status ModelManager::ReloadConfig(const ModelServerConfig& config) {
  TFHOST_RETURN_IF_ERROR(ValidateModelServerConfig(config));
  // Scan outside the lock: file systems can be slow and requests must not wait.
  std::map<std::string, StatusOr<std::map<int64_t, std::string>>> scans;
  for (const auto& m : config.model_config_list().config()) {
    scans.emplace(m.name(), ListVersionDirectories(m.base_path()));
  }
  std::unique_lock lock(mu_);
  // Versions are keyed by number, so a model whose base_path changes would
  // mix versions of two directories; TF Serving users remove and re-add.
  for (const auto& m : config.model_config_list().config()) {
    auto it = models_.find(m.name());
    if (it != models_.end() && it->second->config.base_path() != m.base_path()) {
      return InvalidArgument("model \"" + m.name() + "\": changing base_path from " +
                             it->second->config.base_path() + " to " + m.base_path() +
                             " is not supported while it is served; remove the model from the config, then add it "
                             "back with the new path");
    }
  }
  config_ = config;
  std::set<std::string> wanted;
  for (const auto& m : config.model_config_list().config()) wanted.insert(m.name());
  // Removed models: cancel loads, unload versions, forget the model.
  for (auto it = models_.begin(); it != models_.end();) {
    if (wanted.count(it->first)) {
      ++it;
      continue;
    }
    ModelEntry& model = *it->second;
    for (auto& [version, entry] : model.versions) {
      entry->cancelled = true;
      if (entry->state == VersionState::kAvailable && !entry->unloading) StartUnload(model, version);
    }
    Log("{\"time\":\"" + NowUtc() + "\",\"event\":\"model_removed\",\"model\":\"" + JsonEscape(it->first) + "\"}");
    it = models_.erase(it);
  }
  stop_cv_.notify_all();  // wake retry waits of cancelled loads
  for (const auto& m : config.model_config_list().config()) {
    auto& slot = models_[m.name()];
    bool added = !slot;
    if (added) slot = std::make_unique<ModelEntry>();
    slot->config = m;
    if (added) {
      Log("{\"time\":\"" + NowUtc() + "\",\"event\":\"model_added\",\"model\":\"" + JsonEscape(m.name()) +
          "\",\"base_path\":\"" + JsonEscape(m.base_path()) + "\",\"policy\":\"" +
          VersionPolicyString(m.model_version_policy()) + "\"}");
    }
    const auto& scan = scans.at(m.name());
    Reconcile(*slot, scan.ok() ? &*scan : nullptr);
    if (!scan.ok()) slot->no_version_folders = false;
    if (!scan.ok() && slot->last_scan_error != scan.status().message()) {
      slot->last_scan_error = scan.status().message();
      Log("{\"time\":\"" + NowUtc() + "\",\"event\":\"scan_failed\",\"model\":\"" + JsonEscape(m.name()) +
          "\",\"error\":\"" + JsonEscape(scan.status().message()) + "\"}");
    }
  }
  return OkStatus();
}

ModelServerConfig ModelManager::config() const {
  std::shared_lock lock(mu_);
  return config_;
}

Status ModelManager::UpdateVersionLabels(VersionLabelPolicy policy) {
  std::unique_lock lock(mu_);
  std::map<std::string, std::map<std::string, int64_t>> next;
  for (const auto& [name, model] : models_) {
    std::map<std::string, int64_t>& labels = next[name];
    // Sorted, so that the error names the same label every time.
    std::map<std::string, int64_t> wanted(model->config.version_labels().begin(), model->config.version_labels().end());
    for (const auto& [label, version] : wanted) {
      auto v = model->versions.find(version);
      bool available = v != model->versions.end() && v->second->state == VersionState::kAvailable;
      auto current = model->labels.find(label);
      bool unchanged = current != model->labels.end() && current->second == version;
      bool in_use = current != model->labels.end();
      // Re-stating a label's current version does not move it, so the
      // "new labels only" rule lets it stand.
      bool allowed = available || policy == VersionLabelPolicy::kAllowAny ||
                     (policy == VersionLabelPolicy::kAllowNewUnavailable && (!in_use || unchanged));
      if (!allowed) {
        std::string text = "Request to assign label to version " + std::to_string(version) + " of model " + name +
                           ", which is not currently available for inference (label \"" + label + "\"";
        text += in_use && policy == VersionLabelPolicy::kAllowNewUnavailable
                    ? "; it already points at version " + std::to_string(current->second) +
                          ", and only a label not yet in use may name an unavailable version)"
                    : "; --allow_version_labels_for_unavailable_models lets a new label name it)";
        return FailedPrecondition(text);
      }
      labels[label] = version;
    }
  }
  for (auto& [name, model] : models_) {
    std::map<std::string, int64_t>& labels = next[name];
    if (labels != model->labels) {
      std::string list;
      for (const auto& [label, version] : labels) {
        list += (list.empty() ? "" : ",") + std::string("\"") + JsonEscape(label) + "\":" + std::to_string(version);
      }
      Log("{\"time\":\"" + NowUtc() + "\",\"event\":\"version_labels\",\"model\":\"" + JsonEscape(name) +
          "\",\"labels\":{" + list + "}}");
    }
    model->labels = std::move(labels);
  }
  return OkStatus();
}

void ModelManager::PollFileSystem() {
  std::vector<std::pair<std::string, std::string>> targets;
  {
    std::shared_lock lock(mu_);
    for (const auto& [name, model] : models_) targets.emplace_back(name, model->config.base_path());
  }
  std::vector<StatusOr<std::map<int64_t, std::string>>> scans;
  scans.reserve(targets.size());
  for (const auto& [name, path] : targets) scans.push_back(ListVersionDirectories(path));
  std::unique_lock lock(mu_);
  for (size_t i = 0; i < targets.size(); ++i) {
    auto it = models_.find(targets[i].first);
    if (it == models_.end() || it->second->config.base_path() != targets[i].second) continue;
    ModelEntry& model = *it->second;
    if (!scans[i].ok()) {
      model.no_version_folders = false;
      if (model.last_scan_error != scans[i].status().message()) {
        model.last_scan_error = scans[i].status().message();
        Log("{\"time\":\"" + NowUtc() + "\",\"event\":\"scan_failed\",\"model\":\"" + JsonEscape(targets[i].first) +
            "\",\"error\":\"" + JsonEscape(model.last_scan_error) + "\"}");
      }
      continue;
    }
    Reconcile(model, &*scans[i]);
  }
}

void ModelManager::Reconcile(ModelEntry& model, const std::map<int64_t, std::string>* dirs) {
  const std::string& name = model.config.name();
  if (dirs != nullptr) {
    std::vector<int64_t> available;
    for (const auto& [v, p] : *dirs) available.push_back(v);
    std::vector<int64_t> aspired = SelectVersions(model.config.model_version_policy(), available);
    if (aspired.empty()) {
      // Nothing to serve on disk (yet): keep whatever is loaded rather than
      // taking the model down.
      // TF Serving's layout is one numbered folder per version; a model
      // copied straight into base_path is the usual first mistake, so the
      // message says how to lay it out. The folder is polled until then.
      const std::string& base = model.config.base_path();
      std::string why = available.empty()
                            ? "no numeric version folders under " + base + ": put each version in a numbered folder (" +
                                  (std::filesystem::path(base) / "1").string() + "/, " +
                                  (std::filesystem::path(base) / "2").string() + "/, ...); " +
                                  (options_.file_system_poll_wait_seconds > 0
                                       ? "looking again every " + std::to_string(options_.file_system_poll_wait_seconds) + " s"
                                       : "file-system polling is off (--file_system_poll_wait_seconds=0)")
                            : "no version under " + base + " matches the policy " +
                                  VersionPolicyString(model.config.model_version_policy());
      model.no_version_folders = available.empty();
      bool changed = model.last_scan_error != why;
      model.last_scan_error = why;
      if (changed) {
        Log("{\"time\":\"" + NowUtc() + "\",\"event\":\"no_versions\",\"model\":\"" + JsonEscape(name) +
            "\",\"detail\":\"" + JsonEscape(why) + "\"}");
      }
    } else {
      model.aspired = std::set<int64_t>(aspired.begin(), aspired.end());
      model.last_scan_error.clear();
      model.no_version_folders = false;
    }
    // Start loads of aspired versions not loaded yet.
    for (int64_t v : model.aspired) {
      auto it = model.versions.find(v);
      bool start = it == model.versions.end() ||
                   (it->second->state == VersionState::kEnd && it->second->status.ok());
      if (!start && it->second->state == VersionState::kEnd && !it->second->status.ok() &&
          !it->second->failed_fingerprint.empty() && dirs->count(v) &&
          FolderFingerprint(dirs->at(v)) != it->second->failed_fingerprint) {
        Log("{\"time\":\"" + NowUtc() + "\",\"event\":\"version_folder_changed\",\"model\":\"" + JsonEscape(name) +
            "\",\"version\":" + std::to_string(v) + ",\"detail\":\"the folder changed since its load failed; loading it again\"}");
        start = true;
      }
      if (start && dirs->count(v)) StartLoad(model, v, dirs->at(v));
    }
    // Forget ended versions whose directory is gone (bounds the status list
    // and, with their metric series, the memory a reloading server holds).
    for (auto it = model.versions.begin(); it != model.versions.end();) {
      if (it->second->state == VersionState::kEnd && !model.aspired.count(it->first) && !dirs->count(it->first)) {
        if (options_.metrics) options_.metrics->ForgetVersion(name, it->first, it->second->load_path);
        it = model.versions.erase(it);
      } else {
        ++it;
      }
    }
  }
  // Cancel loads no longer wanted; unload old versions once an aspired one serves.
  bool aspired_available = false;
  for (int64_t v : model.aspired) {
    auto it = model.versions.find(v);
    if (it != model.versions.end() && it->second->state == VersionState::kAvailable) aspired_available = true;
  }
  for (auto& [v, entry] : model.versions) {
    if (model.aspired.count(v)) continue;
    if (entry->state == VersionState::kStart || entry->state == VersionState::kLoading) {
      entry->cancelled = true;
    } else if (entry->state == VersionState::kAvailable && !entry->unloading && aspired_available) {
      StartUnload(model, v);
    }
  }
  stop_cv_.notify_all();
}

void ModelManager::StartLoad(ModelEntry& model, int64_t version, const std::string& path) {
  {
    std::lock_guard lock(stop_mu_);
    if (stopping_) return;
  }
  auto entry = std::make_shared<VersionEntry>();
  entry->path = path;
  model.versions[version] = entry;
  const std::string name = model.config.name();
  SetState(name, version, *entry, VersionState::kStart, OkStatus(), "");
  {
    std::lock_guard lock(settle_mu_);
    ++pending_;
  }
  // model_platform "tflite" / "onnx": the version folder's model file of that
  // format is served, whatever else the folder holds.
  std::string load_path = path;
  if (model.config.model_platform() == "tflite") load_path = path + "/" + loaders::kTfliteModelFileName;
  if (model.config.model_platform() == "onnx") load_path = path + "/" + loaders::kOnnxModelFileName;
  entry->load_path = load_path;
  Spawn([this, name, version, load_path, entry] { LoadThread(name, version, load_path, entry); });
}

void ModelManager::StartUnload(ModelEntry& model, int64_t version) {
  auto entry = model.versions.at(version);
  entry->unloading = true;
  const std::string name = model.config.name();
  SetState(name, version, *entry, VersionState::kUnloading, OkStatus(), "");
  {
    std::lock_guard lock(settle_mu_);
    ++pending_;
  }
  Spawn([this, name, version, entry] { UnloadThread(name, version, entry); });
}

void ModelManager::LoadThread(std::string name, int64_t version, std::string path,
                              std::shared_ptr<VersionEntry> entry) {
  auto finish = [this] {
    {
      std::lock_guard lock(settle_mu_);
      --pending_;
    }
    settle_cv_.notify_all();
  };
  {
    std::unique_lock lock(mu_);
    if (entry->cancelled) {
      SetState(name, version, *entry, VersionState::kEnd, OkStatus(), "load cancelled");
      lock.unlock();
      finish();
      return;
    }
    SetState(name, version, *entry, VersionState::kLoading, OkStatus(), "");
  }
  const int attempts = 1 + std::max(0, options_.max_num_load_retries);
  for (int attempt = 1; attempt <= attempts; ++attempt) {
    auto start = std::chrono::steady_clock::now();
    StatusOr<std::shared_ptr<Servable>> loaded = options_.loader(name, version, path);
    Status status = loaded.ok() ? OkStatus() : loaded.status();
    if (status.ok() && !*loaded) status = Internal("loader returned no servable");
    if (status.ok() && options_.warmer) status = options_.warmer(*loaded);
    auto micros =
        std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now() - start).count();
    if (options_.metrics) {
      options_.metrics->load_attempt_count->WithLabels({path, status.ok() ? "success" : "failure"})->Increment();
    }
    std::unique_lock lock(mu_);
    if (status.ok()) {
      if (options_.metrics) {
        options_.metrics->load_latency->WithLabels({path})->Increment(micros);
        options_.metrics->model_load_latency->WithLabels({name, std::to_string(version)})->Observe(micros);
      }
      if (entry->cancelled) {
        SetState(name, version, *entry, VersionState::kEnd, OkStatus(), "loaded but no longer wanted; discarded");
        lock.unlock();
        loaded = Status(StatusCode::kCancelled, "discarded");  // release the model outside the lock
        finish();
        return;
      }
      entry->servable = std::move(*loaded);
      SetState(name, version, *entry, VersionState::kAvailable, OkStatus(),
               "loaded in " + std::to_string(micros / 1000) + " ms");
      auto it = models_.find(name);
      if (it != models_.end()) Reconcile(*it->second, nullptr);
      lock.unlock();
      finish();
      return;
    }
    if (options_.metrics) {
      options_.metrics->load_failures->WithLabels({name, std::to_string(version)})->Increment();
    }
    if (attempt == attempts || entry->cancelled) {
      if (!entry->cancelled) entry->failed_fingerprint = FolderFingerprint(path);
      SetState(name, version, *entry, VersionState::kEnd, status,
               entry->cancelled ? "load cancelled after a failed attempt"
                                : "giving up after " + std::to_string(attempt) + " attempt(s)");
      lock.unlock();
      finish();
      return;
    }
    // A folder that appeared before its files were all copied is the usual
    // failure, so while the file system is polled the first retries come
    // at the poll interval, doubling each time, up to the retry interval.
    // Clamped so that absurd flag values cannot overflow the clock arithmetic.
    int64_t retry_micros = std::clamp<int64_t>(options_.load_retry_interval_micros, 0, kMaxWaitSeconds * 1000000);
    if (options_.file_system_poll_wait_seconds > 0) {
      int64_t backoff = std::min<int64_t>(options_.file_system_poll_wait_seconds, kMaxWaitSeconds) * 1000000;
      for (int i = 1; i < attempt && backoff < retry_micros; ++i) backoff *= 2;
      retry_micros = std::min(retry_micros, backoff);
    }
    SetState(name, version, *entry, VersionState::kLoading, status,
             "attempt " + std::to_string(attempt) + " of " + std::to_string(attempts) + " failed; retrying in " +
                 std::to_string(retry_micros / 1000) + " ms");
    lock.unlock();
    std::unique_lock stop_lock(stop_mu_);
    stop_cv_.wait_for(stop_lock, std::chrono::microseconds(retry_micros),
                      [&] { return stopping_ || entry->cancelled.load(); });
    if (stopping_) {
      stop_lock.unlock();
      std::unique_lock l(mu_);
      SetState(name, version, *entry, VersionState::kEnd, status, "server stopping; no more retries");
      l.unlock();
      finish();
      return;
    }
  }
}

void ModelManager::UnloadThread(std::string name, int64_t version, std::shared_ptr<VersionEntry> entry) {
  std::weak_ptr<const Servable> watch;
  {
    std::unique_lock lock(mu_);
    watch = entry->servable;
    entry->servable.reset();
  }
  // In-flight requests hold handles; the model is freed with the last one.
  auto start = std::chrono::steady_clock::now();
  bool warned = false;
  while (!watch.expired()) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
    if (!warned && std::chrono::steady_clock::now() - start > std::chrono::seconds(10)) {
      warned = true;
      Log("{\"time\":\"" + NowUtc() + "\",\"event\":\"unload_waiting\",\"model\":\"" + JsonEscape(name) +
          "\",\"version\":" + std::to_string(version) + ",\"detail\":\"in-flight requests still hold the version\"}");
    }
  }
  {
    std::unique_lock lock(mu_);
    SetState(name, version, *entry, VersionState::kEnd, OkStatus(), "unloaded");
  }
  {
    std::lock_guard lock(settle_mu_);
    --pending_;
  }
  settle_cv_.notify_all();
}

void ModelManager::PollLoop() {
  const auto interval = std::chrono::seconds(std::min<int64_t>(options_.file_system_poll_wait_seconds, kMaxWaitSeconds));
  std::unique_lock lock(stop_mu_);
  while (!stopping_) {
    if (stop_cv_.wait_for(lock, interval, [this] { return stopping_; })) break;
    lock.unlock();
    PollFileSystem();
    lock.lock();
  }
}

bool ModelManager::WaitUntilSettled(std::chrono::milliseconds timeout) {
  auto deadline = std::chrono::steady_clock::now() + timeout;
  {
    std::unique_lock lock(settle_mu_);
    if (!settle_cv_.wait_until(lock, deadline, [this] { return pending_ == 0; })) return false;
  }
  return FlushLog(std::chrono::duration_cast<std::chrono::milliseconds>(
      std::max(deadline - std::chrono::steady_clock::now(), std::chrono::steady_clock::duration::zero())));
}

StatusOr<ServableHandle> ModelManager::GetServable(const ServableRequest& request) const {
  std::shared_lock lock(mu_);
  auto it = models_.find(request.name);
  if (it == models_.end()) return NotFound("Servable not found for request: " + request.DebugString());
  const ModelEntry& model = *it->second;
  std::optional<int64_t> version = request.version;
  if (!version && request.label) {
    auto label = model.labels.find(*request.label);
    if (label == model.labels.end()) {
      return InvalidArgument("Unrecognized servable version label: " + *request.label);
    }
    version = label->second;
  }
  if (version) {
    auto v = model.versions.find(*version);
    if (v == model.versions.end() || v->second->state != VersionState::kAvailable || !v->second->servable) {
      ServableRequest specific{request.name, version, std::nullopt};
      return NotFound("Servable not found for request: " + specific.DebugString());
    }
    return v->second->servable;
  }
  for (auto v = model.versions.rbegin(); v != model.versions.rend(); ++v) {
    if (v->second->state == VersionState::kAvailable && v->second->servable) return v->second->servable;
  }
  return NotFound("Servable not found for request: " + request.DebugString());
}

StatusOr<int64_t> ModelManager::ResolveLabel(const std::string& name, const std::string& label) const {
  std::shared_lock lock(mu_);
  auto it = models_.find(name);
  if (it == models_.end()) return NotFound("Could not find any versions of model " + name);
  auto l = it->second->labels.find(label);
  if (l == it->second->labels.end()) {
    return InvalidArgument("Unrecognized servable version label: " + label);
  }
  return l->second;
}

StatusOr<std::vector<VersionStatus>> ModelManager::GetModelStatus(const std::string& name,
                                                                  std::optional<int64_t> version) const {
  std::shared_lock lock(mu_);
  auto it = models_.find(name);
  if (it == models_.end() || it->second->versions.empty()) {
    return NotFound("Could not find any versions of model " + name);
  }
  std::vector<VersionStatus> out;
  for (const auto& [v, entry] : it->second->versions) {
    if (version && *version != v) continue;
    out.push_back(VersionStatus{v, entry->state, entry->status});
  }
  if (version && out.empty()) {
    return NotFound("Could not find version " + std::to_string(*version) + " of model " + name);
  }
  return out;
}

std::vector<ModelSummary> ModelManager::ListModels() const {
  std::shared_lock lock(mu_);
  std::vector<ModelSummary> out;
  for (const auto& [name, model] : models_) {
    ModelSummary s;
    s.name = name;
    s.base_path = model->config.base_path();
    for (const auto& [v, entry] : model->versions) s.versions.push_back(VersionStatus{v, entry->state, entry->status});
    s.labels = model->labels;
    s.scan_error = model->last_scan_error;
    s.no_version_folders = model->no_version_folders;
    out.push_back(std::move(s));
  }
  return out;
}

bool ModelManager::AllModelsAvailable() const {
  std::shared_lock lock(mu_);
  for (const auto& [name, model] : models_) {
    bool any = false;
    for (const auto& [v, entry] : model->versions) any = any || entry->state == VersionState::kAvailable;
    if (!any) return false;
  }
  return true;
}

}  // namespace tfhost::serving
