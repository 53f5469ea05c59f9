// ServerCore: the protocol-independent heart of `tfhost serve`. The gRPC and
// REST front ends translate their wire formats into TF Serving's request
// protos (or tensors) and call these methods; ServerCore resolves model_spec
// (name, version or version_label, signature_name) through the ModelManager,
// runs the request through the model's SignatureRunner (direct, or a batching
// scheduler plugged in per model), records metrics, and fills the response
// exactly as TF Serving would (model_spec with the resolved version and
// signature name).
//
// Error mapping matches TF Serving: unknown model / version -> NOT_FOUND
// "Servable not found for request: Latest(name)" / "Specific(name, v)";
// unknown label -> INVALID_ARGUMENT "Unrecognized servable version label: l";
// unknown signature -> FAILED_PRECONDITION 'Serving signature key "k" not
// found.' (ResolveSignature, used by REST before parsing JSON, answers
// INVALID_ARGUMENT '... not found in signature def' as TF Serving's REST
// handler does); bad inputs -> INVALID_ARGUMENT.
//
// Thread-safety: every method may be called from many threads at once.
#pragma once

#include <atomic>
#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <mutex>
#include <shared_mutex>
#include <string>
#include <thread>
#include <vector>

#include "base/status.h"
#include "serving/logging/request_logger.h"
#include "serving/metrics/device_memory_metrics.h"
#include "serving/metrics/metrics_registry.h"
#include "serving/model_manager/model_config.h"
#include "serving/model_manager/model_manager.h"
#include "serving/servable/inference.h"
#include "serving/servable/servable.h"
#include "serving/worker_pool.h"
#include "tensorflow_serving/apis/classification.pb.h"
#include "tensorflow_serving/apis/get_model_metadata.pb.h"
#include "tensorflow_serving/apis/get_model_status.pb.h"
#include "tensorflow_serving/apis/inference.pb.h"
#include "tensorflow_serving/apis/model_management.pb.h"
#include "tensorflow_serving/apis/predict.pb.h"
#include "tensorflow_serving/apis/regression.pb.h"

namespace tfhost::serving {

// Metric label for where a request came from.
enum class Entrypoint { kGrpc, kRest, kInternal };
const char* EntrypointName(Entrypoint e);  // "GRPC", "REST", "INTERNAL"

struct RequestContext {
  Entrypoint entrypoint = Entrypoint::kInternal;
  // The client's deadline (gRPC's, as TF Serving takes it), if it set one. A
  // request waiting for its batch gives up at the deadline with
  // DEADLINE_EXCEEDED, so the thread it holds is free again; a run that has
  // started is let finish.
  std::optional<std::chrono::system_clock::time_point> deadline;
};

struct ServerCoreOptions {
  // The models to serve: from SingleModelConfig(--model_name,
  // --model_base_path) or ReadModelServerConfigFile(--model_config_file).
  ModelServerConfig model_server_config;
  // When set, the file is re-read every model_config_file_poll_wait_seconds
  // (> 0) and a changed, valid config is applied with ReloadConfig; an
  // invalid one is logged and ignored.
  std::string model_config_file;
  int64_t model_config_file_poll_wait_seconds = 0;
  // Poll interval, retries, load options, log sink. `loader` may be set (tests);
  // `warmer` and `metrics` are set by ServerCore.
  ModelManagerOptions manager;
  // --enable_model_warmup: replay assets.extra/tf_serving_warmup_requests.
  bool enable_model_warmup = true;
  // Called for each model version after it loads, before warm-up: the
  // runner it returns serves all the model's requests from then on
  // (SetRunner; null: the default runner again); an error fails the load
  // (retried like one). --enable_per_model_batching_parameters sets it.
  std::function<StatusOr<std::shared_ptr<SignatureRunner>>(const Servable&)> version_runner;
  // Times each warm-up record is replayed (--num_request_iterations_for_warmup;
  // TF Serving's ModelWarmupOptions.num_request_iterations, default 1).
  int warmup_num_request_iterations = 1;
  // Which versions version_labels may name when a config is applied
  // (--allow_version_labels_for_unavailable_models: new labels may name a
  // version that is not AVAILABLE; --force_allow_any_...: any label may).
  VersionLabelPolicy version_label_policy = VersionLabelPolicy::kRequireAvailable;
  InferenceOptions inference;
  // File rotation and queue bounds of the request logs that models'
  // logging_config turns on (logging/request_logger.h).
  logging::RequestLoggerOptions request_logging;
  // nullptr: ServerCore owns a registry (metrics_registry() exposes it).
  MetricsRegistry* metrics_registry = nullptr;
  // Create() fails when a configured model has no AVAILABLE version after the
  // initial load settles (TF Serving refuses to start then), except a model
  // whose base path holds no version folder yet: it is served when one
  // appears (TF Serving waits and logs too).
  bool fail_if_initial_load_fails = true;
  // Bound on waiting for the initial load and for ReloadConfig to settle.
  std::chrono::milliseconds load_timeout = std::chrono::minutes(10);
  // The worker pool that runs blocking work for asynchronous front ends
  // (PredictTensorsAsync when the runner cannot take the request
  // asynchronously, ScheduleBlocking): threads (0 = 4 per CPU, at least 8)
  // and most tasks waiting (0 = 64 per thread); past it, UNAVAILABLE.
  int worker_threads = 0;
  size_t worker_queue_limit = 0;
  // PredictTensorsAsync runs a signature on the calling thread, skipping the
  // worker pool's two thread hand-offs, once its last
  // SignatureRunCosts::kFastRunsNeeded runs each took less than this (and
  // the inputs are no larger than theirs); one slower run sends it back to
  // the pool. Zero: always the pool.
  std::chrono::microseconds inline_run_limit{200};
};

// What a model spec resolves to, for front ends that need the signature
// before building the request (REST turns JSON into tensors with its dtypes).
struct ResolvedSignature {
  ServableHandle servable;            // keeps the version alive while held
  std::string signature_name;         // after defaulting ("serving_default")
  const runtime::Signature* signature = nullptr;            // owned by servable
  const tensorflow::SignatureDef* signature_def = nullptr;  // owned by servable; may be null
};

// Tensor-level predict result (REST's fast path; avoids TensorProto copies).
struct PredictResult {
  std::string model_name;
  int64_t version = 0;
  std::string signature_name;
  TensorMap outputs;
};

class ServerCore {
 public:
  // Loads the initial config (waits until it settles, see options).
  static StatusOr<std::unique_ptr<ServerCore>> Create(ServerCoreOptions options);
  ~ServerCore();
  ServerCore(const ServerCore&) = delete;
  ServerCore& operator=(const ServerCore&) = delete;

