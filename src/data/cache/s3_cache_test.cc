// The disk cache against a real S3-compatible server process on loopback
// (tests/data_cache/s3_server.py: path-style PUT/GET/HEAD/ListObjectsV2,
// verifying each request's SigV4 signature for its key, secret and region), including a server that dies mid-download and two processes
// warming the same objects at once.
#include <dirent.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <sstream>
#include <thread>

#include "data/cache/disk_cache.h"
#include "data/cache/tiered_cache.h"
#include "data/pipeline/cached_dataset.h"
#include "data/tfrecord_reader.h"
#include "base/test_status.h"

namespace tfhost::data::cache {
namespace {

std::string MakeTempDir() {
  const char* base = std::getenv("TMPDIR");
  std::string tmpl = std::string(base ? base : "/tmp") + "/s3_cache_test.XXXXXX";
  return ::mkdtemp(tmpl.data());
}

void WriteFile(const std::string& path, const std::string& data) { std::ofstream(path, std::ios::binary) << data; }

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

std::string TFRecordBytes(int records, size_t record_size, char seed) {
  std::string out;
  for (int i = 0; i < records; ++i) AppendTFRecordFrame(std::string(record_size, static_cast<char>(seed + i % 7)), &out);
  return out;
}

std::string ServerScript() {
  const char* src = std::getenv("TFHOST_SOURCE_DIR");
  return std::string(src ? src : ".") + "/tests/data_cache/s3_server.py";
}

// One s3_server.py process; killed (and reaped) on destruction.
class S3Server {
 public:
  S3Server(std::string root, std::vector<std::string> extra, int port = 0) : root_(std::move(root)) {
    std::string port_file = root_ + "/.port." + std::to_string(counter_++);
    ::unlink(port_file.c_str());
    std::vector<std::string> argv = {"python3", ServerScript(), "--root", root_ + "/store", "--port",
                                     std::to_string(port), "--port-file", port_file, "--region", "eu-test-1",
                                     "--access-key", "AKIDTEST"};
    argv.insert(argv.end(), extra.begin(), extra.end());
    pid_ = ::fork();
    if (pid_ == 0) {
      std::vector<char*> a;
      for (auto& s : argv) a.push_back(s.data());
      a.push_back(nullptr);
      ::execvp("python3", a.data());
      ::_exit(127);
    }
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(15);
    while (std::chrono::steady_clock::now() < deadline) {
      std::string p = ReadWhole(port_file);
      if (!p.empty()) {
        port_ = std::atoi(p.c_str());
        break;
      }
      int status;
      if (::waitpid(pid_, &status, WNOHANG) == pid_) {
        pid_ = -1;
        break;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
  }
  ~S3Server() { Kill(); }
  void Kill() {
    if (pid_ > 0) {
      ::kill(pid_, SIGKILL);
      ::waitpid(pid_, nullptr, 0);
      pid_ = -1;
    }
  }
  // Whether the process has exited on its own (reaps it).
  bool Exited() {
    if (pid_ <= 0) return true;
    int status;
    if (::waitpid(pid_, &status, WNOHANG) == pid_) {
      pid_ = -1;
      return true;
    }
    return false;
  }
  int port() const { return port_; }
  std::string endpoint() const { return "http://127.0.0.1:" + std::to_string(port_); }

 private:
  static inline int counter_ = 0;
  std::string root_;
  pid_t pid_ = -1;
  int port_ = 0;
};

class S3CacheTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = MakeTempDir();
    ::mkdir((root_ + "/store").c_str(), 0755);
    ::mkdir((root_ + "/store/bkt").c_str(), 0755);
    ::mkdir((root_ + "/store/bkt/train").c_str(), 0755);
  }
  void TearDown() override { std::system(("rm -rf '" + root_ + "'").c_str()); }

  void Put(const std::string& key, const std::string& data) { WriteFile(root_ + "/store/bkt/" + key, data); }

  DiskCacheOptions Options(const S3Server& server) {
    DiskCacheOptions o;
    o.dir = root_ + "/cache";
    o.max_bytes = 64 << 20;
    o.s3.endpoint = server.endpoint();
    o.s3.region = "eu-test-1";
    o.s3.access_key = "AKIDTEST";
    o.s3.secret_key = "secret";
    o.s3.attempts = 1;
    return o;
  }

