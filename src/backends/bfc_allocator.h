// BfcAllocator: a best-fit-with-coalescing allocator over large regions of
// one memory space (device memory from cudaMalloc; host memory in tests). A
// device backend puts it in front of its driver so that a model run does
// not call the driver per tensor: chunks are carved from regions, split on
// allocation, merged with free neighbours on release, and regions are
// reused across runs.
//
// Limits, as TensorFlow's GPU options mean them: `memory_limit` caps what
// the allocator takes from the source in total (TF Serving's
// --per_process_gpu_memory_fraction times the device's memory). With
// `allow_growth` regions are taken as needed, doubling from
// min_region_bytes; without it the whole limit is taken as one region at
// the first allocation. When a region cannot be had, wholly free regions are
// given back and the request tried once more before it fails with
// ResourceExhausted naming the allocator, the request and the memory use.
//
// Stream order: chunks carry no events. A backend that runs all work of
// one device on one stream may reuse a freed chunk at once, since later
// work on that stream runs after the work that used it.
//
// Thread-safety: every method may be called from several threads at once
// (one mutex; the critical sections are map and set operations only).
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "base/allocator.h"

namespace tfhost::backends {

// Where a BfcAllocator's regions come from.
class RegionSource {
 public:
  virtual ~RegionSource() = default;
  virtual std::string name() const = 0;
  virtual MemorySpace space() const = 0;
  virtual StatusOr<void*> AllocateRegion(size_t bytes) = 0;
  virtual void FreeRegion(void* ptr, size_t bytes) = 0;
  // Copies within the space (Allocator::CopyWithin).
  virtual Status Copy(void* dst, const void* src, size_t bytes) = 0;
};

struct BfcOptions {
  int64_t memory_limit = 0;  // > 0: most bytes taken from the source at once
  bool allow_growth = true;
  size_t alignment = 256;    // power of two; every chunk starts at a multiple
  size_t min_region_bytes = size_t{2} << 20;
};

struct BfcStats {
  AllocatorStats allocator;        // stats(), read at the same instant
  int64_t bytes_reserved = 0;      // held in regions
  int64_t largest_free_chunk = 0;  // the biggest request that fits without growing
  int regions = 0;
  int free_chunks = 0;
};

class BfcAllocator : public Allocator {
 public:
  // Checks the options (InvalidArgument naming the bad one).
  static StatusOr<std::unique_ptr<BfcAllocator>> Create(std::unique_ptr<RegionSource> source, BfcOptions options);
  ~BfcAllocator() override;

  std::string name() const override { return "bfc(" + source_->name() + ")"; }
  MemorySpace space() const override { return source_->space(); }
  StatusOr<void*> Allocate(size_t bytes) override;
  void Deallocate(void* ptr, size_t bytes) override;
  Status CopyWithin(void* dst, const void* src, size_t bytes) override { return source_->Copy(dst, src, bytes); }
  // bytes_in_use counts chunk bytes (requests rounded up to the alignment);
  // bytes_limit is memory_limit.
  AllocatorStats stats() const override;
  BfcStats bfc_stats() const;

 private:
  struct Chunk {
    char* ptr = nullptr;
    size_t size = 0;
    bool in_use = false;
    Chunk* prev = nullptr;  // neighbours within one region, by address
    Chunk* next = nullptr;
    int region = -1;
  };
  struct Region {
    char* ptr = nullptr;
    size_t size = 0;
  };

  BfcAllocator(std::unique_ptr<RegionSource> source, BfcOptions options)
      : source_(std::move(source)), options_(options) {}
  // Under mu_: a free chunk of at least `size`, split to `size`, or null.
  Chunk* TakeFree(size_t size);
  // Under mu_: adds a region able to hold `size`; false when the source or
  // the limit refuses.
  bool Grow(size_t size);
  // Under mu_: stats().
  AllocatorStats StatsLocked() const;
  // Under mu_: gives back every region that is one free chunk.
  void ReleaseFreeRegions();
  void InsertFree(Chunk* c) { free_.insert({c->size, c}); }
  void EraseFree(Chunk* c) { free_.erase({c->size, c}); }

  std::unique_ptr<RegionSource> source_;
  const BfcOptions options_;
  mutable std::mutex mu_;
  std::vector<Region> regions_;  // freed regions keep their slot (ptr null)
  std::set<std::pair<size_t, Chunk*>> free_;
  std::unordered_map<void*, Chunk*> chunks_;  // every chunk, by start address
  int64_t reserved_ = 0;
  int64_t failed_ = 0;
  AllocatorCounters counters_;  // in use, peak, allocations (no limit of its own)
};

}  // namespace tfhost::backends
