// An input pipeline library modelled on tf.data: sources (file lists by
// glob, TFRecord files, vectors), then shard, interleave, shuffle, parallel
// map, batch and prefetch stages chained on a Pipeline<T>.
//
//   auto batches = ListFiles({"data/train-*"})
//       .Shard(num_workers, worker_index)                       // files, each exactly once
//       .Interleave<std::string>(TFRecordRecords(), {.cycle_length = 4, .block_length = 16})
//       .Shuffle(10000, /*seed=*/42)
//       .Map<Example>(ParseExampleFn(), {.parallelism = 8})
//       .Batch(256, /*drop_remainder=*/true)
//       .Prefetch(2);
//   auto it = batches.MakeIterator();
//   while (auto next = it->Next(); next.ok() && *next) { ... }
//
// A Pipeline is a recipe (cheap to copy); MakeIterator() starts one pass.
// Next() returns a value, nullopt at the end, or an error, after which the
// iterator is done. Every stage holds a bounded number of elements (shuffle
// buffer, map in-flight = 2 x parallelism, prefetch depth, interleave cycle),
// so memory never grows with the data. Cancel() (from any thread) or
// destroying the iterator stops every background thread of the chain and
// joins it; a Next() blocked in a threaded stage returns CANCELLED.
//
// Determinism: with deterministic stages (the default) and a fixed shuffle
// seed, the output order is a pure function of the inputs. Map functions run
// on several threads at once and must be thread-safe.
#pragma once

#include <algorithm>
#include <atomic>
#include <cmath>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <random>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "base/status.h"

namespace tfhost::data::pipeline {

template <typename T>
using NextResult = StatusOr<std::optional<T>>;

template <typename T>
class Iterator {
 public:
  virtual ~Iterator() = default;
  virtual NextResult<T> Next() = 0;
  // Stops this stage and everything upstream. Thread-safe; idempotent.
  virtual void Cancel() = 0;
};

template <typename T>
using IteratorPtr = std::unique_ptr<Iterator<T>>;

inline Status CancelledError() { return Status(StatusCode::kCancelled, "pipeline cancelled"); }

// Parallelism or prefetch depth chosen by the stage itself from measured
// rates (tf.data's AUTOTUNE).
inline constexpr int kAutotune = -1;

// What a stage is doing, for tests and reports (pass one in the options to
// have a stage fill it in; all fields are updated as the stage runs).
struct StageStats {
  std::atomic<int> parallelism{0};     // map: workers allowed to run now
  std::atomic<int> peak_parallelism{0};
  std::atomic<int64_t> depth{0};        // prefetch: buffer size now
  std::atomic<int64_t> peak_depth{0};
  std::atomic<int64_t> peak_buffered{0};  // most elements held at once (in flight + done)
  std::atomic<int64_t> elements{0};
  std::atomic<int> adjustments{0};
};

inline int DefaultThreadBudget() {
  unsigned n = std::thread::hardware_concurrency();
  return n == 0 ? 2 : static_cast<int>(n);
}

struct MapOptions {
  // Workers; kAutotune starts with one and adds workers while the consumer
  // waits on this stage and the measured cost per element says more workers
  // would keep up (removing them again when the consumer stops waiting).
  int parallelism = 1;
  bool deterministic = true;  // false: emit results as they finish
  // Autotune: the most workers (the thread budget); 0 = the number of CPUs.
  int max_parallelism = 0;
  std::shared_ptr<StageStats> stats = nullptr;
};

struct PrefetchOptions {
  // Elements kept ready; kAutotune starts at 1 and doubles the buffer (up
  // to max_depth) whenever the consumer found it empty in a window.
  int depth = 1;
  int max_depth = 64;
  std::shared_ptr<StageStats> stats = nullptr;
};

namespace internal {
inline void RaiseMax(std::atomic<int64_t>& a, int64_t v) {
  int64_t cur = a.load();
  while (v > cur && !a.compare_exchange_weak(cur, v)) {
  }
}
inline void RaiseMax(std::atomic<int>& a, int v) {
  int cur = a.load();
  while (v > cur && !a.compare_exchange_weak(cur, v)) {
  }
}
inline int64_t NowNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}
}  // namespace internal

struct InterleaveOptions {
  int cycle_length = 1;   // inputs open at once
  int block_length = 1;   // consecutive elements taken from each
  bool deterministic = true;
  // Per open input, elements read ahead on a background thread (0: none,
  // read on the caller's thread).
  int prefetch = 0;
};

