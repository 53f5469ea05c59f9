#include "serving/batching/batch_scheduler.h"

#include <algorithm>
#include <deque>
#include <future>
#include <optional>
#include <set>

#include <pthread.h>

#include "base/trace/request_span.h"
#include "serving/batching/batch_trace.h"

namespace tfhost::serving::batching {
namespace internal {

// One request, shared by its pieces when large-batch splitting cut it up.
struct TaskState {
  TensorMap inputs;
  DoneCallback done;
  int64_t rows = 0;
  int64_t enqueue_micros = 0;
  std::mutex mu;
  int remaining = 0;
  Status status;
  std::vector<TensorMap> parts;  // outputs per piece, in row order
  TaskTrace trace;               // set only while a trace is being recorded
};

struct Piece {
  std::shared_ptr<TaskState> task;
  int index;  // into task->parts
  int64_t begin, end;
};

struct Batch {
  std::vector<Piece> pieces;
  int64_t rows = 0;
  std::string key;            // compatibility key of its tasks
  int64_t open_micros = 0;    // when its first piece arrived
  bool empty() const { return pieces.empty(); }
};

struct Queue {
  std::string name;
  BatchingConfig config;
  BatchRunFn run;
  BatchObserver* observer = nullptr;
  std::unique_ptr<AdaptivePolicy> policy;  // adaptive mode only
  // Guarded by the scheduler's mutex. batches.back() is the open batch.
  std::deque<std::unique_ptr<Batch>> batches;
  bool closed = false;
  int in_flight = 0;
  int64_t waiting_tasks = 0;
  QueueStats stats;

