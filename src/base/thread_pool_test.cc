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
