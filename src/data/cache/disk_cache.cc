// Disk tier: index under flock, per-object locks, verified downloads, LRU eviction.
#include "data/cache/disk_cache.h"

#include <dirent.h>
#include <fcntl.h>
#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <map>
#include <thread>

#include "base/crc32c.h"
#include "base/file_util.h"
#include "data/tfrecord_reader.h"

namespace tfhost::data::cache {
namespace {

constexpr uint64_t kDefaultMaxBytes = uint64_t{10} << 30;
constexpr size_t kMaxIndexBytes = size_t{256} << 20;

std::string Errno() { return std::strerror(errno); }

Status MakeDir(const std::string& path) {
  if (::mkdir(path.c_str(), 0755) != 0 && errno != EEXIST) {
    return Internal("cannot create cache directory " + path + ": " + Errno());
  }
  return OkStatus();
}

void FsyncDir(const std::string& dir) {
  int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd >= 0) {
    ::fsync(fd);
    ::close(fd);
  }
}

// An flock()ed file, released on destruction.
class FileLock {
 public:
  static StatusOr<FileLock> Acquire(const std::string& path, bool block = true) {
    int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0) return Internal("cannot open lock file " + path + ": " + Errno());
    while (::flock(fd, LOCK_EX | (block ? 0 : LOCK_NB)) != 0) {
      if (errno == EINTR) continue;
      int e = errno;
      ::close(fd);
      if (e == EWOULDBLOCK) return Unavailable(path + " is locked");
      return Internal("cannot lock " + path + ": " + std::strerror(e));
    }
    return FileLock(fd);
  }
  FileLock(FileLock&& o) noexcept : fd_(o.fd_) { o.fd_ = -1; }
  FileLock& operator=(FileLock&&) = delete;
  ~FileLock() {
    if (fd_ >= 0) ::close(fd_);  // closing releases the lock
  }

 private:
  explicit FileLock(int fd) : fd_(fd) {}
  int fd_;
};

Status ReadFile(const std::string& path, std::string* out, size_t limit) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    if (errno == ENOENT) return NotFound(path + ": no such file");
    return Internal(path + ": " + Errno());
  }
  out->clear();
  struct stat st;
  if (::fstat(fd, &st) == 0 && static_cast<uint64_t>(st.st_size) <= limit) out->reserve(st.st_size);
  char buf[1 << 16];
  Status s;
  while (true) {
    ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0) {
      if (errno == EINTR) continue;
      s = Internal(path + ": read failed: " + Errno());
      break;
    }
    if (n == 0) break;
    if (out->size() + n > limit) {
      s = ResourceExhausted(path + ": larger than " + std::to_string(limit) + " bytes");
      break;
    }
    out->append(buf, n);
  }
  ::close(fd);
  return s;
}

// Size and CRC-32C of a file, streamed.
Status FileCrc(const std::string& path, uint64_t* size, uint32_t* crc) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return NotFound(path + ": " + Errno());
  std::string buf(1 << 20, '\0');
  uint32_t c = 0;
  uint64_t total = 0;
  Status s;
  while (true) {
    ssize_t n = ::read(fd, buf.data(), buf.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      s = Internal(path + ": read failed: " + Errno());
      break;
    }
    if (n == 0) break;
    c = crc32c::Extend(c, buf.data(), static_cast<size_t>(n));
    total += static_cast<uint64_t>(n);
  }
  ::close(fd);
  *size = total;
  *crc = c;
  return s;
}

uint64_t Fnv1a(const std::string& s) {
  uint64_t h = 1469598103934665603ull;
  for (unsigned char c : s) {
    h ^= c;
    h *= 1099511628211ull;
  }
  return h;
}

// Attempts to continue a download within one fetch while each makes progress.
constexpr int kResumeAttempts = 5;

}  // namespace

struct DiskCache::Index {
  uint64_t max_bytes = 0;
  uint64_t clock = 0;
  CacheStats stats;
  std::map<std::string, CacheEntry> entries;
};

std::string CacheFileName(const std::string& uri) {
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(Fnv1a(uri)));
  std::string tail;
  size_t slash = uri.find_last_of('/');
  std::string base = slash == std::string::npos ? uri : uri.substr(slash + 1);
  for (char c : base) {
    tail.push_back(std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.' ? c : '_');
  }
  if (tail.size() > 48) tail = tail.substr(tail.size() - 48);
  if (!tail.empty() && tail[0] == '.') tail[0] = '_';
  return std::string(hex) + (tail.empty() ? "" : "-" + tail);
}

