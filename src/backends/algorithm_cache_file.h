// AlgorithmCacheFile: an AlgorithmCache kept in a file across starts, so a
// machine chooses (or times) each shape's algorithm once rather than on
// every start. The CUDA plugin makes one per process and shares it among its
// GPUs' backends: the keys name the device, and one owner means one writer
// of the file.
//
// - Made with a path, it loads the file. No file is a first start. A file
//   it cannot read (another version, a malformed line) is reported as one
//   line on `log`, naming the file and why, and the cache starts empty: a
//   stale cache must never keep a server from starting. The next save
//   replaces it.
// - After an entry is added, a saver thread writes the file, at most once
//   every `save_interval`, so a crash loses little; Flush (and the
//   destructor) writes what is left. Nothing is written while nothing was
//   added. AlgorithmCache::Save writes atomically.
// - An empty path keeps the cache in memory only: nothing is read, written
//   or started.
// A failed save is reported on `log` once (the first failure); later saves
// are still tried, since the folder may come back.
//
// Thread-safety: every method may be called from several threads at once.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <ostream>
#include <string>
#include <thread>

#include "backends/algorithm_cache.h"

namespace tfhost::backends {

class AlgorithmCacheFile {
 public:
  // `log` (std::cerr in the plugin) outlives the object.
  AlgorithmCacheFile(std::string path, std::chrono::milliseconds save_interval, std::ostream& log);
  // Flushes.
  ~AlgorithmCacheFile();
  AlgorithmCacheFile(const AlgorithmCacheFile&) = delete;
  AlgorithmCacheFile& operator=(const AlgorithmCacheFile&) = delete;

  AlgorithmCache& cache() { return cache_; }
  // "" when persistence is off.
  const std::string& path() const { return path_; }

  // Writes the file now if an entry was added since the last write; OK when
  // nothing needed writing or persistence is off.
  Status SaveIfChanged();
  // Stops the saver thread and saves what is left. Entries added afterwards
  // stay in memory until the next SaveIfChanged (the destructor's, say).
  void Flush();

 private:
  void SaverLoop();

  const std::string path_;
  const std::chrono::milliseconds save_interval_;
  std::ostream& log_;
  AlgorithmCache cache_;

  std::mutex save_mu_;          // one Save at a time
  uint64_t saved_changes_ = 0;  // cache_.changes() at the last write; guarded by save_mu_
  bool save_failed_ = false;    // a failure was reported; guarded by save_mu_

  std::mutex stop_mu_;
  std::condition_variable stop_cv_;
  bool stop_ = false;           // guarded by stop_mu_
  std::thread saver_;
  std::once_flag joined_;       // Flush may be called from several threads
};

}  // namespace tfhost::backends
