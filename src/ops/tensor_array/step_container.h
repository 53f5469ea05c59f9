// Per-Run state that must die with the run: TensorArrays. TensorFlow keeps
// them in the step's own container, not in the session's resources, so a
// dynamic_rnn that never closes its arrays does not leak one per call.
//
// The executor makes a StepContainer current (ScopedStepContainer) around
// every kernel it calls; kernels reach it through StepContainer::Current().
// Kernels run outside any executor (ops::RunSingleOp) get a container that
// lives as long as their thread.
//
// Thread-safety: Add/Find are thread-safe; the objects guard themselves.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "ops/resource_manager.h"

namespace tfhost::ops {

class StepContainer {
 public:
  // Stores `object` under a fresh name (unique within the process) and
  // returns the name, which a DT_RESOURCE handle carries.
  std::string Add(const std::string& prefix, std::shared_ptr<Resource> object);
  // The object behind `name`, or null when it is unknown (closed, or from
  // another run).
  std::shared_ptr<Resource> Find(const std::string& name) const;
  void Remove(const std::string& name);

  // The container of the run on this thread (never null).
  static StepContainer* Current();

 private:
  friend class ScopedStepContainer;
  mutable std::mutex mu_;
  std::map<std::string, std::shared_ptr<Resource>> objects_;
};

// Makes `container` current on this thread for its lifetime (null: leave the
// current one as it is).
class ScopedStepContainer {
 public:
  explicit ScopedStepContainer(StepContainer* container);
  ~ScopedStepContainer();
  ScopedStepContainer(const ScopedStepContainer&) = delete;
  ScopedStepContainer& operator=(const ScopedStepContainer&) = delete;

 private:
  StepContainer* previous_;
  bool active_;
};

}  // namespace tfhost::ops
