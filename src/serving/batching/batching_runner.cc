#include "serving/batching/batching_runner.h"

#include <algorithm>
#include <atomic>
#include <future>

namespace tfhost::serving::batching {

// Feeds one model's batch metrics; one per model name, shared by its queues.
class BatchingRunner::ModelObserver {
 public:
  ModelObserver(ServingMetrics* metrics, const std::string& model_name) : metrics_(metrics) {
    if (metrics_ == nullptr) return;
    depth_ = metrics_->queue_depth->WithLabels({model_name});
    fill_ = metrics_->batch_fill_ratio->WithLabels({model_name});
  }
  ServingMetrics* metrics() const { return metrics_; }
  void SetDepth(const void* queue, int64_t tasks) {
    if (depth_ == nullptr) return;
    std::lock_guard<std::mutex> l(mu_);
    int64_t& slot = depths_[queue];
    total_ += tasks - slot;
    slot = tasks;
    depth_->Set(static_cast<double>(total_));
  }
  void Forget(const void* queue) { SetDepth(queue, 0); }
  void SetFill(double ratio) {
    if (fill_ != nullptr) fill_->Set(ratio);
  }

 private:
  ServingMetrics* metrics_;
  GaugeCell* depth_ = nullptr;
  GaugeCell* fill_ = nullptr;
  std::mutex mu_;
  std::map<const void*, int64_t> depths_;
  int64_t total_ = 0;
};

namespace {

// Per-queue metrics: cached cells for {model_name, op_name}.
class QueueObserver : public BatchObserver {
 public:
  QueueObserver(BatchingRunner::ModelObserver* model, ServingMetrics* metrics, const std::string& model_name,
                const std::string& signature)
      : model_(model) {
    if (metrics == nullptr) return;
    processed_ = metrics->processed_batch_size->WithLabels({model_name, signature});
    input_ = metrics->input_batch_size->WithLabels({model_name, signature});
    padding_ = metrics->padding_size->WithLabels({model_name, signature});
    queuing_ = metrics->queuing_latency->WithLabels({model_name, signature});
  }
  void OnBatch(int64_t rows, int64_t padded_rows, int64_t, const std::vector<int64_t>& queue_micros) override {
    if (processed_ == nullptr) return;
    processed_->Observe(static_cast<double>(padded_rows));
    input_->Observe(static_cast<double>(rows));
    padding_->Observe(static_cast<double>(padded_rows - rows));
    for (int64_t q : queue_micros) queuing_->Observe(static_cast<double>(q));
    model_->SetFill(padded_rows > 0 ? static_cast<double>(rows) / static_cast<double>(padded_rows) : 1.0);
    if (BatchQueue* queue = queue_.load(); queue != nullptr && adaptive_max_ != nullptr) {
      const AdaptivePolicy::Limits limits = queue->limits();
      adaptive_max_->Set(static_cast<double>(limits.max_batch_size));
      adaptive_timeout_->Set(static_cast<double>(limits.timeout_micros));
    }
  }
  // Adaptive queues also publish the limits they chose (set once the queue
  // exists; batches cannot run before).
  void AttachAdaptive(BatchQueue* queue, ServingMetrics* metrics, const std::string& model_name,
                      const std::string& signature) {
    if (metrics == nullptr || !queue->adaptive()) return;
    Gauge* max = metrics->registry->AddGauge(":tfhost:serving:batching:adaptive_max_batch_size",
                                             "Batch size limit the adaptive batching mode chose.",
                                             {"model_name", "op_name"});
    Gauge* timeout = metrics->registry->AddGauge(":tfhost:serving:batching:adaptive_timeout_micros",
                                                 "Batch timeout (microseconds) the adaptive batching mode chose.",
                                                 {"model_name", "op_name"});
    if (max == nullptr || timeout == nullptr) return;
    adaptive_max_ = max->WithLabels({model_name, signature});
    adaptive_timeout_ = timeout->WithLabels({model_name, signature});
    queue_.store(queue);
  }
  void OnQueueDepth(int64_t tasks) override { model_->SetDepth(this, tasks); }

