// The model manager of `tfhost serve`: keeps the served versions of every
// configured model in line with the config and the file system, the way TF
// Serving's ServerCore + AspiredVersionsManager do:
//  * each version goes START -> LOADING -> AVAILABLE -> UNLOADING -> END, with
//    an error status when a load fails (END + error);
//  * loads and unloads run on their own threads, so loading one model never
//    blocks requests to others (lookups take a shared lock for a map find);
//  * availability preserving: a version that is no longer aspired is unloaded
//    only once an aspired version of that model is AVAILABLE (or the model is
//    removed from the config), so a new version is loaded and warmed up before
//    the old one goes, and a failing new version never takes the old one down;
//  * failed loads are retried max_num_load_retries times,
//    load_retry_interval_micros apart, except that while the file system is
//    polled the waits start at the poll interval and double up to it; a
//    version that still failed is loaded again when a later scan finds its
//    folder changed;
//  * the file system is polled every file_system_poll_wait_seconds (0 = once,
//    at each config change);
//  * ReloadConfig adds and removes models and changes policies/labels;
//  * unloading releases the manager's reference and waits for in-flight
//    requests (their ServableHandles) before the version reaches END;
//  * one structured log line (JSON) per state change goes to the log sink.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <shared_mutex>
#include <string>
#include <thread>
#include <vector>

#include "base/status.h"
#include "loaders/model_loader.h"
#include "serving/metrics/metrics_registry.h"
#include "serving/model_manager/model_config.h"
#include "serving/servable/servable.h"

namespace tfhost::serving {

// Numbers are tensorflow.serving.ModelVersionStatus.State.
enum class VersionState { kUnknown = 0, kStart = 10, kLoading = 20, kAvailable = 30, kUnloading = 40, kEnd = 50 };
const char* VersionStateName(VersionState state);  // "AVAILABLE"

struct VersionStatus {
  int64_t version = 0;
  VersionState state = VersionState::kUnknown;
  Status status;  // the load error for a version that failed
};

// Which version a request wants: the latest available one, a number, or a label.
struct ServableRequest {
  std::string name;
  std::optional<int64_t> version;
  std::optional<std::string> label;
  // "Latest(half)", "Specific(half, 7)" -- TF Serving's spelling in NOT_FOUND errors.
  std::string DebugString() const;
};

struct ModelSummary {
  std::string name;
  std::string base_path;
  std::vector<VersionStatus> versions;    // ascending
  std::map<std::string, int64_t> labels;  // version labels from the config
  // Why the last scan of base_path found nothing to serve (missing folder,
  // no numeric version folders, none matching the policy); empty otherwise.
  std::string scan_error;
  // base_path exists but holds no numeric version folder yet: the model
  // waits for one (as TF Serving does) rather than failing the start.
  bool no_version_folders = false;
};

// One JSON object per line, e.g.
// {"event":"model_version_state","model":"half","version":123,"state":"AVAILABLE","status":"OK",...}
// Called from the manager's own logger thread, in state-change order, never
// with a lock that requests need: a slow sink delays only the log (past
// 10000 queued lines, lines are dropped and counted in a log_lines_dropped
// line).
using LogSink = std::function<void(const std::string& line)>;
// Escapes a string for a JSON string literal in a log line.
std::string LogJsonEscape(const std::string& s);

// Loads a servable (tests inject failing or slow loaders).
using ServableLoader =
    std::function<StatusOr<std::shared_ptr<Servable>>(const std::string& name, int64_t version, const std::string& path)>;

// Runs between a successful load and AVAILABLE; an error fails the load
// (and is retried like a load error). ServerCore installs warm-up replay here.
using ServableWarmer = std::function<Status(const ServableHandle& servable)>;

struct ModelManagerOptions {
  // Seconds between file-system scans; <= 0 scans only on config changes.
  int64_t file_system_poll_wait_seconds = 1;
  // Extra attempts after a failed load (TF Serving's --max_num_load_retries).
  int max_num_load_retries = 5;
  // Pause between attempts (--load_retry_interval_micros, default 1 minute).
  int64_t load_retry_interval_micros = 60 * 1000 * 1000;
  // Used by the default loader.
  loaders::LoadOptions load_options;
  // nullptr: LoadServable with load_options.
  ServableLoader loader;
  // nullptr: no warm-up.
  ServableWarmer warmer;
  // nullptr: lines go to stderr.
  LogSink log_sink;
  // nullptr: no metrics.
  ServingMetrics* metrics = nullptr;
};

// Which versions a config's version_labels may point at (TF Serving's
// --allow_version_labels_for_unavailable_models and
// --force_allow_any_version_labels_for_unavailable_models).
enum class VersionLabelPolicy {
  kRequireAvailable,     // every label names an AVAILABLE version (TF Serving's default)
  kAllowNewUnavailable,  // a label not yet in use may name any version; moving one in use still needs AVAILABLE
  kAllowAny,             // any label may name any version
};

class ModelManager {
 public:
  explicit ModelManager(ModelManagerOptions options);
  // Stops polling, cancels pending retries, unloads every version and joins
  // all threads (waiting for in-flight requests to release their handles).
  ~ModelManager();
  ModelManager(const ModelManager&) = delete;
  ModelManager& operator=(const ModelManager&) = delete;