template <typename T>
class Pipeline;

namespace internal {

// --- simple single-threaded stages ---------------------------------------------

template <typename T>
class VectorIterator : public Iterator<T> {
 public:
  explicit VectorIterator(std::shared_ptr<const std::vector<T>> v) : v_(std::move(v)) {}
  NextResult<T> Next() override {
    if (cancelled_) return CancelledError();
    if (i_ >= v_->size()) return std::optional<T>();
    return std::optional<T>((*v_)[i_++]);
  }
  void Cancel() override { cancelled_ = true; }

 private:
  std::shared_ptr<const std::vector<T>> v_;
  size_t i_ = 0;
  std::atomic<bool> cancelled_{false};
};

template <typename T>
class ShardIterator : public Iterator<T> {
 public:
  ShardIterator(IteratorPtr<T> up, int64_t num, int64_t index) : up_(std::move(up)), num_(num), index_(index) {}
  NextResult<T> Next() override {
    while (true) {
      NextResult<T> r = up_->Next();
      if (!r.ok() || !*r) return r;
      if (seen_++ % num_ == index_) return r;
    }
  }
  void Cancel() override { up_->Cancel(); }

 private:
  IteratorPtr<T> up_;
  int64_t num_, index_, seen_ = 0;
};

template <typename T>
class TakeIterator : public Iterator<T> {
 public:
  TakeIterator(IteratorPtr<T> up, int64_t n) : up_(std::move(up)), left_(n) {}
  NextResult<T> Next() override {
    if (left_ <= 0) return std::optional<T>();
    --left_;
    return up_->Next();
  }
  void Cancel() override { up_->Cancel(); }

 private:
  IteratorPtr<T> up_;
  int64_t left_;
};

// Keeps `buffer` elements; each Next hands out a uniformly chosen one and
// refills its place from upstream (tf.data's shuffle buffer).
template <typename T>
class ShuffleIterator : public Iterator<T> {
 public:
  ShuffleIterator(IteratorPtr<T> up, size_t buffer, uint64_t seed) : up_(std::move(up)), cap_(buffer), rng_(seed) {}
  NextResult<T> Next() override {
    while (!up_done_ && buf_.size() < cap_) {
      NextResult<T> r = up_->Next();
      if (!r.ok()) return r.status();
      if (!*r) {
        up_done_ = true;
        break;
      }
      buf_.push_back(std::move(**r));
    }
    if (buf_.empty()) return std::optional<T>();
    size_t i = static_cast<size_t>(rng_() % buf_.size());
    std::swap(buf_[i], buf_.back());
    std::optional<T> out(std::move(buf_.back()));
    buf_.pop_back();
    return out;
  }
  void Cancel() override { up_->Cancel(); }

 private:
  IteratorPtr<T> up_;
  size_t cap_;
  std::mt19937_64 rng_;
  std::vector<T> buf_;
  bool up_done_ = false;
};

template <typename T>
class BatchIterator : public Iterator<std::vector<T>> {
 public:
  BatchIterator(IteratorPtr<T> up, size_t n, bool drop_remainder)
      : up_(std::move(up)), n_(n), drop_remainder_(drop_remainder) {}
  NextResult<std::vector<T>> Next() override {
    std::vector<T> batch;
    batch.reserve(n_);
    while (batch.size() < n_) {
      NextResult<T> r = up_->Next();
      if (!r.ok()) return r.status();
      if (!*r) break;
      batch.push_back(std::move(**r));
    }
    if (batch.empty() || (drop_remainder_ && batch.size() < n_)) return std::optional<std::vector<T>>();
    return std::optional<std::vector<T>>(std::move(batch));
  }
  void Cancel() override { up_->Cancel(); }

