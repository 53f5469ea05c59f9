#include "serving/server_core.h"

#include <algorithm>
#include <fstream>
#include <future>
#include <set>
#include <sstream>

#include "serving/core_runners.h"
#include "serving/servable/warmup.h"

namespace tfhost::serving {

namespace ts = tensorflow::serving;

namespace {

using Clock = std::chrono::steady_clock;
using core_internal::DeadlineRunner;
using core_internal::TimedRunner;

int64_t MicrosSince(Clock::time_point start) {
  return std::chrono::duration_cast<std::chrono::microseconds>(Clock::now() - start).count();
}

Status MissingModelSpec() { return InvalidArgument("Missing ModelSpec"); }

}  // namespace

const char* EntrypointName(Entrypoint e) {
  switch (e) {
    case Entrypoint::kGrpc: return "GRPC";
    case Entrypoint::kRest: return "REST";
    default: return "INTERNAL";
  }
}

ServableRequest ServableRequestFromModelSpec(const ts::ModelSpec& spec) {
  ServableRequest r;
  r.name = spec.name();
  if (spec.version_choice_case() == ts::ModelSpec::kVersion) {
    r.version = spec.version().value();
  } else if (spec.version_choice_case() == ts::ModelSpec::kVersionLabel) {
    r.label = spec.version_label();
  }
  return r;
}

ServerCore::ServerCore(ServerCoreOptions options) : options_(std::move(options)) {
  if (options_.metrics_registry) {
    registry_ = options_.metrics_registry;
  } else {
    owned_registry_ = std::make_unique<MetricsRegistry>();
    registry_ = owned_registry_.get();
  }
  metrics_ = std::make_unique<ServingMetrics>(registry_);
  if (const backends::BackendRegistry* backends = options_.manager.load_options.session.backends) {
    device_memory_metrics_ = std::make_unique<DeviceMemoryMetrics>(registry_, *backends);
  }
  request_logger_ = std::make_unique<logging::RequestLogger>(registry_, options_.request_logging);
  default_runner_ = std::make_shared<DirectRunner>();
  ModelManagerOptions mopts = options_.manager;
  mopts.metrics = metrics_.get();
  if (options_.enable_model_warmup || options_.version_runner) {
    mopts.warmer = [this](const ServableHandle& servable) -> Status {
      if (options_.version_runner) {
        TFHOST_ASSIGN_OR_RETURN(std::shared_ptr<SignatureRunner> runner, options_.version_runner(*servable));
        SetRunner(servable->name, std::move(runner));
      }
      return options_.enable_model_warmup ? Warmup(servable) : OkStatus();
    };
  }
  manager_ = std::make_unique<ModelManager>(std::move(mopts));
  const int cpus = std::max(1u, std::thread::hardware_concurrency());
  const int threads = options_.worker_threads > 0 ? options_.worker_threads : std::max(8, 4 * cpus);
  const size_t queue = options_.worker_queue_limit > 0 ? options_.worker_queue_limit : size_t{64} * threads;
  workers_ = std::make_unique<WorkerPool>(threads, queue);
}

ServerCore::~ServerCore() {
  {
    std::lock_guard lock(poll_mu_);
    stopping_ = true;
  }
  poll_cv_.notify_all();
  if (config_poller_.joinable()) config_poller_.join();
  workers_.reset();
  // Batching runners cancel what they still hold while everything their
  // callbacks touch (metrics, manager) is alive.
  std::shared_ptr<SignatureRunner> default_runner;
  std::map<std::string, std::shared_ptr<SignatureRunner>> runners;
  {
    std::unique_lock lock(runners_mu_);
    default_runner.swap(default_runner_);
    runners.swap(runners_);
  }
  default_runner.reset();
  runners.clear();
  manager_.reset();
}

StatusOr<std::unique_ptr<ServerCore>> ServerCore::Create(ServerCoreOptions options) {
  std::unique_ptr<ServerCore> core(new ServerCore(std::move(options)));
  TFHOST_RETURN_IF_ERROR(core->request_logger_->Update(core->options_.model_server_config));
  TFHOST_RETURN_IF_ERROR(core->manager_->ReloadConfig(core->options_.model_server_config));
  if (!core->manager_->WaitUntilSettled(core->options_.load_timeout)) {
    return Status(StatusCode::kDeadlineExceeded, "models did not finish loading within " +
                                                     std::to_string(core->options_.load_timeout.count()) + " ms");
  }
  if (core->options_.fail_if_initial_load_fails && !core->manager_->AllModelsAvailable()) {
    std::string errors;
    for (const auto& m : core->manager_->ListModels()) {
      // A base path without version folders yet is not a failed load: the
      // model is served once a version appears (TF Serving waits too).
      if (m.no_version_folders && m.versions.empty()) continue;
      bool available = false;
      std::string why;
      for (const auto& v : m.versions) {
        available = available || v.state == VersionState::kAvailable;
        if (!v.status.ok()) why = v.status.message();
      }
      if (available) continue;
      if (why.empty()) why = m.scan_error;
      errors += (errors.empty() ? "" : "; ") + std::string("model \"") + m.name + "\" (" + m.base_path + "): " +
                (why.empty() ? "no version directories found (expected numeric subdirectories such as 1/)" : why);
    }
    if (!errors.empty()) return Unavailable("no servable version available: " + errors);
  }
  TFHOST_RETURN_IF_ERROR(core->manager_->UpdateVersionLabels(core->options_.version_label_policy));
  if (!core->options_.model_config_file.empty() && core->options_.model_config_file_poll_wait_seconds > 0) {
    std::ifstream in(core->options_.model_config_file, std::ios::binary);
    std::ostringstream buf;
    buf << in.rdbuf();
    core->last_config_text_ = buf.str();
    ServerCore* raw = core.get();
    core->config_poller_ = std::thread([raw] { raw->ConfigPollLoop(); });
  }
  return core;
}

void ServerCore::ConfigPollLoop() {
  // Clamped (~115 days) so absurd values cannot overflow the clock arithmetic.
  const auto interval = std::chrono::seconds(std::min<int64_t>(options_.model_config_file_poll_wait_seconds, 10000000));
  std::unique_lock lock(poll_mu_);
  while (!stopping_) {
    if (poll_cv_.wait_for(lock, interval, [this] { return stopping_; })) break;
    lock.unlock();
    std::ifstream in(options_.model_config_file, std::ios::binary);
    std::ostringstream buf;
    if (in) buf << in.rdbuf();
    std::string text = buf.str();
    if (in && text != last_config_text_) {
      last_config_text_ = text;
      auto config = ParseModelServerConfig(text, options_.model_config_file);
      Status s = config.ok() ? ValidateModelServerConfig(*config) : config.status();
      if (s.ok()) s = request_logger_->Update(*config);
      if (s.ok()) s = manager_->ReloadConfig(*config);
      if (!s.ok()) s = Status(s.code(), "config ignored: " + s.message());
      if (s.ok() && !manager_->WaitUntilSettled(options_.load_timeout)) {
        s = Status(StatusCode::kDeadlineExceeded, "models did not finish loading within " +
                                                      std::to_string(options_.load_timeout.count()) +
                                                      " ms; version labels not updated");
      }
      if (s.ok()) s = manager_->UpdateVersionLabels(options_.version_label_policy);
      std::string line = "{\"event\":\"config_file_reload\",\"file\":\"" +
                         LogJsonEscape(options_.model_config_file) + "\",\"status\":\"" +
                         StatusCodeName(s.code()) + "\"" +
                         (s.ok() ? "" : ",\"error\":\"" + LogJsonEscape(s.message()) + "\"") + "}";
      manager_->LogLine(line);
    }
    lock.lock();
  }
}

Status ServerCore::Warmup(const ServableHandle& servable) {
  auto start = Clock::now();
  auto runner = RunnerFor(servable->name);
  auto result = RunWarmup(servable, *runner, options_.inference, options_.warmup_num_request_iterations);
  if (!result.ok()) return result.status();
  if (result->file_found) {
    int64_t micros = MicrosSince(start);
    metrics_->model_warmup_latency->WithLabels({servable->path})->Observe(static_cast<double>(micros));
    std::string line = "{\"event\":\"model_warmup\",\"model\":\"" + LogJsonEscape(servable->name) +
                       "\",\"version\":" + std::to_string(servable->version) +
                       ",\"records\":" + std::to_string(result->records_replayed) +
                       ",\"iterations\":" + std::to_string(std::max(1, options_.warmup_num_request_iterations)) +
                       ",\"requests\":" + std::to_string(result->requests_run) +
                       ",\"micros\":" + std::to_string(micros) + "}";
    manager_->LogLine(line);
  }
  return OkStatus();
}

void ServerCore::Record(const std::string& model_name, const char* api, const RequestContext& context,
                        Clock::time_point start, const Status& status) const {
  metrics_->request_count->WithLabels({model_name, StatusCodeName(status.code())})->Increment();
  metrics_->request_latency->WithLabels({model_name, api, EntrypointName(context.entrypoint)})
      ->Observe(static_cast<double>(MicrosSince(start)));
}

const ServerCore::PredictCells& ServerCore::PredictCellsFor(const std::string& model_name) const {
  {
    std::shared_lock lock(predict_cells_mu_);
    auto it = predict_cells_.find(model_name);
    if (it != predict_cells_.end()) return *it->second;
  }
  auto cells = std::make_unique<PredictCells>();
  cells->ok_count = metrics_->request_count->WithLabels({model_name, StatusCodeName(StatusCode::kOk)});
  cells->runtime_latency = metrics_->runtime_latency->WithLabels({model_name, "predict", "tfhost"});
  std::unique_lock lock(predict_cells_mu_);
  auto& slot = predict_cells_[model_name];
  if (!slot) slot = std::move(cells);
  return *slot;
}

HistogramCell* ServerCore::PredictLatencyCell(const std::string& model_name, Entrypoint entrypoint) const {
  auto& slot = PredictCellsFor(model_name).latency_by_entrypoint[static_cast<int>(entrypoint)];
  HistogramCell* cell = slot.load(std::memory_order_acquire);
  if (cell == nullptr) {
    // Racing threads get the same cell from the registry.
    cell = metrics_->request_latency->WithLabels({model_name, "predict", EntrypointName(entrypoint)});
    slot.store(cell, std::memory_order_release);
  }
  return cell;
}

void ServerCore::SetRunner(const std::string& model_name, std::shared_ptr<SignatureRunner> runner) {
  std::unique_lock lock(runners_mu_);
  if (runner) {
    runners_[model_name] = std::move(runner);
  } else {
    runners_.erase(model_name);
  }
}

void ServerCore::SetDefaultRunner(std::shared_ptr<SignatureRunner> runner) {
  std::unique_lock lock(runners_mu_);
  default_runner_ = runner ? std::move(runner) : std::make_shared<DirectRunner>();
}

std::shared_ptr<SignatureRunner> ServerCore::RunnerFor(const std::string& model_name) const {
  std::shared_lock lock(runners_mu_);
  auto it = runners_.find(model_name);
  return it != runners_.end() ? it->second : default_runner_;
}

StatusOr<ServableHandle> ServerCore::GetServable(const ts::ModelSpec& spec) const {
  return manager_->GetServable(ServableRequestFromModelSpec(spec));
}

StatusOr<ResolvedSignature> ServerCore::ResolveSignature(const ts::ModelSpec& spec) const {
  TFHOST_ASSIGN_OR_RETURN(ServableHandle servable, GetServable(spec));
  ResolvedSignature r;
  r.signature_name = SignatureNameOrDefault(spec.signature_name());
  auto it = servable->model->signatures().find(r.signature_name);
  if (it == servable->model->signatures().end()) {
    std::string have;
    for (const auto& [k, v] : servable->model->signatures()) have += (have.empty() ? "" : ", ") + k;
    return InvalidArgument("Serving signature name: \"" + r.signature_name + "\" not found in signature def (model \"" +
                           servable->name + "\" version " + std::to_string(servable->version) +
                           " has: " + (have.empty() ? "<none>" : have) + ")");
  }
  r.signature = &it->second;
  auto def = servable->signature_defs.signature_def().find(r.signature_name);
  if (def != servable->signature_defs.signature_def().end()) r.signature_def = &def->second;
  r.servable = std::move(servable);
  return r;
}

StatusOr<PredictResult> ServerCore::PredictTensors(const ts::ModelSpec& spec, TensorMap inputs,
                                                   const std::vector<std::string>& output_filter,
                                                   const RequestContext& context) {
  auto start = Clock::now();
  auto run = [&]() -> StatusOr<PredictResult> {
    TFHOST_ASSIGN_OR_RETURN(ServableHandle servable, GetServable(spec));
    PredictResult result;
    result.signature_name = SignatureNameOrDefault(spec.signature_name());
    TFHOST_ASSIGN_OR_RETURN(const runtime::Signature* sig, FindServingSignature(*servable, result.signature_name));
    auto runner = RunnerFor(servable->name);
    TimedRunner timed(*runner, metrics_->runtime_latency->WithLabels({servable->name, "predict", "tfhost"}));
    auto log = request_logger_->Sample(servable->name);
    auto logged = log ? log->CaptureRequest(result.signature_name, inputs) : nullptr;
    TFHOST_ASSIGN_OR_RETURN(result.outputs,
                            serving::PredictTensors(servable, timed, *sig, std::move(inputs), output_filter));
    result.model_name = servable->name;
    result.version = servable->version;
    if (logged) log->LogTensorResult(*logged, result.model_name, result.version, result.signature_name, result.outputs);
    return result;
  };
  auto result = run();
  Record(spec.name(), "predict", context, start, result.status());
  return result;
}

StatusOr<PredictResult> ServerCore::PredictTensors(const ResolvedSignature& resolved, TensorMap inputs,
                                                   const std::vector<std::string>& output_filter,
                                                   const RequestContext& context) {
  auto start = Clock::now();
  auto run = [&]() -> StatusOr<PredictResult> {
    if (!resolved.servable || !resolved.signature) {
      return InvalidArgument("PredictTensors needs a signature resolved by ResolveSignature");
    }
    const ServableHandle& servable = resolved.servable;
    PredictResult result;
    result.signature_name = resolved.signature_name;
    auto runner = RunnerFor(servable->name);
    TimedRunner timed(*runner, metrics_->runtime_latency->WithLabels({servable->name, "predict", "tfhost"}));
    auto log = request_logger_->Sample(servable->name);
    auto logged = log ? log->CaptureRequest(result.signature_name, inputs) : nullptr;
    TFHOST_ASSIGN_OR_RETURN(result.outputs, serving::PredictTensors(servable, timed, *resolved.signature,
                                                                    std::move(inputs), output_filter));
    result.model_name = servable->name;
    result.version = servable->version;
    if (logged) log->LogTensorResult(*logged, result.model_name, result.version, result.signature_name, result.outputs);
    return result;
  };
  auto result = run();
  Record(resolved.servable ? resolved.servable->name : "", "predict", context, start, result.status());
  return result;
}

// One asynchronous predict: what its completion needs, shared by the
// callbacks that may finish it.
struct ServerCore::AsyncPredict {
  ServerCore* core;
  ResolvedSignature resolved;
  std::vector<std::string> output_filter;
  RequestContext context;
  Clock::time_point start;
  Clock::time_point run_start;
  PredictDone done;
  // Set when this request is sampled for the model's request log.
  std::shared_ptr<const logging::ModelRequestLog> log;
  std::unique_ptr<ts::PredictRequest> logged;

