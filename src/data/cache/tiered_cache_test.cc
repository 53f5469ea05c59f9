#include "data/cache/tiered_cache.h"
#include "base/test_status.h"

#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/stat.h>

#include <atomic>
#include <fstream>
#include <set>
#include <thread>

namespace tfhost::data::cache {
namespace {

std::shared_ptr<const std::string> Bytes(size_t n, char c) { return std::make_shared<const std::string>(n, c); }

TEST(MemoryTier, EvictsLeastRecentlyUsedBeyondItsLimit) {
  MemoryTier ram(300);
  ram.Put("a", Bytes(100, 'a'));
  ram.Put("b", Bytes(100, 'b'));
  ram.Put("c", Bytes(100, 'c'));
  ASSERT_NE(ram.Get("a"), nullptr);  // a becomes the most recent
  ram.Put("d", Bytes(100, 'd'));     // b goes
  EXPECT_EQ(ram.Keys(), (std::vector<std::string>{"d", "a", "c"}));
  EXPECT_EQ(ram.Get("b"), nullptr);
  EXPECT_EQ(ram.bytes(), 300u);
  ram.Put("huge", Bytes(301, 'h'));  // larger than the tier: not kept, nothing evicted
  EXPECT_FALSE(ram.Contains("huge"));
  EXPECT_EQ(ram.Keys().size(), 3u);
  ram.Put("a", Bytes(250, 'A'));  // replacing grows a: c and d go
  EXPECT_EQ(ram.Keys(), (std::vector<std::string>{"a"}));
  EXPECT_EQ(ram.bytes(), 250u);
}

class TieredCacheTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const char* base = std::getenv("TMPDIR");
    std::string tmpl = std::string(base ? base : "/tmp") + "/tiered_cache_test.XXXXXX";
    root_ = ::mkdtemp(tmpl.data());
    for (int i = 0; i < 6; ++i) {
      std::string p = root_ + "/shard-" + std::to_string(i);
      std::ofstream(p) << std::string(1000 + i, static_cast<char>('a' + i));
      uris_.push_back(p);
    }
  }
  void TearDown() override { std::system(("rm -rf '" + root_ + "'").c_str()); }
  std::string root_;
  std::vector<std::string> uris_;
};

TEST_F(TieredCacheTest, OpeningAShardReadsTheNextKAheadInTheConsumersOrder) {
  TieredCacheOptions o;
  o.disk.dir = root_ + "/cache";
  o.ram_bytes = 0;  // read-ahead onto disk only
  o.read_ahead = 3;
  auto cache = TieredCache::Open(o);
  ASSERT_TRUE(cache.ok());
  std::vector<std::string> order = {uris_[5], uris_[2], uris_[0], uris_[4], uris_[1], uris_[3]};
  (*cache)->SetOrder(order);
  auto path = (*cache)->OpenPath(order[0]);
  ASSERT_TRUE(path.ok());
  (*cache)->WaitForReadAhead();
  auto entries = (*cache)->disk().Entries();
  std::set<std::string> cached;
  for (const auto& e : *entries) cached.insert(e.uri);
  EXPECT_EQ(cached, (std::set<std::string>{uris_[5], uris_[2], uris_[0], uris_[4]}));
  EXPECT_EQ((*cache)->stats().read_ahead_done, 3u);
  auto next = (*cache)->OpenPath(order[1]);  // already on disk; schedules order[2..4]
  ASSERT_TRUE(next.ok());
  (*cache)->WaitForReadAhead();
  auto stats = (*cache)->disk().Stats();
  EXPECT_EQ(stats->downloads, 5u);  // each shard once; order[5] is beyond the window
  EXPECT_EQ(stats->entries, 5u);
  EXPECT_GE(stats->hits, 1u);
}

TEST_F(TieredCacheTest, HotShardsAreServedFromRamAndFailuresReachTheConsumer) {
  TieredCacheOptions o;
  o.disk.dir = root_ + "/cache";
  o.ram_bytes = 2500;  // two shards
  o.read_ahead = 0;
  auto cache = TieredCache::Open(o);
  ASSERT_TRUE(cache.ok());
  for (int round = 0; round < 3; ++round) {
    auto b = (*cache)->ReadBytes(uris_[1]);
    ASSERT_TRUE(b.ok());
    EXPECT_EQ(**b, std::string(1001, 'b'));
  }
  EXPECT_EQ((*cache)->stats().ram_hits, 2u);
  EXPECT_EQ((*cache)->stats().ram_misses, 1u);
  EXPECT_EQ((*cache)->disk().Stats()->misses, 1u);  // the disk tier saw one lookup
  auto missing = (*cache)->ReadBytes(root_ + "/nope");
  TFHOST_EXPECT_ERROR(missing, StatusCode::kNotFound, root_ + "/nope: no such file");
}

TEST_F(TieredCacheTest, ManyThreadsReadingTheSameShardsGetTheSameBytes) {
  TieredCacheOptions o;
  o.disk.dir = root_ + "/cache";
  o.ram_bytes = 1 << 20;
  o.read_ahead = 2;
  auto cache = TieredCache::Open(o);
  ASSERT_TRUE(cache.ok());
  (*cache)->SetOrder(uris_);
  std::vector<std::thread> threads;
  std::atomic<int> bad{0};
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&] {
      for (size_t i = 0; i < uris_.size(); ++i) {
        auto b = (*cache)->ReadBytes(uris_[i]);
        if (!b.ok() || **b != std::string(1000 + i, static_cast<char>('a' + i))) ++bad;
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(bad.load(), 0);
  EXPECT_EQ((*cache)->disk().Stats()->downloads, uris_.size());
}

}  // namespace
}  // namespace tfhost::data::cache
