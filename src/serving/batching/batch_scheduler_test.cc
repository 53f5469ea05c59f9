#include "serving/batching/batch_scheduler.h"

#include <gtest/gtest.h>

#include <atomic>
#include <condition_variable>
#include <map>
#include <mutex>
#include <random>
#include <thread>

#include "base/test_status.h"

namespace tfhost::serving::batching {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;

// Bounds every wait; generous so a loaded 2-core machine never flakes.
constexpr auto kLongWait = seconds(30);

// Collects task results by id; waits with a bound.
class Results {
 public:
  DoneCallback Callback(int id) {
    return [this, id](StatusOr<TensorMap> result) {
      std::lock_guard<std::mutex> l(mu_);
      ++calls_[id];
      results_.emplace(id, std::move(result));
      cv_.notify_all();
    };
  }
  bool WaitFor(size_t n, std::chrono::milliseconds timeout = std::chrono::duration_cast<milliseconds>(kLongWait)) {
    std::unique_lock<std::mutex> l(mu_);
    return cv_.wait_for(l, timeout, [&] { return results_.size() >= n; });
  }
  size_t size() {
    std::lock_guard<std::mutex> l(mu_);
    return results_.size();
  }
  StatusOr<TensorMap> Get(int id) {
    std::lock_guard<std::mutex> l(mu_);
    auto it = results_.find(id);
    if (it == results_.end()) return Internal("no result");
    return it->second;
  }
  int Calls(int id) {
    std::lock_guard<std::mutex> l(mu_);
    return calls_[id];
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  std::map<int, StatusOr<TensorMap>> results_;
  std::map<int, int> calls_;
};

// Blocks runners until opened; tells the test when a runner is inside.
class Gate {
 public:
  void Enter() {
    std::unique_lock<std::mutex> l(mu_);
    ++entered_;
    cv_.notify_all();
    cv_.wait(l, [&] { return open_; });
  }
  bool WaitEntered(int n) {
    std::unique_lock<std::mutex> l(mu_);
    return cv_.wait_for(l, kLongWait, [&] { return entered_ >= n; });
  }
  void Open() {
    std::lock_guard<std::mutex> l(mu_);
    open_ = true;
    cv_.notify_all();
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  int entered_ = 0;
  bool open_ = false;
};

// A fake model: y = 2x + 1, and records the batches it saw.
class FakeModel {
 public:
  BatchRunFn Fn() {
    return [this](const TensorMap& inputs) -> StatusOr<TensorMap> {
      const Tensor& x = inputs.at("x");
      {
        std::lock_guard<std::mutex> l(mu_);
        batches_.push_back(x);
      }
      if (gate_) gate_->Enter();
      Tensor y(DType::kFloat, x.shape());
      for (int64_t i = 0; i < x.NumElements(); ++i) y.data<float>()[i] = 2 * x.data<float>()[i] + 1;
      return TensorMap{{"y", y}};
    };
  }
  void set_gate(Gate* gate) { gate_ = gate; }
  std::vector<Tensor> batches() {
    std::lock_guard<std::mutex> l(mu_);
    return batches_;
  }

