// Autotuning of map parallelism and prefetch depth (kAutotune): a stage
// that makes its consumer wait gets more workers or a deeper buffer, never
// beyond its budget, and memory stays bounded throughout.
#include <gtest/gtest.h>

#include <chrono>
#include <thread>

#include "data/pipeline/pipeline.h"
#include "base/test_status.h"

namespace tfhost::data::pipeline {
namespace {

Pipeline<int> Range(int n) {
  std::vector<int> v(n);
  for (int i = 0; i < n; ++i) v[i] = i;
  return Pipeline<int>::FromVector(std::move(v));
}

template <typename T>
std::vector<T> Drain(const Pipeline<T>& p, std::chrono::microseconds consumer_work = {}) {
  auto it = p.MakeIterator();
  std::vector<T> out;
  while (true) {
    auto r = it->Next();
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    if (!r.ok() || !*r) break;
    out.push_back(std::move(**r));
    if (consumer_work.count() > 0) std::this_thread::sleep_for(consumer_work);
  }
  return out;
}

StatusOr<int> SlowSquare(int x) {
  std::this_thread::sleep_for(std::chrono::milliseconds(2));
  return x * x;
}

TEST(PipelineAutotuneTest, SlowMapStageGrowsToItsThreadBudgetAndNoFurther) {
  auto stats = std::make_shared<StageStats>();
  auto p = Range(600).Map<int>(SlowSquare, {.parallelism = kAutotune, .max_parallelism = 6, .stats = stats});
  auto start = std::chrono::steady_clock::now();
  auto out = Drain(p);
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  ASSERT_EQ(out.size(), 600u);
  for (int i = 0; i < 600; ++i) ASSERT_EQ(out[i], i * i);  // still in order
  EXPECT_EQ(stats->peak_parallelism.load(), 6);
  EXPECT_EQ(stats->parallelism.load(), 6);
  // Memory: at most two elements per allowed worker were ever held.
  EXPECT_LE(stats->peak_buffered.load(), 12);
  // One worker would need 1.2 s; six bring it near 0.2 s.
  EXPECT_LT(seconds, 1.0);
}

TEST(PipelineAutotuneTest, MapStageFasterThanItsConsumerKeepsOneWorker) {
  auto stats = std::make_shared<StageStats>();
  auto p = Range(200).Map<int>(
      [](int x) -> StatusOr<int> {
        std::this_thread::sleep_for(std::chrono::microseconds(200));
        return x + 1;
      },
      {.parallelism = kAutotune, .max_parallelism = 8, .stats = stats});
  auto out = Drain(p, std::chrono::microseconds(2000));
  ASSERT_EQ(out.size(), 200u);
  EXPECT_LE(stats->peak_parallelism.load(), 2);
  EXPECT_LE(stats->peak_buffered.load(), 4);
}

TEST(PipelineAutotuneTest, OnlyTheSlowStageOfAChainGetsMoreWorkers) {
  auto slow = std::make_shared<StageStats>();
  auto fast = std::make_shared<StageStats>();
  auto p = Range(400)
               .Map<int>([](int x) -> StatusOr<int> { return x * 3; },
                         {.parallelism = kAutotune, .max_parallelism = 8, .stats = fast})
               .Map<int>(SlowSquare, {.parallelism = kAutotune, .max_parallelism = 8, .stats = slow});
  auto out = Drain(p);
  ASSERT_EQ(out.size(), 400u);
  EXPECT_EQ(out[7], 21 * 21);
  EXPECT_GE(slow->peak_parallelism.load(), 4);
  EXPECT_LE(slow->peak_parallelism.load(), 8);
  // The cheap stage is never what the slow one waits on for long.
  EXPECT_LT(fast->peak_parallelism.load(), slow->peak_parallelism.load());
}

TEST(PipelineAutotuneTest, WorkersAreReleasedWhenTheConsumerSlowsDown) {
  auto stats = std::make_shared<StageStats>();
  auto p = Range(100000).Map<int>(SlowSquare, {.parallelism = kAutotune, .max_parallelism = 4, .stats = stats});
  auto it = p.MakeIterator();
  for (int i = 0; i < 300; ++i) ASSERT_TRUE(it->Next().ok());  // fast consumer: grows
  EXPECT_EQ(stats->parallelism.load(), 4);
  for (int i = 0; i < 300; ++i) {  // now a consumer slower than one worker
    ASSERT_TRUE(it->Next().ok());
    std::this_thread::sleep_for(std::chrono::milliseconds(4));
  }
  EXPECT_LT(stats->parallelism.load(), 4);
  it->Cancel();
}

TEST(PipelineAutotuneTest, PrefetchDepthGrowsForABurstyProducerUpToItsLimit) {
  auto stats = std::make_shared<StageStats>();
  // Every 50th element takes 30 ms: a consumer needing a steady stream finds
  // the buffer empty there, and the buffer deepens to cover the bursts.
  auto p = Range(2000)
               .Map<int>(
                   [](int x) -> StatusOr<int> {
                     if (x % 50 == 0) std::this_thread::sleep_for(std::chrono::milliseconds(30));
                     return x;
                   },
                   {.parallelism = 1})
               .Prefetch(PrefetchOptions{.depth = kAutotune, .max_depth = 16, .stats = stats});
  auto out = Drain(p, std::chrono::microseconds(200));
  ASSERT_EQ(out.size(), 2000u);
  for (int i = 0; i < 2000; ++i) ASSERT_EQ(out[i], i);
  EXPECT_GT(stats->peak_depth.load(), 1);
  EXPECT_LE(stats->peak_depth.load(), 16);
  EXPECT_LE(stats->peak_buffered.load(), 16);
}

TEST(PipelineAutotuneTest, CancellingAnAutotunedPipelineJoinsEveryWorker) {
  auto stats = std::make_shared<StageStats>();
  auto p = Range(1000000)
               .Map<int>(SlowSquare, {.parallelism = kAutotune, .max_parallelism = 4, .stats = stats})
               .Prefetch(PrefetchOptions{.depth = kAutotune, .max_depth = 8});
  auto it = p.MakeIterator();
  for (int i = 0; i < 100; ++i) ASSERT_TRUE(it->Next().ok());
  it->Cancel();
  auto r = it->Next();
  TFHOST_EXPECT_ERROR(r, StatusCode::kCancelled, "pipeline cancelled");
  it.reset();  // joins; a hang here fails the test by timeout
  SUCCEED();
}

}  // namespace
}  // namespace tfhost::data::pipeline