 private:
  BatchingRunner::ModelObserver* model_;
  HistogramCell* processed_ = nullptr;
  HistogramCell* input_ = nullptr;
  HistogramCell* padding_ = nullptr;
  HistogramCell* queuing_ = nullptr;
  std::atomic<BatchQueue*> queue_{nullptr};
  GaugeCell* adaptive_max_ = nullptr;
  GaugeCell* adaptive_timeout_ = nullptr;
};

std::string QueueKey(const Servable& servable, const std::string& signature,
                     const std::vector<std::string>& output_filter) {
  std::vector<std::string> filter = output_filter;
  std::sort(filter.begin(), filter.end());
  filter.erase(std::unique(filter.begin(), filter.end()), filter.end());
  // The address tells apart two loads of one version (unload, then load
  // again); a reused address belongs to an expired entry, which is replaced.
  std::string key = servable.name + '\0' + std::to_string(servable.version) + '\0' +
                    std::to_string(reinterpret_cast<uintptr_t>(&servable)) + '\0' + signature + '\0';
  for (const std::string& f : filter) key += f + '\0';
  return key;
}

}  // namespace

bool CanBatch(const runtime::Signature& signature, const TensorMap& inputs, bool pad_variable_length) {
  if (!TaskRows(inputs).ok()) return false;
  for (const auto& [key, tensor] : inputs) {
    for (const runtime::TensorSpec& spec : signature.inputs) {
      if (spec.key != key || !spec.shape.rank_known()) continue;
      if (spec.shape.rank() != tensor.rank()) return false;
      // A fixed first dimension (a model exported for batch size 1, say)
      // cannot take a merged batch.
      if (spec.shape.dim(0) >= 0) return false;
      if (pad_variable_length) continue;  // inner dims are padded to the batch maximum anyway
      for (int i = 1; i < tensor.rank(); ++i) {
        if (spec.shape.dim(i) >= 0 && spec.shape.dim(i) != tensor.dim(i)) return false;
      }
    }
  }
  return true;
}

struct BatchingRunner::QueueEntry {
  std::weak_ptr<const Servable> servable;
  std::string model_name;
  int64_t version = 0;
  std::string signature_name;
  std::unique_ptr<QueueObserver> observer;
  std::unique_ptr<BatchQueue> queue;  // destroyed before observer (declared after)
};

StatusOr<std::shared_ptr<BatchingRunner>> BatchingRunner::Create(BatchingRunnerOptions options) {
  TFHOST_RETURN_IF_ERROR(ValidateBatchingConfig(options.config, "batching parameters"));
  if (!options.inner) options.inner = std::make_shared<DirectRunner>();
  TFHOST_ASSIGN_OR_RETURN(std::shared_ptr<BatchScheduler> scheduler,
                          BatchScheduler::Create(options.config, options.clock));
  return std::shared_ptr<BatchingRunner>(new BatchingRunner(std::move(options), std::move(scheduler)));
}

BatchingRunner::BatchingRunner(BatchingRunnerOptions options, std::shared_ptr<BatchScheduler> scheduler)
    : options_(std::move(options)), scheduler_(std::move(scheduler)) {}

BatchingRunner::~BatchingRunner() {
  scheduler_->Shutdown(std::chrono::milliseconds(0));
  std::lock_guard<std::mutex> l(mu_);
  queues_.clear();
}

StatusOr<BatchQueue*> BatchingRunner::QueueFor(const ServableHandle& servable, const runtime::Signature& signature,
                                               const std::vector<std::string>& output_filter) {
  const std::string key = QueueKey(*servable, signature.name, output_filter);
  std::lock_guard<std::mutex> l(mu_);
  auto it = queues_.find(key);
  if (it != queues_.end()) {
    if (it->second->servable.lock() == servable) return it->second->queue.get();
    queues_.erase(it);  // expired: nothing holds the old servable, so its queue is idle
  }
  PruneLocked();
  std::unique_ptr<ModelObserver>& model_observer = observers_[servable->name];
  if (!model_observer) model_observer = std::make_unique<ModelObserver>(options_.metrics, servable->name);
  auto entry = std::make_unique<QueueEntry>();
  entry->servable = servable;
  entry->model_name = servable->name;
  entry->version = servable->version;
  entry->signature_name = signature.name;
  entry->observer =
      std::make_unique<QueueObserver>(model_observer.get(), options_.metrics, servable->name, signature.name);
  // The run function needs the servable only while tasks (which hold
  // handles) are queued, so a weak reference keeps unloads possible.
  std::weak_ptr<const Servable> weak = servable;
  const runtime::Signature* sig = &signature;  // owned by the servable
  std::shared_ptr<SignatureRunner> inner = options_.inner;
  BatchRunFn run = [weak, sig, inner, output_filter](const TensorMap& batched) -> StatusOr<TensorMap> {
    ServableHandle alive = weak.lock();
    if (!alive) return Unavailable("the model version was unloaded before its batch ran");
    return inner->Run(alive, *sig, batched, output_filter);
  };
  const std::string name = "model '" + servable->name + "' version " + std::to_string(servable->version) +
                           " signature '" + signature.name + "'";
  TFHOST_ASSIGN_OR_RETURN(entry->queue, scheduler_->AddQueue(name, options_.config, std::move(run),
                                                             entry->observer.get()));
  BatchQueue* queue = entry->queue.get();
  entry->observer->AttachAdaptive(queue, options_.metrics, servable->name, signature.name);
  queues_.emplace(key, std::move(entry));
  return queue;
}

StatusOr<TensorMap> BatchingRunner::Run(const ServableHandle& servable, const runtime::Signature& signature,
                                        TensorMap inputs, const std::vector<std::string>& output_filter) {
  if (!CanBatch(signature, inputs, options_.config.pad_variable_length_inputs)) {
    return options_.inner->Run(servable, signature, std::move(inputs), output_filter);
  }
  TFHOST_ASSIGN_OR_RETURN(BatchQueue* queue, QueueFor(servable, signature, output_filter));
  auto promise = std::make_shared<std::promise<StatusOr<TensorMap>>>();
  std::future<StatusOr<TensorMap>> future = promise->get_future();
  // The callback keeps the servable alive until the task is done.
  TFHOST_RETURN_IF_ERROR(queue->Schedule(std::move(inputs), [promise, servable](StatusOr<TensorMap> result) {
    promise->set_value(std::move(result));
  }));
  return future.get();
}

void BatchingRunner::RunAsync(const ServableHandle& servable, const runtime::Signature& signature, TensorMap inputs,
                              const std::vector<std::string>& output_filter, DoneCallback done) {
  if (!CanBatch(signature, inputs, options_.config.pad_variable_length_inputs)) {
    done(options_.inner->Run(servable, signature, std::move(inputs), output_filter));
    return;
  }
  auto queue = QueueFor(servable, signature, output_filter);
  if (!queue.ok()) {
    done(queue.status());
    return;
  }
  // The task keeps the servable alive until it is done. On a refusal the
  // scheduler drops the callback without calling it, so answer here.
  auto shared_done = std::make_shared<DoneCallback>(std::move(done));
  Status scheduled = (*queue)->Schedule(std::move(inputs), [shared_done, servable](StatusOr<TensorMap> result) {
    (*shared_done)(std::move(result));
  });
  if (!scheduled.ok()) (*shared_done)(scheduled);
}

bool BatchingRunner::CanRunAsync(const runtime::Signature& signature, const TensorMap& inputs) const {
  return CanBatch(signature, inputs, options_.config.pad_variable_length_inputs);
}

void BatchingRunner::BeginDrain() { scheduler_->BeginDrain(); }

int64_t BatchingRunner::Shutdown(std::chrono::milliseconds drain) { return scheduler_->Shutdown(drain); }

void BatchingRunner::Prune() {
  std::lock_guard<std::mutex> l(mu_);
  PruneLocked();
}

void BatchingRunner::PruneLocked() {
  for (auto it = queues_.begin(); it != queues_.end();) {
    if (it->second->servable.expired()) {
      // No task holds the servable, so the queue is empty: closing is quick.
      auto observer = observers_.find(it->second->model_name);
      if (observer != observers_.end()) observer->second->Forget(it->second->observer.get());
      it = queues_.erase(it);
    } else {
      ++it;
    }
  }
}

std::vector<BatchQueueInfo> BatchingRunner::Queues() const {
  std::lock_guard<std::mutex> l(mu_);
  std::vector<BatchQueueInfo> out;
  for (const auto& [key, entry] : queues_) {
    BatchQueueInfo info;
    info.model_name = entry->model_name;
    info.version = entry->version;
    info.signature_name = entry->signature_name;
    info.stats = entry->queue->stats();
    info.decision = entry->queue->decision();
    out.push_back(std::move(info));
  }
  return out;
}

}  // namespace tfhost::serving::batching
