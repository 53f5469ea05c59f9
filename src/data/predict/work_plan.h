// Batch prediction (`tfhost predict`): how a job's input files become output
// shards ("work units"), how `--shard i/n` gives each of n machines its own
// units, and how a restarted job finds the units that are already done.
//
// Units are numbered over the whole job, the same on every machine, so the
// union of every machine's outputs is PREFIX-00000-of-U ... PREFIX-(U-1)-of-U:
//   * n == 1 or at least n input files: one unit per input file; file k
//     belongs to shard k mod n.
//   * fewer input files than shards (one big file on ten machines): the
//     records are split instead — unit f*n + i holds the records r of file f
//     with r mod n == i, and belongs to shard i.
// An output exists under its final name only once it is complete (temporary
// name, fsync, rename), so "the output file exists" means "the unit is done".
//
// Thread-safety: plain values and functions.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "data/tfrecord_reader.h"

namespace tfhost::data::predict {

enum class InputFormat { kTFRecord, kJsonl };
enum class OutputFormat { kTFRecord, kJsonl };

// ".jsonl", ".ndjson", ".json" -> JSON Lines; anything else is TFRecord.
InputFormat DetectInputFormat(std::string_view path);
const char* OutputFormatName(OutputFormat format);  // "tfrecord" / "jsonl"
StatusOr<OutputFormat> ParseOutputFormat(std::string_view name);

// `--shard i/n`: this machine is `index` of `count`.
struct ShardSpec {
  int64_t index = 0;
  int64_t count = 1;
};
// "3/10" -> {3, 10}; 0 <= i < n required. The error names the text.
StatusOr<ShardSpec> ParseShardSpec(std::string_view text);

struct WorkUnit {
  int64_t unit = 0;  // job-wide number, as in the output name
  std::string input;
  InputFormat input_format = InputFormat::kTFRecord;
  // The unit holds the records r of `input` with r mod record_modulo ==
  // record_remainder (1 and 0: every record).
  int64_t record_modulo = 1;
  int64_t record_remainder = 0;
  std::string output;  // final path
};

struct WorkPlan {
  int64_t total_units = 0;     // over every shard of the job
  std::vector<WorkUnit> units;  // this shard's, in job order
};

// `inputs` must list the same files in the same order on every machine (the
// CLI sorts expanded globs); a file named twice is an error, since its
// records would be predicted twice.
// `compression` is that of TFRecord outputs (ignored for JSON Lines); it
// changes the names, see OutputPath.
StatusOr<WorkPlan> PlanWork(const std::vector<std::string>& inputs, const ShardSpec& shard,
                            const std::string& output_prefix, OutputFormat format,
                            Compression compression = Compression::kNone);

// "PREFIX-00003-of-00010", with ".jsonl" appended for JSON Lines and ".gz"
// for GZIP TFRecords (as `data convert` names its shards, data::ShardName;
// ZLIB outputs keep the bare name).
std::string OutputPath(const std::string& prefix, int64_t unit, int64_t total_units, OutputFormat format,
                       Compression compression = Compression::kNone);

// Deletes the temporary files (".<name>.tmp-XXXXXX", as the writers name
// them) that a killed run left beside `output`. Returns how many went.
// Two runs of the same shard at once would delete each other's
// temporaries; a job runs each shard once at a time.
StatusOr<int> RemoveStaleTemporaries(const std::string& output);

}  // namespace tfhost::data::predict
