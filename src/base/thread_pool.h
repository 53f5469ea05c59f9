// A fixed-size thread pool for intra-op and inter-op parallelism.
// Schedule() is thread-safe. ParallelFor splits [0, n) into chunks and blocks
// until all are done; the calling thread takes part, so a pool of size 0 runs
// everything inline (deterministic single-threaded execution).
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace tfhost {

class ThreadPool {
 public:
  // `num_threads` workers besides the caller; 0 means run inline.
  explicit ThreadPool(int num_threads);
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  int num_threads() const { return static_cast<int>(workers_.size()); }
  void Schedule(std::function<void()> fn);
  // Calls fn(begin, end) over chunks covering [0, n); `min_chunk` bounds the
  // smallest piece worth a task switch.
  void ParallelFor(int64_t n, int64_t min_chunk, const std::function<void(int64_t, int64_t)>& fn);
  // Whether tasks are waiting for a worker (a long-running task polls this
  // to give its worker back, base/step_team.h).
  bool HasQueuedTasks() const { return queued_.load(std::memory_order_relaxed) > 0; }

 private:
  void WorkerLoop();

  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::function<void()>> queue_;
  std::atomic<int> queued_{0};  // queue_.size(), readable without the lock
  bool stopping_ = false;
  std::vector<std::thread> workers_;
};

// Number of hardware threads (at least 1).
int HardwareConcurrency();

}  // namespace tfhost
