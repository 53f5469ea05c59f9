#include "base/trace/recorder.h"

#include <algorithm>
#include <set>

namespace tfhost::trace {

Recorder& Recorder::Global() {
  // Never destroyed: hooks on threads that outlive main's statics may still
  // ask it whether to record.
  static Recorder* recorder = new Recorder();
  return *recorder;
}

Status Recorder::Start(std::string what, int64_t max_events) {
  if (max_events < 1) {
    return InvalidArgument("trace recording '" + what + "': max_events must be at least 1, got " +
                           std::to_string(max_events));
  }
  std::lock_guard<std::mutex> l(mu_);
  if (on_) {
    return Status(StatusCode::kAborted, "a trace is already being recorded (" + what_ + "); " + what +
                                            " can start once it ends");
  }
  on_ = true;
  what_ = std::move(what);
  max_events_ = max_events;
  trace_ = Trace();
  trace_.start_ns = NowNanos();
  internal::g_enabled.store(true, std::memory_order_relaxed);
  return OkStatus();
}

Trace Recorder::Stop() {
  Trace out;
  {
    std::lock_guard<std::mutex> l(mu_);
    if (!on_) return out;
    internal::g_enabled.store(false, std::memory_order_relaxed);
    on_ = false;
    out = std::move(trace_);
    trace_ = Trace();
  }
  out.end_ns = NowNanos();
  std::set<uint32_t> tids;
  for (const Event& e : out.events) tids.insert(e.tid);
  for (uint32_t tid : tids) {
    std::string name = TrackName(tid);
    if (!name.empty()) out.track_names.emplace_back(tid, std::move(name));
  }
  return out;
}

bool Recorder::recording() const {
  std::lock_guard<std::mutex> l(mu_);
  return on_;
}

void Recorder::Add(Event event) {
  std::lock_guard<std::mutex> l(mu_);
  if (!on_ || event.start_ns < trace_.start_ns) return;
  if (static_cast<int64_t>(trace_.events.size()) >= max_events_) {
    ++trace_.dropped_events;
    return;
  }
  trace_.events.push_back(std::move(event));
}

}  // namespace tfhost::trace
