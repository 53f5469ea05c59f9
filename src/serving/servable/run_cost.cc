#include "serving/servable/run_cost.h"

#include <mutex>

namespace tfhost::serving {

const SignatureRunCosts::Entry* SignatureRunCosts::Find(std::string_view signature) const {
  std::shared_lock lock(mu_);
  auto it = entries_.find(signature);
  return it == entries_.end() ? nullptr : it->second.get();
}

bool SignatureRunCosts::MayRunInline(std::string_view signature, int64_t input_elements) const {
  const Entry* e = Find(signature);
  // Entries are never removed while the servable lives, so `e` stays valid.
  return e != nullptr && e->fast_runs.load(std::memory_order_relaxed) >= kFastRunsNeeded &&
         input_elements <= e->max_fast_elements.load(std::memory_order_relaxed);
}

void SignatureRunCosts::Record(std::string_view signature, int64_t input_elements, std::chrono::nanoseconds elapsed,
                               std::chrono::nanoseconds limit) {
  auto* e = const_cast<Entry*>(Find(signature));
  if (e == nullptr) {
    std::unique_lock lock(mu_);
    auto& slot = entries_[std::string(signature)];
    if (!slot) slot = std::make_unique<Entry>();
    e = slot.get();
  }
  if (elapsed >= limit) {
    // The streak ends; later runs go through the worker pool until a new
    // streak is measured there.
    e->fast_runs.store(0, std::memory_order_relaxed);
    e->max_fast_elements.store(0, std::memory_order_relaxed);
    return;
  }
  int64_t seen = e->max_fast_elements.load(std::memory_order_relaxed);
  while (input_elements > seen &&
         !e->max_fast_elements.compare_exchange_weak(seen, input_elements, std::memory_order_relaxed)) {
  }
  e->fast_runs.fetch_add(1, std::memory_order_relaxed);
}

}  // namespace tfhost::serving