 private:
  IteratorPtr<T> up_;
  size_t n_;
  bool drop_remainder_;
};

// --- threaded stages -----------------------------------------------------------

// One background thread keeps up to `depth` elements ready.
template <typename T>
class PrefetchIterator : public Iterator<T> {
 public:
  PrefetchIterator(IteratorPtr<T> up, size_t depth) : PrefetchIterator(std::move(up), PrefetchOptions{.depth = static_cast<int>(depth)}) {}
  PrefetchIterator(IteratorPtr<T> up, PrefetchOptions options)
      : up_(std::move(up)), options_(std::move(options)) {
    autotune_ = options_.depth == kAutotune;
    if (options_.max_depth < 1) options_.max_depth = 1;
    depth_ = autotune_ ? 1 : static_cast<size_t>(std::max(1, options_.depth));
    if (options_.stats) options_.stats->depth = static_cast<int64_t>(depth_);
    if (options_.stats) RaiseMax(options_.stats->peak_depth, static_cast<int64_t>(depth_));
    thread_ = std::thread([this] { Run(); });
  }
  ~PrefetchIterator() override {
    Cancel();
    thread_.join();
  }
  NextResult<T> Next() override {
    std::unique_lock<std::mutex> l(mu_);
    if (autotune_) Tune();
    cv_.wait(l, [&] { return cancelled_ || !queue_.empty() || finished_; });
    if (cancelled_) return CancelledError();
    if (!queue_.empty()) {
      NextResult<T> r = std::move(queue_.front());
      queue_.pop_front();
      cv_.notify_all();
      if (options_.stats) ++options_.stats->elements;
      return r;
    }
    return std::optional<T>();
  }
  void Cancel() override {
    {
      std::lock_guard<std::mutex> l(mu_);
      cancelled_ = true;
    }
    cv_.notify_all();
    up_->Cancel();
  }
  // Whether Next() would return at once.
  bool Ready() {
    std::lock_guard<std::mutex> l(mu_);
    return cancelled_ || !queue_.empty() || finished_;
  }

 private:
  void Run() {
    while (true) {
      {
        std::unique_lock<std::mutex> l(mu_);
        cv_.wait(l, [&] { return cancelled_ || queue_.size() < depth_; });
        if (cancelled_) return;
      }
      NextResult<T> r = up_->Next();
      bool last = !r.ok() || !*r;
      std::lock_guard<std::mutex> l(mu_);
      if (!last || !r.ok()) queue_.push_back(std::move(r));
      if (options_.stats) RaiseMax(options_.stats->peak_buffered, static_cast<int64_t>(queue_.size()));
      if (last) finished_ = true;
      cv_.notify_all();
      if (last) return;
    }
  }

  // Called with mu_ held on each Next(): the buffer doubles when the
  // consumer found it empty in the last window of kWindow calls (the
  // producer is bursty or slower than the consumer at times, and a deeper
  // buffer rides that out), up to max_depth, so memory stays bounded.
  void Tune() {
    constexpr int kWindow = 32;
    if (queue_.empty() && !finished_) ++starved_;
    if (++calls_ < kWindow) return;
    if (starved_ > 0 && depth_ < static_cast<size_t>(options_.max_depth)) {
      depth_ = std::min(depth_ * 2, static_cast<size_t>(options_.max_depth));
      cv_.notify_all();
      if (options_.stats) {
        options_.stats->depth = static_cast<int64_t>(depth_);
        RaiseMax(options_.stats->peak_depth, static_cast<int64_t>(depth_));
        ++options_.stats->adjustments;
      }
    }
    calls_ = 0;
    starved_ = 0;
  }

  IteratorPtr<T> up_;
  PrefetchOptions options_;
  bool autotune_ = false;
  size_t depth_ = 1;
  int calls_ = 0, starved_ = 0;
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<NextResult<T>> queue_;
  bool cancelled_ = false, finished_ = false;
  std::thread thread_;
};

// `parallelism` workers apply fn; at most 2 x parallelism elements are in
// flight. Deterministic mode emits in input order through a reorder buffer.
template <typename T, typename U>
class ParallelMapIterator : public Iterator<U> {
 public:
  using Fn = std::function<StatusOr<U>(T)>;
  ParallelMapIterator(IteratorPtr<T> up, Fn fn, MapOptions options)
      : up_(std::move(up)), fn_(std::move(fn)), options_(std::move(options)) {
    autotune_ = options_.parallelism == kAutotune;
    budget_ = options_.max_parallelism > 0 ? options_.max_parallelism : DefaultThreadBudget();
    int n = autotune_ ? 1 : std::max(1, options_.parallelism);
    std::lock_guard<std::mutex> l(mu_);
    SetActive(n);
    last_return_ns_ = NowNs();
  }
  ~ParallelMapIterator() override {
    Cancel();
    for (auto& w : workers_) w.join();
  }
  NextResult<U> Next() override {
    std::unique_lock<std::mutex> l(mu_);
    int64_t enter = autotune_ ? NowNs() : 0;
    cv_.wait(l, [&] {
      return cancelled_ || failed_ || Available() || (end_seq_ >= 0 && emitted_ >= end_seq_);
    });
    if (cancelled_) return CancelledError();
    if (failed_ || !Available()) return std::optional<U>();
    auto it = options_.deterministic ? done_.find(emitted_) : done_.begin();
    NextResult<U> r = std::move(it->second);
    done_.erase(it);
    ++emitted_;
    if (options_.stats) ++options_.stats->elements;
    if (autotune_) {
      int64_t now = NowNs();
      window_wait_ns_ += now - enter;
      window_consumer_ns_ += enter - last_return_ns_;
      last_return_ns_ = now;
      if (++window_elements_ >= kTuneWindow) Tune(now);
    }
    cv_.notify_all();
    if (!r.ok()) {
      // Nothing after an error is emitted; workers stop pulling.
      failed_ = true;
      up_done_ = true;
      done_.clear();
    }
    return r;
  }
  void Cancel() override {
    {
      std::lock_guard<std::mutex> l(mu_);
      cancelled_ = true;
    }
    cv_.notify_all();
    up_->Cancel();
  }

