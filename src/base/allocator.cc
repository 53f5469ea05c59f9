#include "base/allocator.h"

namespace tfhost {

bool AllocatorCounters::Reserve(size_t bytes) {
  const int64_t n = static_cast<int64_t>(bytes);
  int64_t now = in_use_.fetch_add(n, std::memory_order_relaxed) + n;
  if (limit_ > 0 && now > limit_) {
    in_use_.fetch_sub(n, std::memory_order_relaxed);
    failed_.fetch_add(1, std::memory_order_relaxed);
    return false;
  }
  allocations_.fetch_add(1, std::memory_order_relaxed);
  int64_t peak = peak_.load(std::memory_order_relaxed);
  while (now > peak && !peak_.compare_exchange_weak(peak, now, std::memory_order_relaxed)) {
  }
  return true;
}

void AllocatorCounters::Unreserve(size_t bytes) {
  in_use_.fetch_sub(static_cast<int64_t>(bytes), std::memory_order_relaxed);
  allocations_.fetch_sub(1, std::memory_order_relaxed);
  failed_.fetch_add(1, std::memory_order_relaxed);
}

void AllocatorCounters::Release(size_t bytes) {
  in_use_.fetch_sub(static_cast<int64_t>(bytes), std::memory_order_relaxed);
}

AllocatorStats AllocatorCounters::Snapshot() const {
  AllocatorStats s;
  s.bytes_in_use = in_use_.load(std::memory_order_relaxed);
  s.peak_bytes_in_use = peak_.load(std::memory_order_relaxed);
  s.allocations = allocations_.load(std::memory_order_relaxed);
  s.failed = failed_.load(std::memory_order_relaxed);
  s.bytes_limit = limit_;
  return s;
}

Status AllocationFailure(const Allocator& allocator, size_t bytes) {
  const AllocatorStats s = allocator.stats();
  std::string msg = allocator.name() + ": cannot allocate " + std::to_string(bytes) + " bytes in " +
                    allocator.space().ToString() + " (in use " + std::to_string(s.bytes_in_use);
  msg += s.bytes_limit > 0 ? " of limit " + std::to_string(s.bytes_limit) + ")" : ")";
  return ResourceExhausted(msg);
}

}  // namespace tfhost
