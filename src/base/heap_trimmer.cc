#include "base/heap_trimmer.h"

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace tfhost {

HeapTrimmer::HeapTrimmer(std::chrono::milliseconds interval) {
  if (interval.count() > 0) thread_ = std::thread([this, interval] { Loop(interval); });
}

HeapTrimmer::~HeapTrimmer() {
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
}

bool HeapTrimmer::TrimNow() {
#if defined(__GLIBC__)
  return malloc_trim(0) != 0;
#else
  return false;
#endif
}

void HeapTrimmer::Loop(std::chrono::milliseconds interval) {
  std::unique_lock lock(mu_);
  while (!cv_.wait_for(lock, interval, [this] { return stopping_; })) {
    lock.unlock();
    TrimNow();
    trims_.fetch_add(1);
    lock.lock();
  }
}

}  // namespace tfhost
