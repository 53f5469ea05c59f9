// Bounds on what one run of a crafted model can demand from the runtime:
// while-loop iterations per run (--max_loop_iterations) and the nesting of
// function calls (--max_function_depth). TensorFlow bounds neither. tfhost's
// defaults are far above what real models use and finite, so that a loop that
// never ends fails the run instead of holding a serving thread forever
// (docs/cli.md, "Limits").
//
// A LoopBudget lives for one Session::Run; every loop of that run (TF2 While
// bodies, TF1 frame iterations, in nested loops and function bodies too)
// draws from it, so nesting cannot multiply the bound.
//
// Thread-safety: LoopBudget::TryCharge may be called from many threads at
// once (bodies run on the inter-op pool).
#pragma once

#include <atomic>
#include <cstdint>
#include <string>

#include "base/status.h"

namespace tfhost::runtime {

inline constexpr int64_t kDefaultMaxLoopIterations = 10'000'000;
inline constexpr int kDefaultMaxFunctionDepth = 100;

class LoopBudget {
 public:
  // 0: no limit.
  explicit LoopBudget(int64_t max_iterations) : max_(max_iterations) {}

  // Counts one more loop iteration; false once the run has used more than
  // the limit (the caller then returns Exceeded()).
  bool TryCharge() {
    if (max_ <= 0) return true;
    return used_.fetch_add(1, std::memory_order_relaxed) < max_;
  }

  // ResourceExhausted: `where` (the loop) and the flag that raises the limit.
  Status Exceeded(const std::string& where) const {
    return ResourceExhausted(where + ": this run has executed " + std::to_string(max_) +
                             " while-loop iterations, the most one run may (--max_loop_iterations=" +
                             std::to_string(max_) + "; raise it, or 0 for no limit, if the model really loops "
                             "that long)");
  }

  int64_t max() const { return max_; }

 private:
  const int64_t max_;
  std::atomic<int64_t> used_{0};
};

// ResourceExhausted for a call nested deeper than `max_depth` (the runtime's
// check; the inliner's load-time check words it the same way).
inline Status CallDepthExceeded(const std::string& where, int max_depth) {
  return ResourceExhausted(where + ": function calls are nested more than " + std::to_string(max_depth) +
                           " deep (a recursive function?) (--max_function_depth=" + std::to_string(max_depth) + ")");
}

}  // namespace tfhost::runtime