  // ---- tensorflow.serving.PredictionService ----
  Status Predict(const tensorflow::serving::PredictRequest& request, tensorflow::serving::PredictResponse* response,
                 const RequestContext& context = {});
  Status Classify(const tensorflow::serving::ClassificationRequest& request,
                  tensorflow::serving::ClassificationResponse* response, const RequestContext& context = {});
  Status Regress(const tensorflow::serving::RegressionRequest& request,
                 tensorflow::serving::RegressionResponse* response, const RequestContext& context = {});
  Status MultiInference(const tensorflow::serving::MultiInferenceRequest& request,
                        tensorflow::serving::MultiInferenceResponse* response, const RequestContext& context = {});
  // metadata["signature_def"] = Any(tensorflow.serving.SignatureDefMap).
  Status GetModelMetadata(const tensorflow::serving::GetModelMetadataRequest& request,
                          tensorflow::serving::GetModelMetadataResponse* response,
                          const RequestContext& context = {});

  // ---- tensorflow.serving.ModelService ----
  Status GetModelStatus(const tensorflow::serving::GetModelStatusRequest& request,
                        tensorflow::serving::GetModelStatusResponse* response, const RequestContext& context = {});
  // Fills response->status from the ReloadConfig result and returns that
  // same status (TF Serving does both).
  Status HandleReloadConfigRequest(const tensorflow::serving::ReloadConfigRequest& request,
                                   tensorflow::serving::ReloadConfigResponse* response);
  // Validates and applies a config, then waits (load_timeout) until models
  // it adds have settled; a model it adds that has no AVAILABLE version is
  // reported with its load error (the rest of the config still applies). An
  // invalid config changes nothing. Then the config's version labels take
  // effect if version_label_policy allows each (FAILED_PRECONDITION
  // otherwise, the labels in force stay, the models still apply).
  Status ReloadConfig(const ModelServerConfig& config);

  // ---- helpers for front ends ----
  StatusOr<ServableHandle> GetServable(const tensorflow::serving::ModelSpec& spec) const;
  StatusOr<ResolvedSignature> ResolveSignature(const tensorflow::serving::ModelSpec& spec) const;
  // Predict with tensors instead of TensorProtos (same checks and metrics).
  StatusOr<PredictResult> PredictTensors(const tensorflow::serving::ModelSpec& spec, TensorMap inputs,
                                         const std::vector<std::string>& output_filter,
                                         const RequestContext& context = {});
  // Same, on a signature ResolveSignature already found (no second lookup,
  // and the version the caller parsed the request for is the one that runs).
  StatusOr<PredictResult> PredictTensors(const ResolvedSignature& resolved, TensorMap inputs,
                                         const std::vector<std::string>& output_filter,
                                         const RequestContext& context = {});
  // PredictTensors without blocking the caller for long: `done` gets the
  // result exactly once, later, on a batch thread (when the model's runner
  // takes the request asynchronously, i.e. batching) or on a worker-pool
  // thread; at once on this thread for a request refused before running (bad
  // inputs, a full worker queue: UNAVAILABLE) and for a signature measured
  // fast (options.inline_run_limit), which runs here. Same checks and metrics.
  using PredictDone = std::function<void(StatusOr<PredictResult>)>;
  void PredictTensorsAsync(ResolvedSignature resolved, TensorMap inputs, std::vector<std::string> output_filter,
                           const RequestContext& context, PredictDone done);
  // Runs blocking `work` on the worker pool; false (work not run) when its
  // queue is full or the core is stopping.
  bool ScheduleBlocking(std::function<void()> work);
  const WorkerPool& workers() const { return *workers_; }

