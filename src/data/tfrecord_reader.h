// Reading TFRecord files (docs/formats.md §4): uncompressed, ZLIB or GZIP, with
// both masked CRC-32C checks on every record.
//
// Files are untrusted. Every corruption — a bad length CRC, a bad data CRC, a
// truncated last record, garbage between records, an absurd length, a corrupt
// or truncated compressed stream — becomes a DATA_LOSS status that names the
// file, the byte offset of the record's header (in the decompressed stream for
// compressed files) and the record's index. A length is trusted only after its
// CRC matches, and it is checked against the bytes left in the file (when the
// size is known) and against `max_record_bytes` before any memory is sized
// for it; compressed records grow the buffer only as bytes actually arrive.
//
// Policy kFail (the default) stops at the first corruption. kSkip counts it,
// resynchronises on the next header whose length CRC and data CRC both match,
// and carries on; skipped() lists what was skipped.
//
// Thread-safety: a reader is used by one thread at a time.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "data/input_stream.h"
#include "data/tfrecord_read_ahead.h"

namespace tfhost::data {

enum class Compression { kNone, kZlib, kGzip };

// "none" / "zlib" / "gzip".
const char* CompressionName(Compression c);
// Accepts TensorFlow's option strings ("", "ZLIB", "GZIP") and our flag
// spellings ("none", "zlib", "gzip"), case-insensitively.
StatusOr<Compression> ParseCompression(std::string_view name);

// Guesses from the first bytes of a file (`head`, up to 12 of them) and its
// name: a valid uncompressed record header wins, then the gzip magic
// (1f 8b 08), then a zlib header (CMF/FLG check), then the extension
// (.gz/.gzip, .zz/.zlib/.deflate); otherwise uncompressed.
Compression DetectCompression(std::string_view head, std::string_view path);

enum class CorruptionPolicy { kFail, kSkip };

struct TFRecordReaderOptions {
  // nullopt: detect from the file's first bytes and name.
  std::optional<Compression> compression;
  CorruptionPolicy policy = CorruptionPolicy::kFail;
  // Check the data CRC of every record (the length CRC is always checked:
  // without it a length cannot be trusted).
  bool verify_data_crc = true;
  // Records longer than this are reported as corrupt without reading them.
  uint64_t max_record_bytes = uint64_t{1} << 31;
  // Compressed files: most bytes the whole file may decompress to (0 = no
  // limit; --max_decompressed_mb). Past it reading fails with
  // RESOURCE_EXHAUSTED after the records before it (input_stream.h).
  uint64_t max_decompressed_bytes = kDefaultMaxDecompressedBytes;
  // Read size for the underlying file.
  size_t buffer_bytes = 1 << 20;
  // Uncompressed files only: map the file instead of read()ing it, so CRCs
  // run over the page cache without a copy. Off by default: if another
  // process truncates a mapped file while it is read, the process gets
  // SIGBUS, which read() would have reported as a short file.
  bool mmap = false;
  // Read the stream on a helper thread, up to `read_ahead_chunks` chunks of
  // `read_ahead_chunk_bytes` ahead of the record checks
  // (tfrecord_read_ahead.h), so read() or inflating overlaps the CRCs.
  // Records, their order and every error (file, offset, record index) are
  // exactly those of the plain path; the records before a corruption are all
  // returned first, and destroying the reader stops the helper. Costs one
  // thread and chunks x (chunk bytes + max(chunk bytes / 8, 4 KiB)) per
  // reader. The default ring (4 x 256 KiB) stays near the L2 cache; 1 MiB
  // chunks measured at half the wall throughput. Ignored when the file is
  // mapped.
  bool read_ahead = false;
  int read_ahead_chunks = 4;  // 2..64
  size_t read_ahead_chunk_bytes = 256 << 10;
};

// One corruption found in a file.
struct Corruption {
  std::string file;
  uint64_t offset = 0;       // of the record header (or garbage) in the record stream
  int64_t record_index = 0;  // index the next good record would have had
  uint64_t skipped_bytes = 0;
  std::string what;          // "bad length CRC", "truncated record", ...

