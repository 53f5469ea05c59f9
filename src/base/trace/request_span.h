// A served request's span and the context its work carries across threads.
//
// A request's span runs from its first byte in to its last byte out, which
// may be on two different I/O threads, and an I/O thread moves on to other
// requests meanwhile, so a request is not drawn on a thread's track (its
// slice would overlap theirs without nesting). Each span gets a request lane
// instead: a track of its own ("request lane 3"), the lowest one free while
// the request lives, so concurrent requests stack up like threads and a
// finished request's lane is reused. The request's wait in a batch queue is
// drawn on its lane, inside its span.
//
// Context: the span (or batch) id that work done on behalf of a request
// belongs to, current on a thread while that work runs (ScopedContext).
// Session::Run records it as its run's parent; the serving worker pool and
// the batch scheduler carry it across their thread hand-offs.
//
// Thread-safety: a RequestSpan is used by one thread at a time (moved
// between them with its request); the free functions may be called from any
// thread.
#pragma once

#include <cstdint>
#include <string>

#include "base/trace/trace.h"

namespace tfhost::trace {

struct Context {
  uint64_t span = 0;  // 0: none
  uint32_t lane = 0;  // the request's lane track; 0: none
};

// The context current on this thread (none unless a ScopedContext set one).
Context CurrentContext();

// Makes `context` current on this thread for the scope.
class ScopedContext {
 public:
  explicit ScopedContext(Context context);
  ~ScopedContext();
  ScopedContext(const ScopedContext&) = delete;
  ScopedContext& operator=(const ScopedContext&) = delete;

 private:
  Context saved_;
};

// Lanes: tracks that no thread has, numbered from kFirstLaneTid.
inline constexpr uint32_t kFirstLaneTid = 1u << 30;
uint32_t AcquireLane();
void ReleaseLane(uint32_t lane);

class RequestSpan {
 public:
  RequestSpan() = default;
  ~RequestSpan() { End(); }
  RequestSpan(RequestSpan&& other) noexcept { *this = std::move(other); }
  RequestSpan& operator=(RequestSpan&& other) noexcept;
  RequestSpan(const RequestSpan&) = delete;
  RequestSpan& operator=(const RequestSpan&) = delete;

  // Starts the span now, if a recording is on and it is not started yet.
  void Begin(std::string name);
  bool active() const { return lane_ != 0; }
  // Only meaningful while active().
  void set_name(std::string name) { name_ = std::move(name); }
  Args& args() { return args_; }
  // What work for this request runs under; none when not active.
  Context context() const { return Context{id_, lane_}; }
  // Records the span (args gain "id") and frees its lane; idempotent.
  void End() {
    if (active()) Finish();
  }

 private:
  void Finish();

  uint64_t id_ = 0;
  uint32_t lane_ = 0;
  int64_t start_ns_ = 0;
  std::string name_;
  Args args_;
};

}  // namespace tfhost::trace
