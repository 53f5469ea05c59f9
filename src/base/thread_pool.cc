#include "base/thread_pool.h"

#include <algorithm>
#include <atomic>
#include <chrono>

namespace tfhost {
namespace {

// How long ParallelFor's caller, done with its own chunk, polls for the
// workers' before it blocks. Chunks are even, so they mostly end within
// microseconds of each other, and a blocked caller costs a wake-up: about
// 25 us on an idle 2-vCPU VM (a ParallelFor round trip, measured), and a
// scheduler time slice when other processes keep the CPUs busy. Polling
// (yielding the CPU each time) measured 1.01-1.04x on 2 threads on an idle
// machine and 0.97-2.6x beside two CPU hogs (docs/perf.md, "ParallelFor").
// Workers themselves do not poll for tasks: beside the hogs, workers that
// polled 200 us between tasks made blazeface 16x slower (the CPU time they
// burn is taken from the threads with work).
constexpr std::chrono::microseconds kCallerSpin(20);

}  // namespace

int HardwareConcurrency() {
  unsigned n = std::thread::hardware_concurrency();
  return n == 0 ? 1 : static_cast<int>(n);
}

ThreadPool::ThreadPool(int num_threads) {
  for (int i = 0; i < num_threads; ++i) workers_.emplace_back([this] { WorkerLoop(); });
}

ThreadPool::~ThreadPool() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
  }
  cv_.notify_all();
  for (auto& t : workers_) t.join();
}

void ThreadPool::Schedule(std::function<void()> fn) {
  if (workers_.empty()) {
    fn();
    return;
  }
  {
    std::lock_guard<std::mutex> lock(mu_);
    queue_.push_back(std::move(fn));
    queued_.fetch_add(1, std::memory_order_relaxed);
  }
  cv_.notify_one();
}

void ThreadPool::WorkerLoop() {
  for (;;) {
    std::function<void()> fn;
    {
      std::unique_lock<std::mutex> lock(mu_);
      cv_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
      if (queue_.empty()) return;  // stopping and drained
      fn = std::move(queue_.front());
      queue_.pop_front();
      queued_.fetch_sub(1, std::memory_order_relaxed);
    }
    fn();
  }
}

void ThreadPool::ParallelFor(int64_t n, int64_t min_chunk,
                             const std::function<void(int64_t, int64_t)>& fn) {
  if (n <= 0) return;
  int64_t max_tasks = static_cast<int64_t>(workers_.size()) + 1;
  int64_t tasks = std::min<int64_t>(max_tasks, (n + std::max<int64_t>(min_chunk, 1) - 1) /
                                                   std::max<int64_t>(min_chunk, 1));
  if (tasks <= 1) {
    fn(0, n);
    return;
  }
  int64_t chunk = (n + tasks - 1) / tasks;
  std::atomic<int64_t> remaining(tasks - 1);
  std::mutex done_mu;
  std::condition_variable done_cv;
  for (int64_t t = 1; t < tasks; ++t) {
    int64_t begin = t * chunk, end = std::min(n, begin + chunk);
    Schedule([&, begin, end] {
      if (begin < end) fn(begin, end);
      // Decrement under the lock: the caller may return (and its stack, which
      // holds done_mu and done_cv, be reused) as soon as it sees 0, so the
      // last worker must be done with both by the time that can happen. (A
      // decrement outside the lock let the caller leave before the worker's
      // lock and notify: a write into a dead stack frame, seen as a rare
      // crash of `tfhost bench --precision bf16` at batch 32.)
      std::lock_guard<std::mutex> lock(done_mu);
      if (remaining.fetch_sub(1) == 1) done_cv.notify_one();
    });
  }
  fn(0, std::min(n, chunk));
  // The lock is still taken when polling saw the workers done: it is what
  // makes the last worker done with done_mu and done_cv before this frame goes.
  const auto deadline = std::chrono::steady_clock::now() + kCallerSpin;
  while (remaining.load(std::memory_order_acquire) != 0 && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::yield();
  }
  std::unique_lock<std::mutex> lock(done_mu);
  done_cv.wait(lock, [&] { return remaining.load() == 0; });
}

}  // namespace tfhost