  // "<file>: corrupt TFRecord at byte offset N (record index K): <what>".
  std::string ToString() const;
};

class TFRecordReader {
 public:
  // Opens `path`. Errors: the file cannot be opened, or an unknown compression.
  static StatusOr<std::unique_ptr<TFRecordReader>> Open(const std::string& path,
                                                        const TFRecordReaderOptions& options = {});
  // Reads records from `stream` (already decompressed, or compressed with
  // `options.compression`; nullopt means none). `name` appears in messages.
  static std::unique_ptr<TFRecordReader> FromStream(std::unique_ptr<InputStream> stream, std::string name,
                                                    const TFRecordReaderOptions& options = {});

  ~TFRecordReader();
  TFRecordReader(const TFRecordReader&) = delete;
  TFRecordReader& operator=(const TFRecordReader&) = delete;

  // Reads the next record. Returns true and sets *record to a view into the
  // reader's buffer, valid until the next call; false at the clean end of
  // the file. With kFail, a corruption is returned as DATA_LOSS and every
  // later call returns the same status.
  StatusOr<bool> ReadView(std::string_view* record);
  // Same, copying into *record (its capacity is reused).
  StatusOr<bool> Read(std::string* record);

  const std::string& name() const { return name_; }
  Compression compression() const { return compression_; }
  int64_t records_read() const { return records_read_; }
  // Offset of the next record in the record stream.
  uint64_t offset() const { return offset_; }
  // Bytes taken from the file so far (compressed bytes for compressed files).
  uint64_t raw_bytes_consumed() const;
  // Corruptions skipped under kSkip (the first kMaxListed in detail).
  int64_t corruption_count() const { return corruption_count_; }
  const std::vector<Corruption>& corruptions() const { return corruptions_; }
  static constexpr size_t kMaxListed = 1000;

 private:
  TFRecordReader(std::unique_ptr<InputStream> stream, std::string name, Compression compression,
                 const TFRecordReaderOptions& options);

  // Makes at least `n` bytes available at pos_ unless the stream ends first;
  // returns how many are available. Grows the buffer at most geometrically
  // with bytes actually read.
  StatusOr<size_t> Fill(size_t n);
  // Fill's read-ahead path: takes chunks from read_ahead_.
  StatusOr<size_t> FillFromReadAhead(size_t n);
  void Consume(size_t n);

  // Tries to read one record at pos_. kOk: *record set. kEnd: clean end.
  // kCorrupt: *corruption describes it (nothing consumed).
  enum class Outcome { kOk, kEnd, kCorrupt };
  StatusOr<Outcome> TryRecord(std::string_view* record, Corruption* corruption);
  // Whether a whole valid record starts at pos_ + at.
  StatusOr<bool> ValidRecordAt(size_t at);
  // Skip policy: drops bytes until a valid record starts (or the end).
  Status Resync(Corruption* corruption);
  void Note(Corruption corruption);

  std::unique_ptr<InputStream> stream_;
  std::string name_;
  Compression compression_;
  TFRecordReaderOptions options_;
  std::optional<uint64_t> stream_size_;

  Status MapFile(const std::string& path);

  std::unique_ptr<char[]> buf_;
  const char* base_ = nullptr;  // buf_.get(), or the mapping
  void* map_ = nullptr;
  size_t map_size_ = 0;
  size_t cap_ = 0;
  size_t pos_ = 0;  // next unread byte
  size_t end_ = 0;  // end of valid bytes
  bool eof_ = false;

  uint64_t offset_ = 0;
  int64_t records_read_ = 0;
  int64_t corruption_count_ = 0;
  std::vector<Corruption> corruptions_;
  Status sticky_error_;

  // Declared last: destroyed first, so the helper stops before the stream
  // and buffers it uses go away.
  std::unique_ptr<ReadAhead> read_ahead_;
  int current_chunk_ = -1;  // the read-ahead chunk base_ points into, if any
  uint64_t read_ahead_raw_bytes_ = 0;
};

// Reads every record of `path` (at most `max_records`; more is an error).
StatusOr<std::vector<std::string>> ReadAllRecords(const std::string& path,
                                                  const TFRecordReaderOptions& options = {},
                                                  int64_t max_records = int64_t{1} << 40);

// Appends one framed record (header, data, footer) to *out.
void AppendTFRecordFrame(std::string_view record, std::string* out);

}  // namespace tfhost::data
