// BufferPool: a cache of 64-byte-aligned memory blocks in size classes, so
// that the tensors a model run creates reuse the blocks its previous run
// released instead of asking the system allocator (and, for large blocks, the
// kernel: every fresh mmap'd block costs a page fault per 4 KiB touched).
//
// How tensors use it: Tensor(dtype, shape) takes its block from the pool that
// is *current on the calling thread* (BufferPool::Current(), set with
// ScopedCurrent), or from the system when none is. The block remembers its
// pool and goes back to it when the last Tensor sharing it is destroyed, on
// whatever thread that happens. Strings and variants never use a pool.
//
// Scope: one pool per runtime::Session. Session::Run makes the session's pool
// current on the calling thread for the duration of the run, and the
// session's own inter-op and intra-op worker threads carry it permanently, so
// every kernel of every run of that session allocates from it. Why per
// session rather than one process-wide cache:
//   - Concurrent Run() calls are correct either way (the pool is locked; a
//     block is handed to one tensor at a time), but a per-session pool keeps
//     one model's working set from evicting another's, and its statistics
//     (peak bytes in use) describe exactly one model, which is what the
//     liveness plan (Session::PlanMemory) predicts and what tests compare.
//   - Unloading a model (a servable version going away) frees its cached
//     blocks with it; a global cache would keep them until evicted.
//   - Constants decoded at load time and fed tensors are allocated outside
//     any run, so they never come from (or count against) the pool.
// Lifetime: a pool is reference-counted by its owner and by every block it
// handed out, so a fetched tensor may outlive its session; after the owner
// lets go (Close), returned blocks go straight back to the system.
//
// Bound: `max_retained_bytes` of *free* blocks, raised to twice the largest
// capacity ever in use at once (so each run finds its working set cached);
// a block released beyond it goes back to the system; 0 keeps none (off).
// Where that is not enough (the blocks a run leaves do not fit the next
// run's requests), the pool churns: it hands blocks back and then asks the
// system for new ones. So a system allocation after a block went back
// raises the bound by its capacity, up to four times the largest capacity
// in use at once, and the pool settles.
//
// Size classes: requests round up to a multiple of 64 bytes up to 1 KiB,
// then to one of 8 steps per power of two, so a new block wastes at most
// 12.5%. A request whose class has no cached block may take a cached block
// of up to twice its size, so the blocks a run leaves behind serve later
// requests of other sizes too: the pool settles near the run's true peak
// instead of one block per (class, concurrent use).
//
// Limit: `max_in_use_bytes` (0 = none) caps the bytes handed out at once; a
// request that would pass it throws std::bad_alloc without asking the system,
// so a graph that asks for more than its session may hold fails the
// allocating kernel (ResourceExhausted naming the node, ops/kernel_contract.h)
// instead of exhausting the host. String and variant tensors, which never take
// pool blocks, are refused too when their element array alone passes it.
//
// Thread-safety: all methods may be called from any thread.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

namespace tfhost {

struct BufferPoolStats {
  int64_t system_allocations = 0;  // blocks obtained from the system allocator
  int64_t system_bytes = 0;        // their capacity
  int64_t reuses = 0;              // requests served from cached blocks
  int64_t released_to_system = 0;  // blocks freed because the bound was reached (or the pool closed)
  int64_t in_use_bytes = 0;        // bytes requested by blocks now handed out
  int64_t peak_in_use_bytes = 0;   // high-water mark of in_use_bytes since the last ResetPeak
  int64_t in_use_capacity = 0;     // capacity (after rounding) of blocks now handed out
  int64_t retained_bytes = 0;      // capacity of cached free blocks
  int64_t max_retained_bytes = 0;  // the bound on retained_bytes
};

class BufferPool : public std::enable_shared_from_this<BufferPool> {
 public:
  // Default floor of the bound on cached free blocks for a Session's pool.
  static constexpr int64_t kDefaultMaxRetainedBytes = int64_t{256} << 20;

  static std::shared_ptr<BufferPool> Create(int64_t max_retained_bytes = kDefaultMaxRetainedBytes,
                                            int64_t max_in_use_bytes = 0);
  ~BufferPool();
  BufferPool(const BufferPool&) = delete;
  BufferPool& operator=(const BufferPool&) = delete;

  // The capacity a request of `bytes` rounds up to (its size class).
  static size_t ClassCapacity(size_t bytes);

  // A 64-byte-aligned block of at least `bytes` (contents unspecified); its
  // capacity goes to `*capacity`. A cached block of the request's class is
  // preferred; failing that, the smallest cached block up to twice the
  // request, before asking the system. Throws std::bad_alloc when the system
  // has no memory or the request would pass max_in_use_bytes.
  void* Allocate(size_t bytes, size_t* capacity);
  // The cap on bytes in use at once; 0 = none.
  int64_t max_in_use_bytes() const { return max_in_use_bytes_; }
  // Returns a block from Allocate (the same `bytes`, and the capacity it gave).
  void Release(void* block, size_t bytes, size_t capacity);

  // Frees every cached block and makes later releases go to the system. The
  // owner calls it when it is done (a Session's destructor), so a pool kept
  // alive only by escaped tensors holds no idle memory.
  void Close();
  // Frees every cached block (the pool stays usable).
  void Trim();

  BufferPoolStats stats() const;
  // Starts a new high-water mark at the bytes now in use.
  void ResetPeak();

  // The pool tensors on this thread allocate from, or null.
  static BufferPool* Current();
  // Makes `pool` current on this thread until destroyed (restores the
  // previous one; nests).
  class ScopedCurrent {
   public:
    explicit ScopedCurrent(BufferPool* pool);
    ~ScopedCurrent();
    ScopedCurrent(const ScopedCurrent&) = delete;
    ScopedCurrent& operator=(const ScopedCurrent&) = delete;

   private:
    BufferPool* previous_;
  };
  // Makes `pool` current on this thread for the rest of the thread's life
  // (for worker threads that serve one session). The thread keeps a
  // reference, so the pool outlives it.
  static void BindToThisThread(std::shared_ptr<BufferPool> pool);

  // Process-wide count of blocks any pool obtained from the system (tests).
  static int64_t TotalSystemAllocations();

 private:
  BufferPool(int64_t max_retained_bytes, int64_t max_in_use_bytes)
      : max_retained_bytes_(max_retained_bytes), max_in_use_bytes_(max_in_use_bytes) {}
  static int ClassIndex(size_t bytes);
  void Account(int64_t bytes, int64_t capacity);  // mu_ held

  mutable std::mutex mu_;
  std::vector<std::vector<void*>> free_;  // per class index
  std::vector<size_t> capacities_;        // per class index
  int64_t max_retained_bytes_;
  const int64_t max_in_use_bytes_;
  bool closed_ = false;
  BufferPoolStats stats_;
  int64_t peak_in_use_capacity_ = 0;
  // released_to_system when the bound last grew for churn (Allocate).
  int64_t released_at_growth_ = 0;
};

}  // namespace tfhost