 private:
  std::mutex mu_;
  std::vector<Tensor> batches_;
  Gate* gate_ = nullptr;
};

TensorMap Rows(const std::vector<float>& values) {
  return {{"x", Tensor::FromVector<float>(values, Shape({static_cast<int64_t>(values.size())}))}};
}

std::vector<float> Ys(const StatusOr<TensorMap>& r) {
  if (!r.ok()) return {};
  const Tensor& y = r->at("y");
  return std::vector<float>(y.data<float>(), y.data<float>() + y.NumElements());
}

BatchingConfig Config(int64_t max_batch, int64_t timeout_micros) {
  BatchingConfig c;
  c.max_batch_size = max_batch;
  c.batch_timeout_micros = timeout_micros;
  c.max_enqueued_batches = 100;
  c.num_batch_threads = 1;
  return c;
}

std::shared_ptr<BatchScheduler> MakeScheduler(int threads, Clock* clock = nullptr) {
  BatchScheduler::Options options;
  options.num_threads = threads;
  options.clock = clock;
  auto s = BatchScheduler::Create(options);
  EXPECT_TRUE(s.ok());
  return *s;
}

constexpr int64_t kHour = 3600LL * 1000 * 1000;

TEST(BatchSchedulerTest, PadsBatchToNextAllowedSizeByRepeatingFirstRow) {
  FakeClock clock;
  FakeModel model;
  auto scheduler = MakeScheduler(1, &clock);
  BatchingConfig c = Config(8, kHour);
  c.allowed_batch_sizes = {2, 4, 8};
  auto queue = scheduler->AddQueue("m", c, model.Fn());
  ASSERT_TRUE(queue.ok()) << queue.status().ToString();
  Results results;
  ASSERT_TRUE((*queue)->Schedule(Rows({10}), results.Callback(0)).ok());
  ASSERT_TRUE((*queue)->Schedule(Rows({20, 30}), results.Callback(1)).ok());
  clock.Advance(kHour);
  ASSERT_TRUE(results.WaitFor(2));
  ASSERT_EQ(model.batches().size(), 1u);
  const Tensor x = model.batches()[0];
  EXPECT_EQ(x.shape(), Shape({4}));
  EXPECT_EQ(std::vector<float>(x.data<float>(), x.data<float>() + 4), (std::vector<float>{10, 20, 30, 10}));
  EXPECT_EQ(Ys(results.Get(0)), (std::vector<float>{21}));
  EXPECT_EQ(Ys(results.Get(1)), (std::vector<float>{41, 61}));
  QueueStats stats = (*queue)->stats();
  EXPECT_EQ(stats.rows_run, 3);
  EXPECT_EQ(stats.padded_rows_run, 4);
}

TEST(BatchSchedulerTest, SplitsLargeTaskAcrossBatchesAndReassemblesItsOutputs) {
  FakeClock clock;
  FakeModel model;
  auto scheduler = MakeScheduler(1, &clock);
  BatchingConfig c = Config(10, kHour);
  c.enable_large_batch_splitting = true;
  c.max_execution_batch_size = 4;
  c.allowed_batch_sizes = {2, 4};
  auto queue = scheduler->AddQueue("m", c, model.Fn());
  ASSERT_TRUE(queue.ok()) << queue.status().ToString();
  Results results;
  ASSERT_TRUE((*queue)->Schedule(Rows({100}), results.Callback(0)).ok());
  std::vector<float> big = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9};
  ASSERT_TRUE((*queue)->Schedule(Rows(big), results.Callback(1)).ok());
  clock.Advance(kHour);  // releases the last, partly filled batch
  ASSERT_TRUE(results.WaitFor(2));
  const auto batches = model.batches();
  ASSERT_EQ(batches.size(), 3u);
  for (const Tensor& b : batches) EXPECT_EQ(b.dim(0), 4);  // 1+3, 4, 3 padded to 4
  EXPECT_EQ(Ys(results.Get(0)), (std::vector<float>{201}));
  std::vector<float> expected;
  for (float v : big) expected.push_back(2 * v + 1);
  EXPECT_EQ(Ys(results.Get(1)), expected);
  EXPECT_EQ(results.Calls(1), 1);
}

TEST(BatchSchedulerTest, TaskLargerThanMaxBatchSizeIsInvalidArgumentWithoutSplitting) {
  FakeModel model;
  auto scheduler = MakeScheduler(1);
  auto queue = scheduler->AddQueue("m", Config(2, 0), model.Fn());
  ASSERT_TRUE(queue.ok());
  Results results;
  Status s = (*queue)->Schedule(Rows({1, 2, 3}), results.Callback(0));
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("Task size 3 is larger than maximum batch size 2"), std::string::npos) << s.message();
  EXPECT_EQ(results.size(), 0u);
}

TEST(BatchSchedulerTest, FullQueueAnswersUnavailableImmediately) {
  FakeModel model;
  Gate gate;
  model.set_gate(&gate);
  auto scheduler = MakeScheduler(1);
  BatchingConfig c = Config(1, 0);
  c.max_enqueued_batches = 1;
  auto queue = scheduler->AddQueue("m", c, model.Fn());
  ASSERT_TRUE(queue.ok());
  Results results;
  ASSERT_TRUE((*queue)->Schedule(Rows({1}), results.Callback(0)).ok());
  ASSERT_TRUE(gate.WaitEntered(1));  // the only thread is busy with task 0
  ASSERT_TRUE((*queue)->Schedule(Rows({2}), results.Callback(1)).ok());  // fills the one allowed batch
  Status full = (*queue)->Schedule(Rows({3}), results.Callback(2));
  EXPECT_EQ(full.code(), StatusCode::kUnavailable);
  EXPECT_NE(full.message().find("The batch scheduling queue to which this task was submitted is full"),
            std::string::npos)
      << full.message();
  EXPECT_EQ((*queue)->stats().rejected_full, 1);
  gate.Open();
  ASSERT_TRUE(results.WaitFor(2));
  EXPECT_EQ(Ys(results.Get(1)), (std::vector<float>{5}));
  EXPECT_EQ(results.Calls(2), 0);  // a refused task's callback never runs
}

TEST(BatchSchedulerTest, TimeoutReleasesABatchWithOneTask) {
  FakeClock clock;
  FakeModel model;
  auto scheduler = MakeScheduler(1, &clock);
  auto queue = scheduler->AddQueue("m", Config(8, 5000), model.Fn());
  ASSERT_TRUE(queue.ok());
  Results results;
  ASSERT_TRUE((*queue)->Schedule(Rows({7}), results.Callback(0)).ok());
  // Simulated time stands still: the batch must wait (a short real wait is
  // enough to catch a scheduler that ignores the timeout).
  EXPECT_FALSE(results.WaitFor(1, milliseconds(100)));
  clock.Advance(5000);
  ASSERT_TRUE(results.WaitFor(1));
  EXPECT_EQ(Ys(results.Get(0)), (std::vector<float>{15}));
  ASSERT_EQ(model.batches().size(), 1u);
  EXPECT_EQ(model.batches()[0].dim(0), 1);
}

TEST(BatchSchedulerTest, FullBatchRunsWithoutWaitingForTheTimeout) {
  FakeClock clock;
  FakeModel model;
  auto scheduler = MakeScheduler(1, &clock);
  auto queue = scheduler->AddQueue("m", Config(2, kHour), model.Fn());
  ASSERT_TRUE(queue.ok());
  Results results;
  ASSERT_TRUE((*queue)->Schedule(Rows({1}), results.Callback(0)).ok());
  ASSERT_TRUE((*queue)->Schedule(Rows({2}), results.Callback(1)).ok());
  ASSERT_TRUE(results.WaitFor(2));  // the clock never moved
  ASSERT_EQ(model.batches().size(), 1u);
  EXPECT_EQ(model.batches()[0].dim(0), 2);
}

TEST(BatchSchedulerTest, ThreadsServeTwoQueuesRoundRobin) {
  Gate gate;
  std::mutex mu;
  std::vector<std::string> order;
  auto scheduler = MakeScheduler(1);
  auto make_run = [&](std::string name) {
    return [&, name](const TensorMap& inputs) -> StatusOr<TensorMap> {
      {
        std::lock_guard<std::mutex> l(mu);
        order.push_back(name);
      }
      if (name == "a" && order.size() == 1) gate.Enter();
      return TensorMap{{"y", inputs.at("x")}};
    };
  };
  auto a = scheduler->AddQueue("a", Config(1, 0), make_run("a"));
  auto b = scheduler->AddQueue("b", Config(1, 0), make_run("b"));
  ASSERT_TRUE(a.ok() && b.ok());
  Results results;
  ASSERT_TRUE((*a)->Schedule(Rows({0}), results.Callback(0)).ok());
  ASSERT_TRUE(gate.WaitEntered(1));
  // While the thread is busy, queue a fills up with 5 batches before b gets any.
  for (int i = 1; i <= 5; ++i) ASSERT_TRUE((*a)->Schedule(Rows({1}), results.Callback(i)).ok());
  for (int i = 6; i <= 10; ++i) ASSERT_TRUE((*b)->Schedule(Rows({2}), results.Callback(i)).ok());
  gate.Open();
  ASSERT_TRUE(results.WaitFor(11));
  std::lock_guard<std::mutex> l(mu);
  EXPECT_EQ(order, (std::vector<std::string>{"a", "b", "a", "b", "a", "b", "a", "b", "a", "b", "a"}));
}

// Many threads submit at once, with and without large-batch splitting; every
// caller gets back exactly its own rows, once.
class ConcurrentSubmitTest : public ::testing::TestWithParam<bool> {};

TEST_P(ConcurrentSubmitTest, EachCallerGetsItsOwnRowsExactlyOnce) {
  const bool split = GetParam();
  auto scheduler = MakeScheduler(2);
  FakeModel model;
  BatchingConfig c = Config(16, 1000);
  c.max_enqueued_batches = 100000;
  if (split) {
    c.enable_large_batch_splitting = true;
    c.max_execution_batch_size = 4;
    c.allowed_batch_sizes = {2, 4};
  } else {
    c.allowed_batch_sizes = {4, 8, 16};
  }
  auto queue = scheduler->AddQueue("m", c, model.Fn());
  ASSERT_TRUE(queue.ok()) << queue.status().ToString();
  Results results;
  constexpr int kThreads = 8, kPerThread = 150;
  const int max_rows = split ? 11 : 3;
  std::vector<std::thread> threads;
  std::atomic<int> refused{0};
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      std::mt19937 rng(t);
      for (int i = 0; i < kPerThread; ++i) {
        const int id = t * kPerThread + i;
        const int rows = 1 + static_cast<int>(rng() % max_rows);
        std::vector<float> values;
        for (int r = 0; r < rows; ++r) values.push_back(static_cast<float>(id * 100 + r));
        if (!(*queue)->Schedule(Rows(values), results.Callback(id)).ok()) ++refused;
      }
    });
  }
  for (auto& t : threads) t.join();
  ASSERT_EQ(refused.load(), 0);
  ASSERT_TRUE(results.WaitFor(kThreads * kPerThread));
  for (int id = 0; id < kThreads * kPerThread; ++id) {
    EXPECT_EQ(results.Calls(id), 1) << id;
    auto r = results.Get(id);
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    const std::vector<float> ys = Ys(r);
    ASSERT_GE(ys.size(), 1u);
    ASSERT_LE(ys.size(), static_cast<size_t>(max_rows));
    for (size_t k = 0; k < ys.size(); ++k) EXPECT_EQ(ys[k], 2 * (id * 100 + static_cast<float>(k)) + 1) << id;
  }
  for (const Tensor& b : model.batches()) EXPECT_LE(b.dim(0), split ? 4 : 16);
}

