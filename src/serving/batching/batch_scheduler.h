// Dynamic batching with TensorFlow Serving's semantics: one BatchScheduler
// owns num_batch_threads threads shared by many queues (one per model
// version and signature); each queue collects requests ("tasks": named input
// tensors with the batch on dim 0, plus a completion callback) into batches
// and hands a batch to a free thread when it is full (max_batch_size rows) or
// batch_timeout_micros after its first task arrived. Threads visit queues
// round-robin, so a busy queue cannot starve a quiet one.
//
// Per queue, as TF Serving does it:
//  - at most max_enqueued_batches batches wait (the open one included); a
//    task that would need one more is refused at once with UNAVAILABLE
//    ("The batch scheduling queue to which this task was submitted is full");
//  - a task larger than max_batch_size is INVALID_ARGUMENT, unless
//    enable_large_batch_splitting is on: then a task is cut into pieces that
//    fill the open batch and further batches of max_execution_batch_size,
//    and its outputs are joined again before its callback runs;
//  - a batch is padded up to the next allowed_batch_sizes entry by repeating
//    its first row; with pad_variable_length_inputs, dims after 0 are padded
//    to the batch maximum; tasks that cannot be concatenated (other input
//    names, dtypes or inner shapes) start a new batch;
//  - outputs are cut back per task along dim 0; an output whose dim 0 is not
//    the batch size fails that batch's tasks with an error that says so.
// In adaptive mode (BatchingConfig::mode) an AdaptivePolicy per queue picks
// the batch size (<= the configured one) and the timeout.
//
// Shutdown: BeginDrain runs waiting batches at once while still accepting
// tasks; a closed queue accepts nothing new (UNAVAILABLE) and runs what it
// holds at once; BatchScheduler::Shutdown drains until a deadline and then
// completes every task still waiting with CANCELLED. Every accepted task's
// callback runs exactly once.
#pragma once

#include <chrono>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "base/status.h"
#include "serving/batching/adaptive_policy.h"
#include "serving/batching/batch_tensors.h"
#include "serving/batching/batching_parameters.h"
#include "serving/batching/clock.h"

namespace tfhost::serving::batching {

// Receives a task's outputs (its own rows) or the error of its batch. Runs on
// a batch thread (or the caller of Shutdown); must not block for long.
using DoneCallback = std::function<void(StatusOr<TensorMap>)>;
// Runs one batched call (in production: Model::RunSignature). Called from
// batch threads, possibly concurrently.
using BatchRunFn = std::function<StatusOr<TensorMap>(const TensorMap& batched_inputs)>;

// Observes batches for metrics; all calls come from scheduler threads.
class BatchObserver {
 public:
  virtual ~BatchObserver() = default;
  // A batch of `rows` real rows padded to `padded_rows` ran in
  // `latency_micros`; its tasks waited `queue_micros` each.
  virtual void OnBatch(int64_t rows, int64_t padded_rows, int64_t latency_micros,
                       const std::vector<int64_t>& queue_micros) = 0;
  // Tasks now waiting in the queue (not yet running).
  virtual void OnQueueDepth(int64_t tasks) = 0;
};

struct QueueStats {
  int64_t waiting_tasks = 0;    // accepted, first (or only) piece not yet running
  int64_t waiting_batches = 0;  // including a non-empty open batch
  int64_t batches_run = 0;
  int64_t rows_run = 0;         // real rows
  int64_t padded_rows_run = 0;  // rows the model saw
  int64_t rejected_full = 0;
};

namespace internal {
struct Queue;
}

class BatchScheduler;

// A handle on one queue. Destroying it closes the queue and waits until the
// tasks it holds have run (or were cancelled by a scheduler shutdown).
class BatchQueue {
 public:
  ~BatchQueue();
  BatchQueue(const BatchQueue&) = delete;
  BatchQueue& operator=(const BatchQueue&) = delete;

  // Enqueues a task. On an error (queue full, closed, bad task) `done` is not
  // called and the error is returned at once; otherwise `done` runs exactly
  // once, later.
  Status Schedule(TensorMap inputs, DoneCallback done);
  // Schedule and wait for the outputs.
  StatusOr<TensorMap> Run(TensorMap inputs);

  // No new tasks; what is queued runs at once. Idempotent.
  void Close();
  const std::string& name() const;
  QueueStats stats() const;
  // The current adaptive decision (adaptive mode), else the fixed limits.
  AdaptiveDecision decision() const;
  // The limits in force now, cheaply (no recomputation, no strings).
  AdaptivePolicy::Limits limits() const;
  bool adaptive() const;

 private:
  friend class BatchScheduler;
  BatchQueue(std::shared_ptr<BatchScheduler> scheduler, std::shared_ptr<internal::Queue> queue)
      : scheduler_(std::move(scheduler)), queue_(std::move(queue)) {}
  std::shared_ptr<BatchScheduler> scheduler_;
  std::shared_ptr<internal::Queue> queue_;
};

class BatchScheduler : public std::enable_shared_from_this<BatchScheduler> {
 public:
  struct Options {
    int num_threads = 1;
    std::string thread_pool_name = "model_server_batch_threads";
    Clock* clock = nullptr;  // null: RealClock(); must outlive the scheduler
  };
  static StatusOr<std::shared_ptr<BatchScheduler>> Create(const Options& options);
  // From the scheduler-wide fields of a BatchingConfig.
  static StatusOr<std::shared_ptr<BatchScheduler>> Create(const BatchingConfig& config, Clock* clock = nullptr);
  ~BatchScheduler();

  // A new queue with `config`'s per-queue fields (validated here). `name`
  // appears in errors ("model 'm' signature 's'"). `observer` may be null and
  // must outlive the queue.
  StatusOr<std::unique_ptr<BatchQueue>> AddQueue(const std::string& name, const BatchingConfig& config,
                                                 BatchRunFn run, BatchObserver* observer = nullptr);

  // The server is draining: from now on a batch runs as soon as a thread is
  // free, without waiting for more rows or for its timeout (no more requests
  // are coming to fill it). New tasks are still accepted. Idempotent.
  void BeginDrain();

  // Closes every queue, keeps running queued batches until `drain` has
  // passed, then cancels (CANCELLED) whatever has not started and joins the
  // threads (a running batch is always finished). Later Schedule calls get
  // UNAVAILABLE. Returns how many tasks were cancelled (0 on later calls).
  // Idempotent; the destructor calls Shutdown(0).
  int64_t Shutdown(std::chrono::milliseconds drain = std::chrono::milliseconds(0));

  int num_threads() const { return static_cast<int>(threads_.size()); }

 private:
  friend class BatchQueue;
  explicit BatchScheduler(const Options& options);
  void WorkerLoop();
  Status Schedule(internal::Queue& queue, TensorMap inputs, DoneCallback done);
  void CloseQueue(internal::Queue& queue);
  void RemoveQueue(const std::shared_ptr<internal::Queue>& queue);
  QueueStats Stats(const internal::Queue& queue) const;

  Options options_;
  Clock* clock_;
  mutable std::mutex mu_;
  std::condition_variable work_cv_;   // workers: a batch may be ready
  std::condition_variable drain_cv_;  // queue closers: a batch finished
  std::vector<std::shared_ptr<internal::Queue>> queues_;
  size_t next_queue_ = 0;  // round-robin position
  bool draining_ = false;  // BeginDrain: every waiting batch is ready
  bool stopping_ = false;
  bool shut_down_ = false;  // Shutdown finished: nothing will run any more
  std::chrono::steady_clock::time_point drain_deadline_;
  std::vector<std::thread> threads_;
};

}  // namespace tfhost::serving::batching