  // Validates and applies a config: new models start loading, removed models
  // unload, policy changes take effect, and the file system is scanned. The
  // labels in force do not change here (a new model starts with none): as in
  // TF Serving they change with UpdateVersionLabels, once loads settled.
  // Returns once the changes are scheduled (see WaitUntilSettled). An invalid
  // config, or one that changes the base_path of a served model
  // (INVALID_ARGUMENT: remove it, then add it back), changes nothing.
  Status ReloadConfig(const ModelServerConfig& config);
  ModelServerConfig config() const;

  // Puts the version_labels of the current config in force, for every model
  // at once, if each label passes `policy`; otherwise nothing changes and
  // the error is FAILED_PRECONDITION "Request to assign label to version V of
  // model M, which is not currently available for inference" (TF Serving's
  // text).
  Status UpdateVersionLabels(VersionLabelPolicy policy);

  // One file-system scan of every model now (the poller calls this).
  void PollFileSystem();

  // Blocks until no load, retry or unload is pending and every log line
  // went to the sink, or `timeout` passes. Returns whether it settled.
  bool WaitUntilSettled(std::chrono::milliseconds timeout);

  // The servable a request resolves to. Errors, as TF Serving words them:
  //   NOT_FOUND "Servable not found for request: Latest(name)" (unknown model
  //     or no available version), "... Specific(name, 7)";
  //   INVALID_ARGUMENT "Unrecognized servable version label: l".
  StatusOr<ServableHandle> GetServable(const ServableRequest& request) const;

  // Version statuses of `name` (all, or one version), ascending. NOT_FOUND
  // "Could not find any versions of model NAME" / "Could not find version V
  // of model NAME".
  StatusOr<std::vector<VersionStatus>> GetModelStatus(const std::string& name,
                                                      std::optional<int64_t> version) const;
  // Resolves a label to its version (INVALID_ARGUMENT as GetServable).
  StatusOr<int64_t> ResolveLabel(const std::string& name, const std::string& label) const;

  std::vector<ModelSummary> ListModels() const;
  // Every configured model has at least one AVAILABLE version.
  bool AllModelsAvailable() const;

  // Sends a line (a JSON object) through the manager's log queue, so that all
  // serving log lines reach the sink from one thread, in order. Its "time"
  // (UTC, milliseconds) is added here unless it starts with one, so that
  // every serving log line has one.
  void LogLine(const std::string& line) const;

 private:
  struct VersionEntry;
  struct ModelEntry;

  void Reconcile(ModelEntry& model, const std::map<int64_t, std::string>* dirs);  // mu_ held (unique)
  void StartLoad(ModelEntry& model, int64_t version, const std::string& path);   // mu_ held
  void StartUnload(ModelEntry& model, int64_t version);                          // mu_ held
  void LoadThread(std::string name, int64_t version, std::string path, std::shared_ptr<VersionEntry> entry);
  void UnloadThread(std::string name, int64_t version, std::shared_ptr<VersionEntry> entry);
  void SetState(const std::string& name, int64_t version, VersionEntry& entry, VersionState state,
                const Status& status, const std::string& detail);  // entry.mu held by caller or single-owner
  // Queues a line for the logger thread: state changes happen under mu_, and
  // a slow sink (a full stderr pipe) must never hold up requests.
  void Log(const std::string& line) const;
  void LoggerLoop();
  // Waits until every queued line went to the sink.
  bool FlushLog(std::chrono::milliseconds timeout) const;
  void PollLoop();
  void Spawn(std::function<void()> fn);
  void ReapFinishedThreads();  // mu_ held

  ModelManagerOptions options_;
  mutable std::shared_mutex mu_;  // guards config_, models_, threads_
  ModelServerConfig config_;
  std::map<std::string, std::unique_ptr<ModelEntry>> models_;
  struct Worker {
    std::thread thread;
    std::shared_ptr<std::atomic<bool>> done;
  };
  std::vector<Worker> threads_;

  std::mutex settle_mu_;
  std::condition_variable settle_cv_;
  int pending_ = 0;  // loads + unloads in flight (guarded by settle_mu_)

  std::mutex stop_mu_;
  std::condition_variable stop_cv_;
  bool stopping_ = false;
  std::thread poller_;

  static constexpr size_t kMaxQueuedLogLines = 10000;  // past this, lines are counted and dropped
  mutable std::mutex log_mu_;
  mutable std::condition_variable log_cv_;
  mutable std::deque<std::string> log_queue_;
  mutable size_t log_dropped_ = 0;
  bool log_busy_ = false;  // the logger is emitting a batch
  bool log_stop_ = false;
  std::thread logger_;
};

}  // namespace tfhost::serving
