#include "data/pipeline/pipeline.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <set>

#include "base/test_fixtures.h"
#include "data/pipeline/sources.h"
#include "data/tfrecord_writer.h"
#include "base/test_status.h"

namespace tfhost::data::pipeline {
namespace {

namespace fs = std::filesystem;

class TempDir {
 public:
  TempDir() {
    std::string templ = (fs::temp_directory_path() / "pipeline_test_XXXXXX").string();
    path_ = ::mkdtemp(templ.data());
  }
  ~TempDir() { fs::remove_all(path_); }
  std::string File(const std::string& name) const { return path_ + "/" + name; }

 private:
  std::string path_;
};

template <typename T>
std::vector<T> Drain(const Pipeline<T>& p, Status* status = nullptr) {
  std::vector<T> out;
  auto it = p.MakeIterator();
  while (true) {
    auto r = it->Next();
    if (!r.ok()) {
      if (status) *status = r.status();
      break;
    }
    if (!*r) break;
    out.push_back(std::move(**r));
  }
  return out;
}

std::vector<int> Range(int n) {
  std::vector<int> v(static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) v[static_cast<size_t>(i)] = i;
  return v;
}

// Writes `files` TFRecord files; file f holds records "f:0".."f:(f+3)".
std::vector<std::string> WriteFiles(const TempDir& dir, int files) {
  std::vector<std::string> paths;
  for (int f = 0; f < files; ++f) {
    std::vector<std::string> records;
    for (int r = 0; r < f + 4; ++r) records.push_back(std::to_string(f) + ":" + std::to_string(r));
    char name[64];
    std::snprintf(name, sizeof(name), "part-%05d-of-%05d", f, files);
    paths.push_back(dir.File(name));
    EXPECT_TRUE(WriteTFRecordFile(paths.back(), records).ok());
  }
  return paths;
}

TEST(PipelineTest, ShardingFilesGivesEveryRecordExactlyOnceAcrossShards) {
  TempDir dir;
  auto paths = WriteFiles(dir, 7);
  std::multiset<std::string> all;
  size_t expected = 0;
  for (int f = 0; f < 7; ++f) expected += static_cast<size_t>(f + 4);
  for (int shard = 0; shard < 3; ++shard) {
    auto records = Drain(TFRecordDataset(ListFiles({dir.File("part-*")}).Shard(3, shard), {.cycle_length = 2}));
    all.insert(records.begin(), records.end());
  }
  EXPECT_EQ(all.size(), expected);
  EXPECT_EQ(std::set<std::string>(all.begin(), all.end()).size(), expected);  // no duplicates
}

TEST(PipelineTest, ShardingRecordsGivesEachExactlyOnce) {
  std::multiset<int> all;
  for (int shard = 0; shard < 4; ++shard) {
    auto part = Drain(Pipeline<int>::FromVector(Range(103)).Shard(4, shard));
    all.insert(part.begin(), part.end());
  }
  EXPECT_EQ(std::vector<int>(all.begin(), all.end()), Range(103));
}

TEST(PipelineTest, ListFilesIsSortedAndAMissingPatternIsAnError) {
  TempDir dir;
  auto paths = WriteFiles(dir, 3);
  EXPECT_EQ(Drain(ListFiles({dir.File("part-*")})), paths);
  Status s;
  Drain(ListFiles({dir.File("nothing-*")}), &s);
  TFHOST_EXPECT_ERROR(s, StatusCode::kNotFound, "no file matches '" + dir.File("nothing-*") + "'");
  auto shuffled = Drain(ListFiles({dir.File("part-*")}, true, 7));
  EXPECT_EQ(shuffled, Drain(ListFiles({dir.File("part-*")}, true, 7)));
  EXPECT_EQ(std::set<std::string>(shuffled.begin(), shuffled.end()), std::set<std::string>(paths.begin(), paths.end()));
}

TEST(PipelineTest, ShuffleIsDeterministicForASeedAndAPermutation) {
  auto p = Pipeline<int>::FromVector(Range(1000));
  auto a = Drain(p.Shuffle(64, 42));
  auto b = Drain(p.Shuffle(64, 42));
  auto c = Drain(p.Shuffle(64, 43));
  EXPECT_EQ(a, b);
  EXPECT_NE(a, c);
  EXPECT_NE(a, Range(1000));
  std::vector<int> sorted = a;
  std::sort(sorted.begin(), sorted.end());
  EXPECT_EQ(sorted, Range(1000));
}

TEST(PipelineTest, InterleaveTakesBlocksRoundRobinAndRefillsExhaustedSlots) {
  // Inputs A(5), B(3), C(2); cycle 2, block 2.
  std::map<std::string, std::vector<std::string>> data = {
      {"a", {"a0", "a1", "a2", "a3", "a4"}}, {"b", {"b0", "b1", "b2"}}, {"c", {"c0", "c1"}}};
  auto out = Drain(Pipeline<std::string>::FromVector({"a", "b", "c"})
                       .Interleave<std::string>(
                           [&](const std::string& k) { return Pipeline<std::string>::FromVector(data.at(k)); },
                           {.cycle_length = 2, .block_length = 2}));
  EXPECT_EQ(out, (std::vector<std::string>{"a0", "a1", "b0", "b1", "a2", "a3", "b2", "a4", "c0", "c1"}));
  // With per-input prefetch threads the deterministic order is the same.
  auto prefetched = Drain(Pipeline<std::string>::FromVector({"a", "b", "c"})
                              .Interleave<std::string>(
                                  [&](const std::string& k) { return Pipeline<std::string>::FromVector(data.at(k)); },
                                  {.cycle_length = 2, .block_length = 2, .prefetch = 3}));
  EXPECT_EQ(prefetched, out);
  auto sloppy = Drain(Pipeline<std::string>::FromVector({"a", "b", "c"})
                          .Interleave<std::string>(
                              [&](const std::string& k) { return Pipeline<std::string>::FromVector(data.at(k)); },
                              {.cycle_length = 2, .block_length = 2, .deterministic = false, .prefetch = 2}));
  std::sort(sloppy.begin(), sloppy.end());
  std::sort(out.begin(), out.end());
  EXPECT_EQ(sloppy, out);
}

TEST(PipelineTest, ParallelMapKeepsOrderWhenDeterministicAndLosesNothingWhenNot) {
  auto slow_square = [](int x) -> StatusOr<int> {
    std::this_thread::sleep_for(std::chrono::microseconds((x * 7919) % 300));
    return x * x;
  };
  auto p = Pipeline<int>::FromVector(Range(200));
  auto ordered = Drain(p.Map<int>(slow_square, {.parallelism = 4}));
  ASSERT_EQ(ordered.size(), 200u);
  for (int i = 0; i < 200; ++i) EXPECT_EQ(ordered[static_cast<size_t>(i)], i * i);
  auto unordered = Drain(p.Map<int>(slow_square, {.parallelism = 4, .deterministic = false}));
  std::sort(unordered.begin(), unordered.end());
  EXPECT_EQ(unordered, ordered);
}

TEST(PipelineTest, MapErrorStopsThePipelineAfterTheElementsBeforeIt) {
  auto p = Pipeline<int>::FromVector(Range(100)).Map<int>(
      [](int x) -> StatusOr<int> {
        if (x == 37) return InvalidArgument("bad element 37");
        return x;
      },
      {.parallelism = 3});
  Status s;
  auto got = Drain(p, &s);
  EXPECT_EQ(got, Range(37));
  EXPECT_EQ(s.message(), "bad element 37");
}

TEST(PipelineTest, BatchWithAndWithoutDropRemainder) {
  auto p = Pipeline<int>::FromVector(Range(10));
  auto kept = Drain(p.Batch(4));
  ASSERT_EQ(kept.size(), 3u);
  EXPECT_EQ(kept[2], (std::vector<int>{8, 9}));
  EXPECT_EQ(Drain(p.Batch(4, true)).size(), 2u);
}

// A source that counts how many elements were pulled from it.
class CountingIterator : public Iterator<int> {
 public:
  CountingIterator(std::atomic<int>* pulled, int limit, int sleep_us)
      : pulled_(pulled), limit_(limit), sleep_us_(sleep_us) {}
  NextResult<int> Next() override {
    if (cancelled_) return CancelledError();
    if (sleep_us_) std::this_thread::sleep_for(std::chrono::microseconds(sleep_us_));
    int i = pulled_->fetch_add(1);
    if (limit_ >= 0 && i >= limit_) return std::optional<int>();
    return std::optional<int>(i);
  }
  void Cancel() override { cancelled_ = true; }

