#include "serving/logging/request_logger.h"

#include <cmath>
#include <mutex>
#include <random>
#include <set>
#include <vector>

#include "ir/tensor_proto.h"

namespace tfhost::serving::logging {

namespace ts = tensorflow::serving;

namespace {

bool SampleOnce(double rate) {
  if (rate >= 1.0) return true;
  if (rate <= 0.0) return false;
  thread_local std::mt19937_64 rng{std::random_device{}()};
  return std::uniform_real_distribution<double>(0.0, 1.0)(rng) < rate;
}

std::string ModelWhere(const ts::ModelConfig& model) {
  return "model config \"" + model.name() + "\": logging_config.";
}

}  // namespace

ModelRequestLog::ModelRequestLog(std::string model_name, const ts::LoggingConfig& config,
                                 std::shared_ptr<TFRecordLogCollector> collector)
    : model_name_(std::move(model_name)),
      sampling_rate_(config.sampling_config().sampling_rate()),
      collector_(std::move(collector)) {
  *metadata_.mutable_sampling_config() = config.sampling_config();
  metadata_.add_saved_model_tags("serve");
}

void ModelRequestLog::Submit(ts::PredictionLog& log, const ts::ModelSpec& ran) const {
  ts::LogMetadata* metadata = log.mutable_log_metadata();
  *metadata = metadata_;
  *metadata->mutable_model_spec() = ran;
  if (metadata->model_spec().name().empty()) metadata->mutable_model_spec()->set_name(model_name_);
  collector_->Add(log.SerializeAsString());
}

void ModelRequestLog::LogPredict(const ts::PredictRequest& request, const ts::PredictResponse& response) const {
  ts::PredictionLog log;
  *log.mutable_predict_log()->mutable_request() = request;
  *log.mutable_predict_log()->mutable_response() = response;
  Submit(log, response.model_spec());
}

void ModelRequestLog::LogClassify(const ts::ClassificationRequest& request,
                                  const ts::ClassificationResponse& response) const {
  ts::PredictionLog log;
  *log.mutable_classify_log()->mutable_request() = request;
  *log.mutable_classify_log()->mutable_response() = response;
  Submit(log, response.model_spec());
}

void ModelRequestLog::LogRegress(const ts::RegressionRequest& request,
                                 const ts::RegressionResponse& response) const {
  ts::PredictionLog log;
  *log.mutable_regress_log()->mutable_request() = request;
  *log.mutable_regress_log()->mutable_response() = response;
  Submit(log, response.model_spec());
}

void ModelRequestLog::LogMultiInference(const ts::MultiInferenceRequest& request,
                                        const ts::MultiInferenceResponse& response) const {
  ts::PredictionLog log;
  *log.mutable_multi_inference_log()->mutable_request() = request;
  *log.mutable_multi_inference_log()->mutable_response() = response;
  // Every task ran on the same version (MultiInference insists); the
  // metadata names the model and that version.
  ts::ModelSpec ran;
  if (response.results_size() > 0) {
    ran = response.results(0).model_spec();
    ran.clear_signature_name();
  }
  Submit(log, ran);
}

std::unique_ptr<ts::PredictRequest> ModelRequestLog::CaptureRequest(const std::string& signature_name,
                                                                    const TensorMap& inputs) const {
  auto request = std::make_unique<ts::PredictRequest>();
  request->mutable_model_spec()->set_name(model_name_);
  request->mutable_model_spec()->set_signature_name(signature_name);
  auto& out = *request->mutable_inputs();
  for (const auto& [name, tensor] : inputs) ir::TensorToProto(tensor, &out[name]);
  return request;
}

void ModelRequestLog::LogTensorResult(const ts::PredictRequest& request, const std::string& model_name,
                                      int64_t version, const std::string& signature_name,
                                      const TensorMap& outputs) const {
  ts::PredictionLog log;
  ts::PredictLog* predict = log.mutable_predict_log();
  *predict->mutable_request() = request;
  ts::PredictResponse* response = predict->mutable_response();
  ts::ModelSpec* spec = response->mutable_model_spec();
  spec->set_name(model_name);
  spec->mutable_version()->set_value(version);
  spec->set_signature_name(signature_name);
  auto& out = *response->mutable_outputs();
  for (const auto& [name, tensor] : outputs) ir::TensorToProto(tensor, &out[name]);
  Submit(log, *spec);
}

Status ValidateLoggingConfigs(const ModelServerConfig& config) {
  std::map<std::string, std::string> prefixes;  // prefix -> model
  for (const ts::ModelConfig& model : config.model_config_list().config()) {
    if (!model.has_logging_config()) continue;
    const ts::LoggingConfig& logging = model.logging_config();
    const std::string where = ModelWhere(model);
    const std::string& type = logging.log_collector_config().type();
    if (!type.empty() && type != "tfrecord") {
      return InvalidArgument(where + "log_collector_config.type \"" + type +
                             "\" is not a log collector tfhost has (expected \"tfrecord\" or empty)");
    }
    const std::string& prefix = logging.log_collector_config().filename_prefix();
    if (prefix.empty()) {
      return InvalidArgument(where + "log_collector_config.filename_prefix is empty (expected a path prefix for "
                                     "the log files, e.g. \"/var/log/tfhost/" + model.name() + "\")");
    }
    if (prefix.back() == '/') {
      return InvalidArgument(where + "log_collector_config.filename_prefix \"" + prefix +
                             "\" ends in '/' (expected a folder followed by a file name prefix)");
    }
    const double rate = logging.sampling_config().sampling_rate();
    if (!(rate >= 0.0 && rate <= 1.0)) {
      return InvalidArgument(where + "sampling_config.sampling_rate is " + std::to_string(rate) +
                             " (expected a probability in [0, 1])");
    }
    auto [it, inserted] = prefixes.emplace(prefix, model.name());
    if (!inserted) {
      return InvalidArgument(where + "log_collector_config.filename_prefix \"" + prefix +
                             "\" is already used by model \"" + it->second +
                             "\" (expected one prefix per model)");
    }
  }
  return OkStatus();
}

RequestLogger::RequestLogger(MetricsRegistry* registry, RequestLoggerOptions options)
    : registry_(registry), options_(options) {
  if (registry_) {
    records_ = registry_->AddCounter(":tfhost:serving:request_log_records",
                                     "Request log records per model: written (in published files), "
                                     "dropped_queue_full, dropped_write_error",
                                     {"model_name", "outcome"});
  }
}

RequestLogger::~RequestLogger() {
  std::unique_lock lock(mu_);
  logs_.clear();
}

Status RequestLogger::Update(const ModelServerConfig& config) {
  TFHOST_RETURN_IF_ERROR(ValidateLoggingConfigs(config));
  std::map<std::string, std::shared_ptr<const ModelRequestLog>, std::less<>> old;
  {
    std::shared_lock lock(mu_);
    old = logs_;
  }
  std::map<std::string, std::shared_ptr<const ModelRequestLog>, std::less<>> next;
  for (const ts::ModelConfig& model : config.model_config_list().config()) {
    if (!model.has_logging_config()) continue;
    const ts::LoggingConfig& logging = model.logging_config();
    std::shared_ptr<TFRecordLogCollector> collector;
    auto it = old.find(model.name());
    if (it != old.end() &&
        it->second->collector().options().filename_prefix == logging.log_collector_config().filename_prefix()) {
      // Same files: keep the collector, its queue and its open file.
      collector = it->second->shared_collector();
    } else {
      LogCollectorOptions copts;
      copts.filename_prefix = logging.log_collector_config().filename_prefix();
      copts.max_file_bytes = options_.max_file_bytes;
      copts.max_file_age = options_.max_file_age;
      copts.max_queued_records = options_.max_queued_records;
      copts.max_queued_bytes = options_.max_queued_bytes;
      if (records_) {
        copts.written = records_->WithLabels({model.name(), "written"});
        copts.dropped_queue_full = records_->WithLabels({model.name(), "dropped_queue_full"});
        copts.dropped_write_error = records_->WithLabels({model.name(), "dropped_write_error"});
      }
      auto created = TFRecordLogCollector::Create(std::move(copts));
      if (!created.ok()) return created.status().WithContext("model config \"" + model.name() + "\"");
      collector = std::shared_ptr<TFRecordLogCollector>(std::move(*created));
    }
    next[model.name()] = std::make_shared<ModelRequestLog>(model.name(), logging, std::move(collector));
  }
  old.clear();
  {
    std::unique_lock lock(mu_);
    logs_.swap(next);
    any_.store(!logs_.empty(), std::memory_order_relaxed);
  }
  // `next` now holds the replaced logs; their collectors publish and stop
  // here unless a kept log or a request in flight still shares them.
  return OkStatus();
}

std::shared_ptr<const ModelRequestLog> RequestLogger::Find(const std::string& model_name) const {
  if (!any_.load(std::memory_order_relaxed)) return nullptr;
  std::shared_lock lock(mu_);
  auto it = logs_.find(model_name);
  return it == logs_.end() ? nullptr : it->second;
}

std::shared_ptr<const ModelRequestLog> RequestLogger::Sample(const std::string& model_name) const {
  auto log = Find(model_name);
  if (!log || !SampleOnce(log->sampling_rate())) return nullptr;
  return log;
}

Status RequestLogger::FlushAll() const {
  std::vector<std::shared_ptr<const ModelRequestLog>> logs;
  {
    std::shared_lock lock(mu_);
    for (const auto& [name, log] : logs_) logs.push_back(log);
  }
  Status result;
  for (const auto& log : logs) {
    Status st = log->collector().Flush();
    if (result.ok() && !st.ok()) result = st;
  }
  return result;
}

}  // namespace tfhost::serving::logging