 private:
  bool Available() const {
    return options_.deterministic ? done_.count(emitted_) > 0 : !done_.empty();
  }

  static constexpr int64_t kTuneWindow = 16;

  // With mu_ held: lets `n` workers run (starting threads as needed; the
  // others park) and bounds the elements in flight to 2 per worker.
  void SetActive(int n) {
    active_ = n;
    max_in_flight_ = 2 * static_cast<int64_t>(n);
    while (static_cast<int>(workers_.size()) < n) {
      int index = static_cast<int>(workers_.size());
      workers_.emplace_back([this, index] { Work(index); });
    }
    if (options_.stats) {
      options_.stats->parallelism = n;
      RaiseMax(options_.stats->peak_parallelism, n);
    }
    cv_.notify_all();
  }

  // The model behind autotuning (with mu_ held, every kTuneWindow
  // elements): one worker delivers an element per `fn` time; the consumer
  // takes one per `consumer` time (its own work between calls). Keeping up
  // needs ceil(fn / consumer) workers. Workers are added only while the
  // consumer actually waits on this stage (>= 5% of the window), at most
  // doubling per window and never beyond the thread budget; one is removed
  // when the consumer (almost) never waited and fewer would still keep up.
  void Tune(int64_t now) {
    double fn_ns = fn_count_ > 0 ? static_cast<double>(fn_ns_) / fn_count_ : 0;
    double consumer_ns = static_cast<double>(window_consumer_ns_) / window_elements_;
    double window_ns = static_cast<double>(std::max<int64_t>(1, window_wait_ns_ + window_consumer_ns_));
    double wait_share = window_wait_ns_ / window_ns;
    int needed = budget_;
    if (consumer_ns > 0 && fn_ns > 0) {
      needed = static_cast<int>(std::min<double>(budget_, std::ceil(fn_ns * 1.1 / consumer_ns)));
    }
    needed = std::max(1, needed);
    int next = active_;
    if (wait_share >= 0.05 && needed > active_) {
      next = std::min({needed, 2 * active_, budget_});
    } else if (wait_share < 0.002 && needed < active_) {
      next = active_ - 1;
    }
    if (next != active_) {
      SetActive(next);
      if (options_.stats) ++options_.stats->adjustments;
    }
    window_elements_ = 0;
    window_wait_ns_ = 0;
    window_consumer_ns_ = 0;
    fn_ns_ = 0;
    fn_count_ = 0;
    (void)now;
  }

