// Helpers for fuzz targets whose parser reads files rather than memory: one
// scratch folder per process (made once, removed at exit), an input split
// into a primary file and an optional companion (a data shard, weights), and
// writing/removing files there so no iteration sees another's leftovers.
#pragma once

#include <stdlib.h>

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>

namespace tfhost::fuzz {

// Separates the primary file from its companion in one fuzz input. Seeds are
// built by fuzz/smoke.sh as `primary + kSplitMarker + companion`.
inline constexpr std::string_view kSplitMarker = "\n--tfhost-fuzz-split--\n";

struct SplitInput {
  std::string_view primary;
  std::string_view companion;
  bool has_companion = false;
};

inline SplitInput Split(const uint8_t* data, size_t size) {
  std::string_view all(reinterpret_cast<const char*>(data), size);
  SplitInput out;
  size_t at = all.find(kSplitMarker);
  if (at == std::string_view::npos) {
    out.primary = all;
    return out;
  }
  out.primary = all.substr(0, at);
  out.companion = all.substr(at + kSplitMarker.size());
  out.has_companion = true;
  return out;
}

// The per-process scratch folder, created on first use with mkdtemp.
inline const std::string& ScratchDir() {
  struct Dir {
    std::string path;
    Dir() {
      std::string pattern = (std::filesystem::temp_directory_path() / "tfhost-fuzz-XXXXXX").string();
      if (::mkdtemp(pattern.data()) == nullptr) {
        std::perror("mkdtemp");
        std::abort();
      }
      path = pattern;
    }
    ~Dir() {
      std::error_code ec;
      std::filesystem::remove_all(path, ec);
    }
  };
  static Dir dir;
  return dir.path;
}

// Writes `bytes` to `path`, aborting on I/O failure (a broken harness, not a
// finding in the code under test).
inline void WriteFileOrDie(const std::string& path, std::string_view bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  out.close();
  if (!out) {
    std::fprintf(stderr, "fuzz harness: cannot write %s\n", path.c_str());
    std::abort();
  }
}

// Empties the scratch folder between iterations.
inline void ClearScratchDir() {
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(ScratchDir(), ec)) {
    std::filesystem::remove_all(entry.path(), ec);
  }
}

}  // namespace tfhost::fuzz