 private:
  std::atomic<int>* pulled_;
  int limit_, sleep_us_;
  std::atomic<bool> cancelled_{false};
};

Pipeline<int> Counting(std::atomic<int>* pulled, int limit = -1, int sleep_us = 0) {
  return Pipeline<int>([=] { return IteratorPtr<int>(new CountingIterator(pulled, limit, sleep_us)); });
}

TEST(PipelineTest, EveryThreadedStageHoldsABoundedNumberOfElements) {
  std::atomic<int> pulled{0};
  auto it = Counting(&pulled)
                .Map<int>([](int x) -> StatusOr<int> { return x; }, {.parallelism = 4})
                .Prefetch(5)
                .MakeIterator();
  for (int i = 0; i < 10; ++i) ASSERT_TRUE(it->Next().ok());
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  // 10 consumed + 5 prefetched + 1 in the prefetch thread's hand + 2 x 4 in
  // the map + one pull per map worker: far from unbounded.
  EXPECT_LE(pulled.load(), 10 + 5 + 1 + 8 + 4);
}

TEST(PipelineTest, CancelUnblocksAWaitingNextAndDestructionJoinsThreads) {
  std::atomic<int> pulled{0};
  auto it = Counting(&pulled, -1, 2000)  // a slow, endless source
                .Map<int>([](int x) -> StatusOr<int> { return x; }, {.parallelism = 2})
                .Prefetch(2)
                .MakeIterator();
  ASSERT_TRUE(it->Next().ok());
  std::thread canceller([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    it->Cancel();
  });
  auto start = std::chrono::steady_clock::now();
  Status last;
  for (int i = 0; i < 100000; ++i) {
    auto r = it->Next();
    if (!r.ok()) {
      last = r.status();
      break;
    }
  }
  canceller.join();
  TFHOST_EXPECT_ERROR(last, StatusCode::kCancelled, "pipeline cancelled");
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));
  it.reset();  // joins every worker; a hang here fails the test by timeout
}

