// Batching configuration for `tfhost serve`: TensorFlow Serving's
// BatchingParameters (--batching_parameters_file, protobuf text format) read
// and validated into plain values, plus tfhost's adaptive mode
// (--batching_mode=adaptive --target_latency_ms=N).
//
// Defaults are TF Serving's for an omitted field: max_batch_size 1000,
// batch_timeout_micros 0, max_enqueued_batches 10, num_batch_threads = the
// number of CPUs, thread_pool_name "model_server_batch_threads".
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "base/status.h"

namespace tfhost::serving::batching {

enum class BatchingMode {
  kFixed,     // TF Serving's scheduler, driven only by the parameters file
  kAdaptive,  // timeout and batch size chosen from measured load (adaptive_policy.h)
};

// "fixed" / "adaptive"; anything else is an error naming the allowed values.
StatusOr<BatchingMode> ParseBatchingMode(const std::string& text);
const char* BatchingModeName(BatchingMode mode);

struct BatchingConfig {
  // Largest task (request rows) accepted; also the batch size unless large
  // batch splitting is on.
  int64_t max_batch_size = 1000;
  int64_t batch_timeout_micros = 0;
  // Bound on batches waiting in one queue (the open one included); a task
  // that would need one more gets UNAVAILABLE at once.
  int64_t max_enqueued_batches = 10;
  int64_t num_batch_threads = 1;  // set to the CPU count by DefaultBatchingConfig()
  std::string thread_pool_name = "model_server_batch_threads";
  // Batches are padded up to the next entry (empty: no padding).
  std::vector<int64_t> allowed_batch_sizes;
  // Pad every dim but 0 to the batch's maximum, so requests of different
  // lengths can share a batch.
  bool pad_variable_length_inputs = false;
  // Split a task over several batches of at most max_execution_batch_size.
  bool enable_large_batch_splitting = false;
  int64_t max_execution_batch_size = 0;  // 0: max_batch_size

  // Newer TF Serving fields. TF Serving's REST and gRPC APIs carry no request
  // priority, so every request is high priority there and here: the
  // low-priority queue these configure is never used. They are accepted,
  // validated as TF Serving validates them, and shown by DebugString, so
  // that a TF Serving parameters file works unchanged. 0 / empty = unset.
  int64_t low_priority_max_batch_size = 0;
  int64_t low_priority_batch_timeout_micros = 0;
  int64_t low_priority_max_enqueued_batches = 0;
  std::vector<int64_t> low_priority_allowed_batch_sizes;
  std::string mixed_priority_batching_policy = "LOW_PRIORITY_PADDING_WITH_MAX_BATCH_SIZE";
  // What a batch whose size is not in allowed_batch_sizes becomes: only
  // "PAD_UP" (padded to the next allowed size, TF Serving's default) is
  // honoured; see ValidateBatchingConfig for the others.
  std::string batch_padding_policy = "PAD_UP";

  BatchingMode mode = BatchingMode::kFixed;
  double target_latency_ms = 0;  // adaptive mode only; must be > 0 there

  // The largest batch the model is ever run with (before padding rounds it
  // up, which allowed_batch_sizes' last entry caps at this value).
  int64_t ExecutionBatchSize() const {
    return enable_large_batch_splitting && max_execution_batch_size > 0 ? max_execution_batch_size
                                                                        : max_batch_size;
  }
  std::string DebugString() const;
};

// TF Serving's defaults, with num_batch_threads = the number of CPUs.
BatchingConfig DefaultBatchingConfig();

// Checks the rules TF Serving enforces (and a few bounds of ours); errors name
// `source` (a file name) and the field, and say what was expected.
Status ValidateBatchingConfig(const BatchingConfig& config, const std::string& source);

// Parses BatchingParameters text (comments allowed) over the defaults and
// validates it. Unknown fields and syntax errors report line and column.
// Besides the fields of our session_bundle_config.proto it reads TF Serving's
// newer ones: low_priority_max_batch_size, low_priority_batch_timeout_micros,
// low_priority_max_enqueued_batches (Int64Value), low_priority_allowed_batch_sizes
// (repeated int64), mixed_priority_batching_policy (enum
// LOW_PRIORITY_PADDING_WITH_MAX_BATCH_SIZE, LOW_PRIORITY_PADDING_WITH_NEXT_ALLOWED_BATCH_SIZE,
// PRIORITY_ISOLATION, PRIORITY_MERGE) and batch_padding_policy (StringValue).
StatusOr<BatchingConfig> ParseBatchingParameters(const std::string& text, const std::string& source);
StatusOr<BatchingConfig> LoadBatchingParametersFile(const std::string& path);

// The smallest allowed size >= rows; `rows` itself when the list is empty or
// rows exceeds its last entry.
int64_t RoundUpToAllowedBatchSize(const std::vector<int64_t>& allowed, int64_t rows);

}  // namespace tfhost::serving::batching
