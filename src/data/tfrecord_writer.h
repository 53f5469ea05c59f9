// Writing TFRecord files (docs/formats.md §4), uncompressed, ZLIB or GZIP.
//
// A writer never leaves a half-written file under the final name: records go
// to a temporary file beside it (".<name>.tmp-XXXXXX"), and Close() flushes,
// finishes the compressed stream, fsyncs, renames it into place and fsyncs
// the directory. A writer destroyed without a successful Close() removes its
// temporary file, so a crashed or abandoned job leaves the old file (if any)
// untouched. Missing parent directories of the path are created first
// (base/file_util.h).
//
// Thread-safety: a writer is used by one thread at a time.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "data/tfrecord_reader.h"

namespace tfhost::data {

struct TFRecordWriterOptions {
  Compression compression = Compression::kNone;
  int compression_level = 6;  // zlib's 0..9; 6 is zlib's and TensorFlow's default
  size_t buffer_bytes = 1 << 20;
  // fsync the file and its directory on Close (off only for scratch files).
  bool sync = true;
};

class TFRecordWriter {
 public:
  static StatusOr<std::unique_ptr<TFRecordWriter>> Create(const std::string& path,
                                                          const TFRecordWriterOptions& options = {});
  ~TFRecordWriter();
  TFRecordWriter(const TFRecordWriter&) = delete;
  TFRecordWriter& operator=(const TFRecordWriter&) = delete;

  Status Write(std::string_view record);
  // Publishes the file under its final name. After Close (successful or not)
  // the writer accepts no more records.
  Status Close();

  const std::string& path() const { return path_; }
  int64_t records_written() const { return records_; }
  // Bytes of framed records (before compression).
  uint64_t bytes_written() const { return framed_bytes_; }

 private:
  TFRecordWriter(std::string path, std::string temp_path, int fd, const TFRecordWriterOptions& options);
  Status FlushBuffer(bool finish);
  Status WriteAll(const char* data, size_t n);
  void Abandon();

  std::string path_;
  std::string temp_path_;
  int fd_;
  TFRecordWriterOptions options_;
  std::string buffer_;      // framed records not yet handed to the file/deflater
  std::string compressed_;  // deflate output scratch
  struct Deflater;
  std::unique_ptr<Deflater> deflater_;
  int64_t records_ = 0;
  uint64_t framed_bytes_ = 0;
  bool closed_ = false;
  Status error_;
};

// Writes `records` to `path` in one go.
Status WriteTFRecordFile(const std::string& path, const std::vector<std::string>& records,
                         const TFRecordWriterOptions& options = {});

}  // namespace tfhost::data
