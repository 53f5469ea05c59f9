#include "serving/worker_pool.h"

#include <algorithm>

namespace tfhost::serving {

WorkerPool::WorkerPool(int num_threads, size_t max_queued) : max_queued_(std::max<size_t>(1, max_queued)) {
  int n = std::max(1, num_threads);
  threads_.reserve(n);
  for (int i = 0; i < n; ++i) threads_.emplace_back([this] { Loop(); });
}

WorkerPool::~WorkerPool() {
  {
    std::lock_guard<std::mutex> l(mu_);
    stopping_ = true;
  }
  cv_.notify_all();
  for (auto& t : threads_) t.join();
}

bool WorkerPool::TrySchedule(std::function<void()> task) {
  {
    std::lock_guard<std::mutex> l(mu_);
    if (stopping_ || queue_.size() >= max_queued_) return false;
    queue_.push_back(std::move(task));
  }
  cv_.notify_one();
  return true;
}

size_t WorkerPool::queued() const {
  std::lock_guard<std::mutex> l(mu_);
  return queue_.size();
}

void WorkerPool::Loop() {
  for (;;) {
    std::function<void()> task;
    {
      std::unique_lock<std::mutex> l(mu_);
      cv_.wait(l, [&] { return stopping_ || !queue_.empty(); });
      // Queued tasks still run while stopping: each holds a caller waiting
      // for its answer.
      if (queue_.empty()) return;
      task = std::move(queue_.front());
      queue_.pop_front();
    }
    task();
  }
}

}  // namespace tfhost::serving
