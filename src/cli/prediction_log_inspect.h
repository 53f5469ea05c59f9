// `tfhost data inspect` / `data head` for TFRecord files of
// tensorflow.serving.PredictionLog: the request logs `tfhost serve` writes
// (serving/logging/request_logger.h) and TF Serving's warm-up files
// (assets.extra/tf_serving_warmup_requests). Without this those records are
// taken for tf.train.Examples and shown as nonsense features.
//
// Detection looks at one record: it is a PredictionLog when it parses as one,
// has a log type set, and carries no field PredictionLog does not define at
// any depth (an Example or SequenceExample always does).
//
// Thread-safety: a summary is used by one thread.
#pragma once

#include <cstdint>
#include <map>
#include <ostream>
#include <string>
#include <string_view>
#include <tuple>

#include "base/status.h"

namespace tfhost::cli {

bool LooksLikePredictionLog(std::string_view record);

// The PredictionLog as one line of protobuf JSON; an error names the record.
StatusOr<std::string> PredictionLogToJson(std::string_view record, int64_t index);

class PredictionLogSummary {
 public:
  // Adds one record; a record that is not a PredictionLog is DATA_LOSS
  // naming its index.
  Status Add(std::string_view record, int64_t index);

  int64_t records() const { return records_; }
  // Tables: records per log type, then per (model, version, signature) with
  // the request's input names.
  void Print(std::ostream& out) const;
  // {"kind":"prediction_log","log_types":{...},"models":[{...}]}
  std::string ToJson() const;

 private:
  int64_t records_ = 0;
  std::map<std::string, int64_t> log_types_;
  struct Row {
    int64_t records = 0;
    std::string inputs;  // comma list, from the first record
  };
  std::map<std::tuple<std::string, int64_t, std::string>, Row> models_;
};

}  // namespace tfhost::cli
