#include "base/step_team.h"

#include <atomic>
#include <thread>
#include <vector>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif

namespace tfhost {

namespace {

inline void CpuRelax() {
#if defined(__x86_64__) || defined(__i386__)
  _mm_pause();
#else
  std::this_thread::yield();
#endif
}

// Spins on the CPU this many times (a pause each, tens of nanoseconds)
// before yielding it between polls, so that a team on a machine with more
// runnable threads than CPUs gives way to them.
constexpr int kSpinsBeforeYield = 4096;

}  // namespace

struct StepTeam::State {
  explicit State(int chunks) : claims(chunks) {
    for (auto& c : claims) c.store(0, std::memory_order_relaxed);
  }

  // The step being run (1, 2, ...); 0 before the first, -1 once the team ends.
  std::atomic<int64_t> step{0};
  // Per chunk, the last step that claimed it.
  std::vector<std::atomic<int64_t>> claims;
  // Chunks of the current step done.
  std::atomic<int> finished{0};
  // The current step's function; set before `step` is published.
  const void* fn = nullptr;
  void (*call)(const void*, int) = nullptr;

  // Runs the chunks of `s` this thread can claim, `first` first.
  void RunChunks(int64_t s, int first) {
    const int n = static_cast<int>(claims.size());
    for (int k = 0; k < n; ++k) {
      const int c = (first + k) % n;
      int64_t seen = claims[c].load(std::memory_order_relaxed);
      if (seen >= s || !claims[c].compare_exchange_strong(seen, s, std::memory_order_acq_rel)) continue;
      call(fn, c);
      finished.fetch_add(1, std::memory_order_release);
    }
  }
};

StepTeam::StepTeam(ThreadPool* pool, int chunks) : chunks_(chunks < 1 ? 1 : chunks) {
  state_ = std::make_shared<State>(chunks_);
  const int helpers = pool == nullptr ? 0 : std::min(pool->num_threads(), chunks_ - 1);
  for (int m = 1; m <= helpers; ++m) {
    std::shared_ptr<State> state = state_;
    pool->Schedule([state, m, pool] {
      int64_t last = 0;
      for (;;) {
        int64_t s;
        int spins = 0;
        while ((s = state->step.load(std::memory_order_acquire)) == last) {
          // Leave the pool to the tasks queued behind this one: the caller
          // runs the chunks no helper takes.
          if (pool->HasQueuedTasks()) return;
          if (++spins < kSpinsBeforeYield) {
            CpuRelax();
          } else {
            std::this_thread::yield();
          }
        }
        if (s < 0) return;
        last = s;
        state->RunChunks(s, m);
      }
    });
  }
}

StepTeam::~StepTeam() { state_->step.store(-1, std::memory_order_release); }

void StepTeam::RunErased(const void* fn, void (*call)(const void*, int)) {
  State& st = *state_;
  st.fn = fn;
  st.call = call;
  st.finished.store(0, std::memory_order_relaxed);
  const int64_t s = st.step.load(std::memory_order_relaxed) + 1;
  st.step.store(s, std::memory_order_release);
  st.RunChunks(s, 0);
  // Chunks claimed by helpers still running.
  int spins = 0;
  while (st.finished.load(std::memory_order_acquire) != chunks_) {
    if (++spins < kSpinsBeforeYield) {
      CpuRelax();
    } else {
      std::this_thread::yield();
    }
  }
}

}  // namespace tfhost
