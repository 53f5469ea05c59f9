// The process's one trace recording: Start turns tracing on (trace.h's
// Enabled() becomes true), hooks hand their slices to Add through
// trace::Record, Stop turns it off and returns what was recorded.
//
// One recording at a time: a second Start while one is on is ABORTED (serve
// answers it 409), because hooks everywhere write to the same recording and
// two overlapping windows could not tell their slices apart.
//
// Memory is bounded: past `max_events` slices the rest are counted in
// Trace::dropped_events and not kept.
//
// Thread-safety: every method may be called from any thread; Add takes one
// mutex per slice (only while recording).
#pragma once

#include <cstdint>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "base/status.h"
#include "base/trace/trace.h"

namespace tfhost::trace {

// What one recording holds.
struct Trace {
  int64_t start_ns = 0;  // NowNanos() at Start
  int64_t end_ns = 0;    // NowNanos() at Stop
  std::vector<Event> events;
  // The named tracks among the events' (tid, name), ascending by tid.
  std::vector<std::pair<uint32_t, std::string>> track_names;
  int64_t dropped_events = 0;  // past max_events
};

class Recorder {
 public:
  static constexpr int64_t kDefaultMaxEvents = 2'000'000;

  static Recorder& Global();

  // Starts recording; `what` names the recording in the error another Start
  // gets meanwhile ("serve --trace", "GET /v1/trace"). ABORTED when a
  // recording is already on; INVALID_ARGUMENT for max_events < 1.
  Status Start(std::string what, int64_t max_events = kDefaultMaxEvents);
  // Stops recording and returns its slices in the order they were added;
  // an empty Trace when none was on.
  Trace Stop();
  bool recording() const;
  // Keeps `event` if a recording is on and it began at or after the start.
  void Add(Event event);

 private:
  Recorder() = default;

  mutable std::mutex mu_;
  bool on_ = false;
  std::string what_;
  int64_t max_events_ = 0;
  Trace trace_;
};

}  // namespace tfhost::trace