StatusOr<uint64_t> ParseByteSize(const std::string& text) {
  if (text.empty()) return InvalidArgument("empty size");
  size_t end = 0;
  double v = 0;
  try {
    v = std::stod(text, &end);
  } catch (...) {
    return InvalidArgument("bad size '" + text + "' (expected e.g. 500M, 10G, 1048576)");
  }
  std::string unit = text.substr(end);
  if (!unit.empty() && (unit.back() == 'B' || unit.back() == 'b')) unit.pop_back();
  if (unit.size() == 2 && (unit[1] == 'i' || unit[1] == 'I')) unit.pop_back();
  double mul = 1;
  if (unit.empty()) mul = 1;
  else if (unit == "K" || unit == "k") mul = 1024.0;
  else if (unit == "M" || unit == "m") mul = 1024.0 * 1024;
  else if (unit == "G" || unit == "g") mul = 1024.0 * 1024 * 1024;
  else if (unit == "T" || unit == "t") mul = 1024.0 * 1024 * 1024 * 1024;
  else return InvalidArgument("bad size unit in '" + text + "' (K, M, G or T)");
  double bytes = v * mul;
  if (!(bytes >= 0) || bytes > 9.0e18) return InvalidArgument("size '" + text + "' out of range");
  return static_cast<uint64_t>(std::llround(bytes));
}

std::string FormatBytes(uint64_t bytes) {
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  double v = static_cast<double>(bytes);
  int u = 0;
  while (v >= 1024 && u < 4) {
    v /= 1024;
    ++u;
  }
  char buf[32];
  if (u == 0) std::snprintf(buf, sizeof buf, "%llu B", static_cast<unsigned long long>(bytes));
  else std::snprintf(buf, sizeof buf, "%.1f %s", v, units[u]);
  return buf;
}

DiskCache::DiskCache(DiskCacheOptions options)
    : options_(std::move(options)), s3_(MakeS3Source(options_.s3)), files_(MakeFileSource()) {}

DiskCache::~DiskCache() = default;

StatusOr<std::unique_ptr<DiskCache>> DiskCache::Open(DiskCacheOptions options) {
  if (options.dir.empty()) return InvalidArgument("no cache directory given");
  while (options.dir.size() > 1 && options.dir.back() == '/') options.dir.pop_back();
  TFHOST_RETURN_IF_ERROR(CreateDirectories(options.dir).WithContext("cache directory"));
  for (const char* sub : {"/data", "/tmp", "/locks"}) TFHOST_RETURN_IF_ERROR(MakeDir(options.dir + sub));
  std::unique_ptr<DiskCache> cache(new DiskCache(std::move(options)));
  // Record a new size limit (and create the index) now, so status shows it.
  TFHOST_RETURN_IF_ERROR(cache->WithIndex([&](Index* index) {
    if (cache->options_.max_bytes > 0 && index->max_bytes != cache->options_.max_bytes) {
      index->max_bytes = cache->options_.max_bytes;
      cache->EvictOver(index, "");
      return true;
    }
    return index->max_bytes == 0 ? (index->max_bytes = kDefaultMaxBytes, true) : false;
  }));
  cache->CleanStaleParts();
  return cache;
}

ObjectSource* DiskCache::SourceFor(const std::string& uri) { return IsS3Uri(uri) ? s3_.get() : files_.get(); }

bool DiskCache::IsTFRecord(const std::string& uri) const {
  switch (options_.tfrecord_check) {
    case TFRecordCheck::kAlways: return true;
    case TFRecordCheck::kNever: return false;
    case TFRecordCheck::kAuto: break;
  }
  std::string lower = uri;
  std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return std::tolower(c); });
  size_t slash = lower.find_last_of('/');
  std::string base = slash == std::string::npos ? lower : lower.substr(slash + 1);
  auto ends = [&](const char* s) {
    size_t n = std::strlen(s);
    return base.size() >= n && base.compare(base.size() - n, n, s) == 0;
  };
  return base.find("tfrecord") != std::string::npos || ends(".tfr") || ends(".tfr.gz");
}

