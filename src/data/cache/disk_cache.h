// Local-disk tier of the data cache (docs/data_cache.md): objects from S3 or a
// filesystem path are copied into a cache directory with a size limit and
// least-recently-used eviction, and handed to readers as local paths.
//
// Layout of the directory:
//   index.json      entries (URI, file, size, ETag, CRC-32C, last use) and
//                   counters; rewritten atomically (temp file, fsync, rename)
//   lock            flock()ed around every read-modify-write of the index
//   locks/<name>    flock()ed while one object is checked or fetched, so two
//                   processes (or threads) warming the same object download it once
//   data/<name>     cached objects, only ever created by rename()
//   tmp/<name>.resume       a download cut short (the server died, the link
//   tmp/<name>.resume.meta  broke): its bytes so far, and the ETag and size
//                   they belong to; the next fetch continues it with an HTTP
//                   Range request (If-Match the ETag). Never used before the
//                   whole object is there and verified; EvictAll removes them
//
// Integrity: a download is renamed into data/ only after the whole announced
// length arrived and, for TFRecord shards, every record's length and data CRC
// verified; its CRC-32C is recorded. Before each use the file's size and
// CRC-32C are checked against the index (a corrupted copy is dropped and
// fetched again), and the source's ETag and size are rechecked (a changed
// object is fetched again; an unreachable source leaves the verified copy usable).
//
// Thread-safety: a DiskCache may be used from many threads; many processes
// may share one directory.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "base/status.h"
#include "data/cache/object_source.h"

namespace tfhost::data::cache {

enum class TFRecordCheck {
  kAuto,    // names containing "tfrecord" or ending in .tfr
  kAlways,
  kNever,
};

struct DiskCacheOptions {
  std::string dir;
  // 0: keep the limit recorded in the directory (10 GiB for a new one).
  uint64_t max_bytes = 0;
  TFRecordCheck tfrecord_check = TFRecordCheck::kAuto;
  // Check size and CRC-32C of a cached file before each use.
  bool verify_on_use = true;
  // Ask the source for the object's ETag and size before each use.
  bool revalidate = true;
  S3Config s3 = S3Config::FromEnv();
};

struct CacheEntry {
  std::string uri;
  std::string file;  // name under data/
  uint64_t size = 0;
  std::string etag;
  uint32_t crc32c = 0;
  uint64_t last_used = 0;  // index clock: larger is more recent
  uint64_t hits = 0;
};

struct CacheStats {
  uint64_t entries = 0;
  uint64_t bytes = 0;
  uint64_t max_bytes = 0;
  uint64_t hits = 0;
  uint64_t misses = 0;
  uint64_t downloads = 0;
  uint64_t bytes_downloaded = 0;
  uint64_t evictions = 0;
  uint64_t integrity_failures = 0;  // cached copies found corrupt before use
  uint64_t failed_fetches = 0;
  uint64_t resumed_downloads = 0;  // downloads completed by continuing a partial one
};

struct CachedObject {
  std::string path;  // valid until the entry is evicted
  uint64_t size = 0;
  std::string etag;
  bool hit = false;  // served from the cache without a download
};

class DiskCache {
 public:
  static StatusOr<std::unique_ptr<DiskCache>> Open(DiskCacheOptions options);
  ~DiskCache();

  // The object's local copy, fetched on a miss. With `bytes`, the file is
  // also read into *bytes (its CRC is checked over those bytes, not re-read).
  StatusOr<CachedObject> Get(const std::string& uri, std::string* bytes = nullptr);

  // s3://bucket/prefix (listed with ListObjectsV2) or a directory (walked)
  // when `uri` ends with '/' or names a directory; otherwise the object itself.
  StatusOr<std::vector<ObjectInfo>> Expand(const std::string& uri);

  // NOT_FOUND when `uri` is not cached.
  Status Evict(const std::string& uri);
  Status EvictAll();

  // Entries from least to most recently used, and the counters.
  StatusOr<std::vector<CacheEntry>> Entries();
  StatusOr<CacheStats> Stats();

  const std::string& dir() const { return options_.dir; }
  ObjectSource* SourceFor(const std::string& uri);

 private:
  struct Index;
  explicit DiskCache(DiskCacheOptions options);
  StatusOr<CachedObject> Fetch(const std::string& uri, const std::string& name, std::string* bytes);
  // Runs fn(index) with the index loaded under the directory lock; saves it
  // afterwards when fn returns true.
  template <typename Fn>
  Status WithIndex(Fn&& fn);
  Status LoadIndex(Index* index);
  Status SaveIndex(const Index& index);
  void EvictOver(Index* index, const std::string& keep_uri);
  void CleanStaleParts();
  bool IsTFRecord(const std::string& uri) const;

  DiskCacheOptions options_;
  std::unique_ptr<ObjectSource> s3_;
  std::unique_ptr<ObjectSource> files_;
};

// File name under data/ for `uri`: a 64-bit hash and a readable tail.
std::string CacheFileName(const std::string& uri);
// "10G", "512M", "1.5G", "1000" -> bytes.
StatusOr<uint64_t> ParseByteSize(const std::string& text);
// "1.2 GiB"
std::string FormatBytes(uint64_t bytes);

}  // namespace tfhost::data::cache
