// The data cache readers use (docs/data_cache.md): a RAM tier for the hottest
// shards over the disk tier (disk_cache.h), with read-ahead of the next K
// shards in the consumer's order on background threads.
//
//   auto cache = TieredCache::Open({.disk = {.dir = "/nvme/cache"}});
//   (*cache)->SetOrder(shard_uris);                 // the order they will be read in
//   for (const auto& uri : shard_uris) {
//     auto path = (*cache)->OpenPath(uri);          // local file (disk tier)
//     auto bytes = (*cache)->ReadBytes(uri);        // or the bytes (RAM tier)
//   }
//
// Opening shard i of the order schedules shards i+1..i+K. Read-ahead failures
// are not reported there; the consumer gets the error when it opens the shard.
//
// Thread-safety: all methods may be called from any thread.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <list>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

#include "data/cache/disk_cache.h"

namespace tfhost::data::cache {

// Size-limited LRU map of URI -> immutable bytes.
class MemoryTier {
 public:
  explicit MemoryTier(uint64_t max_bytes) : max_bytes_(max_bytes) {}
  std::shared_ptr<const std::string> Get(const std::string& uri);
  // Objects larger than the limit are not kept.
  void Put(const std::string& uri, std::shared_ptr<const std::string> bytes);
  void Erase(const std::string& uri);
  bool Contains(const std::string& uri);
  uint64_t bytes();
  // URIs from most to least recently used.
  std::vector<std::string> Keys();

 private:
  std::mutex mu_;
  uint64_t max_bytes_;
  uint64_t bytes_ = 0;
  std::list<std::pair<std::string, std::shared_ptr<const std::string>>> lru_;  // front: most recent
  std::unordered_map<std::string, decltype(lru_)::iterator> map_;
};

struct TieredCacheOptions {
  DiskCacheOptions disk;
  uint64_t ram_bytes = uint64_t{1} << 30;  // 0: no RAM tier
  int read_ahead = 2;                      // K
  int read_ahead_threads = 2;
};

struct TieredStats {
  uint64_t ram_hits = 0;
  uint64_t ram_misses = 0;
  uint64_t ram_bytes = 0;
  uint64_t read_ahead_done = 0;
  uint64_t read_ahead_failed = 0;
};

class TieredCache {
 public:
  static StatusOr<std::unique_ptr<TieredCache>> Open(TieredCacheOptions options);
  ~TieredCache();  // stops and joins the read-ahead threads

  // The order the consumer will open objects in (for read-ahead).
  void SetOrder(std::vector<std::string> uris);
  // A local path to the object (disk tier).
  StatusOr<std::string> OpenPath(const std::string& uri);
  // The object's bytes, from RAM when hot; the RAM tier keeps them.
  StatusOr<std::shared_ptr<const std::string>> ReadBytes(const std::string& uri);
  // Waits until no read-ahead is queued or running (tests, benchmarks).
  void WaitForReadAhead();

  TieredStats stats();
  DiskCache& disk() { return *disk_; }
  MemoryTier& ram() { return ram_; }

 private:
  explicit TieredCache(TieredCacheOptions options, std::unique_ptr<DiskCache> disk);
  void ScheduleAfter(const std::string& uri);
  void Worker();
  StatusOr<std::shared_ptr<const std::string>> LoadIntoRam(const std::string& uri);

  TieredCacheOptions options_;
  std::unique_ptr<DiskCache> disk_;
  MemoryTier ram_;

  std::mutex mu_;
  std::condition_variable cv_;       // work queued or stopping
  std::condition_variable idle_cv_;  // queue drained
  std::vector<std::string> order_;
  std::unordered_map<std::string, size_t> position_;
  std::deque<std::string> queue_;
  std::set<std::string> pending_;  // queued or running
  bool stop_ = false;
  TieredStats stats_;
  std::vector<std::thread> threads_;
};

}  // namespace tfhost::data::cache