  std::vector<ModelSummary> ListModels() const;  // GET /v1/models
  bool AllModelsAvailable() const;               // GET /readyz
  std::string MetricsText() const;               // Prometheus exposition

  // ---- batching hook ----
  // Requests to `model_name` go through `runner` (nullptr restores the default).
  void SetRunner(const std::string& model_name, std::shared_ptr<SignatureRunner> runner);
  // The runner for models without their own (initially a DirectRunner).
  void SetDefaultRunner(std::shared_ptr<SignatureRunner> runner);
  std::shared_ptr<SignatureRunner> RunnerFor(const std::string& model_name) const;

  ModelManager& manager() { return *manager_; }
  // Bounds on each request's inputs, for the front ends that build the
  // tensors themselves (REST, v2) before PredictTensors.
  const RequestLimits& request_limits() const { return options_.inference.request_limits; }
  MetricsRegistry& metrics_registry() { return *registry_; }
  ServingMetrics& metrics() { return *metrics_; }
  logging::RequestLogger& request_logger() { return *request_logger_; }

 private:
  struct AsyncPredict;
  explicit ServerCore(ServerCoreOptions options);
  Status Warmup(const ServableHandle& servable);
  void ConfigPollLoop();
  // The metric cells a successful predict of one served model updates,
  // looked up once per model name: labelled lookups build label vectors and
  // keys (a dozen allocations) per call.
  struct PredictCells {
    CounterCell* ok_count;
    // Indexed by Entrypoint; each made on first use, so that the exposition
    // shows only the entry points that served requests.
    mutable std::atomic<HistogramCell*> latency_by_entrypoint[3] = {};
    HistogramCell* runtime_latency;
  };
  // `model_name` must be a served model's name (the cache keeps one entry
  // per name, so names from requests must not reach it).
  const PredictCells& PredictCellsFor(const std::string& model_name) const;
  HistogramCell* PredictLatencyCell(const std::string& model_name, Entrypoint entrypoint) const;
  // Records request_count and request_latency.
  void Record(const std::string& model_name, const char* api, const RequestContext& context,
              std::chrono::steady_clock::time_point start, const Status& status) const;
  // Predict, Classify and Regress: resolves `spec` (null = missing), runs
  // `body` on the servable through its runner with runtime latency recorded,
  // and records the request under `api`.
  using InferenceBody = std::function<Status(const ServableHandle&, SignatureRunner&)>;
  Status RunInference(const tensorflow::serving::ModelSpec* spec, const char* api, const RequestContext& context,
                      const InferenceBody& body);

  ServerCoreOptions options_;
  std::unique_ptr<MetricsRegistry> owned_registry_;
  MetricsRegistry* registry_ = nullptr;
  std::unique_ptr<ServingMetrics> metrics_;
  // The device memory of the backends models run on
  // (manager.load_options.session.backends); after the registry, which
  // outlives it.
  std::unique_ptr<DeviceMemoryMetrics> device_memory_metrics_;
  std::unique_ptr<logging::RequestLogger> request_logger_;
  mutable std::shared_mutex predict_cells_mu_;
  mutable std::map<std::string, std::unique_ptr<PredictCells>, std::less<>> predict_cells_;
  mutable std::shared_mutex runners_mu_;
  std::shared_ptr<SignatureRunner> default_runner_;
  std::map<std::string, std::shared_ptr<SignatureRunner>> runners_;
  std::unique_ptr<ModelManager> manager_;
  // After manager_: destroyed first, its tasks (which hold servables) run
  // to the end before models unload.
  std::unique_ptr<WorkerPool> workers_;

  std::mutex poll_mu_;
  std::condition_variable poll_cv_;
  bool stopping_ = false;
  std::string last_config_text_;
  std::thread config_poller_;
};

// model_spec -> ServableRequest (version_label or version; neither = latest).
ServableRequest ServableRequestFromModelSpec(const tensorflow::serving::ModelSpec& spec);

}  // namespace tfhost::serving
