#include "base/thread_pool.h"

#include <atomic>
#include <vector>

#include <gtest/gtest.h>

namespace tfhost {
namespace {

TEST(ThreadPoolTest, ParallelForCoversEveryIndexExactlyOnce) {
  for (int threads : {0, 1, 3}) {
    ThreadPool pool(threads);
    std::vector<std::atomic<int>> hits(1000);
    pool.ParallelFor(1000, 7, [&](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i) hits[i]++;
    });
    for (auto& h : hits) EXPECT_EQ(h.load(), 1);
  }
}

// Many short ParallelFor calls, each returning as soon as the worker's part
// is counted: the worker must be done with the caller's stack (the lock and
// condition it signals) by then. A violation is a use of a dead stack frame,
// which the sanitizer builds report (make asan detects stack use after
// return; make tsan the destroyed mutex) and plain builds may crash on.
TEST(ThreadPoolTest, ParallelForCallerMayReturnAsSoonAsWorkIsDone) {
  ThreadPool pool(1);
  std::atomic<int64_t> sum{0};
  for (int call = 0; call < 20000; ++call) {
    pool.ParallelFor(2, 1, [&](int64_t b, int64_t e) { sum += e - b; });
  }
  EXPECT_EQ(sum.load(), 40000);
}

TEST(ThreadPoolTest, ScheduledTasksAllRunBeforeDestruction) {
  std::atomic<int> count{0};
  {
    ThreadPool pool(2);
    for (int i = 0; i < 100; ++i) pool.Schedule([&] { count++; });
  }
  EXPECT_EQ(count.load(), 100);
}

}  // namespace
}  // namespace tfhost
