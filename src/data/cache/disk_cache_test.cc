// Disk tier over the filesystem source: LRU eviction, persistence, integrity,
// partial and invalid downloads. (The S3 source: s3_cache_test.cc.)
#include "data/cache/disk_cache.h"

#include <dirent.h>
#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>
#include <sstream>

#include "data/tfrecord_reader.h"
#include "base/test_status.h"

namespace tfhost::data::cache {
namespace {

std::string MakeTempDir() {
  const char* base = std::getenv("TMPDIR");
  std::string tmpl = std::string(base ? base : "/tmp") + "/disk_cache_test.XXXXXX";
  return ::mkdtemp(tmpl.data());
}

void WriteFile(const std::string& path, const std::string& data) {
  std::ofstream(path, std::ios::binary) << data;
}

std::string ReadWhole(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

std::vector<std::string> ListDir(const std::string& dir) {
  std::vector<std::string> out;
  if (DIR* d = ::opendir(dir.c_str())) {
    while (dirent* e = ::readdir(d)) {
      std::string n = e->d_name;
      if (n != "." && n != "..") out.push_back(n);
    }
    ::closedir(d);
  }
  return out;
}

std::string TFRecordBytes(int records, size_t record_size) {
  std::string out;
  for (int i = 0; i < records; ++i) AppendTFRecordFrame(std::string(record_size, static_cast<char>('a' + i % 26)), &out);
  return out;
}

class DiskCacheTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = MakeTempDir();
    src_ = root_ + "/src";
    ::mkdir(src_.c_str(), 0755);
  }
  void TearDown() override { std::system(("rm -rf '" + root_ + "'").c_str()); }

  std::unique_ptr<DiskCache> OpenCache(uint64_t max_bytes) {
    DiskCacheOptions o;
    o.dir = root_ + "/cache";
    o.max_bytes = max_bytes;
    auto c = DiskCache::Open(o);
    EXPECT_TRUE(c.ok()) << c.status().ToString();
    return std::move(*c);
  }
  std::string Src(const std::string& name, const std::string& data) {
    std::string p = src_ + "/" + name;
    WriteFile(p, data);
    return p;
  }

