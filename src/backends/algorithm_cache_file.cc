#include "backends/algorithm_cache_file.h"

#include <utility>

namespace tfhost::backends {

AlgorithmCacheFile::AlgorithmCacheFile(std::string path, std::chrono::milliseconds save_interval, std::ostream& log)
    : path_(std::move(path)), save_interval_(save_interval), log_(log) {
  if (path_.empty()) return;
  Status loaded = cache_.Load(path_);
  if (!loaded.ok() && loaded.code() != StatusCode::kNotFound) {
    // Load adds nothing from a file it refuses, so the cache is empty.
    log_ << "tfhost: ignoring the GPU algorithm cache: " << loaded.message()
         << "; starting with an empty cache, which replaces the file at the next save\n";
    log_.flush();
  }
  saved_changes_ = cache_.changes();
  saver_ = std::thread([this] { SaverLoop(); });
}

AlgorithmCacheFile::~AlgorithmCacheFile() {
  Flush();
  // Entries added after an earlier Flush.
  (void)SaveIfChanged();
}

void AlgorithmCacheFile::SaverLoop() {
  std::unique_lock<std::mutex> lock(stop_mu_);
  while (!stop_) {
    stop_cv_.wait_for(lock, save_interval_, [this] { return stop_; });
    if (stop_) break;
    lock.unlock();
    (void)SaveIfChanged();  // a failure is reported inside
    lock.lock();
  }
}

Status AlgorithmCacheFile::SaveIfChanged() {
  if (path_.empty()) return OkStatus();
  std::lock_guard<std::mutex> lock(save_mu_);
  const uint64_t changes = cache_.changes();
  if (changes == saved_changes_) return OkStatus();
  Status saved = cache_.Save(path_);
  if (!saved.ok()) {
    if (!save_failed_) {
      log_ << "tfhost: cannot save the GPU algorithm cache: " << saved.message() << "\n";
      log_.flush();
    }
    save_failed_ = true;
    return saved;
  }
  // Entries added while Save ran may or may not be in the file; counting
  // from the value read before it writes them again next time at worst.
  saved_changes_ = changes;
  return OkStatus();
}

void AlgorithmCacheFile::Flush() {
  {
    std::lock_guard<std::mutex> lock(stop_mu_);
    stop_ = true;
  }
  stop_cv_.notify_all();
  if (saver_.joinable() && saver_.get_id() != std::this_thread::get_id()) saver_.join();
  (void)SaveIfChanged();
}

}  // namespace tfhost::backends