TEST(PipelineTest, DestroyingAnUnfinishedIteratorIsClean) {
  std::atomic<int> pulled{0};
  for (int round = 0; round < 20; ++round) {
    auto it = Counting(&pulled)
                  .Shuffle(16, 1)
                  .Map<int>([](int x) -> StatusOr<int> { return x + 1; }, {.parallelism = 3, .deterministic = false})
                  .Batch(4)
                  .Prefetch(2)
                  .MakeIterator();
    ASSERT_TRUE(it->Next().ok());
  }
}

TEST(PipelineTest, FullPipelineOverFixtureShardsIsDeterministicWithASeed) {
  std::string dir = testing::FixturePath("data/tfx_chicago_taxi/Split-train");
  TFHOST_REQUIRE_FIXTURE(dir);
  auto make = [&](uint64_t seed) {
    return TFRecordDataset(ListFiles({dir + "/data_tfrecord-*"}),
                           {.cycle_length = 4, .block_length = 8, .prefetch = 16})
        .Shuffle(500, seed)
        .Map<Example>(ParseExampleFn(), {.parallelism = 4})
        .Batch(64)
        .Map<PaddedBatch>([](std::vector<Example> b) { return PadBatch(b); }, {.parallelism = 2})
        .Prefetch(2);
  };
  auto fares = [](const std::vector<PaddedBatch>& batches) {
    std::vector<float> out;
    int64_t rows = 0;
    for (const auto& b : batches) {
      rows += b.begin()->second.batch;
      const PaddedFeature& fare = b.at("fare");
      out.insert(out.end(), fare.floats.begin(), fare.floats.end());
    }
    out.push_back(static_cast<float>(rows));
    return out;
  };
  auto a = fares(Drain(make(11)));
  auto b = fares(Drain(make(11)));
  auto c = fares(Drain(make(12)));
  EXPECT_EQ(a.back(), 9909.0f);
  EXPECT_EQ(a, b);
  EXPECT_NE(a, c);
}

TEST(PipelineTest, PadBatchPadsVariableLengthFeatures) {
  Example x, y;
  x.features["ids"] = Feature::Int64s({1, 2, 3});
  x.features["name"] = Feature::Bytes({"a"});
  y.features["ids"] = Feature::Int64s({4});
  auto batch = PadBatch({x, y});
  ASSERT_TRUE(batch.ok());
  const PaddedFeature& ids = batch->at("ids");
  EXPECT_EQ(ids.max_len, 3);
  EXPECT_EQ(ids.int64s, (std::vector<int64_t>{1, 2, 3, 4, 0, 0}));
  EXPECT_EQ(ids.lengths, (std::vector<int64_t>{3, 1}));
  EXPECT_EQ(batch->at("name").bytes, (std::vector<std::string>{"a", ""}));
  EXPECT_EQ(batch->at("name").lengths, (std::vector<int64_t>{1, 0}));
  y.features["name"] = Feature::Floats({1});
  TFHOST_EXPECT_ERROR(PadBatch({x, y}), StatusCode::kInvalidArgument,
                      "padded batch: feature 'name' is bytes in one row and float in another");
}

}  // namespace
}  // namespace tfhost::data::pipeline
