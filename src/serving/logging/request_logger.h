// RequestLogger: TensorFlow Serving's request logging, configured per model
// by ModelConfig.logging_config in the model config file:
//
//   logging_config {
//     log_collector_config { type: "tfrecord" filename_prefix: "/var/log/tfhost/mnist" }
//     sampling_config { sampling_rate: 0.05 }
//   }
//
// A sampled request (each with probability sampling_rate) that succeeded is
// written as one tensorflow.serving.PredictionLog: PredictLog, ClassifyLog,
// RegressLog or MultiInferenceLog holding the request and the response, and
// log_metadata with the model spec that ran (name, version, signature), the
// sampling config and the saved-model tags ("serve"). KServe v2 infer
// requests and REST predict requests are logged as the PredictLog of the
// equivalent TensorFlow tensors (tensor_content form). Failed requests are
// not logged. Records go to a TFRecordLogCollector per model (log_collector.h:
// bounded queue, writer thread, size and age rotation, drops counted).
//
// type may be "" or "tfrecord" (TF Serving leaves the collector type to
// plug-ins; this is the one tfhost has). Two models may not share a
// filename_prefix (TF Serving refuses that too).
//
// Metrics: :tfhost:serving:request_log_records {model_name, outcome} with
// outcome "written" (in published files), "dropped_queue_full" and
// "dropped_write_error".
//
// Thread-safety: Sample and the Log* calls may run on many threads at once,
// also while Update swaps the configuration (a request keeps the log it
// sampled; a removed model's collector publishes its queue when the last
// request holding it is done).
#pragma once

#include <atomic>
#include <chrono>
#include <map>
#include <memory>
#include <shared_mutex>
#include <string>

#include "base/status.h"
#include "serving/logging/log_collector.h"
#include "serving/metrics/metrics_registry.h"
#include "serving/model_manager/model_config.h"
#include "serving/servable/inference.h"
#include "tensorflow_serving/apis/classification.pb.h"
#include "tensorflow_serving/apis/inference.pb.h"
#include "tensorflow_serving/apis/predict.pb.h"
#include "tensorflow_serving/apis/prediction_log.pb.h"
#include "tensorflow_serving/apis/regression.pb.h"

namespace tfhost::serving::logging {

struct RequestLoggerOptions {
  // Rotation and queue bounds of every model's collector (LogCollectorOptions).
  uint64_t max_file_bytes = uint64_t{128} << 20;
  std::chrono::milliseconds max_file_age = std::chrono::seconds(60);
  size_t max_queued_records = 4096;
  size_t max_queued_bytes = size_t{64} << 20;
};

// The log of one model; obtained per request from RequestLogger::Sample.
class ModelRequestLog {
 public:
  ModelRequestLog(std::string model_name, const tensorflow::serving::LoggingConfig& config,
                  std::shared_ptr<TFRecordLogCollector> collector);

  // Each queues one record; `response`'s model_spec names the version that
  // ran. Never blocks on I/O and never fails the request.
  void LogPredict(const tensorflow::serving::PredictRequest& request,
                  const tensorflow::serving::PredictResponse& response) const;
  void LogClassify(const tensorflow::serving::ClassificationRequest& request,
                   const tensorflow::serving::ClassificationResponse& response) const;
  void LogRegress(const tensorflow::serving::RegressionRequest& request,
                  const tensorflow::serving::RegressionResponse& response) const;
  void LogMultiInference(const tensorflow::serving::MultiInferenceRequest& request,
                         const tensorflow::serving::MultiInferenceResponse& response) const;

  // For tensor-level predicts (REST, KServe v2), whose inputs are moved
  // into the run: CaptureRequest copies them into a PredictRequest first;
  // LogTensorResult completes it with the outputs and queues it.
  std::unique_ptr<tensorflow::serving::PredictRequest> CaptureRequest(const std::string& signature_name,
                                                                      const TensorMap& inputs) const;
  void LogTensorResult(const tensorflow::serving::PredictRequest& request, const std::string& model_name,
                       int64_t version, const std::string& signature_name, const TensorMap& outputs) const;

  const std::string& model_name() const { return model_name_; }
  double sampling_rate() const { return sampling_rate_; }
  TFRecordLogCollector& collector() const { return *collector_; }
  const std::shared_ptr<TFRecordLogCollector>& shared_collector() const { return collector_; }

 private:
  void Submit(tensorflow::serving::PredictionLog& log, const tensorflow::serving::ModelSpec& ran) const;

  std::string model_name_;
  double sampling_rate_;
  tensorflow::serving::LogMetadata metadata_;
  std::shared_ptr<TFRecordLogCollector> collector_;
};

// Checks every model's logging_config in `config`: collector type, a
// filename_prefix, sampling_rate in [0, 1], no prefix used twice. Errors
// name the model and the field.
Status ValidateLoggingConfigs(const ModelServerConfig& config);

class RequestLogger {
 public:
  // `registry` (not owned) receives the metric family; may be null.
  RequestLogger(MetricsRegistry* registry, RequestLoggerOptions options);
  ~RequestLogger();

  // Applies the logging configs of `config`. Validates first: an invalid
  // config changes nothing. A model whose collector config is unchanged
  // keeps its collector (and its open file); a removed model's collector
  // publishes what it holds.
  Status Update(const ModelServerConfig& config);

  // The model's log when this request is to be logged, else null. Cheap
  // when no model logs (one relaxed atomic load).
  std::shared_ptr<const ModelRequestLog> Sample(const std::string& model_name) const;

  // The model's log regardless of sampling (null when it has none).
  std::shared_ptr<const ModelRequestLog> Find(const std::string& model_name) const;

  // Publishes every model's open file (tests, shutdown).
  Status FlushAll() const;

 private:
  MetricsRegistry* registry_;
  Counter* records_ = nullptr;
  const RequestLoggerOptions options_;
  std::atomic<bool> any_{false};
  mutable std::shared_mutex mu_;
  std::map<std::string, std::shared_ptr<const ModelRequestLog>, std::less<>> logs_;
};

}  // namespace tfhost::serving::logging