  void Finish(StatusOr<PredictResult> result) {
    if (result.ok() && resolved.servable) {
      const std::string& name = resolved.servable->name;
      core->PredictCellsFor(name).ok_count->Increment();
      core->PredictLatencyCell(name, context.entrypoint)->Observe(static_cast<double>(MicrosSince(start)));
    } else {
      core->Record(resolved.servable ? resolved.servable->name : "", "predict", context, start, result.status());
    }
    done(std::move(result));
  }
  void Ran(StatusOr<TensorMap> outputs) {
    const ServableHandle& servable = resolved.servable;
    core->PredictCellsFor(servable->name).runtime_latency->Observe(static_cast<double>(MicrosSince(run_start)));
    if (!outputs.ok()) return Finish(WithRunContext(outputs.status(), *servable, *resolved.signature));
    PredictResult result;
    result.model_name = servable->name;
    result.version = servable->version;
    result.signature_name = resolved.signature_name;
    result.outputs = std::move(*outputs);
    if (logged) log->LogTensorResult(*logged, result.model_name, result.version, result.signature_name, result.outputs);
    Finish(std::move(result));
  }
};

void ServerCore::PredictTensorsAsync(ResolvedSignature resolved, TensorMap inputs,
                                     std::vector<std::string> output_filter, const RequestContext& context,
                                     PredictDone done) {
  auto call = std::make_shared<AsyncPredict>();
  call->core = this;
  call->resolved = std::move(resolved);
  call->output_filter = std::move(output_filter);
  call->context = context;
  call->start = Clock::now();
  call->done = std::move(done);
  const ResolvedSignature& r = call->resolved;
  if (!r.servable || !r.signature) {
    return call->Finish(InvalidArgument("PredictTensorsAsync needs a signature resolved by ResolveSignature"));
  }
  if (Status st = CheckPredictTensors(*r.servable, *r.signature, inputs, call->output_filter); !st.ok()) {
    return call->Finish(st);
  }
  if ((call->log = request_logger_->Sample(r.servable->name))) call->logged = call->log->CaptureRequest(r.signature_name, inputs);
  std::shared_ptr<SignatureRunner> runner = RunnerFor(r.servable->name);
  if (runner->CanRunAsync(*r.signature, inputs)) {
    call->run_start = Clock::now();
    runner->RunAsync(r.servable, *r.signature, std::move(inputs), call->output_filter,
                     [call](StatusOr<TensorMap> outputs) { call->Ran(std::move(outputs)); });
    return;
  }
  const std::chrono::nanoseconds limit = options_.inline_run_limit;
  const int64_t elements = TotalElements(inputs);
  // Times one blocking run and keeps the signature's run-cost streak.
  auto run = [limit, elements](AsyncPredict& c, SignatureRunner& runner, TensorMap in) {
    c.run_start = Clock::now();
    auto outputs = runner.Run(c.resolved.servable, *c.resolved.signature, std::move(in), c.output_filter);
    if (limit.count() > 0) {
      c.resolved.servable->run_costs.Record(c.resolved.signature_name, elements, Clock::now() - c.run_start, limit);
    }
    c.Ran(std::move(outputs));
  };
  if (limit.count() > 0 && r.servable->run_costs.MayRunInline(r.signature_name, elements)) {
    // Measured fast: running it here costs less than the hand-off to a
    // worker and back.
    return run(*call, *runner, std::move(inputs));
  }
  // The inputs move into a shared holder so that a refused task (dropped by
  // the pool unrun) leaves `call` usable here.
  auto held = std::make_shared<TensorMap>(std::move(inputs));
  bool queued = workers_->TrySchedule([call, runner, held, run] { run(*call, *runner, std::move(*held)); });
  if (!queued) {
    call->Finish(Unavailable("the server is overloaded: " + std::to_string(workers_->max_queued()) +
                             " requests already wait for a worker thread (" +
                             std::to_string(workers_->num_threads()) + " threads); retry later"));
  }
}

bool ServerCore::ScheduleBlocking(std::function<void()> work) { return workers_->TrySchedule(std::move(work)); }

Status ServerCore::RunInference(const ts::ModelSpec* spec, const char* api, const RequestContext& context,
                                const InferenceBody& body) {
  auto start = Clock::now();
  auto run = [&]() -> Status {
    if (spec == nullptr) return MissingModelSpec();
    TFHOST_ASSIGN_OR_RETURN(ServableHandle servable, GetServable(*spec));
    std::shared_ptr<SignatureRunner> runner = RunnerFor(servable->name);
    std::optional<DeadlineRunner> bounded;
    SignatureRunner* inner = runner.get();
    if (context.deadline) inner = &bounded.emplace(*runner, *context.deadline);
    TimedRunner timed(*inner, metrics_->runtime_latency->WithLabels({servable->name, api, "tfhost"}));
    return body(servable, timed);
  };
  Status s = run();
  Record(spec ? spec->name() : "", api, context, start, s);
  return s;
}

Status ServerCore::Predict(const ts::PredictRequest& request, ts::PredictResponse* response,
                           const RequestContext& context) {
  return RunInference(request.has_model_spec() ? &request.model_spec() : nullptr, "predict", context,
                      [&](const ServableHandle& servable, SignatureRunner& runner) {
                        TFHOST_RETURN_IF_ERROR(RunPredict(servable, runner, options_.inference, request, response));
                        if (auto log = request_logger_->Sample(servable->name)) log->LogPredict(request, *response);
                        return OkStatus();
                      });
}

Status ServerCore::Classify(const ts::ClassificationRequest& request, ts::ClassificationResponse* response,
                            const RequestContext& context) {
  return RunInference(request.has_model_spec() ? &request.model_spec() : nullptr, "classify", context,
                      [&](const ServableHandle& servable, SignatureRunner& runner) {
                        TFHOST_RETURN_IF_ERROR(RunClassify(servable, runner, options_.inference, request, response));
                        if (auto log = request_logger_->Sample(servable->name)) log->LogClassify(request, *response);
                        return OkStatus();
                      });
}

Status ServerCore::Regress(const ts::RegressionRequest& request, ts::RegressionResponse* response,
                           const RequestContext& context) {
  return RunInference(request.has_model_spec() ? &request.model_spec() : nullptr, "regress", context,
                      [&](const ServableHandle& servable, SignatureRunner& runner) {
                        TFHOST_RETURN_IF_ERROR(RunRegress(servable, runner, options_.inference, request, response));
                        if (auto log = request_logger_->Sample(servable->name)) log->LogRegress(request, *response);
                        return OkStatus();
                      });
}

Status ServerCore::MultiInference(const ts::MultiInferenceRequest& request, ts::MultiInferenceResponse* response,
                                  const RequestContext& context) {
  auto start = Clock::now();
  const std::string model_name = request.tasks_size() > 0 ? request.tasks(0).model_spec().name() : "";
  auto run = [&]() -> Status {
    if (request.tasks_size() == 0) return InvalidArgument("Tasks field is empty.");
    const ts::ModelSpec& first = request.tasks(0).model_spec();
    for (const auto& task : request.tasks()) {
      const ts::ModelSpec& spec = task.model_spec();
      bool same_version = spec.version_choice_case() == first.version_choice_case() &&
                          spec.version().value() == first.version().value() &&
                          spec.version_label() == first.version_label();
      if (spec.name() == first.name() && !same_version) {
        return InvalidArgument("All ModelSpecs in a MultiInferenceRequest must access the same model version. "
                               "(model \"" + first.name() + "\")");
      }
    }
    TFHOST_ASSIGN_OR_RETURN(ServableHandle servable, GetServable(first));
    auto runner = RunnerFor(servable->name);
    TimedRunner timed(*runner, metrics_->runtime_latency->WithLabels({servable->name, "multi_inference", "tfhost"}));
    TFHOST_RETURN_IF_ERROR(RunMultiInference(servable, timed, options_.inference, request, response));
    if (auto log = request_logger_->Sample(servable->name)) log->LogMultiInference(request, *response);
    return OkStatus();
  };
  Status s = run();
  Record(model_name, "multi_inference", context, start, s);
  return s;
}

Status ServerCore::GetModelMetadata(const ts::GetModelMetadataRequest& request,
                                    ts::GetModelMetadataResponse* response, const RequestContext& context) {
  auto start = Clock::now();
  auto run = [&]() -> Status {
    if (!request.has_model_spec()) return MissingModelSpec();
    if (request.metadata_field_size() == 0) {
      return InvalidArgument("GetModelMetadataRequest must specify at least one metadata_field");
    }
    for (const auto& field : request.metadata_field()) {
      if (field != "signature_def") {
        return InvalidArgument("Metadata field " + field + " is not supported (supported: signature_def)");
      }
    }
    TFHOST_ASSIGN_OR_RETURN(ServableHandle servable, GetServable(request.model_spec()));
    response->Clear();
    response->mutable_model_spec()->set_name(servable->name);
    response->mutable_model_spec()->mutable_version()->set_value(servable->version);
    (*response->mutable_metadata())["signature_def"].PackFrom(servable->signature_defs);
    return OkStatus();
  };
  Status s = run();
  Record(request.model_spec().name(), "get_model_metadata", context, start, s);
  return s;
}

Status ServerCore::GetModelStatus(const ts::GetModelStatusRequest& request, ts::GetModelStatusResponse* response,
                                  const RequestContext& context) {
  if (!request.has_model_spec()) return MissingModelSpec();
  const ts::ModelSpec& spec = request.model_spec();
  if (spec.name().empty()) return InvalidArgument("Missing model name in request.");
  std::optional<int64_t> version;
  if (spec.version_choice_case() == ts::ModelSpec::kVersion) {
    version = spec.version().value();
  } else if (spec.version_choice_case() == ts::ModelSpec::kVersionLabel) {
    TFHOST_ASSIGN_OR_RETURN(int64_t v, manager_->ResolveLabel(spec.name(), spec.version_label()));
    version = v;
  }
  TFHOST_ASSIGN_OR_RETURN(std::vector<VersionStatus> statuses, manager_->GetModelStatus(spec.name(), version));
  response->Clear();
  for (const auto& vs : statuses) {
    ts::ModelVersionStatus* out = response->add_model_version_status();
    out->set_version(vs.version);
    out->set_state(static_cast<ts::ModelVersionStatus::State>(vs.state));
    out->mutable_status()->set_error_code(static_cast<tensorflow::error::Code>(vs.status.code()));
    out->mutable_status()->set_error_message(vs.status.message());
  }
  return OkStatus();
}

Status ServerCore::ReloadConfig(const ModelServerConfig& config) {
  std::set<std::string> before;
  for (const auto& m : manager_->ListModels()) before.insert(m.name);
  TFHOST_RETURN_IF_ERROR(ValidateModelServerConfig(config));
  TFHOST_RETURN_IF_ERROR(request_logger_->Update(config));
  TFHOST_RETURN_IF_ERROR(manager_->ReloadConfig(config));
  if (!manager_->WaitUntilSettled(options_.load_timeout)) {
    return Status(StatusCode::kDeadlineExceeded,
                  "config applied, but models did not finish loading within " +
                      std::to_string(options_.load_timeout.count()) + " ms");
  }
  // Like TF Serving, report a model this config added that could not load
  // (models served before keep their own status in GetModelStatus).
  for (const auto& m : manager_->ListModels()) {
    if (before.count(m.name)) continue;
    bool available = false;
    Status error;
    for (const auto& v : m.versions) {
      available = available || v.state == VersionState::kAvailable;
      if (!v.status.ok()) error = v.status;
    }
    if (!available && !error.ok()) {
      return Status(error.code(), "model \"" + m.name + "\" failed to load: " + error.message());
    }
  }
  return manager_->UpdateVersionLabels(options_.version_label_policy);
}

Status ServerCore::HandleReloadConfigRequest(const ts::ReloadConfigRequest& request,
                                             ts::ReloadConfigResponse* response) {
  Status s;
  if (request.config().config_case() != ModelServerConfig::kModelConfigList) {
    s = InvalidArgument("ServerModelConfig type not supported by HandleReloadConfigRequest. Only ModelConfigList is "
                        "currently supported");
  } else {
    s = ReloadConfig(request.config());
  }
  response->Clear();
  response->mutable_status()->set_error_code(static_cast<tensorflow::error::Code>(s.code()));
  response->mutable_status()->set_error_message(s.message());
  return s;
}

std::vector<ModelSummary> ServerCore::ListModels() const { return manager_->ListModels(); }
bool ServerCore::AllModelsAvailable() const { return manager_->AllModelsAvailable(); }
std::string ServerCore::MetricsText() const { return registry_->ToPrometheusText(); }

}  // namespace tfhost::serving
