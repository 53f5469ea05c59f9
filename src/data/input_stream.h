// Byte streams the TFRecord reader pulls from: a plain file, an in-memory
// string, and a zlib/gzip inflater on top of either (docs/formats.md §4: with ZLIB
// or GZIP the whole file is one compressed stream and the record framing lives
// inside the decompressed bytes).
//
// Streams are pull-based and single-threaded: one reader owns one stream.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "base/status.h"

namespace tfhost::data {

class InputStream {
 public:
  virtual ~InputStream() = default;
  // Reads up to `n` bytes into `buf`; returns how many, 0 only at end of
  // stream. Errors (I/O, corrupt compressed data) are DATA_LOSS/UNAVAILABLE
  // statuses that name the file.
  virtual StatusOr<size_t> Read(char* buf, size_t n) = 0;
  // Total bytes the stream will deliver when that is known up front (plain
  // files and strings), so a reader can reject a length that cannot fit
  // before allocating for it. nullopt for decompressed streams.
  virtual std::optional<uint64_t> Size() const = 0;
  // Bytes consumed from the underlying file so far (compressed bytes for an
  // inflater), for progress reporting.
  virtual uint64_t RawBytesConsumed() const = 0;
};

// Opens `path` for sequential reading. NotFound / PermissionDenied-style
// errors name the path.
StatusOr<std::unique_ptr<InputStream>> OpenFileStream(const std::string& path);

// Serves `bytes`, which the stream keeps (moved in).
std::unique_ptr<InputStream> MakeStringStream(std::string bytes);

enum class InflateFormat { kZlib, kGzip };

// 64 GiB: a 1 GiB shard of any real data decompresses to far less, while a
// file of zeros a few MiB long (deflate shrinks them ~1000x) passes it.
inline constexpr uint64_t kDefaultMaxDecompressedBytes = uint64_t{64} << 30;

// Decompresses `source`. Gzip streams may hold several concatenated members
// (as `cat a.gz b.gz` makes); they are read one after another. `name` is used
// in error messages. Past `max_output_bytes` of output (all members together;
// 0 = no limit) the stream hands out the bytes up to the limit and then fails
// with RESOURCE_EXHAUSTED naming --max_decompressed_mb: a decompression bomb
// costs at most that much inflating.
std::unique_ptr<InputStream> MakeInflateStream(std::unique_ptr<InputStream> source, InflateFormat format,
                                               std::string name,
                                               uint64_t max_output_bytes = kDefaultMaxDecompressedBytes);

}  // namespace tfhost::data
