#include "serving/worker_pool.h"

#include <algorithm>
#include <string>

#include "base/trace/request_span.h"

namespace tfhost::serving {

WorkerPool::WorkerPool(int num_threads, size_t max_queued) : max_queued_(std::max<size_t>(1, max_queued)) {
  int n = std::max(1, num_threads);
  threads_.reserve(n);
  for (int i = 0; i < n; ++i) {
    threads_.emplace_back([this, i] {
      trace::SetThreadName("serving worker " + std::to_string(i));
      Loop();
    });
  }
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
  // A traced request's context goes with its work to the worker, so that
  // the model run there is drawn as the request's child.
  if (trace::Enabled()) {
    if (const trace::Context context = trace::CurrentContext(); context.span != 0) {
      task = [context, inner = std::move(task)] {
        trace::ScopedContext scope(context);
        inner();
      };
    }
  }
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
