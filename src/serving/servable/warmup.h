// Model warm-up (TF Serving's --enable_model_warmup): before a version
// becomes AVAILABLE, the requests recorded in
// <version dir>/assets.extra/tf_serving_warmup_requests -- a TFRecord file of
// tensorflow.serving.PredictionLog (docs/formats.md §4, §1.11) -- are replayed
// against it, so the first real requests do not pay for lazy initialisation.
// At most kMaxWarmupRecords records are read; predict, classify, regress and
// multi_inference logs are replayed, others are an error (as in TF Serving).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "base/status.h"
#include "serving/servable/inference.h"
#include "serving/servable/servable.h"
#include "tensorflow_serving/apis/prediction_log.pb.h"

namespace tfhost::serving {

inline constexpr int kMaxWarmupRecords = 1000;
inline constexpr char kWarmupFileRelativePath[] = "assets.extra/tf_serving_warmup_requests";

// Reads an uncompressed TFRecord file with full CRC checks (DATA_LOSS naming
// the file, record index and offset on a bad length CRC, data CRC or a
// truncated record). More than `max_records` records is INVALID_ARGUMENT;
// a record longer than `max_record_bytes` is DATA_LOSS (never allocated).
StatusOr<std::vector<std::string>> ReadTfRecordFile(const std::string& path, int max_records,
                                                    uint64_t max_record_bytes = uint64_t{1} << 30);

// Writes records in the same framing (tests and tools).
Status WriteTfRecordFile(const std::string& path, const std::vector<std::string>& records);

struct WarmupResult {
  bool file_found = false;
  int records_replayed = 0;
  int64_t requests_run = 0;  // records_replayed x iterations
};

// Replays the servable's warm-up file if it has one, each record
// `num_request_iterations` times in a row before the next (TF Serving's
// ModelWarmupOptions.num_request_iterations, --num_request_iterations_for_warmup;
// < 1 counts as 1). Any failing request fails the warm-up with an error naming
// the record index, the iteration and the request.
StatusOr<WarmupResult> RunWarmup(const ServableHandle& servable, SignatureRunner& runner,
                                 const InferenceOptions& options, int num_request_iterations = 1);

}  // namespace tfhost::serving