INSTANTIATE_TEST_SUITE_P(SplittingOffAndOn, ConcurrentSubmitTest, ::testing::Bool());

TEST(BatchSchedulerTest, IncompatibleTasksGoInSeparateBatchesUnlessPaddingIsOn) {
  for (bool pad : {false, true}) {
    FakeClock clock;
    FakeModel model;
    auto scheduler = MakeScheduler(1, &clock);
    BatchingConfig c = Config(8, kHour);
    c.pad_variable_length_inputs = pad;
    auto queue = scheduler->AddQueue("m", c, model.Fn());
    ASSERT_TRUE(queue.ok());
    Results results;
    TensorMap short_row = {{"x", Tensor::FromVector<float>({1, 2}, Shape({1, 2}))}};
    TensorMap long_row = {{"x", Tensor::FromVector<float>({3, 4, 5}, Shape({1, 3}))}};
    ASSERT_TRUE((*queue)->Schedule(short_row, results.Callback(0)).ok());
    ASSERT_TRUE((*queue)->Schedule(long_row, results.Callback(1)).ok());
    clock.Advance(kHour);
    ASSERT_TRUE(results.WaitFor(2));
    const auto batches = model.batches();
    if (pad) {
      ASSERT_EQ(batches.size(), 1u);
      EXPECT_EQ(batches[0].shape(), Shape({2, 3}));
      // The short request's row padded with its own first element.
      EXPECT_EQ(Ys(results.Get(0)), (std::vector<float>{3, 5, 3}));
    } else {
      ASSERT_EQ(batches.size(), 2u);
      EXPECT_EQ(Ys(results.Get(0)), (std::vector<float>{3, 5}));
    }
    EXPECT_EQ(Ys(results.Get(1)), (std::vector<float>{7, 9, 11}));
  }
}

