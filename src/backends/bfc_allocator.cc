#include "backends/bfc_allocator.h"

#include <algorithm>

namespace tfhost::backends {

StatusOr<std::unique_ptr<BfcAllocator>> BfcAllocator::Create(std::unique_ptr<RegionSource> source,
                                                             BfcOptions options) {
  if (source == nullptr) return InvalidArgument("BfcAllocator needs a region source");
  if (options.memory_limit <= 0) {
    return InvalidArgument("BfcAllocator over " + source->name() + ": memory_limit must be positive, got " +
                           std::to_string(options.memory_limit));
  }
  if (options.alignment == 0 || (options.alignment & (options.alignment - 1)) != 0) {
    return InvalidArgument("BfcAllocator over " + source->name() + ": alignment must be a power of two, got " +
                           std::to_string(options.alignment));
  }
  if (options.min_region_bytes == 0) options.min_region_bytes = options.alignment;
  return std::unique_ptr<BfcAllocator>(new BfcAllocator(std::move(source), options));
}

BfcAllocator::~BfcAllocator() {
  for (auto& [ptr, chunk] : chunks_) delete chunk;
  for (const Region& r : regions_) {
    if (r.ptr != nullptr) source_->FreeRegion(r.ptr, r.size);
  }
}

BfcAllocator::Chunk* BfcAllocator::TakeFree(size_t size) {
  auto it = free_.lower_bound({size, nullptr});
  if (it == free_.end()) return nullptr;
  Chunk* c = it->second;
  free_.erase(it);
  if (c->size - size >= options_.alignment) {
    // The rest stays free as its own chunk after this one.
    auto* rest = new Chunk{c->ptr + size, c->size - size, false, c, c->next, c->region};
    if (c->next != nullptr) c->next->prev = rest;
    c->next = rest;
    c->size = size;
    chunks_[rest->ptr] = rest;
    InsertFree(rest);
  }
  c->in_use = true;
  return c;
}

bool BfcAllocator::Grow(size_t size) {
  const int64_t room = options_.memory_limit - reserved_;
  if (room < static_cast<int64_t>(size)) return false;
  size_t bytes = size;
  if (!options_.allow_growth) {
    bytes = static_cast<size_t>(room);
  } else {
    // Doubling regions keep their number logarithmic in the peak.
    size_t want = std::max(options_.min_region_bytes, static_cast<size_t>(reserved_));
    bytes = std::min(static_cast<size_t>(room), std::max(size, want));
  }
  bytes = bytes / options_.alignment * options_.alignment;
  if (bytes < size) return false;
  StatusOr<void*> got = source_->AllocateRegion(bytes);
  if (!got.ok() && bytes > size) {
    bytes = size;  // the source may have room for the request alone
    got = source_->AllocateRegion(bytes);
  }
  if (!got.ok()) return false;
  regions_.push_back(Region{static_cast<char*>(*got), bytes});
  reserved_ += static_cast<int64_t>(bytes);
  auto* c = new Chunk{static_cast<char*>(*got), bytes, false, nullptr, nullptr, static_cast<int>(regions_.size()) - 1};
  chunks_[c->ptr] = c;
  InsertFree(c);
  return true;
}

void BfcAllocator::ReleaseFreeRegions() {
  for (size_t i = 0; i < regions_.size(); ++i) {
    Region& r = regions_[i];
    if (r.ptr == nullptr) continue;
    auto it = chunks_.find(r.ptr);
    if (it == chunks_.end()) continue;
    Chunk* c = it->second;
    if (c->in_use || c->size != r.size) continue;
    EraseFree(c);
    chunks_.erase(it);
    delete c;
    source_->FreeRegion(r.ptr, r.size);
    reserved_ -= static_cast<int64_t>(r.size);
    r.ptr = nullptr;
    r.size = 0;
  }
}

StatusOr<void*> BfcAllocator::Allocate(size_t bytes) {
  const size_t size = std::max<size_t>(1, (bytes + options_.alignment - 1) / options_.alignment) * options_.alignment;
  std::lock_guard<std::mutex> lock(mu_);
  Chunk* c = TakeFree(size);
  if (c == nullptr && Grow(size)) c = TakeFree(size);
  if (c == nullptr) {
    ReleaseFreeRegions();
    if (Grow(size)) c = TakeFree(size);
  }
  if (c == nullptr) {
    ++failed_;
    int64_t largest = free_.empty() ? 0 : static_cast<int64_t>(free_.rbegin()->first);
    const AllocatorStats s = counters_.Snapshot();
    return ResourceExhausted(name() + ": cannot allocate " + std::to_string(bytes) + " bytes in " +
                             space().ToString() + " (in use " + std::to_string(s.bytes_in_use) + ", reserved " +
                             std::to_string(reserved_) + " of limit " + std::to_string(options_.memory_limit) +
                             ", largest free chunk " + std::to_string(largest) + ")");
  }
  counters_.Reserve(c->size);
  return static_cast<void*>(c->ptr);
}

void BfcAllocator::Deallocate(void* ptr, size_t) {
  if (ptr == nullptr) return;
  std::lock_guard<std::mutex> lock(mu_);
  auto it = chunks_.find(ptr);
  if (it == chunks_.end() || !it->second->in_use) return;  // not ours, or freed twice: nothing to undo
  Chunk* c = it->second;
  c->in_use = false;
  counters_.Release(c->size);
  // Merge with free neighbours so that the region's free space stays whole.
  if (c->next != nullptr && !c->next->in_use) {
    Chunk* n = c->next;
    EraseFree(n);
    c->size += n->size;
    c->next = n->next;
    if (n->next != nullptr) n->next->prev = c;
    chunks_.erase(n->ptr);
    delete n;
  }
  if (c->prev != nullptr && !c->prev->in_use) {
    Chunk* p = c->prev;
    EraseFree(p);
    p->size += c->size;
    p->next = c->next;
    if (c->next != nullptr) c->next->prev = p;
    chunks_.erase(c->ptr);
    delete c;
    c = p;
  }
  InsertFree(c);
}

AllocatorStats BfcAllocator::stats() const {
  std::lock_guard<std::mutex> lock(mu_);
  return StatsLocked();
}

AllocatorStats BfcAllocator::StatsLocked() const {
  AllocatorStats s = counters_.Snapshot();
  s.bytes_limit = options_.memory_limit;
  s.failed = failed_;
  return s;
}

BfcStats BfcAllocator::bfc_stats() const {
  std::lock_guard<std::mutex> lock(mu_);
  BfcStats s;
  // Under the same lock as `reserved_`, so that in use never exceeds
  // reserved in one reading.
  s.allocator = StatsLocked();
  s.bytes_reserved = reserved_;
  s.largest_free_chunk = free_.empty() ? 0 : static_cast<int64_t>(free_.rbegin()->first);
  for (const Region& r : regions_) s.regions += r.ptr != nullptr;
  s.free_chunks = static_cast<int>(free_.size());
  return s;
}

}  // namespace tfhost::backends
