// StepTeam: the calling thread and pool workers that stay together for a
// sequence of dependent parallel steps, such as a recurrent layer's time
// steps, each split into the same chunks.
//
// ThreadPool::ParallelFor wakes sleeping workers for every call: about 25 us
// on a 2-vCPU VM, which at 100 steps of 70 us each (an LSTM layer at batch
// 32) is a third of the time, and each call may hand a chunk to another
// core, whose cache does not hold that chunk's weights. A team's helpers
// are pool tasks that spin between steps for as long as the team lives, and
// chunk c goes to member c whenever it is there to take it, so each core
// keeps re-reading its own share.
//
// Nothing waits on a helper: the caller takes every chunk no helper has
// claimed, so a helper that starts late (its pool busy) or leaves early
// only costs speed. A helper leaves when the team ends or as soon as its
// pool has other tasks queued, so a team never holds up the pool's other
// users for longer than a step.
//
// Thread-safety: one thread (the creator) calls Run and destroys the team;
// fn runs on the caller and the helpers at once, one call per chunk.
#pragma once

#include <cstdint>
#include <memory>

#include "base/thread_pool.h"

namespace tfhost {

class StepTeam {
 public:
  // A team for steps of `chunks` chunks, with up to chunks - 1 helpers from
  // `pool` (none when it is null or has no workers).
  StepTeam(ThreadPool* pool, int chunks);
  ~StepTeam();  // helpers go back to the pool
  StepTeam(const StepTeam&) = delete;
  StepTeam& operator=(const StepTeam&) = delete;

  int chunks() const { return chunks_; }

  // Calls fn(c) once for every chunk c in [0, chunks()) and returns when all
  // calls have returned. `fn` must not call Run.
  template <typename Fn>
  void Run(const Fn& fn) {
    RunErased(&fn, [](const void* f, int c) { (*static_cast<const Fn*>(f))(c); });
  }

  struct State;  // shared with the helpers (step_team.cc)

 private:
  void RunErased(const void* fn, void (*call)(const void*, int));

  int chunks_;
  std::shared_ptr<State> state_;
};

}  // namespace tfhost