TEST(BatchSchedulerTest, OutputWithoutBatchDimensionFailsTheBatchClearly) {
  FakeClock clock;
  auto scheduler = MakeScheduler(1, &clock);
  auto run = [](const TensorMap&) -> StatusOr<TensorMap> { return TensorMap{{"loss", Tensor::Scalar<float>(0)}}; };
  auto queue = scheduler->AddQueue("model 'm'", Config(4, kHour), run);
  ASSERT_TRUE(queue.ok());
  Results results;
  ASSERT_TRUE((*queue)->Schedule(Rows({1}), results.Callback(0)).ok());
  ASSERT_TRUE((*queue)->Schedule(Rows({2}), results.Callback(1)).ok());
  clock.Advance(kHour);
  ASSERT_TRUE(results.WaitFor(2));
  for (int id : {0, 1}) {
    auto r = results.Get(id);
    TFHOST_ASSERT_ERROR(r, StatusCode::kInvalidArgument,
                        "batching queue 'model 'm'': output 'loss' of the batched run has shape [], but batching needs "
                        "dim 0 to equal the batch size 2 so that each");
    EXPECT_NE(r.status().message().find("output 'loss'"), std::string::npos) << r.status().message();
    EXPECT_NE(r.status().message().find("model 'm'"), std::string::npos);
  }
}

