#include "ops/tensor_array/step_container.h"

#include <atomic>

namespace tfhost::ops {

namespace {

thread_local StepContainer* current_container = nullptr;

std::atomic<uint64_t> next_object_id{1};

}  // namespace

std::string StepContainer::Add(const std::string& prefix, std::shared_ptr<Resource> object) {
  std::string name = prefix + "#" + std::to_string(next_object_id.fetch_add(1));
  std::lock_guard<std::mutex> lock(mu_);
  objects_[name] = std::move(object);
  return name;
}

std::shared_ptr<Resource> StepContainer::Find(const std::string& name) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = objects_.find(name);
  return it == objects_.end() ? nullptr : it->second;
}

void StepContainer::Remove(const std::string& name) {
  std::lock_guard<std::mutex> lock(mu_);
  objects_.erase(name);
}

StepContainer* StepContainer::Current() {
  if (current_container != nullptr) return current_container;
  // Outside any executor (single-op tests): one container per thread.
  thread_local StepContainer fallback;
  return &fallback;
}

ScopedStepContainer::ScopedStepContainer(StepContainer* container)
    : previous_(current_container), active_(container != nullptr) {
  if (active_) current_container = container;
}

ScopedStepContainer::~ScopedStepContainer() {
  if (active_) current_container = previous_;
}

}  // namespace tfhost::ops