  int64_t BatchLimit() const {
    return policy ? std::min(policy->CurrentLimits().max_batch_size, config.ExecutionBatchSize())
                  : config.ExecutionBatchSize();
  }
  // Rows at which a filling batch runs without waiting for its timeout.
  int64_t ReadyRows() const {
    return policy ? std::min(policy->CurrentLimits().target_batch_size, config.ExecutionBatchSize())
                  : config.ExecutionBatchSize();
  }
  int64_t TimeoutMicros() const {
    return policy ? policy->CurrentLimits().timeout_micros : config.batch_timeout_micros;
  }
  Batch& open() { return *batches.back(); }
  void StartNewBatch() { batches.push_back(std::make_unique<Batch>()); }
  bool Idle() const { return in_flight == 0 && batches.size() == 1 && batches.back()->empty(); }
};

}  // namespace internal

using internal::Batch;
using internal::Piece;
using internal::Queue;
using internal::TaskState;

namespace {

// Delivers one piece's result; the last piece of a task runs its callback.
void CompletePiece(const Piece& piece, StatusOr<TensorMap> result, Clock* clock, AdaptivePolicy* policy) {
  TaskState& task = *piece.task;
  bool last = false;
  {
    std::lock_guard<std::mutex> l(task.mu);
    if (!result.ok()) {
      if (task.status.ok()) task.status = result.status();
    } else {
      task.parts[piece.index] = std::move(result).value();
    }
    last = --task.remaining == 0;
  }
  if (!last) return;
  if (policy) policy->RecordRequestLatency(clock->NowMicros() - task.enqueue_micros);
  DoneCallback done = std::move(task.done);
  task.inputs.clear();
  if (!task.status.ok()) {
    done(task.status);
    return;
  }
  if (task.parts.size() == 1) {
    done(std::move(task.parts[0]));
    return;
  }
  TensorMap joined;
  for (const auto& [name, unused] : task.parts[0]) {
    std::vector<Tensor> pieces;
    for (const TensorMap& part : task.parts) {
      auto it = part.find(name);
      if (it == part.end()) {
        done(Internal("output '" + name + "' is missing from one piece of a split request"));
        return;
      }
      pieces.push_back(it->second);
    }
    auto joined_tensor = ConcatRows(pieces, "output '" + name + "'");
    if (!joined_tensor.ok()) {
      done(joined_tensor.status());
      return;
    }
    joined.emplace(name, std::move(joined_tensor).value());
  }
  done(std::move(joined));
}

void FailBatch(Batch& batch, const Status& status, Clock* clock, AdaptivePolicy* policy) {
  for (const Piece& p : batch.pieces) CompletePiece(p, status, clock, policy);
}

}  // namespace

// ---------------------------------------------------------------- BatchQueue

BatchQueue::~BatchQueue() {
  Close();
  scheduler_->RemoveQueue(queue_);
}

Status BatchQueue::Schedule(TensorMap inputs, DoneCallback done) {
  return scheduler_->Schedule(*queue_, std::move(inputs), std::move(done));
}

StatusOr<TensorMap> BatchQueue::Run(TensorMap inputs) {
  auto promise = std::make_shared<std::promise<StatusOr<TensorMap>>>();
  auto future = promise->get_future();
  TFHOST_RETURN_IF_ERROR(Schedule(std::move(inputs), [promise](StatusOr<TensorMap> result) {
    promise->set_value(std::move(result));
  }));
  return future.get();
}

void BatchQueue::Close() { scheduler_->CloseQueue(*queue_); }

const std::string& BatchQueue::name() const { return queue_->name; }

QueueStats BatchQueue::stats() const { return scheduler_->Stats(*queue_); }

AdaptiveDecision BatchQueue::decision() const {
  if (queue_->policy) return queue_->policy->Decision();
  AdaptiveDecision d;
  d.max_batch_size = queue_->config.ExecutionBatchSize();
  d.timeout_micros = queue_->config.batch_timeout_micros;
  d.reason = "fixed";
  return d;
}

AdaptivePolicy::Limits BatchQueue::limits() const {
  if (queue_->policy) return queue_->policy->CurrentLimits();
  const int64_t size = queue_->config.ExecutionBatchSize();
  return AdaptivePolicy::Limits{size, size, queue_->config.batch_timeout_micros};
}

bool BatchQueue::adaptive() const { return queue_->policy != nullptr; }

// ------------------------------------------------------------ BatchScheduler

StatusOr<std::shared_ptr<BatchScheduler>> BatchScheduler::Create(const Options& options) {
  if (options.num_threads < 1 || options.num_threads > 4096) {
    return InvalidArgument("num_batch_threads must be between 1 and 4096, got " +
                           std::to_string(options.num_threads));
  }
  return std::shared_ptr<BatchScheduler>(new BatchScheduler(options));
}

StatusOr<std::shared_ptr<BatchScheduler>> BatchScheduler::Create(const BatchingConfig& config, Clock* clock) {
  Options options;
  options.num_threads = static_cast<int>(std::clamp<int64_t>(config.num_batch_threads, 0, 1 << 20));
  options.thread_pool_name = config.thread_pool_name;
  options.clock = clock;
  return Create(options);
}

BatchScheduler::BatchScheduler(const Options& options)
    : options_(options), clock_(options.clock ? options.clock : RealClock()) {
  for (int i = 0; i < options.num_threads; ++i) {
    threads_.emplace_back([this, i] {
      // Visible in top/gdb as TF Serving's pool name; Linux caps names at 15 chars.
      const std::string name = options_.thread_pool_name.substr(0, 10) + "_" + std::to_string(i % 10000);
      pthread_setname_np(pthread_self(), name.c_str());
      trace::SetThreadName(options_.thread_pool_name + " " + std::to_string(i));
      WorkerLoop();
    });
  }
}

BatchScheduler::~BatchScheduler() { Shutdown(std::chrono::milliseconds(0)); }

StatusOr<std::unique_ptr<BatchQueue>> BatchScheduler::AddQueue(const std::string& name,
                                                               const BatchingConfig& config, BatchRunFn run,
                                                               BatchObserver* observer) {
  TFHOST_RETURN_IF_ERROR(ValidateBatchingConfig(config, "batching queue '" + name + "'"));
  auto queue = std::make_shared<Queue>();
  queue->name = name;
  queue->config = config;
  queue->run = std::move(run);
  queue->observer = observer;
  if (config.mode == BatchingMode::kAdaptive) {
    AdaptiveOptions a;
    a.target_latency_ms = config.target_latency_ms;
    a.max_batch_size = config.ExecutionBatchSize();
    a.allowed_batch_sizes = config.allowed_batch_sizes;
    a.num_threads = num_threads();
    queue->policy = std::make_unique<AdaptivePolicy>(a);
  }
  queue->StartNewBatch();
  {
    std::lock_guard<std::mutex> l(mu_);
    if (stopping_) return Unavailable("batching queue '" + name + "': the batch scheduler is shut down");
    queues_.push_back(queue);
  }
  return std::unique_ptr<BatchQueue>(new BatchQueue(shared_from_this(), queue));
}

Status BatchScheduler::Schedule(Queue& q, TensorMap inputs, DoneCallback done) {
  if (!done) return InvalidArgument("batching queue '" + q.name + "': a task needs a completion callback");
  TFHOST_ASSIGN_OR_RETURN(const int64_t rows, TaskRows(inputs));
  const BatchingConfig& c = q.config;
  if (rows > c.max_batch_size) {
    return InvalidArgument("Task size " + std::to_string(rows) + " is larger than maximum batch size " +
                           std::to_string(c.max_batch_size) + " (batching queue '" + q.name +
                           "'): send fewer rows per request, or raise max_batch_size");
  }
  auto task = std::make_shared<TaskState>();
  task->rows = rows;
  task->done = std::move(done);
  task->trace.Enqueued();
  const std::string key = BatchCompatibilityKey(inputs, c.pad_variable_length_inputs);
  const int64_t now = clock_->NowMicros();
  if (q.policy) q.policy->RecordArrival(now, rows);
  {
    std::lock_guard<std::mutex> l(mu_);
    if (q.closed || stopping_) {
      return Unavailable("batching queue '" + q.name + "' is shutting down; no new requests are accepted");
    }
    const int64_t limit = q.BatchLimit();
    Batch& open = q.open();
    const bool fits_open = open.empty() || open.key == key;
    // Plan the pieces: without splitting a task goes whole into the open
    // batch or a new one; with splitting it tops up the open batch first.
    std::vector<int64_t> piece_rows;
    bool first_in_open = false;
    if (!c.enable_large_batch_splitting || rows == 0) {
      first_in_open = open.empty() || (fits_open && open.rows + rows <= limit);
      piece_rows.push_back(rows);
    } else {
      int64_t left = rows;
      const int64_t room = fits_open ? std::max<int64_t>(0, limit - open.rows) : 0;
      if (room > 0) {
        piece_rows.push_back(std::min(room, left));
        left -= piece_rows.back();
        first_in_open = true;
      }
      while (left > 0) {
        piece_rows.push_back(std::min(limit, left));
        left -= piece_rows.back();
      }
    }
    const int64_t new_batches = static_cast<int64_t>(piece_rows.size()) - (first_in_open ? 1 : 0);
    if (static_cast<int64_t>(q.batches.size()) + new_batches > c.max_enqueued_batches && new_batches > 0) {
      ++q.stats.rejected_full;
      return Unavailable("The batch scheduling queue to which this task was submitted is full (batching queue '" +
                         q.name + "', max_enqueued_batches=" + std::to_string(c.max_enqueued_batches) + ")");
    }
    task->enqueue_micros = now;
    task->remaining = static_cast<int>(piece_rows.size());
    task->parts.resize(piece_rows.size());
    task->inputs = std::move(inputs);
    int64_t begin = 0;
    for (size_t i = 0; i < piece_rows.size(); ++i) {
      if (i > 0 || !first_in_open) q.StartNewBatch();
      Batch& b = q.open();
      if (b.empty()) {
        b.open_micros = now;
        b.key = key;
      }
      b.pieces.push_back(Piece{task, static_cast<int>(i), begin, begin + piece_rows[i]});
      b.rows += piece_rows[i];
      begin += piece_rows[i];
    }
    ++q.waiting_tasks;
    if (q.observer) q.observer->OnQueueDepth(q.waiting_tasks);
  }
  work_cv_.notify_one();
  return OkStatus();
}

void BatchScheduler::CloseQueue(Queue& q) {
  {
    std::lock_guard<std::mutex> l(mu_);
    q.closed = true;
  }
  work_cv_.notify_all();
}

void BatchScheduler::RemoveQueue(const std::shared_ptr<Queue>& queue) {
  std::unique_lock<std::mutex> l(mu_);
  // Threads are gone after Shutdown, and Shutdown cancelled what was left.
  drain_cv_.wait(l, [&] { return queue->Idle() || shut_down_; });
  auto it = std::find(queues_.begin(), queues_.end(), queue);
  if (it != queues_.end()) {
    const size_t index = static_cast<size_t>(it - queues_.begin());
    queues_.erase(it);
    if (next_queue_ > index) --next_queue_;
    if (next_queue_ >= queues_.size()) next_queue_ = 0;
  }
}

QueueStats BatchScheduler::Stats(const Queue& q) const {
  std::lock_guard<std::mutex> l(mu_);
  QueueStats s = q.stats;
  s.waiting_tasks = q.waiting_tasks;
  s.waiting_batches = 0;
  for (const auto& b : q.batches) s.waiting_batches += b->empty() ? 0 : 1;
  return s;
}

void BatchScheduler::WorkerLoop() {
  std::unique_lock<std::mutex> l(mu_);
  for (;;) {
    if (stopping_ && std::chrono::steady_clock::now() >= drain_deadline_) return;
    const int64_t now = clock_->NowMicros();
    // Round-robin: the first queue from next_queue_ with a ready batch.
    std::shared_ptr<Queue> queue;
    std::unique_ptr<Batch> batch;
    int64_t earliest_deadline = -1;
    for (size_t tried = 0; tried < queues_.size() && !batch; ++tried) {
      const size_t index = (next_queue_ + tried) % queues_.size();
      Queue& q = *queues_[index];
      Batch& front = *q.batches.front();
      bool ready = q.batches.size() > 1;  // a closed batch waits
      if (!ready && !front.empty()) {
        const int64_t deadline = front.open_micros + q.TimeoutMicros();
        ready = q.closed || stopping_ || draining_ || front.rows >= q.ReadyRows() || now >= deadline;
        if (!ready && (earliest_deadline < 0 || deadline < earliest_deadline)) earliest_deadline = deadline;
      }
      if (!ready) continue;
      queue = queues_[index];
      batch = std::move(q.batches.front());
      q.batches.pop_front();
      if (q.batches.empty()) q.StartNewBatch();
      ++q.in_flight;
      q.waiting_tasks -= static_cast<int64_t>(std::count_if(
          batch->pieces.begin(), batch->pieces.end(), [](const Piece& p) { return p.index == 0; }));
      next_queue_ = (index + 1) % queues_.size();
    }
    if (!batch) {
      if (stopping_) return;  // closed queues make every waiting batch ready: nothing is left
      if (earliest_deadline < 0) {
        work_cv_.wait(l);
      } else {
        // Re-read the clock at least every 10 ms so a simulated clock that
        // moves also releases due batches.
        const int64_t wait = std::clamp<int64_t>(earliest_deadline - now, 50, 10'000);
        work_cv_.wait_for(l, std::chrono::microseconds(wait));
      }
      continue;
    }
    if (queue->observer) queue->observer->OnQueueDepth(queue->waiting_tasks);
    l.unlock();

    // ---- Run the batch (no lock held). ----
    Queue& q = *queue;
    const int64_t padded = RoundUpToAllowedBatchSize(q.config.allowed_batch_sizes, batch->rows);
    std::vector<RowSlice> slices;
    std::vector<int64_t> queue_micros;
    slices.reserve(batch->pieces.size());
    const int64_t start = clock_->NowMicros();
    for (const Piece& p : batch->pieces) {
      slices.push_back(RowSlice{&p.task->inputs, p.begin, p.end});
      queue_micros.push_back(start - p.task->enqueue_micros);
    }
    // Traced: the tasks' waits end here, and the model run below is this
    // batch's child.
    uint64_t trace_batch = 0;
    int64_t trace_start_ns = 0;
    std::optional<trace::ScopedContext> trace_context;
    if (trace::Enabled()) {
      trace_batch = trace::NewSpanId();
      trace_start_ns = trace::NowNanos();
      for (const Piece& p : batch->pieces) {
        if (p.index == 0) p.task->trace.Started(trace_start_ns, trace_batch, q.name, p.task->rows);
      }
      trace_context.emplace(trace::Context{trace_batch, 0});
    }
    StatusOr<TensorMap> outputs = ConcatenateBatch(slices, padded, q.config.pad_variable_length_inputs);
    if (outputs.ok()) outputs = q.run(outputs.value());
    const int64_t latency = clock_->NowMicros() - start;
    if (outputs.ok()) {
      Status check = CheckBatchedOutputs(outputs.value(), padded);
      if (!check.ok()) outputs = check.WithContext("batching queue '" + q.name + "'");
    }
    if (q.observer) q.observer->OnBatch(batch->rows, padded, latency, queue_micros);
    if (trace_batch != 0) {
      // Recorded before any task hears back, so a trace stopped once the
      // answers are in holds it.
      std::vector<uint64_t> requests;
      for (const Piece& p : batch->pieces) {
        if (p.task->trace.request() != 0) requests.push_back(p.task->trace.request());
      }
      RecordBatchSlice(trace_start_ns, trace_batch, q.name, batch->rows, padded, requests);
      trace_context.reset();
    }
    {
      // Counted before the callbacks run, so a caller that got its answer
      // sees its batch in the stats.
      std::lock_guard<std::mutex> stats_lock(mu_);
      ++q.stats.batches_run;
      q.stats.rows_run += batch->rows;
      q.stats.padded_rows_run += padded;
    }
    if (!outputs.ok()) {
      FailBatch(*batch, outputs.status(), clock_, q.policy.get());
    } else {
      int64_t offset = 0;
      for (const Piece& p : batch->pieces) {
        const int64_t n = p.end - p.begin;
        TensorMap mine;
        for (const auto& [name, tensor] : outputs.value()) mine.emplace(name, SliceRows(tensor, offset, offset + n));
        offset += n;
        CompletePiece(p, std::move(mine), clock_, q.policy.get());
      }
    }
    // The adaptive policy sizes batches by how long they keep a thread busy
    // (join + run + split + answers), not by the model run alone.
    if (q.policy && outputs.ok()) q.policy->RecordBatch(padded, clock_->NowMicros() - start);
    batch.reset();  // drop input references before reporting idle

    l.lock();
    --q.in_flight;
    drain_cv_.notify_all();
  }
}

void BatchScheduler::BeginDrain() {
  {
    std::lock_guard<std::mutex> l(mu_);
    draining_ = true;
  }
  work_cv_.notify_all();
}

int64_t BatchScheduler::Shutdown(std::chrono::milliseconds drain) {
  // Whatever has not started by the deadline is cancelled right then, even
  // while other batches still run: a caller blocked on a queued task must not
  // wait for a long batch it is not part of.
  std::vector<std::pair<std::unique_ptr<Batch>, Queue*>> left;
  {
    std::unique_lock<std::mutex> l(mu_);
    if (!stopping_) {
      stopping_ = true;
      drain_deadline_ = std::chrono::steady_clock::now() + drain;
      for (auto& q : queues_) q->closed = true;
    }
    work_cv_.notify_all();
    drain_cv_.wait_until(l, drain_deadline_, [&] {
      return std::all_of(queues_.begin(), queues_.end(), [](const std::shared_ptr<Queue>& q) {
        return q->batches.size() == 1 && q->batches.front()->empty();
      });
    });
    for (auto& q : queues_) {
      while (!q->batches.empty()) {
        if (!q->batches.front()->empty()) left.emplace_back(std::move(q->batches.front()), q.get());
        q->batches.pop_front();
      }
      q->StartNewBatch();
      q->waiting_tasks = 0;
    }
  }
  std::set<const TaskState*> cancelled;  // a split task has a piece per batch
  for (auto& [batch, q] : left) {
    for (const Piece& p : batch->pieces) cancelled.insert(p.task.get());
    FailBatch(*batch, Status(StatusCode::kCancelled, "batching queue '" + q->name +
                                                         "' shut down before this request ran"),
              clock_, nullptr);
  }
  std::vector<std::thread> threads;
  {
    std::lock_guard<std::mutex> l(mu_);
    threads.swap(threads_);
  }
  for (std::thread& t : threads) t.join();  // running batches finish
  {
    std::lock_guard<std::mutex> l(mu_);
    shut_down_ = true;
  }
  drain_cv_.notify_all();
  return static_cast<int64_t>(cancelled.size());
}

}  // namespace tfhost::serving::batching
