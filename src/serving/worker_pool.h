// WorkerPool: a fixed number of threads with a bounded queue, for work that
// blocks (a model run without batching, classify/regress) and must not run on
// a front end's I/O threads. Bounded on both sides so that overload turns
// into a quick refusal (TrySchedule returns false; the caller answers
// UNAVAILABLE) instead of unbounded threads or memory.
//
// Thread-safety: TrySchedule may be called from any thread, also from inside
// a task. The destructor runs what is queued, then joins.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace tfhost::serving {

class WorkerPool {
 public:
  // `num_threads` >= 1 workers; at most `max_queued` tasks wait (>= 1).
  WorkerPool(int num_threads, size_t max_queued);
  ~WorkerPool();
  WorkerPool(const WorkerPool&) = delete;
  WorkerPool& operator=(const WorkerPool&) = delete;

  // Queues `task`; false (task dropped, not run) when the queue is full or
  // the pool is stopping.
  bool TrySchedule(std::function<void()> task);

  int num_threads() const { return static_cast<int>(threads_.size()); }
  size_t max_queued() const { return max_queued_; }
  size_t queued() const;

 private:
  void Loop();

  const size_t max_queued_;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::function<void()>> queue_;
  bool stopping_ = false;
  std::vector<std::thread> threads_;
};

}  // namespace tfhost::serving
