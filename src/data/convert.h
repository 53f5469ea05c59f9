// `tfhost data convert`: CSV and JSON Lines into sharded TFRecords of
// Examples (or SequenceExamples from JSON Lines), and TFRecords back into
// JSON Lines or CSV. See example_json.h and csv.h for the value rules that
// make the round trips lossless.
//
// Sharded outputs are named PREFIX-00000-of-0000N (docs/formats.md §4 naming),
// with ".gz" appended for GZIP shards so that gzip, zcat and tools that go by
// the name know them; record i goes to shard i mod N, so reading the shards
// round-robin gives the input order back. Missing directories above the
// outputs are created. Every output file is published atomically (written to
// a temporary name, fsynced, renamed), so a failed conversion leaves no
// partial output under a final name.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "base/status.h"
#include "data/example_json.h"
#include "data/tfrecord_reader.h"
#include "data/tfrecord_writer.h"

namespace tfhost::data {

enum class TextFormat { kCsv, kJsonl };

// "PREFIX-00003-of-00008", or "PREFIX-00003-of-00008.gz" for kGzip. ZLIB
// shards keep the bare name: no suffix is agreed on for raw zlib streams, and
// readers tell them by their header (DetectCompression).
std::string ShardName(const std::string& prefix, int index, int count, Compression compression = Compression::kNone);

// Text format from a file name's extension (.csv; .jsonl/.ndjson/.json), or
// nullopt.
std::optional<TextFormat> TextFormatForPath(const std::string& path);

struct ConvertStats {
  int64_t records = 0;
  std::vector<std::string> outputs;
  // Lossy conversions the user asked for (csv.h's CsvKinds::warnings); the
  // command prints them on stderr.
  std::vector<std::string> warnings;
};

using ProgressFn = std::function<void(int64_t records)>;

struct ToTFRecordOptions {
  int shards = 1;
  Compression compression = Compression::kNone;
  const KindSchema* schema = nullptr;  // optional name -> kind
  ProgressFn progress;                 // called now and then with records so far
};

// Converts CSV / JSON Lines `inputs` (format from each extension) into
// shards under `prefix`.
StatusOr<ConvertStats> ConvertToTFRecords(const std::vector<std::string>& inputs, const std::string& prefix,
                                          const ToTFRecordOptions& options);

struct FromTFRecordOptions {
  TFRecordReaderOptions reader;
  ProgressFn progress;
};

// Converts TFRecord `inputs` into one text file `out` in `format`. For CSV it
// also writes `out`.schema.json (name -> kind), which `convert --schema`
// takes to read the CSV back with the same kinds.
StatusOr<ConvertStats> ConvertFromTFRecords(const std::vector<std::string>& inputs, const std::string& out,
                                            TextFormat format, const FromTFRecordOptions& options);

}  // namespace tfhost::data