template <typename Fn>
Status DiskCache::WithIndex(Fn&& fn) {
  TFHOST_ASSIGN_OR_RETURN(FileLock lock, FileLock::Acquire(options_.dir + "/lock"));
  Index index;
  TFHOST_RETURN_IF_ERROR(LoadIndex(&index));
  if (fn(&index)) TFHOST_RETURN_IF_ERROR(SaveIndex(index));
  return OkStatus();
}

Status DiskCache::LoadIndex(Index* index) {
  std::string path = options_.dir + "/index.json";
  std::string text;
  Status s = ReadFile(path, &text, kMaxIndexBytes);
  if (s.code() == StatusCode::kNotFound) return OkStatus();
  TFHOST_RETURN_IF_ERROR(s);
  rapidjson::Document d;
  d.Parse(text.data(), text.size());
  // A damaged index cannot be trusted to describe data/: start empty (the
  // files it described are unreachable and get removed by evict --all).
  if (d.HasParseError() || !d.IsObject()) return OkStatus();
  auto u64 = [](const rapidjson::Value& o, const char* k) -> uint64_t {
    auto it = o.FindMember(k);
    return it != o.MemberEnd() && it->value.IsUint64() ? it->value.GetUint64() : 0;
  };
  auto str = [](const rapidjson::Value& o, const char* k) -> std::string {
    auto it = o.FindMember(k);
    return it != o.MemberEnd() && it->value.IsString() ? std::string(it->value.GetString(), it->value.GetStringLength())
                                                       : std::string();
  };
  index->max_bytes = u64(d, "max_bytes");
  index->clock = u64(d, "clock");
  auto st = d.FindMember("stats");
  if (st != d.MemberEnd() && st->value.IsObject()) {
    const auto& o = st->value;
    index->stats.hits = u64(o, "hits");
    index->stats.misses = u64(o, "misses");
    index->stats.downloads = u64(o, "downloads");
    index->stats.bytes_downloaded = u64(o, "bytes_downloaded");
    index->stats.evictions = u64(o, "evictions");
    index->stats.integrity_failures = u64(o, "integrity_failures");
    index->stats.failed_fetches = u64(o, "failed_fetches");
    index->stats.resumed_downloads = u64(o, "resumed_downloads");
  }
  auto es = d.FindMember("entries");
  if (es != d.MemberEnd() && es->value.IsArray()) {
    for (const auto& e : es->value.GetArray()) {
      if (!e.IsObject()) continue;
      CacheEntry c;
      c.uri = str(e, "uri");
      c.file = str(e, "file");
      // Only names this code makes are accepted: a file name from the index
      // is joined to data/ and must not escape it.
      if (c.uri.empty() || c.file != CacheFileName(c.uri)) continue;
      c.size = u64(e, "size");
      c.etag = str(e, "etag");
      c.crc32c = static_cast<uint32_t>(u64(e, "crc32c"));
      c.last_used = u64(e, "last_used");
      c.hits = u64(e, "hits");
      index->entries[c.uri] = std::move(c);
    }
  }
  return OkStatus();
}

