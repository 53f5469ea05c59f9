// Run-time statistics of one servable's signatures, kept so that front ends
// can run a model measured fast on the thread that received the request
// (REST's I/O thread) instead of handing it to a worker thread and back: for
// a model that runs in microseconds the two thread wake-ups of that hand-off
// cost more than the run. A signature earns that by a streak of runs each
// faster than the caller's limit; one slower run ends the streak, so a model
// that slows down goes back to the worker pool after at most the runs
// already under way. Inputs larger than any of the streak's are not trusted
// to be as fast (a bigger batch may take longer).
//
// Thread-safety: every method may be called from many threads at once.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <shared_mutex>
#include <string>
#include <string_view>

#include "base/tensor.h"

namespace tfhost::serving {

class SignatureRunCosts {
 public:
  // Runs in a row, each under the limit, before a signature may run inline.
  static constexpr int64_t kFastRunsNeeded = 16;

  SignatureRunCosts() = default;
  // A copy starts unmeasured (statistics belong to the servable measured).
  SignatureRunCosts(const SignatureRunCosts&) {}
  SignatureRunCosts& operator=(const SignatureRunCosts&) { return *this; }

  // True when the last kFastRunsNeeded runs of `signature` each took less
  // than the limit given to Record and none had fewer input elements than
  // `input_elements`.
  bool MayRunInline(std::string_view signature, int64_t input_elements) const;

  // Records one run of `signature` that took `elapsed` on inputs of
  // `input_elements` elements in all; a run of at least `limit` ends the
  // signature's streak. Signature names come from the servable's own
  // signatures, so the table stays as small as the model's signature list.
  void Record(std::string_view signature, int64_t input_elements, std::chrono::nanoseconds elapsed,
              std::chrono::nanoseconds limit);

 private:
  struct Entry {
    std::atomic<int64_t> fast_runs{0};
    std::atomic<int64_t> max_fast_elements{0};
  };
  const Entry* Find(std::string_view signature) const;

  mutable std::shared_mutex mu_;
  std::map<std::string, std::unique_ptr<Entry>, std::less<>> entries_;
};

// Elements of all tensors in `inputs` together (the size Record compares).
template <typename TensorMapT>
int64_t TotalElements(const TensorMapT& inputs) {
  int64_t n = 0;
  for (const auto& [name, tensor] : inputs) n += tensor.NumElements();
  return n;
}

}  // namespace tfhost::serving
