#include "base/heap_trimmer.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <thread>
#include <vector>

namespace tfhost {
namespace {

using std::chrono::milliseconds;

TEST(HeapTrimmerTest, TrimsEveryIntervalUntilDestroyed) {
  int64_t made = 0;
  {
    HeapTrimmer trimmer(milliseconds(5));
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (trimmer.trims() < 3 && std::chrono::steady_clock::now() < deadline) {
      std::this_thread::sleep_for(milliseconds(5));
    }
    made = trimmer.trims();
  }
  EXPECT_GE(made, 3);
}

TEST(HeapTrimmerTest, AZeroIntervalStartsNoThreadAndTrimsNothing) {
  HeapTrimmer trimmer(milliseconds(0));
  std::this_thread::sleep_for(milliseconds(20));
  EXPECT_EQ(trimmer.trims(), 0);
}

#if defined(__GLIBC__)
// Blocks freed in the middle of the heap stay resident until trimmed: the
// trim gives at least some of them back.
TEST(HeapTrimmerTest, FreedBlocksInsideTheHeapAreReleased) {
  std::vector<char*> blocks;
  for (int i = 0; i < 64; ++i) {
    // Below the mmap threshold, so the blocks live in the heap.
    char* p = static_cast<char*>(std::malloc(64 * 1024));
    std::memset(p, 1, 64 * 1024);
    blocks.push_back(p);
  }
  for (size_t i = 0; i + 1 < blocks.size(); ++i) std::free(blocks[i]);  // the last one pins the top
  EXPECT_TRUE(HeapTrimmer::TrimNow());
  std::free(blocks.back());
}
#endif

}  // namespace
}  // namespace tfhost