Status DiskCache::SaveIndex(const Index& index) {
  rapidjson::StringBuffer buf;
  rapidjson::Writer<rapidjson::StringBuffer> w(buf);
  w.StartObject();
  w.Key("version");
  w.Uint(1);
  w.Key("max_bytes");
  w.Uint64(index.max_bytes);
  w.Key("clock");
  w.Uint64(index.clock);
  w.Key("stats");
  w.StartObject();
  const CacheStats& s = index.stats;
  for (auto [k, v] : {std::pair{"hits", s.hits}, {"misses", s.misses}, {"downloads", s.downloads},
                      {"bytes_downloaded", s.bytes_downloaded}, {"evictions", s.evictions},
                      {"integrity_failures", s.integrity_failures}, {"failed_fetches", s.failed_fetches},
                      {"resumed_downloads", s.resumed_downloads}}) {
    w.Key(k);
    w.Uint64(v);
  }
  w.EndObject();
  w.Key("entries");
  w.StartArray();
  for (const auto& [uri, e] : index.entries) {
    w.StartObject();
    w.Key("uri");
    w.String(e.uri.c_str(), static_cast<rapidjson::SizeType>(e.uri.size()));
    w.Key("file");
    w.String(e.file.c_str(), static_cast<rapidjson::SizeType>(e.file.size()));
    w.Key("size");
    w.Uint64(e.size);
    w.Key("etag");
    w.String(e.etag.c_str(), static_cast<rapidjson::SizeType>(e.etag.size()));
    w.Key("crc32c");
    w.Uint(e.crc32c);
    w.Key("last_used");
    w.Uint64(e.last_used);
    w.Key("hits");
    w.Uint64(e.hits);
    w.EndObject();
  }
  w.EndArray();
  w.EndObject();
  std::string tmp = options_.dir + "/index.json.tmp." + std::to_string(::getpid());
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return Internal("cannot write " + tmp + ": " + Errno());
  const char* p = buf.GetString();
  size_t n = buf.GetSize();
  while (n > 0) {
    ssize_t wr = ::write(fd, p, n);
    if (wr < 0) {
      if (errno == EINTR) continue;
      std::string e = Errno();
      ::close(fd);
      ::unlink(tmp.c_str());
      return Internal("cannot write " + tmp + ": " + e);
    }
    p += wr;
    n -= static_cast<size_t>(wr);
  }
  if (::fsync(fd) != 0 || ::close(fd) != 0) {
    ::unlink(tmp.c_str());
    return Internal("cannot write " + tmp + ": " + Errno());
  }
  if (::rename(tmp.c_str(), (options_.dir + "/index.json").c_str()) != 0) {
    ::unlink(tmp.c_str());
    return Internal("cannot rename " + tmp + ": " + Errno());
  }
  FsyncDir(options_.dir);
  return OkStatus();
}

void DiskCache::EvictOver(Index* index, const std::string& keep_uri) {
  uint64_t total = 0;
  for (const auto& [u, e] : index->entries) total += e.size;
  if (total <= index->max_bytes) return;
  std::vector<const CacheEntry*> order;
  for (const auto& [u, e] : index->entries) order.push_back(&e);
  std::sort(order.begin(), order.end(), [](const CacheEntry* a, const CacheEntry* b) { return a->last_used < b->last_used; });
  std::vector<std::string> victims;
  for (const CacheEntry* e : order) {
    if (total <= index->max_bytes) break;
    if (e->uri == keep_uri) continue;
    // Skip objects another thread or process is checking or fetching right now.
    auto lock = FileLock::Acquire(options_.dir + "/locks/" + e->file, /*block=*/false);
    if (!lock.ok()) continue;
    ::unlink((options_.dir + "/data/" + e->file).c_str());
    total -= e->size;
    victims.push_back(e->uri);
  }
  for (const std::string& v : victims) index->entries.erase(v);
  index->stats.evictions += victims.size();
}

void DiskCache::CleanStaleParts() {
  DIR* d = ::opendir((options_.dir + "/tmp").c_str());
  if (!d) return;
  std::vector<std::string> dead;
  while (dirent* e = ::readdir(d)) {
    std::string n = e->d_name;
    // <name>.<pid>.<n>.part
    if (n.size() < 6 || n.compare(n.size() - 5, 5, ".part") != 0) continue;
    std::string stem = n.substr(0, n.size() - 5);
    size_t dot2 = stem.find_last_of('.');
    if (dot2 == std::string::npos) continue;
    size_t dot1 = stem.find_last_of('.', dot2 - 1);
    if (dot1 == std::string::npos) continue;
    long pid = std::strtol(stem.substr(dot1 + 1, dot2 - dot1 - 1).c_str(), nullptr, 10);
    if (pid > 0 && ::kill(static_cast<pid_t>(pid), 0) != 0 && errno == ESRCH) dead.push_back(n);
  }
  ::closedir(d);
  for (const std::string& n : dead) ::unlink((options_.dir + "/tmp/" + n).c_str());
}