  std::string root_, src_;
};

TEST_F(DiskCacheTest, EvictsLeastRecentlyUsedFirst) {
  auto cache = OpenCache(3000);
  std::string a = Src("a", std::string(1000, 'a')), b = Src("b", std::string(1000, 'b')),
              c = Src("c", std::string(1000, 'c')), d = Src("d", std::string(1000, 'd'));
  ASSERT_TRUE(cache->Get(a).ok());
  ASSERT_TRUE(cache->Get(b).ok());
  ASSERT_TRUE(cache->Get(c).ok());
  ASSERT_TRUE(cache->Get(a).ok());  // a is now more recent than b and c
  ASSERT_TRUE(cache->Get(d).ok());  // over the limit: b goes
  auto entries = cache->Entries();
  ASSERT_TRUE(entries.ok());
  std::vector<std::string> order;
  for (const auto& e : *entries) order.push_back(e.uri);
  EXPECT_EQ(order, (std::vector<std::string>{c, a, d}));
  auto stats = cache->Stats();
  EXPECT_EQ(stats->evictions, 1u);
  EXPECT_EQ(stats->bytes, 3000u);
  EXPECT_EQ(ListDir(root_ + "/cache/data").size(), 3u);
  auto again = cache->Get(b);
  ASSERT_TRUE(again.ok());
  EXPECT_FALSE(again->hit);  // b had been evicted: fetched again, c goes now
  entries = cache->Entries();
  EXPECT_EQ(entries->front().uri, a);
}

TEST_F(DiskCacheTest, IndexAndCountersSurviveReopening) {
  std::string a = Src("a.bin", "hello");
  {
    auto cache = OpenCache(1 << 20);
    auto got = cache->Get(a);
    ASSERT_TRUE(got.ok());
    EXPECT_FALSE(got->hit);
    EXPECT_EQ(ReadWhole(got->path), "hello");
  }
  auto cache = OpenCache(0);  // 0 keeps the recorded limit
  auto got = cache->Get(a);
  ASSERT_TRUE(got.ok());
  EXPECT_TRUE(got->hit);
  auto stats = cache->Stats();
  EXPECT_EQ(stats->max_bytes, uint64_t{1} << 20);
  EXPECT_EQ(stats->hits, 1u);
  EXPECT_EQ(stats->misses, 1u);
  EXPECT_EQ(stats->downloads, 1u);
}

TEST_F(DiskCacheTest, CorruptedCachedCopyIsDetectedBeforeUseAndFetchedAgain) {
  std::string shard = Src("train.tfrecord", TFRecordBytes(20, 100));
  auto cache = OpenCache(1 << 20);
  auto first = cache->Get(shard);
  ASSERT_TRUE(first.ok());
  {
    std::fstream f(first->path, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(50);
    f.put('X');
  }
  std::string bytes;
  auto second = cache->Get(shard, &bytes);
  ASSERT_TRUE(second.ok()) << second.status().ToString();
  EXPECT_FALSE(second->hit);
  EXPECT_EQ(bytes, ReadWhole(shard));
  EXPECT_EQ(ReadWhole(second->path), ReadWhole(shard));
  EXPECT_EQ(cache->Stats()->integrity_failures, 1u);
}

TEST_F(DiskCacheTest, TruncatedTFRecordSourceIsNeverCached) {
  std::string good = TFRecordBytes(10, 100);
  std::string shard = Src("part-0.tfrecord", good.substr(0, good.size() - 7));
  auto cache = OpenCache(1 << 20);
  auto got = cache->Get(shard);
  TFHOST_ASSERT_ERROR(got, StatusCode::kDataLoss,
                      "corrupt TFRecord at byte offset 1044 (record index 9): truncated record: its header says 100 "
                      "data bytes but only 97 bytes follow in the");
  EXPECT_NE(got.status().message().find("nothing cached"), std::string::npos);
  EXPECT_TRUE(ListDir(root_ + "/cache/data").empty());
  EXPECT_TRUE(ListDir(root_ + "/cache/tmp").empty());
  EXPECT_EQ(cache->Stats()->entries, 0u);
  EXPECT_EQ(cache->Stats()->failed_fetches, 1u);
  // Not a TFRecord name: only length is checked, so the same bytes are cached.
  std::string blob = Src("blob.bin", good.substr(0, good.size() - 7));
  EXPECT_TRUE(cache->Get(blob).ok());
}

TEST_F(DiskCacheTest, ChangedSourceIsFetchedAgain) {
  std::string a = Src("a.txt", "version one");
  auto cache = OpenCache(1 << 20);
  ASSERT_TRUE(cache->Get(a).ok());
  ::usleep(20000);
  WriteFile(a, "version two!");
  std::string bytes;
  auto got = cache->Get(a, &bytes);
  ASSERT_TRUE(got.ok());
  EXPECT_FALSE(got->hit);
  EXPECT_EQ(bytes, "version two!");
}

TEST_F(DiskCacheTest, ObjectLargerThanTheLimitIsRefused) {
  auto cache = OpenCache(100);
  auto got = cache->Get(Src("big", std::string(101, 'x')));
  TFHOST_ASSERT_ERROR(got, StatusCode::kResourceExhausted,
                      "big is 101 B, more than the cache limit of 100 B (nothing cached for");
  EXPECT_TRUE(ListDir(root_ + "/cache/data").empty());
}

TEST_F(DiskCacheTest, EvictRemovesOneEntryAndEvictAllEmptiesTheDirectory) {
  auto cache = OpenCache(1 << 20);
  std::string a = Src("a", "1"), b = Src("b", "22");
  ASSERT_TRUE(cache->Get(a).ok());
  ASSERT_TRUE(cache->Get(b).ok());
  ASSERT_TRUE(cache->Evict(a).ok());
  TFHOST_EXPECT_ERROR(cache->Evict(a), StatusCode::kNotFound, a + " is not cached in ");
  EXPECT_EQ(cache->Stats()->entries, 1u);
  WriteFile(root_ + "/cache/data/orphan", "x");  // e.g. left by a damaged index
  ASSERT_TRUE(cache->EvictAll().ok());
  EXPECT_EQ(cache->Stats()->entries, 0u);
  EXPECT_TRUE(ListDir(root_ + "/cache/data").empty());
}

TEST_F(DiskCacheTest, DamagedIndexIsTreatedAsEmptyAndRejectsEscapingFileNames) {
  auto cache = OpenCache(1 << 20);
  WriteFile(root_ + "/cache/index.json", "{not json");
  EXPECT_EQ(cache->Stats()->entries, 0u);
  WriteFile(root_ + "/cache/index.json",
            "{\"max_bytes\":100,\"entries\":[{\"uri\":\"x\",\"file\":\"../../etc/passwd\",\"size\":1}]}");
  EXPECT_EQ(cache->Stats()->entries, 0u);
}

TEST_F(DiskCacheTest, PartialDownloadsOfDeadProcessesAreRemovedOnOpen) {
  auto cache = OpenCache(1 << 20);
  std::string dead = root_ + "/cache/tmp/abc.2147483000.0.part";  // above any pid_max
  std::string live = root_ + "/cache/tmp/abc." + std::to_string(::getpid()) + ".99.part";
  WriteFile(dead, "partial");
  WriteFile(live, "partial");
  cache.reset();
  cache = OpenCache(0);
  auto left = ListDir(root_ + "/cache/tmp");
  EXPECT_EQ(left, (std::vector<std::string>{"abc." + std::to_string(::getpid()) + ".99.part"}));
}

TEST_F(DiskCacheTest, ExpandListsADirectorySorted) {
  ::mkdir((src_ + "/ds").c_str(), 0755);
  WriteFile(src_ + "/ds/b", "b");
  WriteFile(src_ + "/ds/a", "a");
  auto cache = OpenCache(1 << 20);
  auto list = cache->Expand(src_ + "/ds");
  ASSERT_TRUE(list.ok());
  ASSERT_EQ(list->size(), 2u);
  EXPECT_EQ((*list)[0].uri, src_ + "/ds/a");
  TFHOST_EXPECT_ERROR(cache->Expand(src_ + "/missing"), StatusCode::kNotFound, "missing: no such file");
}

}  // namespace
}  // namespace tfhost::data::cache
