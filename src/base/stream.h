// Stream: an ordered queue of work on one device (a CUDA stream, say). A
// backend whose kernels enqueue work rather than finish it before returning
// hands its stream to each kernel through KernelContext::stream(); CPU
// backends have none (null): their kernels are done when they return.
//
// Contract: work enqueued on one stream runs in order; Synchronize waits for
// all of it and returns the first error any of it hit.
// Thread-safety: a stream may be used from several threads; the order of
// work enqueued concurrently from two threads is whatever order it arrives.
#pragma once

#include <string>

#include "base/memory_space.h"
#include "base/status.h"

namespace tfhost {

class Stream {
 public:
  virtual ~Stream() = default;
  virtual std::string name() const = 0;
  virtual MemorySpace space() const = 0;
  virtual Status Synchronize() = 0;
};

}  // namespace tfhost
