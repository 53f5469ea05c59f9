// Timeline tracing: the slices `--trace FILE` and serve's GET /v1/trace
// record. A slice is one piece of work on one track (a thread, or a request
// lane, see request_span.h) with a start, a duration, a name, a category and
// a few arguments: Chrome's trace-event "complete" event. The Recorder
// (recorder.h) collects them while a recording is on; chrome_json.h writes
// them out.
//
// Cost when off: hook sites (Session::Run, the batch scheduler, the HTTP and
// gRPC front ends, predict's pipeline) test Enabled(), one relaxed atomic
// load, and build nothing, read no clock, take no lock unless it is true;
// the executor tests its run's trace id (ExecEnv::trace_run) together with
// the profile pointer it already tested.
//
// Categories name what a slice is, so that tools can filter on them:
//   node      one execution of a graph node (args: op, backend, run)
//   copy      a copy node between memory spaces (args: from, to, bytes)
//   session   one Session::Run (args: id, model, parent)
//   batching  a batch run, or a request's wait in a batch queue
//   request   a served request, from its first byte in to its last byte out
//   predict   a stage of `tfhost predict`'s pipeline
//   cli       a step of a command (load, run)
//
// Thread-safety: every function here may be called from any thread.
#pragma once

#include <atomic>
#include <cstdint>
#include <string>
#include <string_view>
#include <type_traits>

namespace tfhost::trace {

namespace internal {
extern std::atomic<bool> g_enabled;
}  // namespace internal

// Whether a recording is on. A hook that saw false records nothing.
inline bool Enabled() { return internal::g_enabled.load(std::memory_order_relaxed); }

// The trace clock (steady, nanoseconds).
int64_t NowNanos();

// This thread's track id: small, unique in the process, never reused.
uint32_t ThisThreadId();
// Names this thread's track ("batch thread 0"); the name stays for the
// thread's life and appears in every later trace that has its slices.
void SetThreadName(std::string name);
// Names track `tid` (request lanes name their tracks this way).
void SetTrackName(uint32_t tid, std::string name);
// The name given to track `tid`, or "" when none was.
std::string TrackName(uint32_t tid);

// A slice's arguments as the members of a JSON object, built only when the
// slice is recorded.
class Args {
 public:
  Args& Add(std::string_view key, std::string_view value);
  Args& Add(std::string_view key, const char* value) { return Add(key, std::string_view(value)); }
  Args& Add(std::string_view key, const std::string& value) { return Add(key, std::string_view(value)); }
  template <typename T>
    requires std::is_integral_v<T>
  Args& Add(std::string_view key, T value) {
    return AddJson(key, std::to_string(value));
  }
  // `json` is already a JSON value (an array, say).
  Args& AddJson(std::string_view key, std::string_view json);
  bool empty() const { return members_.empty(); }
  // `"k":v,"k2":v2`, without braces.
  const std::string& members() const { return members_; }
  std::string Take() { return std::move(members_); }

 private:
  std::string members_;
};

// Appends `s` as a JSON string literal (quoted, escaped) to `out`.
void AppendJsonString(std::string_view s, std::string* out);

struct Event {
  std::string name;
  const char* category = "";  // a string literal (see the list above)
  uint32_t tid = 0;           // the track
  int64_t start_ns = 0;       // NowNanos()
  int64_t duration_ns = 0;
  std::string args;           // Args::members()
};

// Hands `event` to the recording; dropped when none is on, or when it began
// before the recording did (a slice that straddles the start is cut off
// rather than shown from a moment the trace does not cover).
void Record(Event event);

// A new id for a span (request, batch, run), unique in the process: slices
// name their parents by these ids in their args.
uint64_t NewSpanId();

// Times the enclosing scope as a slice on this thread's track; inert (no
// clock read, no allocation) when no recording was on at construction.
class ScopedSlice {
 public:
  ScopedSlice(const char* category, std::string_view name) : active_(Enabled()) {
    if (active_) Begin(category, name);
  }
  ~ScopedSlice() {
    if (active_) End();
  }
  ScopedSlice(const ScopedSlice&) = delete;
  ScopedSlice& operator=(const ScopedSlice&) = delete;

  bool active() const { return active_; }
  // Only meaningful when active().
  Args& args() { return args_; }

 private:
  void Begin(const char* category, std::string_view name);
  void End();

  bool active_;
  const char* category_ = "";
  int64_t start_ns_ = 0;
  std::string name_;
  Args args_;
};

}  // namespace tfhost::trace