TEST(BatchSchedulerTest, ModelErrorReachesEveryTaskOfTheBatch) {
  FakeClock clock;
  auto scheduler = MakeScheduler(1, &clock);
  auto run = [](const TensorMap&) -> StatusOr<TensorMap> { return Internal("kernel exploded"); };
  auto queue = scheduler->AddQueue("m", Config(2, kHour), run);
  ASSERT_TRUE(queue.ok());
  Results results;
  ASSERT_TRUE((*queue)->Schedule(Rows({1}), results.Callback(0)).ok());
  ASSERT_TRUE((*queue)->Schedule(Rows({2}), results.Callback(1)).ok());
  ASSERT_TRUE(results.WaitFor(2));
  EXPECT_EQ(results.Get(0).status().message(), "kernel exploded");
  EXPECT_EQ(results.Get(1).status().message(), "kernel exploded");
}

TEST(BatchSchedulerTest, ShutdownWithPendingTasksCompletesOrCancelsEachOneOnce) {
  auto scheduler = MakeScheduler(1);
  Gate gate;
  FakeModel model;
  model.set_gate(&gate);
  BatchingConfig c = Config(1, 0);
  c.max_enqueued_batches = 1000;
  auto queue = scheduler->AddQueue("m", c, model.Fn());
  ASSERT_TRUE(queue.ok());
  Results results;
  constexpr int kTasks = 50;
  for (int i = 0; i < kTasks; ++i) ASSERT_TRUE((*queue)->Schedule(Rows({1}), results.Callback(i)).ok());
  ASSERT_TRUE(gate.WaitEntered(1));
  // Shut down from another thread while the first batch is still running.
  std::thread stopper([&] { scheduler->Shutdown(milliseconds(0)); });
  std::this_thread::sleep_for(milliseconds(20));
  gate.Open();
  stopper.join();
  ASSERT_TRUE(results.WaitFor(kTasks));
  int ok = 0, cancelled = 0;
  for (int i = 0; i < kTasks; ++i) {
    EXPECT_EQ(results.Calls(i), 1);
    auto r = results.Get(i);
    if (r.ok()) {
      ++ok;
    } else {
      EXPECT_EQ(r.status().code(), StatusCode::kCancelled) << r.status().ToString();
      ++cancelled;
    }
  }
  EXPECT_GE(ok, 1);  // the running batch finished
  EXPECT_EQ(ok + cancelled, kTasks);
  Status after = (*queue)->Schedule(Rows({1}), results.Callback(kTasks));
  EXPECT_EQ(after.code(), StatusCode::kUnavailable);
  queue->reset();  // must not hang
}