StatusOr<CachedObject> DiskCache::Get(const std::string& uri, std::string* bytes) {
  if (uri.empty()) return InvalidArgument("empty URI");
  const std::string name = CacheFileName(uri);
  const std::string path = options_.dir + "/data/" + name;
  TFHOST_ASSIGN_OR_RETURN(FileLock object_lock, FileLock::Acquire(options_.dir + "/locks/" + name));

  std::optional<CacheEntry> entry;
  TFHOST_RETURN_IF_ERROR(WithIndex([&](Index* index) {
    auto it = index->entries.find(uri);
    if (it != index->entries.end()) entry = it->second;
    return false;
  }));

  if (entry) {
    // 1. Is the local copy intact?
    std::string why;
    if (options_.verify_on_use || bytes) {
      uint64_t size = 0;
      uint32_t crc = 0;
      Status s;
      if (bytes) {
        s = ReadFile(path, bytes, entry->size);
        size = bytes->size();
        crc = crc32c::Value(bytes->data(), bytes->size());
      } else {
        s = FileCrc(path, &size, &crc);
      }
      if (!s.ok()) why = s.message();
      else if (size != entry->size) why = "size " + std::to_string(size) + ", expected " + std::to_string(entry->size);
      else if (options_.verify_on_use && crc != entry->crc32c) why = "CRC-32C mismatch";
    } else {
      struct stat st;
      if (::stat(path.c_str(), &st) != 0) why = "file missing";
      else if (static_cast<uint64_t>(st.st_size) != entry->size) why = "size changed";
    }
    bool integrity_failure = !why.empty();
    // 2. Is it still the source's current version?
    bool stale = false;
    if (!integrity_failure && options_.revalidate) {
      auto info = SourceFor(uri)->Stat(uri);
      if (info.ok()) {
        stale = info->size != entry->size || info->etag != entry->etag;
      } else if (info.status().code() == StatusCode::kNotFound) {
        stale = true;  // gone at the source: drop the copy, the fetch reports NOT_FOUND
      }
      // Any other error (source unreachable): the verified copy is used.
    }
    if (!integrity_failure && !stale) {
      TFHOST_RETURN_IF_ERROR(WithIndex([&](Index* index) {
        ++index->stats.hits;
        auto it = index->entries.find(uri);
        if (it != index->entries.end()) {
          it->second.last_used = ++index->clock;
          ++it->second.hits;
        }
        return true;
      }));
      return CachedObject{path, entry->size, entry->etag, true};
    }
    ::unlink(path.c_str());
    TFHOST_RETURN_IF_ERROR(WithIndex([&](Index* index) {
      index->entries.erase(uri);
      if (integrity_failure) ++index->stats.integrity_failures;
      return true;
    }));
    if (bytes) bytes->clear();
  }
  return Fetch(uri, name, bytes);
}

