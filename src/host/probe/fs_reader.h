// FsReader: how the probe reads /sys, /proc, /etc and /dev. The real reader is
// rooted at "/"; tests root it at a snapshot folder holding the same relative
// paths (sys/class/net/eth0/speed, proc/meminfo ...), so every parser runs on
// recordings of real machines without touching this one.
//
// Thread-safety: const methods may be called concurrently.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "base/status.h"

namespace tfhost::host {

struct FsSpace {
  uint64_t total_bytes = 0;
  uint64_t free_bytes = 0;  // available to unprivileged users
};

class FsReader {
 public:
  virtual ~FsReader() = default;
  // `path` is absolute as on a live system ("/sys/class/net"); the reader maps
  // it under its root. Reads are capped (kMaxFileBytes) because some pseudo
  // files are unbounded.
  virtual StatusOr<std::string> ReadFile(const std::string& path) const = 0;
  // Entry names (not paths), sorted; NotFound when `path` is not a directory.
  virtual StatusOr<std::vector<std::string>> ListDir(const std::string& path) const = 0;
  // Target of a symlink as stored (may be relative).
  virtual StatusOr<std::string> ReadLink(const std::string& path) const = 0;
  // The canonical path (symlinks resolved) mapped back to live spelling.
  virtual StatusOr<std::string> RealPath(const std::string& path) const = 0;
  virtual bool Exists(const std::string& path) const = 0;
  // Size and free space of the filesystem holding `path` (statvfs). A snapshot
  // answers from its "statvfs.txt" (lines "MOUNTPOINT TOTAL_BYTES FREE_BYTES").
  virtual StatusOr<FsSpace> Space(const std::string& path) const = 0;
  // True when this reader sees the live machine (root "/"): only then may the
  // probe also ask the kernel directly (cpuid, getifaddrs, getrlimit).
  virtual bool live() const = 0;

  static constexpr size_t kMaxFileBytes = 4 << 20;

  // Helpers over ReadFile: first line trimmed / parsed; `fallback` on any error.
  std::string ReadTrimmed(const std::string& path, const std::string& fallback = "") const;
  int64_t ReadInt(const std::string& path, int64_t fallback = -1) const;
};

// A reader rooted at `root` ("/" for the live machine).
std::unique_ptr<FsReader> NewRootedFsReader(const std::string& root);

// Trims ASCII whitespace at both ends.
std::string Trim(const std::string& s);
// Splits on any of `seps`, dropping empty pieces.
std::vector<std::string> SplitNonEmpty(const std::string& s, const std::string& seps);

}  // namespace tfhost::host
