// BatchingRunner: the SignatureRunner that `tfhost serve --enable_batching`
// plugs into ServerCore. It keeps one batch queue per (model, version,
// signature, output filter) on one BatchScheduler shared by every model (as
// TF Serving shares its batch threads), merges concurrent requests along dim
// 0, runs the merged batch through the inner runner (DirectRunner by
// default), and hands each caller its own rows.
//
// Requests that cannot be batched run directly, unbatched (see CanBatch).
//
// Lifetime: a queued task holds its ServableHandle, so a version unloaded
// while requests wait stays alive until they finish; queues of versions that
// are gone are dropped when the next queue is created (or by Prune()).
//
// Metrics (ServingMetrics, when given): processed_batch_size, input_batch_size,
// padding_size, queuing_latency {model_name, op_name=signature}, and the
// tfhost gauges queue_depth (tasks waiting, summed over the model's queues)
// and batch_fill_ratio (real rows / padded rows of the model's last batch);
// adaptive queues add :tfhost:serving:batching:adaptive_max_batch_size and
// adaptive_timeout_micros {model_name, op_name}.
#pragma once

#include <chrono>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "serving/batching/batch_scheduler.h"
#include "serving/metrics/metrics_registry.h"
#include "serving/servable/servable.h"

namespace tfhost::serving::batching {

struct BatchingRunnerOptions {
  BatchingConfig config = DefaultBatchingConfig();
  ServingMetrics* metrics = nullptr;         // may be null; must outlive the runner
  std::shared_ptr<SignatureRunner> inner;    // null: DirectRunner
  Clock* clock = nullptr;                    // null: the real clock
};

struct BatchQueueInfo {
  std::string model_name;
  int64_t version = 0;
  std::string signature_name;
  QueueStats stats;
  AdaptiveDecision decision;
};

// Whether a request may join a batch of `signature`: every input has a
// first (batch) dimension and all agree on it, the signature leaves that
// dimension open (-1), and no dim after it contradicts the signature (such a
// request must fail alone, with the graph's own error, not take its batch
// down). With `pad_variable_length` inner dims may differ.
bool CanBatch(const runtime::Signature& signature, const TensorMap& inputs, bool pad_variable_length);

class BatchingRunner : public SignatureRunner {
 public:
  static StatusOr<std::shared_ptr<BatchingRunner>> Create(BatchingRunnerOptions options);
  ~BatchingRunner() override;

  // Blocks until the request's rows come back (or its batch fails).
  StatusOr<TensorMap> Run(const ServableHandle& servable, const runtime::Signature& signature, TensorMap inputs,
                          const std::vector<std::string>& output_filter) override;

  // The same without blocking: `done` gets the outputs later, on a batch
  // thread (or at once on this thread when the request runs unbatched or is
  // refused). For front ends that answer asynchronously, so the number of
  // requests that can share a batch is not capped by their thread count.
  void RunAsync(const ServableHandle& servable, const runtime::Signature& signature, TensorMap inputs,
                const std::vector<std::string>& output_filter, DoneCallback done) override;
  // True when the request would be queued for a batch (CanBatch).
  bool CanRunAsync(const runtime::Signature& signature, const TensorMap& inputs) const override;

  // The server is draining: waiting batches run at once (BatchScheduler::BeginDrain).
  void BeginDrain();
  // Graceful stop: no new requests (UNAVAILABLE), queued ones run until
  // `drain` passes, the rest get CANCELLED; returns how many were cancelled.
  int64_t Shutdown(std::chrono::milliseconds drain);
  // Drops queues whose servable is gone.
  void Prune();
  std::vector<BatchQueueInfo> Queues() const;
  const BatchingConfig& config() const { return options_.config; }

  class ModelObserver;  // metrics per model (defined in the .cc)

 private:
  struct QueueEntry;
  explicit BatchingRunner(BatchingRunnerOptions options, std::shared_ptr<BatchScheduler> scheduler);
  StatusOr<BatchQueue*> QueueFor(const ServableHandle& servable, const runtime::Signature& signature,
                                 const std::vector<std::string>& output_filter);
  void PruneLocked();

  BatchingRunnerOptions options_;
  std::shared_ptr<BatchScheduler> scheduler_;
  mutable std::mutex mu_;
  std::map<std::string, std::unique_ptr<ModelObserver>> observers_;  // by model name
  std::map<std::string, std::unique_ptr<QueueEntry>> queues_;        // by queue key
};

}  // namespace tfhost::serving::batching