StatusOr<CachedObject> DiskCache::Fetch(const std::string& uri, const std::string& name, std::string* bytes) {
  uint64_t max_bytes = 0;
  TFHOST_RETURN_IF_ERROR(WithIndex([&](Index* index) {
    ++index->stats.misses;
    max_bytes = index->max_bytes;
    return true;
  }));
  auto fail = [&](Status s) -> Status {
    (void)WithIndex([&](Index* index) {
      ++index->stats.failed_fetches;
      return true;
    });
    return Status(s.code(), s.message() + " (nothing cached for " + uri + ")");
  };
  ObjectSource* source = SourceFor(uri);
  auto info = source->Stat(uri);
  if (!info.ok()) return fail(info.status());
  if (info->size > max_bytes) {
    return fail(ResourceExhausted(uri + " is " + FormatBytes(info->size) + ", more than the cache limit of " +
                                  FormatBytes(max_bytes)));
  }
  // A download cut short keeps its bytes in tmp/<name>.resume, with the
  // ETag and size it belongs to in <name>.resume.meta; the next fetch of the
  // same object (this thread holds its lock) continues it with a range
  // request when the object still has that ETag and size. The bytes are
  // verified as a whole below either way, and only then renamed into data/.
  const std::string tmp = options_.dir + "/tmp/" + name + ".resume";
  const std::string meta = tmp + ".meta";
  const std::string meta_text = info->etag + "\n" + std::to_string(info->size) + "\n";
  uint64_t offset = 0;
  {
    std::string recorded;
    struct stat st;
    if (ReadFile(meta, &recorded, 4096).ok() && recorded == meta_text && ::stat(tmp.c_str(), &st) == 0 &&
        static_cast<uint64_t>(st.st_size) < info->size) {
      offset = static_cast<uint64_t>(st.st_size);
    }
  }
  int fd = -1;
  if (offset > 0) {
    fd = ::open(tmp.c_str(), O_RDWR | O_CLOEXEC);
    if (fd >= 0 && ::lseek(fd, static_cast<off_t>(offset), SEEK_SET) != static_cast<off_t>(offset)) {
      ::close(fd);
      fd = -1;
    }
  }
  if (fd < 0) {
    offset = 0;
    ::unlink(meta.c_str());
    fd = ::open(tmp.c_str(), O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) return fail(Internal("cannot create " + tmp + ": " + Errno()));
    int mfd = ::open(meta.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (mfd >= 0) {
      (void)!::write(mfd, meta_text.data(), meta_text.size());
      ::close(mfd);
    }
  }
  auto drop = [&](Status s) {
    if (fd >= 0) ::close(fd);
    ::unlink(tmp.c_str());
    ::unlink(meta.c_str());
    return fail(std::move(s));
  };
  auto file_size = [&]() -> uint64_t {
    struct stat st;
    return ::fstat(fd, &st) == 0 ? static_cast<uint64_t>(st.st_size) : 0;
  };
  const uint64_t resumed_from = offset;
  StatusOr<ObjectInfo> got = Unavailable("no attempt");
  bool restarted = false;
  for (int attempt = 0;; ++attempt) {
    got = offset > 0 ? source->FetchFrom(uri, fd, offset, info->etag) : source->Fetch(uri, fd);
    if (got.ok()) break;
    if (got.status().code() == StatusCode::kFailedPrecondition && offset > 0 && !restarted) {
      // Changed since the first part: start over (once).
      restarted = true;
      if (::ftruncate(fd, 0) != 0 || ::lseek(fd, 0, SEEK_SET) != 0) return drop(Internal("rewind " + tmp + ": " + Errno()));
      offset = 0;
      continue;
    }
    // A transfer that made progress before failing continues from there.
    uint64_t now = file_size();
    if (got.status().code() != StatusCode::kUnavailable || now <= offset || attempt + 1 >= kResumeAttempts) break;
    offset = now;
  }
  if (!got.ok()) {
    uint64_t kept = file_size();
    if (got.status().code() == StatusCode::kUnavailable && kept > 0 && kept < info->size) {
      ::fsync(fd);
      ::close(fd);
      fd = -1;
      return fail(Status(got.status().code(), got.status().message() + "; " + std::to_string(kept) +
                                                 " bytes kept to resume from"));
    }
    return drop(got.status());
  }
  if (resumed_from > 0) {
    (void)WithIndex([&](Index* index) {
      ++index->stats.resumed_downloads;
      return true;
    });
  }
  if (got->size > max_bytes) return drop(ResourceExhausted(uri + " grew beyond the cache limit while downloading"));
  if (::fsync(fd) != 0) return drop(Internal("fsync " + tmp + ": " + Errno()));
  ::close(fd);
  fd = -1;
  uint64_t size = 0;
  uint32_t crc = 0;
  Status s = FileCrc(tmp, &size, &crc);
  if (!s.ok()) return drop(s);
  if (size != got->size) {
    return drop(DataLoss(tmp + ": holds " + std::to_string(size) + " bytes, received " + std::to_string(got->size)));
  }
  if (IsTFRecord(uri)) {
    TFRecordReaderOptions ro;
    auto reader = TFRecordReader::Open(tmp, ro);
    if (!reader.ok()) return drop(reader.status());
    std::string_view rec;
    while (true) {
      auto r = (*reader)->ReadView(&rec);
      if (!r.ok()) {
        return drop(DataLoss("downloaded " + uri + " is not a valid TFRecord file: " + r.status().message()));
      }
      if (!*r) break;
    }
  }
  const std::string path = options_.dir + "/data/" + name;
  if (::rename(tmp.c_str(), path.c_str()) != 0) return drop(Internal("rename " + tmp + ": " + Errno()));
  ::unlink(meta.c_str());
  FsyncDir(options_.dir + "/data");
  TFHOST_RETURN_IF_ERROR(WithIndex([&](Index* index) {
    CacheEntry e;
    e.uri = uri;
    e.file = name;
    e.size = size;
    e.etag = got->etag;
    e.crc32c = crc;
    e.last_used = ++index->clock;
    index->entries[uri] = e;
    ++index->stats.downloads;
    index->stats.bytes_downloaded += size;
    EvictOver(index, uri);
    return true;
  }));
  if (bytes) TFHOST_RETURN_IF_ERROR(ReadFile(path, bytes, size));
  return CachedObject{path, size, got->etag, false};
}

StatusOr<std::vector<ObjectInfo>> DiskCache::Expand(const std::string& uri) {
  ObjectSource* source = SourceFor(uri);
  bool prefix = !uri.empty() && uri.back() == '/';
  if (IsS3Uri(uri)) {
    std::string bucket, key;
    TFHOST_RETURN_IF_ERROR(ParseS3Uri(uri, &bucket, &key));
    if (key.empty()) prefix = true;
  } else {
    struct stat st;
    if (::stat(uri.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) prefix = true;
  }
  if (prefix) {
    TFHOST_ASSIGN_OR_RETURN(auto objects, source->List(uri));
    if (objects.empty()) return NotFound("no objects under " + uri);
    return objects;
  }
  TFHOST_ASSIGN_OR_RETURN(ObjectInfo info, source->Stat(uri));
  return std::vector<ObjectInfo>{info};
}

Status DiskCache::Evict(const std::string& uri) {
  const std::string name = CacheFileName(uri);
  TFHOST_ASSIGN_OR_RETURN(FileLock object_lock, FileLock::Acquire(options_.dir + "/locks/" + name));
  bool found = false;
  TFHOST_RETURN_IF_ERROR(WithIndex([&](Index* index) {
    auto it = index->entries.find(uri);
    if (it == index->entries.end()) return false;
    ::unlink((options_.dir + "/data/" + it->second.file).c_str());
    index->entries.erase(it);
    ++index->stats.evictions;
    found = true;
    return true;
  }));
  if (!found) return NotFound(uri + " is not cached in " + options_.dir);
  return OkStatus();
}

Status DiskCache::EvictAll() {
  return WithIndex([&](Index* index) {
    index->stats.evictions += index->entries.size();
    index->entries.clear();
    // Every file under data/, also those a damaged index lost track of.
    if (DIR* d = ::opendir((options_.dir + "/data").c_str())) {
      std::vector<std::string> names;
      while (dirent* e = ::readdir(d)) {
        std::string n = e->d_name;
        if (n != "." && n != "..") names.push_back(n);
      }
      ::closedir(d);
      for (const std::string& n : names) ::unlink((options_.dir + "/data/" + n).c_str());
    }
    // Partial downloads kept for resuming, unless their object is being
    // fetched right now.
    if (DIR* d = ::opendir((options_.dir + "/tmp").c_str())) {
      std::vector<std::string> names;
      while (dirent* e = ::readdir(d)) {
        std::string n = e->d_name;
        if (n.size() > 7 && n.compare(n.size() - 7, 7, ".resume") == 0) names.push_back(n.substr(0, n.size() - 7));
      }
      ::closedir(d);
      for (const std::string& n : names) {
        auto lock = FileLock::Acquire(options_.dir + "/locks/" + n, /*block=*/false);
        if (!lock.ok()) continue;
        ::unlink((options_.dir + "/tmp/" + n + ".resume").c_str());
        ::unlink((options_.dir + "/tmp/" + n + ".resume.meta").c_str());
      }
    }
    return true;
  });
}

StatusOr<std::vector<CacheEntry>> DiskCache::Entries() {
  std::vector<CacheEntry> out;
  TFHOST_RETURN_IF_ERROR(WithIndex([&](Index* index) {
    for (const auto& [u, e] : index->entries) out.push_back(e);
    return false;
  }));
  std::sort(out.begin(), out.end(), [](const CacheEntry& a, const CacheEntry& b) { return a.last_used < b.last_used; });
  return out;
}

StatusOr<CacheStats> DiskCache::Stats() {
  CacheStats s;
  TFHOST_RETURN_IF_ERROR(WithIndex([&](Index* index) {
    s = index->stats;
    s.max_bytes = index->max_bytes;
    s.entries = index->entries.size();
    s.bytes = 0;
    for (const auto& [u, e] : index->entries) s.bytes += e.size;
    return false;
  }));
  return s;
}

}  // namespace tfhost::data::cache
