// Batch prediction: runs a model's signature over every record of a set of
// TFRecord / JSON Lines files and writes one output Example per record, in
// input order, to one output shard per work unit (work_plan.h).
//
// Threads: a reader thread reads records into batches of `batch_size`,
// `parse_threads` workers turn batches into input tensors (feed.h), the
// calling thread runs the engine on them one batch after another, and a
// writer thread turns outputs into Examples and writes them. Each hand-off is
// a bounded queue, so memory stays bounded whatever the data's size, and the
// read/parse side runs up to `prefetch_batches` batches ahead, so a fast
// input keeps the engine busy all the time. Batches may span work units;
// outputs are routed to their unit's file by the writer.
//
// Restart: a unit whose output already exists under its final name is done
// (outputs are written under a temporary name, fsynced and renamed), so a job
// killed at any point and started again with the same arguments redoes only
// the units that were not finished; stale temporaries of a killed run are
// removed first.
//
// Thread-safety: RunPredict may be called from any thread; `run` is called
// from the calling thread only, one batch at a time.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "base/status.h"
#include "base/tensor.h"
#include "data/predict/feed.h"
#include "data/predict/work_plan.h"
#include "data/tfrecord_reader.h"

namespace tfhost::data::predict {

// Runs the signature on one batch: input key -> tensor in, output key ->
// tensor out (at least the keys Feeder::output_keys names).
using RunFn = std::function<StatusOr<std::map<std::string, Tensor>>(const std::map<std::string, Tensor>&)>;

struct PredictStats;

struct PredictOptions {
  std::vector<std::string> inputs;  // files, the same list on every machine
  std::string output_prefix;
  OutputFormat output_format = OutputFormat::kTFRecord;
  Compression output_compression = Compression::kNone;  // TFRecord outputs
  ShardSpec shard;
  int batch_size = 64;
  int parse_threads = 1;
  // Prepared batches waiting for the engine at most (the read-ahead).
  int prefetch_batches = 8;
  std::optional<FeedMode> feed_mode;  // nullopt: the signature decides
  FeedOptions feed;
  // Redo units whose outputs exist (default: skip them, i.e. resume).
  bool overwrite = false;
  TFRecordReaderOptions reader;
  // fsync outputs before renaming them (off only for scratch runs).
  bool sync = true;
  // Called on the writer thread after each written batch, and once at the end.
  std::function<void(const PredictStats&)> on_progress;
};

struct PredictStats {
  FeedMode feed_mode = FeedMode::kFeatures;
  int64_t total_units = 0;     // whole job
  int64_t shard_units = 0;     // this shard's
  int64_t units_skipped = 0;   // already done before this run
  int64_t units_written = 0;
  int64_t stale_temporaries_removed = 0;
  int64_t records = 0;         // predicted in this run (written)
  int64_t batches = 0;         // engine runs
  double wall_seconds = 0;     // from the start of reading to the last output renamed
  // The engine thread's time: running batches, waiting for the next batch
  // (input not ready), waiting for room in the writer's queue.
  double engine_busy_seconds = 0;
  double engine_input_wait_seconds = 0;
  double engine_output_wait_seconds = 0;
  // The part of the input wait spent on the very first batch (the pipeline
  // filling up: unavoidable, and included in the wait above).
  double first_batch_wait_seconds = 0;
  // CPU time (user + system) of the threads around the engine: reading and
  // batching records, turning them into tensors (all parse threads), and
  // turning outputs into records and writing them. On a machine with few
  // cores this is the CPU the engine's own threads do not get.
  double reader_cpu_seconds = 0;
  double parse_cpu_seconds = 0;
  double writer_cpu_seconds = 0;
  std::vector<std::string> outputs_written;
  std::vector<std::string> outputs_skipped;

  double records_per_second() const { return wall_seconds > 0 ? records / wall_seconds : 0; }
  // Share of the engine thread's time spent running batches / waiting for input.
  double engine_busy_share() const;
  double engine_input_wait_share() const;
};

// Plans the work, then predicts every unfinished unit of this shard. An error
// stops the job; outputs finished before it stay (and a rerun skips them),
// the unfinished ones leave nothing under their final names.
StatusOr<PredictStats> RunPredict(const SignatureInfo& signature, const RunFn& run, const PredictOptions& options);

}  // namespace tfhost::data::predict
