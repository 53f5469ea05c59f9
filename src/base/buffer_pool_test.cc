#include "base/buffer_pool.h"

#include <gtest/gtest.h>

#include <algorithm>

#include <thread>
#include <vector>

#include "base/tensor.h"

namespace tfhost {
namespace {

TEST(BufferPoolTest, ClassCapacityWastesAtMostAnEighthAndIsMonotonic) {
  size_t previous = 0;
  for (size_t bytes = 0; bytes < (size_t{1} << 22); bytes += bytes < 4096 ? 1 : 997) {
    const size_t cap = BufferPool::ClassCapacity(bytes);
    ASSERT_GE(cap, bytes);
    ASSERT_EQ(cap % 64, 0u) << bytes;
    ASSERT_GE(cap, previous) << bytes;
    if (bytes > 1024) ASSERT_LE(cap - bytes, bytes / 8 + 1) << bytes;
    previous = cap;
  }
}

TEST(BufferPoolTest, TensorsMadeWhilePoolIsCurrentReuseReleasedBlocks) {
  auto pool = BufferPool::Create();
  BufferPool::ScopedCurrent current(pool.get());
  {
    Tensor a(DType::kFloat, Shape({1000}));
    EXPECT_TRUE(a.FromPool());
    a.data<float>()[5] = 3.0f;
  }
  EXPECT_EQ(pool->stats().system_allocations, 1);
  EXPECT_EQ(pool->stats().in_use_bytes, 0);
  for (int i = 0; i < 10; ++i) {
    Tensor b(DType::kFloat, Shape({1000}));
    // A reused block is zero-filled like a new one.
    EXPECT_EQ(b.data<float>()[5], 0.0f);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(b.raw_data()) % 64, 0u);
  }
  EXPECT_EQ(pool->stats().system_allocations, 1);
  EXPECT_EQ(pool->stats().reuses, 10);
  // A size in the same class reuses the block too.
  { Tensor c(DType::kFloat, Shape({990})); }
  EXPECT_EQ(pool->stats().system_allocations, 1);
}

TEST(BufferPoolTest, ASmallerRequestTakesACachedBlockUpToTwiceItsSize) {
  auto pool = BufferPool::Create();
  BufferPool::ScopedCurrent current(pool.get());
  { Tensor a(DType::kFloat, Shape({1000})); }
  { Tensor b(DType::kFloat, Shape({600})); }  // 2.4 KB: fits the cached 4 KB block
  EXPECT_EQ(pool->stats().system_allocations, 1);
  EXPECT_EQ(pool->stats().reuses, 1);
  { Tensor c(DType::kFloat, Shape({200})); }  // 0.8 KB: the 4 KB block would waste too much
  EXPECT_EQ(pool->stats().system_allocations, 2);
  EXPECT_EQ(pool->stats().in_use_bytes, 0);
  EXPECT_EQ(pool->stats().in_use_capacity, 0);
}

TEST(BufferPoolTest, StringsAndTensorsOutsideAScopeDoNotUseThePool) {
  auto pool = BufferPool::Create();
  {
    BufferPool::ScopedCurrent current(pool.get());
    Tensor s(DType::kString, Shape({3}));
    EXPECT_FALSE(s.FromPool());
  }
  Tensor t(DType::kFloat, Shape({4}));
  EXPECT_FALSE(t.FromPool());
  EXPECT_EQ(pool->stats().system_allocations, 0);
}

TEST(BufferPoolTest, RequestsPastTheInUseLimitThrowWithoutTouchingTheSystemOrTheCounts) {
  auto pool = BufferPool::Create(BufferPool::kDefaultMaxRetainedBytes, 10000);
  BufferPool::ScopedCurrent current(pool.get());
  Tensor a(DType::kFloat, Shape({1000}));  // 4000 bytes + header
  EXPECT_TRUE(a.FromPool());
  EXPECT_THROW(Tensor(DType::kFloat, Shape({2000})), std::bad_alloc);  // 8000 more would pass 10000
  EXPECT_THROW(Tensor(DType::kUInt8, Shape({int64_t{1} << 40})), std::bad_alloc);
  // Strings never take pool blocks, but an element array past the limit is refused.
  EXPECT_THROW(Tensor(DType::kString, Shape({1000000})), std::bad_alloc);
  EXPECT_EQ(pool->stats().system_allocations, 1);
  Tensor b(DType::kFloat, Shape({1000}));  // still fits beside a
  EXPECT_EQ(pool->stats().in_use_bytes, 2 * (4000 + 64));
  Tensor s(DType::kString, Shape({10}));
  EXPECT_FALSE(s.FromPool());
}

TEST(BufferPoolTest, TheBoundGrowsToTheLargestWorkingSetSoRepeatedRunsAllocateNothing) {
  auto pool = BufferPool::Create(/*max_retained_bytes=*/64 << 10);
  BufferPool::ScopedCurrent current(pool.get());
  int64_t working_set = 0;  // capacity in use at the run's peak (16 KiB blocks round up)
  auto run = [&] {  // a "run" whose working set (8 x 16 KiB) exceeds the configured bound
    std::vector<Tensor> live;
    for (int i = 0; i < 8; ++i) live.emplace_back(DType::kFloat, Shape({4096}));
    working_set = pool->stats().in_use_capacity;
  };
  run();
  auto first = pool->stats();
  EXPECT_GT(working_set, 64 << 10);
  EXPECT_EQ(first.max_retained_bytes, 2 * working_set);
  EXPECT_EQ(first.retained_bytes, working_set);
  EXPECT_EQ(first.released_to_system, 0);
  EXPECT_EQ(first.in_use_bytes, 0);
  EXPECT_GE(first.peak_in_use_bytes, 8 * 16384);
  run();
  run();
  EXPECT_EQ(pool->stats().system_allocations, first.system_allocations) << "repeated runs went to the system";
}

TEST(BufferPoolTest, RetainedFreeBytesNeverExceedTwiceTheLargestWorkingSet) {
  auto pool = BufferPool::Create(/*max_retained_bytes=*/64 << 10);
  BufferPool::ScopedCurrent current(pool.get());
  int64_t working_set = 0;
  {
    std::vector<Tensor> live;
    for (int i = 0; i < 8; ++i) live.emplace_back(DType::kFloat, Shape({4096}));
    working_set = pool->stats().in_use_capacity;
  }
  // Blocks of other sizes pile up beside the 8 small ones until the cache
  // would exceed twice the largest working set; then a released block goes
  // to the system.
  { Tensor medium(DType::kFloat, Shape({25600})); }  // 100 KiB: cached beside them
  int64_t largest = 0;
  {
    Tensor big(DType::kFloat, Shape({51200}));  // 200 KiB: no cached block fits
    largest = pool->stats().in_use_capacity;
  }
  auto s = pool->stats();
  EXPECT_LE(s.retained_bytes, s.max_retained_bytes);
  EXPECT_EQ(s.max_retained_bytes, 2 * std::max(working_set, largest));
  EXPECT_GE(s.released_to_system, 1);
  EXPECT_EQ(s.in_use_bytes, 0);
}

TEST(BufferPoolTest, APoolThatChurnsRaisesItsBoundUntilRunsStopAskingTheSystem) {
  auto pool = BufferPool::Create(/*max_retained_bytes=*/64 << 10);
  BufferPool::ScopedCurrent current(pool.get());
  // A "run": 8 small blocks at once, then a medium and a big one alone. At
  // twice the largest capacity in use the big block goes back to the system
  // every run (no cached block fits it), and comes from it again.
  auto run = [] {
    {
      std::vector<Tensor> live;
      for (int i = 0; i < 8; ++i) live.emplace_back(DType::kFloat, Shape({4096}));
    }
    { Tensor medium(DType::kFloat, Shape({25600})); }
    { Tensor big(DType::kFloat, Shape({51200})); }
  };
  run();
  const auto first = pool->stats();
  EXPECT_GE(first.released_to_system, 1);
  run();
  const auto second = pool->stats();
  EXPECT_GT(second.max_retained_bytes, first.max_retained_bytes) << "the bound grew on the churn";
  for (int i = 0; i < 3; ++i) run();
  const auto settled = pool->stats();
  EXPECT_EQ(settled.system_allocations, second.system_allocations) << "later runs still went to the system";
  EXPECT_LE(settled.retained_bytes, settled.max_retained_bytes);
  // Never past four times the largest capacity in use at once (the 8 small
  // blocks, or the big one).
  EXPECT_LE(settled.max_retained_bytes, 4 * std::max<int64_t>(8 * BufferPool::ClassCapacity(16384),
                                                               BufferPool::ClassCapacity(204800)));
}

TEST(BufferPoolTest, ZeroBoundKeepsNothing) {
  auto pool = BufferPool::Create(0);
  BufferPool::ScopedCurrent current(pool.get());
  { Tensor a(DType::kFloat, Shape({100})); }
  { Tensor b(DType::kFloat, Shape({100})); }
  EXPECT_EQ(pool->stats().system_allocations, 2);
  EXPECT_EQ(pool->stats().retained_bytes, 0);
}

TEST(BufferPoolTest, TensorsOutliveAClosedPool) {
  Tensor escaped;
  {
    auto pool = BufferPool::Create();
    BufferPool::ScopedCurrent current(pool.get());
    escaped = Tensor::FromVector<float>({1, 2, 3});
    pool->Close();
  }
  // The pool lives on through the tensor's block; freeing it later is safe.
  EXPECT_EQ(escaped.data<float>()[2], 3.0f);
  escaped = Tensor();
}

TEST(BufferPoolTest, RefCountIsOneTracksCopiesAndMoves) {
  Tensor a(DType::kFloat, Shape({8}));
  EXPECT_TRUE(a.RefCountIsOne());
  Tensor b = a;
  EXPECT_FALSE(a.RefCountIsOne());
  b = Tensor();
  EXPECT_TRUE(a.RefCountIsOne());
  Tensor c = std::move(a);
  EXPECT_TRUE(c.RefCountIsOne());
  EXPECT_FALSE(a.valid());
  c = c;  // self-assignment keeps the buffer
  EXPECT_TRUE(c.valid());
  EXPECT_FALSE(Tensor().RefCountIsOne());
}

TEST(BufferPoolTest, ConcurrentThreadsShareOnePoolSafely) {
  auto pool = BufferPool::Create();
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      BufferPool::ScopedCurrent current(pool.get());
      for (int i = 0; i < 2000; ++i) {
        Tensor x(DType::kInt32, Shape({64 + (i % 7) * 100}));
        x.data<int32_t>()[0] = t;
        Tensor y = x;  // refcount traffic across copies
        ASSERT_EQ(y.data<int32_t>()[0], t);
      }
    });
  }
  for (auto& th : threads) th.join();
  auto s = pool->stats();
  EXPECT_EQ(s.in_use_bytes, 0);
  // Seven sizes, at most four threads each holding one at a time.
  EXPECT_LE(s.system_allocations, 7 * 4);
}

}  // namespace
}  // namespace tfhost
