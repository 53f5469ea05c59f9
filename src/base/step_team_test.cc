#include "base/step_team.h"

#include <gtest/gtest.h>

#include <atomic>
#include <condition_variable>
#include <mutex>
#include <set>
#include <thread>
#include <vector>

namespace tfhost {
namespace {

TEST(StepTeamTest, EveryChunkRunsOnceAStepAndEachStepSeesTheLastOnesWrites) {
  for (int workers : {0, 1, 3}) {
    ThreadPool pool(workers);
    const int chunks = 4;
    StepTeam team(&pool, chunks);
    std::vector<int64_t> previous(chunks, 0), next(chunks, 0);
    for (int step = 0; step < 2000; ++step) {
      std::vector<std::atomic<int>> calls(chunks);
      team.Run([&](int c) {
        calls[c].fetch_add(1);
        // Reads another chunk's result of the step before: a step that
        // started before the last one ended would read it stale.
        next[c] = previous[(c + 1) % chunks] + 1;
      });
      for (int c = 0; c < chunks; ++c) ASSERT_EQ(calls[c].load(), 1) << "workers " << workers << " step " << step;
      std::swap(previous, next);
    }
    for (int c = 0; c < chunks; ++c) EXPECT_EQ(previous[c], 2000) << c;
  }
}

TEST(StepTeamTest, WithoutAPoolTheCallerRunsEveryChunk) {
  StepTeam team(nullptr, 3);
  std::set<std::thread::id> threads;
  team.Run([&](int) { threads.insert(std::this_thread::get_id()); });
  EXPECT_EQ(threads, std::set<std::thread::id>{std::this_thread::get_id()});
}

TEST(StepTeamTest, StepsFinishWhileEveryWorkerIsBusyElsewhere) {
  ThreadPool pool(2);
  std::mutex mu;
  std::condition_variable cv;
  bool release = false;
  for (int i = 0; i < 2; ++i) {
    pool.Schedule([&] {
      std::unique_lock<std::mutex> lock(mu);
      cv.wait(lock, [&] { return release; });
    });
  }
  {
    StepTeam team(&pool, 3);  // its helpers queue behind the blocked tasks
    std::atomic<int> calls{0};
    for (int step = 0; step < 100; ++step) team.Run([&](int) { calls.fetch_add(1); });
    EXPECT_EQ(calls.load(), 300);
  }
  {
    std::lock_guard<std::mutex> lock(mu);
    release = true;
  }
  cv.notify_all();
}

TEST(StepTeamTest, AHelperGivesItsWorkerBackWhenAnotherTaskIsQueued) {
  ThreadPool pool(1);
  StepTeam team(&pool, 2);
  // Run steps until the helper has taken part in one.
  const std::thread::id caller = std::this_thread::get_id();
  std::atomic<bool> helped{false};
  for (int step = 0; step < 1'000'000 && !helped.load(); ++step) {
    team.Run([&](int) {
      if (std::this_thread::get_id() != caller) helped.store(true);
    });
  }
  ASSERT_TRUE(helped.load()) << "the helper never joined";
  // The pool's one worker is the helper's: a queued task runs only if the
  // helper leaves while the team lives on.
  std::atomic<bool> ran{false};
  pool.Schedule([&] { ran.store(true); });
  for (int step = 0; step < 10'000'000 && !ran.load(); ++step) team.Run([](int) {});
  EXPECT_TRUE(ran.load());
}

}  // namespace
}  // namespace tfhost
