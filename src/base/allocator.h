// Allocator: memory of one MemorySpace for tensors that do not live in host
// memory (Tensor::Allocate), and its bookkeeping. Each backend owns one; a
// device backend's allocator is where its kernels put their outputs.
//
// Host tensors do not go through an Allocator: Tensor(dtype, shape) takes
// host memory from the current BufferPool (base/buffer_pool.h), which is the
// CPU backends' allocator.
//
// Contract: Allocate returns memory aligned to at least 64 bytes, or
// ResourceExhausted naming the allocator, the request and what is in use; it
// never throws or aborts. Deallocate gets back exactly what Allocate gave.
// An allocator outlives every tensor it allocated (backends are process-wide).
//
// Thread-safety: every method may be called from several threads at once.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <string>

#include "base/memory_space.h"
#include "base/status.h"

namespace tfhost {

struct AllocatorStats {
  int64_t bytes_in_use = 0;
  int64_t peak_bytes_in_use = 0;
  int64_t allocations = 0;    // successful Allocate calls, ever
  int64_t failed = 0;         // Allocate calls answered ResourceExhausted
  int64_t bytes_limit = 0;    // 0 = no limit of the allocator's own
};

class Allocator {
 public:
  virtual ~Allocator() = default;
  virtual std::string name() const = 0;
  virtual MemorySpace space() const = 0;
  virtual StatusOr<void*> Allocate(size_t bytes) = 0;
  virtual void Deallocate(void* ptr, size_t bytes) = 0;
  // Copies `bytes` between two allocations of this allocator (Tensor::Clone).
  virtual Status CopyWithin(void* dst, const void* src, size_t bytes) = 0;
  virtual AllocatorStats stats() const = 0;
};

// Counts bytes in use, peak, allocations and failures for an Allocator
// implementation, and enforces an optional limit. Lock-free.
class AllocatorCounters {
 public:
  explicit AllocatorCounters(int64_t bytes_limit = 0) : limit_(bytes_limit) {}
  // Reserves `bytes` against the limit; false (and a failure counted) when
  // that would pass it.
  bool Reserve(size_t bytes);
  // Undoes a Reserve whose allocation then failed (counts a failure).
  void Unreserve(size_t bytes);
  void Release(size_t bytes);
  AllocatorStats Snapshot() const;

 private:
  const int64_t limit_;
  std::atomic<int64_t> in_use_{0};
  std::atomic<int64_t> peak_{0};
  std::atomic<int64_t> allocations_{0};
  std::atomic<int64_t> failed_{0};
};

// The message of an allocation failure: "ALLOCATOR: cannot allocate N bytes
// in SPACE (in use U of limit L)".
Status AllocationFailure(const Allocator& allocator, size_t bytes);

}  // namespace tfhost
