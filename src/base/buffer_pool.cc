#include "base/buffer_pool.h"

#include <algorithm>
#include <bit>
#include <cstdlib>
#include <new>

namespace tfhost {

namespace {

thread_local BufferPool* current_pool = nullptr;
// Keeps a bound pool alive for as long as the worker thread runs.
thread_local std::shared_ptr<BufferPool> bound_pool;
std::atomic<int64_t> total_system_allocations{0};

constexpr size_t kSmallLimit = 1024;  // multiples of 64 up to here
constexpr int kSmallClasses = 16;
constexpr int kStepsPerDoubling = 8;

void* SystemAllocate(size_t capacity) {
  void* p = std::aligned_alloc(64, capacity);
  if (p == nullptr) throw std::bad_alloc();
  total_system_allocations.fetch_add(1, std::memory_order_relaxed);
  return p;
}

}  // namespace

std::shared_ptr<BufferPool> BufferPool::Create(int64_t max_retained_bytes, int64_t max_in_use_bytes) {
  return std::shared_ptr<BufferPool>(
      new BufferPool(max_retained_bytes < 0 ? 0 : max_retained_bytes, max_in_use_bytes < 0 ? 0 : max_in_use_bytes));
}

BufferPool::~BufferPool() { Trim(); }

int BufferPool::ClassIndex(size_t bytes) {
  if (bytes <= kSmallLimit) return bytes == 0 ? 0 : static_cast<int>((bytes + 63) / 64) - 1;
  const int p = std::bit_width(bytes - 1) - 1;  // 2^p < bytes <= 2^(p+1)
  const size_t base = size_t{1} << p;
  const size_t step = base / kStepsPerDoubling;
  const size_t k = (bytes - base + step - 1) / step;  // 1..8
  return kSmallClasses + (p - 10) * kStepsPerDoubling + static_cast<int>(k) - 1;
}

size_t BufferPool::ClassCapacity(size_t bytes) {
  if (bytes <= kSmallLimit) return bytes == 0 ? 64 : ((bytes + 63) / 64) * 64;
  const int p = std::bit_width(bytes - 1) - 1;
  const size_t base = size_t{1} << p;
  const size_t step = base / kStepsPerDoubling;
  return base + ((bytes - base + step - 1) / step) * step;
}

void* BufferPool::Allocate(size_t bytes, size_t* capacity) {
  const int index = ClassIndex(bytes);
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (max_in_use_bytes_ > 0 && (bytes > static_cast<size_t>(max_in_use_bytes_) ||
                                  stats_.in_use_bytes + static_cast<int64_t>(bytes) > max_in_use_bytes_)) {
      throw std::bad_alloc();
    }
    // The request's class first, then up to kStepsPerDoubling classes up
    // (at most twice the size).
    const int last = std::min<int>(index + kStepsPerDoubling, static_cast<int>(free_.size()) - 1);
    for (int c = index; c <= last; ++c) {
      if (free_[c].empty()) continue;
      void* block = free_[c].back();
      free_[c].pop_back();
      *capacity = capacities_[c];
      stats_.retained_bytes -= static_cast<int64_t>(*capacity);
      ++stats_.reuses;
      Account(static_cast<int64_t>(bytes), static_cast<int64_t>(*capacity));
      return block;
    }
    ++stats_.system_allocations;
    *capacity = ClassCapacity(bytes);
    // Churn: a block went back to the system since the bound last grew, and
    // now one is needed again. Keeping this one when it comes back would
    // have spared the system both trips (MobileNetV2 at batch 32 with its
    // first block fused: 308k page faults a run at the 2x bound, 94k with
    // no bound).
    if (max_retained_bytes_ > 0 && stats_.released_to_system > released_at_growth_) {
      released_at_growth_ = stats_.released_to_system;
      max_retained_bytes_ = std::min(max_retained_bytes_ + static_cast<int64_t>(*capacity),
                                     std::max(max_retained_bytes_, 4 * peak_in_use_capacity_));
    }
    stats_.system_bytes += static_cast<int64_t>(*capacity);
    Account(static_cast<int64_t>(bytes), static_cast<int64_t>(*capacity));
  }
  try {
    return SystemAllocate(*capacity);
  } catch (...) {
    std::lock_guard<std::mutex> lock(mu_);
    Account(-static_cast<int64_t>(bytes), -static_cast<int64_t>(*capacity));
    throw;
  }
}