  std::string root_;
};

TEST_F(S3CacheTest, FirstUseDownloadsAndLaterUsesAreHits) {
  S3Server server(root_, {});
  ASSERT_GT(server.port(), 0);
  std::string shard = TFRecordBytes(50, 200, 'a');
  Put("train/shard-00000-of-00002.tfrecord", shard);
  auto cache = DiskCache::Open(Options(server));
  ASSERT_TRUE(cache.ok()) << cache.status().ToString();
  auto first = (*cache)->Get("s3://bkt/train/shard-00000-of-00002.tfrecord");
  ASSERT_TRUE(first.ok()) << first.status().ToString();
  EXPECT_FALSE(first->hit);
  EXPECT_EQ(ReadWhole(first->path), shard);
  EXPECT_EQ(first->etag.size(), 34u);  // quoted MD5
  auto second = (*cache)->Get("s3://bkt/train/shard-00000-of-00002.tfrecord");
  ASSERT_TRUE(second.ok());
  EXPECT_TRUE(second->hit);
  auto stats = (*cache)->Stats();
  EXPECT_EQ(stats->hits, 1u);
  EXPECT_EQ(stats->misses, 1u);
  EXPECT_EQ(stats->bytes_downloaded, shard.size());
  Put("train/with space+plus=.bin", "z");  // percent-encoded in the URL and the signature alike
  auto odd = (*cache)->Get("s3://bkt/train/with space+plus=.bin");
  ASSERT_TRUE(odd.ok()) << odd.status().ToString();
  EXPECT_EQ(ReadWhole(odd->path), "z");
  auto missing = (*cache)->Get("s3://bkt/train/nope.tfrecord");
  EXPECT_EQ(missing.status().code(), StatusCode::kNotFound) << missing.status().ToString();
}

TEST_F(S3CacheTest, UnsignedWrongSecretAndWrongRegionRequestsAreRefused) {
  S3Server server(root_, {});
  Put("train/a", "x");
  auto o = Options(server);
  o.s3.access_key.clear();
  auto cache = DiskCache::Open(o);
  ASSERT_TRUE(cache.ok());
  auto got = (*cache)->Get("s3://bkt/train/a");
  TFHOST_ASSERT_ERROR(
      got, StatusCode::kFailedPrecondition,
      "HEAD s3://bkt/train/a: HTTP 403; check the credentials and region (nothing cached for s3://bkt/train/a)");
  o = Options(server);
  o.s3.secret_key = "not-the-secret";  // signed, but the signature does not verify
  cache = DiskCache::Open(o);
  got = (*cache)->Get("s3://bkt/train/a");
  EXPECT_EQ(got.status().code(), StatusCode::kFailedPrecondition) << got.status().ToString();
  EXPECT_NE(got.status().message().find("403"), std::string::npos);
  o = Options(server);
  o.s3.region = "us-west-2";
  cache = DiskCache::Open(o);
  got = (*cache)->Get("s3://bkt/train/a");
  TFHOST_EXPECT_ERROR(got, StatusCode::kInvalidArgument,
                      "HEAD s3://bkt/train/a: HTTP 400 (nothing cached for s3://bkt/train/a)");
  EXPECT_EQ((*cache)->Stats()->entries, 0u);
}

TEST_F(S3CacheTest, PrefixIsListedAcrossContinuationPages) {
  S3Server server(root_, {"--max-keys", "2"});
  for (int i = 4; i >= 0; --i) Put("train/s" + std::to_string(i), std::string(10 + i, 'x'));
  Put("other", "y");
  auto cache = DiskCache::Open(Options(server));
  auto list = (*cache)->Expand("s3://bkt/train/");
  ASSERT_TRUE(list.ok()) << list.status().ToString();
  ASSERT_EQ(list->size(), 5u);
  for (int i = 0; i < 5; ++i) {
    EXPECT_EQ((*list)[i].uri, "s3://bkt/train/s" + std::to_string(i));
    EXPECT_EQ((*list)[i].size, 10u + i);
  }
  auto all = (*cache)->Expand("s3://bkt");
  ASSERT_TRUE(all.ok());
  EXPECT_EQ(all->size(), 6u);
}

TEST_F(S3CacheTest, ServerDyingMidDownloadLeavesNoEntryAndTheRetryResumesWithARangeRequest) {
  std::string shard = TFRecordBytes(400, 4000, 'k');  // ~1.6 MB
  Put("train/big.tfrecord", shard);
  const std::string log = root_ + "/requests.log";
  auto server = std::make_unique<S3Server>(
      root_, std::vector<std::string>{"--die-after-bytes", "300000", "--request-log", log});
  ASSERT_GT(server->port(), 0);
  int port = server->port();
  auto cache = DiskCache::Open(Options(*server));
  auto got = (*cache)->Get("s3://bkt/train/big.tfrecord");
  TFHOST_ASSERT_ERROR(got, StatusCode::kUnavailable,
                      "300000 bytes kept to resume from (nothing cached for s3://bkt/train/big.tfrecord)");
  EXPECT_NE(got.status().message().find("nothing cached"), std::string::npos);
  EXPECT_NE(got.status().message().find("300000 bytes kept to resume from"), std::string::npos)
      << got.status().ToString();
  EXPECT_TRUE(server->Exited());
  // Nothing usable: no entry and nothing under data/; the partial bytes wait
  // under tmp/ for the resume.
  EXPECT_TRUE(ListDir(root_ + "/cache/data").empty());
  EXPECT_EQ(ListDir(root_ + "/cache/tmp").size(), 2u);  // .resume and .resume.meta
  EXPECT_EQ((*cache)->Stats()->entries, 0u);
  EXPECT_EQ((*cache)->Stats()->failed_fetches, 1u);

  // The server comes back on the same port; the same cache object asks only
  // for the rest, and the whole file is verified before it is used.
  server = std::make_unique<S3Server>(root_, std::vector<std::string>{"--request-log", log}, port);
  ASSERT_EQ(server->port(), port);
  auto retry = (*cache)->Get("s3://bkt/train/big.tfrecord");
  ASSERT_TRUE(retry.ok()) << retry.status().ToString();
  EXPECT_EQ(ReadWhole(retry->path), shard);
  EXPECT_NE(ReadWhole(log).find("GET train/big.tfrecord bytes=300000-"), std::string::npos) << ReadWhole(log);
  auto stats = (*cache)->Stats();
  EXPECT_EQ(stats->resumed_downloads, 1u);
  EXPECT_EQ(stats->entries, 1u);
  EXPECT_TRUE(ListDir(root_ + "/cache/tmp").empty());
}

TEST_F(S3CacheTest, PartialDownloadOfAnObjectThatChangedIsStartedOver) {
  std::string v1 = TFRecordBytes(400, 4000, 'a');
  std::string v2 = TFRecordBytes(380, 4000, 'q');  // different content, ETag and size
  Put("train/c.tfrecord", v1);
  auto server = std::make_unique<S3Server>(root_, std::vector<std::string>{"--die-after-bytes", "200000"});
  int port = server->port();
  auto cache = DiskCache::Open(Options(*server));
  TFHOST_ASSERT_ERROR((*cache)->Get("s3://bkt/train/c.tfrecord"), StatusCode::kUnavailable,
                      "GET s3://bkt/train/c.tfrecord (");
  EXPECT_TRUE(server->Exited());
  Put("train/c.tfrecord", v2);
  server = std::make_unique<S3Server>(root_, std::vector<std::string>{}, port);
  auto got = (*cache)->Get("s3://bkt/train/c.tfrecord");
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  EXPECT_EQ(ReadWhole(got->path), v2);
  EXPECT_EQ((*cache)->Stats()->resumed_downloads, 0u);
}

TEST_F(S3CacheTest, CorruptedPartialDownloadIsCaughtByVerificationAndNeverUsed) {
  std::string shard = TFRecordBytes(400, 4000, 'm');
  Put("train/d.tfrecord", shard);
  auto server = std::make_unique<S3Server>(root_, std::vector<std::string>{"--die-after-bytes", "250000"});
  int port = server->port();
  auto cache = DiskCache::Open(Options(*server));
  TFHOST_ASSERT_ERROR((*cache)->Get("s3://bkt/train/d.tfrecord"), StatusCode::kUnavailable,
                      "GET s3://bkt/train/d.tfrecord (");
  // Flip a byte inside the kept partial download (a bad disk, a stray write).
  std::string partial;
  for (const std::string& n : ListDir(root_ + "/cache/tmp")) {
    if (n.size() > 7 && n.compare(n.size() - 7, 7, ".resume") == 0) partial = root_ + "/cache/tmp/" + n;
  }
  ASSERT_FALSE(partial.empty());
  {
    int fd = ::open(partial.c_str(), O_WRONLY);
    ASSERT_GE(fd, 0);
    ASSERT_EQ(::pwrite(fd, "!", 1, 100000), 1);
    ::close(fd);
  }
  server = std::make_unique<S3Server>(root_, std::vector<std::string>{}, port);
  auto got = (*cache)->Get("s3://bkt/train/d.tfrecord");
  TFHOST_ASSERT_ERROR(got, StatusCode::kDataLoss,
                      "corrupt TFRecord at byte offset 96384 (record index 24): bad data CRC (stored");
  EXPECT_TRUE(ListDir(root_ + "/cache/data").empty());
  EXPECT_TRUE(ListDir(root_ + "/cache/tmp").empty());
  auto again = (*cache)->Get("s3://bkt/train/d.tfrecord");  // a fresh download
  ASSERT_TRUE(again.ok()) << again.status().ToString();
  EXPECT_EQ(ReadWhole(again->path), shard);
}

TEST_F(S3CacheTest, CorruptedCachedShardIsDetectedBeforeUseAndFetchedAgain) {
  S3Server server(root_, {});
  std::string shard = TFRecordBytes(30, 300, 'q');
  Put("train/s.tfrecord", shard);
  auto cache = DiskCache::Open(Options(server));
  auto first = (*cache)->Get("s3://bkt/train/s.tfrecord");
  ASSERT_TRUE(first.ok());
  {
    std::fstream f(first->path, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(1000);
    f.put('\x7f');
  }
  auto second = (*cache)->Get("s3://bkt/train/s.tfrecord");
  ASSERT_TRUE(second.ok());
  EXPECT_FALSE(second->hit);
  EXPECT_EQ(ReadWhole(second->path), shard);
  auto stats = (*cache)->Stats();
  EXPECT_EQ(stats->integrity_failures, 1u);
  EXPECT_EQ(stats->downloads, 2u);
}

TEST_F(S3CacheTest, ShardWithBadRecordCrcOnTheServerIsNotCached) {
  S3Server server(root_, {});
  std::string shard = TFRecordBytes(10, 100, 'c');
  shard[12 + 50] ^= 1;  // inside the first record's data
  Put("train/bad.tfrecord", shard);
  auto cache = DiskCache::Open(Options(server));
  auto got = (*cache)->Get("s3://bkt/train/bad.tfrecord");
  TFHOST_ASSERT_ERROR(got, StatusCode::kDataLoss,
                      "corrupt TFRecord at byte offset 0 (record index 0): bad data CRC (stored");
  EXPECT_NE(got.status().message().find("bad data CRC"), std::string::npos) << got.status().ToString();
  EXPECT_TRUE(ListDir(root_ + "/cache/data").empty());
  EXPECT_TRUE(ListDir(root_ + "/cache/tmp").empty());
}

TEST_F(S3CacheTest, ObjectChangedOnTheServerIsFetchedAgainByEtag) {
  S3Server server(root_, {});
  Put("train/a.json", "{\"v\":1}");
  auto cache = DiskCache::Open(Options(server));
  ASSERT_TRUE((*cache)->Get("s3://bkt/train/a.json").ok());
  Put("train/a.json", "{\"v\":2}");  // same size, new ETag
  std::string bytes;
  auto got = (*cache)->Get("s3://bkt/train/a.json", &bytes);
  ASSERT_TRUE(got.ok());
  EXPECT_FALSE(got->hit);
  EXPECT_EQ(bytes, "{\"v\":2}");
}

TEST_F(S3CacheTest, VerifiedCopyIsUsedWhileTheServerIsDown) {
  auto server = std::make_unique<S3Server>(root_, std::vector<std::string>{});
  Put("train/a.bin", "abc");
  auto cache = DiskCache::Open(Options(*server));
  ASSERT_TRUE((*cache)->Get("s3://bkt/train/a.bin").ok());
  server->Kill();
  auto got = (*cache)->Get("s3://bkt/train/a.bin");
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  EXPECT_TRUE(got->hit);
}

TEST_F(S3CacheTest, TwoProcessesWarmingTheSameObjectsDownloadEachOnce) {
  S3Server server(root_, {});
  std::vector<std::string> uris;
  for (int i = 0; i < 3; ++i) {
    std::string key = "train/shard-" + std::to_string(i) + ".tfrecord";
    Put(key, TFRecordBytes(100, 10000, static_cast<char>('a' + i)));  // ~1 MB each
    uris.push_back("s3://bkt/" + key);
  }
  auto options = Options(server);
  options.s3.max_recv_bytes_per_s = 4 << 20;  // slow enough for the two to overlap
  std::vector<pid_t> children;
  for (int c = 0; c < 2; ++c) {
    pid_t pid = ::fork();
    if (pid == 0) {
      auto cache = DiskCache::Open(options);
      if (!cache.ok()) ::_exit(2);
      for (const std::string& u : uris) {
        if (!(*cache)->Get(u).ok()) ::_exit(3);
      }
      ::_exit(0);
    }
    children.push_back(pid);
  }
  for (pid_t pid : children) {
    int status = -1;
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    while (::waitpid(pid, &status, WNOHANG) == 0) {
      if (std::chrono::steady_clock::now() > deadline) {
        ::kill(pid, SIGKILL);
        ::waitpid(pid, &status, 0);
        break;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "child status " << status;
  }
  auto cache = DiskCache::Open(options);
  auto stats = (*cache)->Stats();
  EXPECT_EQ(stats->entries, 3u);
  EXPECT_EQ(stats->downloads, 3u);
  EXPECT_EQ(stats->hits, 3u);
  EXPECT_EQ(stats->misses, 3u);
  for (const std::string& u : uris) {
    auto got = (*cache)->Get(u);
    ASSERT_TRUE(got.ok());
    EXPECT_TRUE(got->hit);
  }
}

TEST_F(S3CacheTest, ReadAheadPullsTheNextShardsIntoRam) {
  S3Server server(root_, {});
  std::vector<std::string> uris;
  for (int i = 0; i < 5; ++i) {
    std::string key = "train/s" + std::to_string(i) + ".tfrecord";
    Put(key, TFRecordBytes(5, 100, static_cast<char>('a' + i)));
    uris.push_back("s3://bkt/" + key);
  }
  TieredCacheOptions o;
  o.disk = Options(server);
  o.read_ahead = 2;
  auto cache = TieredCache::Open(o);
  ASSERT_TRUE(cache.ok());
  (*cache)->SetOrder(uris);
  auto first = (*cache)->ReadBytes(uris[0]);
  ASSERT_TRUE(first.ok());
  (*cache)->WaitForReadAhead();
  EXPECT_TRUE((*cache)->ram().Contains(uris[1]));
  EXPECT_TRUE((*cache)->ram().Contains(uris[2]));
  EXPECT_FALSE((*cache)->ram().Contains(uris[3]));
  auto second = (*cache)->ReadBytes(uris[1]);
  ASSERT_TRUE(second.ok());
  EXPECT_EQ(**second, TFRecordBytes(5, 100, 'b'));
  EXPECT_EQ((*cache)->stats().ram_hits, 1u);
}

TEST_F(S3CacheTest, PipelineReadsItsShardOfTheBucketThroughTheCacheWithReadAheadInItsOwnOrder) {
  const std::string log = root_ + "/requests.log";
  S3Server server(root_, {"--request-log", log});
  std::vector<std::string> shards;
  for (int i = 0; i < 6; ++i) {
    std::string key = "train/part-" + std::to_string(i) + ".tfrecord";
    shards.push_back(TFRecordBytes(4, 50 + i, static_cast<char>('a' + i)));
    Put(key, shards.back());
  }
  TieredCacheOptions o;
  o.disk = Options(server);
  o.read_ahead = 2;
  auto opened = TieredCache::Open(o);
  ASSERT_TRUE(opened.ok());
  std::shared_ptr<TieredCache> cache = std::move(*opened);
  // Worker 1 of 2: shards 1, 3, 5 — in reverse, to show the read-ahead
  // follows the pipeline's order and not the bucket listing.
  auto files = pipeline::ListObjects(cache, "s3://bkt/train/").Shard(2, 1);
  std::vector<std::string> mine;
  {
    auto it = files.MakeIterator();
    while (true) {
      auto n = it->Next();
      ASSERT_TRUE(n.ok());
      if (!*n) break;
      mine.push_back(**n);
    }
  }
  ASSERT_EQ(mine.size(), 3u);
  std::reverse(mine.begin(), mine.end());
  auto records = pipeline::CachedTFRecordDataset(cache, pipeline::Pipeline<std::string>::FromVector(mine));
  auto it = records.MakeIterator();
  auto first = it->Next();
  ASSERT_TRUE(first.ok() && *first) << first.status().ToString();
  // Opening part-5 scheduled part-3 and part-1 (read_ahead 2) into RAM.
  cache->WaitForReadAhead();
  EXPECT_TRUE(cache->ram().Contains("s3://bkt/train/part-3.tfrecord"));
  EXPECT_TRUE(cache->ram().Contains("s3://bkt/train/part-1.tfrecord"));
  std::vector<std::string> got = {**first};
  while (true) {
    auto r = it->Next();
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    if (!*r) break;
    got.push_back(**r);
  }
  std::vector<std::string> want;
  for (int s : {5, 3, 1}) {
    auto recs = ReadAllRecords(root_ + "/store/bkt/train/part-" + std::to_string(s) + ".tfrecord");
    want.insert(want.end(), recs->begin(), recs->end());
  }
  EXPECT_EQ(got, want);
  TieredStats stats = cache->stats();
  EXPECT_EQ(stats.read_ahead_done, 2u);
  EXPECT_EQ(stats.ram_hits, 2u);  // part-3 and part-1 were ready when the pipeline opened them
  // Each of the worker's shards was downloaded once, the others never.
  std::string requests = ReadWhole(log);
  for (int s = 0; s < 6; ++s) {
    std::string get = "GET train/part-" + std::to_string(s) + ".tfrecord";
    size_t count = 0;
    for (size_t at = requests.find(get); at != std::string::npos; at = requests.find(get, at + 1)) ++count;
    EXPECT_EQ(count, s % 2 == 1 ? 1u : 0u) << get << "\n" << requests;
  }
  // A second pass is served from the cache: the server sees at most HEADs
  // (revalidation), no GET.
  auto gets = [&] {
    std::string text = ReadWhole(log);
    size_t c = 0;
    for (size_t at = text.find("GET "); at != std::string::npos; at = text.find("GET ", at + 1)) ++c;
    return c;
  };
  size_t gets_before = gets();
  auto again = records.MakeIterator();
  size_t n = 0;
  while (true) {
    auto r = again->Next();
    ASSERT_TRUE(r.ok());
    if (!*r) break;
    ++n;
  }
  EXPECT_EQ(n, want.size());
  EXPECT_EQ(gets(), gets_before);
}

TEST_F(S3CacheTest, PipelineOverAShardThatCannotBeFetchedReportsItsUri) {
  S3Server server(root_, {});
  TieredCacheOptions o;
  o.disk = Options(server);
  std::shared_ptr<TieredCache> cache = std::move(*TieredCache::Open(o));
  auto records = pipeline::CachedTFRecordDataset(
      cache, pipeline::Pipeline<std::string>::FromVector({"s3://bkt/train/missing.tfrecord"}));
  auto r = records.MakeIterator()->Next();
  TFHOST_ASSERT_ERROR(r, StatusCode::kNotFound,
                      "reading s3://bkt/train/missing.tfrecord through the cache: HEAD "
                      "s3://bkt/train/missing.tfrecord: HTTP 404 (nothing cached for");
  EXPECT_NE(r.status().message().find("s3://bkt/train/missing.tfrecord"), std::string::npos) << r.status().ToString();
}

}  // namespace
}  // namespace tfhost::data::cache