TEST(BatchSchedulerTest, ShutdownWithDrainRunsEverythingQueued) {
  FakeClock clock;
  FakeModel model;
  auto scheduler = MakeScheduler(2, &clock);
  auto queue = scheduler->AddQueue("m", Config(4, kHour), model.Fn());
  ASSERT_TRUE(queue.ok());
  Results results;
  for (int i = 0; i < 10; ++i) ASSERT_TRUE((*queue)->Schedule(Rows({1}), results.Callback(i)).ok());
  scheduler->Shutdown(std::chrono::duration_cast<milliseconds>(kLongWait));
  ASSERT_EQ(results.size(), 10u);
  for (int i = 0; i < 10; ++i) EXPECT_TRUE(results.Get(i).ok()) << i;
}

TEST(BatchSchedulerTest, DestroyingAQueueRunsWhatItHolds) {
  FakeClock clock;
  FakeModel model;
  auto scheduler = MakeScheduler(1, &clock);
  auto queue = scheduler->AddQueue("m", Config(8, kHour), model.Fn());
  ASSERT_TRUE(queue.ok());
  Results results;
  for (int i = 0; i < 3; ++i) ASSERT_TRUE((*queue)->Schedule(Rows({1}), results.Callback(i)).ok());
  queue->reset();  // closes: the open batch runs without its timeout
  ASSERT_EQ(results.size(), 3u);
  for (int i = 0; i < 3; ++i) EXPECT_TRUE(results.Get(i).ok());
}

TEST(BatchSchedulerTest, AdaptiveQueueLearnsFromBatchesAndKeepsServing) {
  auto scheduler = MakeScheduler(1);
  FakeModel model;
  BatchingConfig c = Config(32, 0);
  c.mode = BatchingMode::kAdaptive;
  c.target_latency_ms = 1000;
  c.max_enqueued_batches = 10000;
  auto queue = scheduler->AddQueue("m", c, model.Fn());
  ASSERT_TRUE(queue.ok()) << queue.status().ToString();
  EXPECT_NE((*queue)->decision().reason.find("no batch measured"), std::string::npos);
  Results results;
  for (int i = 0; i < 200; ++i) ASSERT_TRUE((*queue)->Schedule(Rows({static_cast<float>(i)}), results.Callback(i)).ok());
  ASSERT_TRUE(results.WaitFor(200));
  for (int i = 0; i < 200; ++i) EXPECT_EQ(Ys(results.Get(i)), (std::vector<float>{2.0f * i + 1}));
  const AdaptiveDecision d = (*queue)->decision();
  EXPECT_EQ(d.reason.find("no batch measured"), std::string::npos) << d.reason;
  EXPECT_GE(d.max_batch_size, 1);
  EXPECT_LE(d.max_batch_size, 32);
}

TEST(BatchSchedulerTest, RejectsInvalidQueueConfig) {
  auto scheduler = MakeScheduler(1);
  BatchingConfig c = Config(4, 0);
  c.allowed_batch_sizes = {2, 3};
  auto queue = scheduler->AddQueue("m", c, FakeModel().Fn());
  TFHOST_EXPECT_ERROR(
      queue, StatusCode::kInvalidArgument,
      "batching queue 'm': BatchingParameters.allowed_batch_sizes must end with max_batch_size (4); got [2, 3]");
  BatchScheduler::Options options;
  options.num_threads = 0;
  TFHOST_EXPECT_ERROR(BatchScheduler::Create(options), StatusCode::kInvalidArgument,
                      "num_batch_threads must be between 1 and 4096, got 0");
}

}  // namespace
}  // namespace tfhost::serving::batching