  void Work(int index) {
    while (true) {
      {
        std::unique_lock<std::mutex> l(mu_);
        cv_.wait(l, [&] {
          return cancelled_ || up_done_ || (index < active_ && pulled_ - emitted_ < max_in_flight_);
        });
        if (cancelled_ || up_done_) return;
      }
      int64_t seq = 0;
      NextResult<T> in = std::optional<T>();
      bool full = false;
      {
        // Pulls are serialised and numbered in pull order. The in-flight
        // bound is checked again here: several workers may have passed the
        // wait above at once, and only the first may take the last free place.
        std::lock_guard<std::mutex> pl(pull_mu_);
        {
          std::lock_guard<std::mutex> l(mu_);
          if (up_done_ || cancelled_) return;
          full = index >= active_ || pulled_ - emitted_ >= max_in_flight_;
        }
        if (!full) in = up_->Next();
        std::lock_guard<std::mutex> l(mu_);
        if (!full) seq = pulled_++;
        if (!full && (!in.ok() || !*in)) {
          up_done_ = true;
          if (!in.ok()) {
            done_.emplace(seq, in.status());
            end_seq_ = seq + 1;
          } else {
            end_seq_ = seq;
          }
          cv_.notify_all();
          return;
        }
      }
      if (full) continue;
      int64_t start = autotune_ ? NowNs() : 0;
      StatusOr<U> out = fn_(std::move(**in));
      std::lock_guard<std::mutex> l(mu_);
      if (autotune_) {
        fn_ns_ += NowNs() - start;
        ++fn_count_;
      }
      if (options_.stats) {
        RaiseMax(options_.stats->peak_buffered, pulled_ - emitted_);
      }
      if (out.ok()) {
        done_.emplace(seq, std::optional<U>(std::move(*out)));
      } else {
        done_.emplace(seq, out.status());
      }
      cv_.notify_all();
    }
  }

  IteratorPtr<T> up_;
  Fn fn_;
  MapOptions options_;
  bool autotune_ = false;
  int budget_ = 1;
  int active_ = 0;
  // Autotune measurements (under mu_).
  int64_t last_return_ns_ = 0, window_elements_ = 0, window_wait_ns_ = 0, window_consumer_ns_ = 0;
  int64_t fn_ns_ = 0, fn_count_ = 0;
  int64_t max_in_flight_ = 2;
  std::mutex pull_mu_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::map<int64_t, NextResult<U>> done_;
  int64_t pulled_ = 0, emitted_ = 0, end_seq_ = -1;
  bool up_done_ = false, cancelled_ = false, failed_ = false;
  std::vector<std::thread> workers_;
};

// Opens up to cycle_length inputs at once and takes block_length elements
// from each in turn; an exhausted input is replaced in its slot by the next.
template <typename In, typename T>
class InterleaveIterator : public Iterator<T> {
 public:
  using Fn = std::function<Pipeline<T>(const In&)>;
  InterleaveIterator(IteratorPtr<In> inputs, Fn fn, InterleaveOptions options)
      : inputs_(std::move(inputs)), fn_(std::move(fn)), options_(options) {
    if (options_.cycle_length < 1) options_.cycle_length = 1;
    if (options_.block_length < 1) options_.block_length = 1;
    slots_.resize(static_cast<size_t>(options_.cycle_length));
  }
  NextResult<T> Next() override {
    while (true) {
      if (cancelled_) return CancelledError();
      Status fill = FillSlots();
      if (!fill.ok()) return fill;
      if (OpenSlots() == 0) return std::optional<T>();
      if (!options_.deterministic && options_.prefetch > 0) {
        // Take from the first slot (in cycle order) that has data ready.
        if (!AnyReady()) {
          std::this_thread::sleep_for(std::chrono::microseconds(50));
          continue;
        }
        while (!slots_[cur_].prefetch || !slots_[cur_].prefetch->Ready()) Advance();
      } else if (!slots_[cur_].it) {
        Advance();
        continue;
      }
      Slot& s = slots_[cur_];
      NextResult<T> r = s.it->Next();
      if (!r.ok()) return r;
      if (!*r) {
        {
          std::lock_guard<std::mutex> l(slots_mu_);
          s = Slot();  // refilled from the inputs on the next pass
        }
        Advance();
        continue;
      }
      if (++s.taken >= options_.block_length) Advance();
      return r;
    }
  }
  void Cancel() override {
    cancelled_ = true;
    inputs_->Cancel();
    std::lock_guard<std::mutex> l(slots_mu_);
    for (auto& s : slots_) {
      if (s.it) s.it->Cancel();
    }
  }