void BufferPool::Account(int64_t bytes, int64_t capacity) {
  stats_.in_use_bytes += bytes;
  stats_.in_use_capacity += capacity;
  if (stats_.in_use_bytes > stats_.peak_in_use_bytes) stats_.peak_in_use_bytes = stats_.in_use_bytes;
  peak_in_use_capacity_ = std::max(peak_in_use_capacity_, stats_.in_use_capacity);
  // The bound grows to twice the largest capacity ever in use at once: a run
  // whose working set exceeds the configured bound would otherwise hand part
  // of it back to the system and fault it in again on every run (measured:
  // 56k page faults per nsfw_mobilenet_v2 batch-32 run against a 256 MiB
  // bound). Twice, because a run's blocks do not pair up with the next run's
  // requests one to one (a request may take a block up to twice its size),
  // so the cache needs slack beyond the peak to settle. 0 stays "off".
  if (max_retained_bytes_ > 0 && 2 * stats_.in_use_capacity > max_retained_bytes_) {
    max_retained_bytes_ = 2 * stats_.in_use_capacity;
  }
}

void BufferPool::Release(void* block, size_t bytes, size_t capacity) {
  const int index = ClassIndex(capacity);  // a class capacity is its own class
  {
    std::lock_guard<std::mutex> lock(mu_);
    Account(-static_cast<int64_t>(bytes), -static_cast<int64_t>(capacity));
    if (!closed_ && stats_.retained_bytes + static_cast<int64_t>(capacity) <= max_retained_bytes_) {
      if (index >= static_cast<int>(free_.size())) {
        free_.resize(index + 1);
        capacities_.resize(index + 1, 0);
      }
      capacities_[index] = capacity;
      free_[index].push_back(block);
      stats_.retained_bytes += static_cast<int64_t>(capacity);
      return;
    }
    ++stats_.released_to_system;
  }
  std::free(block);
}

void BufferPool::Trim() {
  std::vector<std::vector<void*>> blocks;
  {
    std::lock_guard<std::mutex> lock(mu_);
    blocks.swap(free_);
    stats_.retained_bytes = 0;
    for (const auto& list : blocks) stats_.released_to_system += static_cast<int64_t>(list.size());
  }
  for (const auto& list : blocks) {
    for (void* b : list) std::free(b);
  }
}

void BufferPool::Close() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    closed_ = true;
  }
  Trim();
}

BufferPoolStats BufferPool::stats() const {
  std::lock_guard<std::mutex> lock(mu_);
  BufferPoolStats s = stats_;
  s.max_retained_bytes = max_retained_bytes_;
  return s;
}

void BufferPool::ResetPeak() {
  std::lock_guard<std::mutex> lock(mu_);
  stats_.peak_in_use_bytes = stats_.in_use_bytes;
}

BufferPool* BufferPool::Current() { return current_pool; }

BufferPool::ScopedCurrent::ScopedCurrent(BufferPool* pool) : previous_(current_pool) { current_pool = pool; }

BufferPool::ScopedCurrent::~ScopedCurrent() { current_pool = previous_; }

void BufferPool::BindToThisThread(std::shared_ptr<BufferPool> pool) {
  current_pool = pool.get();
  bound_pool = std::move(pool);
}

int64_t BufferPool::TotalSystemAllocations() { return total_system_allocations.load(std::memory_order_relaxed); }

}  // namespace tfhost