 private:
  struct Slot {
    IteratorPtr<T> it;
    PrefetchIterator<T>* prefetch = nullptr;
    int taken = 0;
  };
  void Advance() {
    slots_[cur_].taken = 0;
    cur_ = (cur_ + 1) % slots_.size();
  }
  size_t OpenSlots() const {
    size_t n = 0;
    for (const auto& s : slots_) n += s.it != nullptr;
    return n;
  }
  bool AnyReady() const {
    for (const auto& s : slots_) {
      if (s.prefetch && s.prefetch->Ready()) return true;
    }
    return false;
  }
  Status FillSlots() {
    for (auto& s : slots_) {
      if (s.it || inputs_done_) continue;
      NextResult<In> in = inputs_->Next();
      if (!in.ok()) return in.status();
      if (!*in) {
        inputs_done_ = true;
        break;
      }
      IteratorPtr<T> it = fn_(**in).MakeIterator();
      if (options_.prefetch > 0) {
        auto p = std::make_unique<PrefetchIterator<T>>(std::move(it), static_cast<size_t>(options_.prefetch));
        s.prefetch = p.get();
        it = std::move(p);
      }
      std::lock_guard<std::mutex> l(slots_mu_);
      s.it = std::move(it);
      s.taken = 0;
    }
    return OkStatus();
  }

  IteratorPtr<In> inputs_;
  Fn fn_;
  InterleaveOptions options_;
  std::mutex slots_mu_;  // slot replacement vs. Cancel() from another thread
  std::vector<Slot> slots_;
  size_t cur_ = 0;
  bool inputs_done_ = false;
  std::atomic<bool> cancelled_{false};
};

}  // namespace internal

template <typename T>
class Pipeline {
 public:
  using Factory = std::function<IteratorPtr<T>()>;
  explicit Pipeline(Factory factory) : factory_(std::move(factory)) {}

  IteratorPtr<T> MakeIterator() const { return factory_(); }

  static Pipeline FromVector(std::vector<T> values) {
    auto shared = std::make_shared<const std::vector<T>>(std::move(values));
    return Pipeline([shared] { return IteratorPtr<T>(new internal::VectorIterator<T>(shared)); });
  }

  // Keeps elements i with i % num_shards == index. On a file list this gives
  // each worker disjoint files covering all of them.
  Pipeline Shard(int64_t num_shards, int64_t index) const {
    auto f = factory_;
    if (num_shards < 1) num_shards = 1;
    index = ((index % num_shards) + num_shards) % num_shards;
    return Pipeline([f, num_shards, index] {
      return IteratorPtr<T>(new internal::ShardIterator<T>(f(), num_shards, index));
    });
  }

  Pipeline Take(int64_t n) const {
    auto f = factory_;
    return Pipeline([f, n] { return IteratorPtr<T>(new internal::TakeIterator<T>(f(), n)); });
  }

  // Seeded shuffle buffer: same seed and input, same order.
  Pipeline Shuffle(size_t buffer_size, uint64_t seed) const {
    auto f = factory_;
    if (buffer_size < 1) buffer_size = 1;
    return Pipeline([f, buffer_size, seed] {
      return IteratorPtr<T>(new internal::ShuffleIterator<T>(f(), buffer_size, seed));
    });
  }

  template <typename U>
  Pipeline<U> Map(std::function<StatusOr<U>(T)> fn, MapOptions options = {}) const {
    auto f = factory_;
    return Pipeline<U>([f, fn, options] {
      return IteratorPtr<U>(new internal::ParallelMapIterator<T, U>(f(), fn, options));
    });
  }

  Pipeline<std::vector<T>> Batch(size_t batch_size, bool drop_remainder = false) const {
    auto f = factory_;
    if (batch_size < 1) batch_size = 1;
    return Pipeline<std::vector<T>>([f, batch_size, drop_remainder] {
      return IteratorPtr<std::vector<T>>(new internal::BatchIterator<T>(f(), batch_size, drop_remainder));
    });
  }

  Pipeline Prefetch(size_t depth) const {
    auto f = factory_;
    return Pipeline([f, depth] { return IteratorPtr<T>(new internal::PrefetchIterator<T>(f(), depth)); });
  }
  // Prefetch with options: Prefetch({.depth = kAutotune}).
  Pipeline Prefetch(PrefetchOptions options) const {
    auto f = factory_;
    return Pipeline([f, options] { return IteratorPtr<T>(new internal::PrefetchIterator<T>(f(), options)); });
  }

  // Each element opens a pipeline (fn(element)); their outputs interleave.
  template <typename U>
  Pipeline<U> Interleave(std::function<Pipeline<U>(const T&)> fn, InterleaveOptions options = {}) const {
    auto f = factory_;
    return Pipeline<U>([f, fn, options] {
      return IteratorPtr<U>(new internal::InterleaveIterator<T, U>(f(), fn, options));
    });
  }

 private:
  Factory factory_;
};

}  // namespace tfhost::data::pipeline
