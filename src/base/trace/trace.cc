#include "base/trace/trace.h"

#include <chrono>
#include <cstdio>
#include <map>
#include <mutex>

#include "base/trace/recorder.h"

namespace tfhost::trace {

namespace internal {
std::atomic<bool> g_enabled{false};
}  // namespace internal

namespace {

std::atomic<uint32_t> g_next_tid{1};
std::atomic<uint64_t> g_next_span{1};

// Track names outlive the threads (a trace written after a pool shut down
// still names its tracks): one short entry per named thread ever started,
// a few hundred bytes per model load.
struct TrackNames {
  std::mutex mu;
  std::map<uint32_t, std::string> names;
};

TrackNames& Names() {
  static TrackNames* names = new TrackNames();
  return *names;
}

}  // namespace

int64_t NowNanos() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

uint32_t ThisThreadId() {
  thread_local const uint32_t id = g_next_tid.fetch_add(1, std::memory_order_relaxed);
  return id;
}

void SetThreadName(std::string name) { SetTrackName(ThisThreadId(), std::move(name)); }

void SetTrackName(uint32_t tid, std::string name) {
  TrackNames& n = Names();
  std::lock_guard<std::mutex> l(n.mu);
  n.names[tid] = std::move(name);
}

std::string TrackName(uint32_t tid) {
  TrackNames& n = Names();
  std::lock_guard<std::mutex> l(n.mu);
  auto it = n.names.find(tid);
  return it == n.names.end() ? std::string() : it->second;
}

void AppendJsonString(std::string_view s, std::string* out) {
  out->push_back('"');
  for (char c : s) {
    const unsigned char u = static_cast<unsigned char>(c);
    if (c == '"' || c == '\\') {
      out->push_back('\\');
      out->push_back(c);
    } else if (c == '\n') {
      out->append("\\n");
    } else if (c == '\t') {
      out->append("\\t");
    } else if (c == '\r') {
      out->append("\\r");
    } else if (u < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof(buf), "\\u%04x", u);
      out->append(buf);
    } else {
      // Bytes >= 0x80 pass through: names are UTF-8 (node names, paths).
      out->push_back(c);
    }
  }
  out->push_back('"');
}

Args& Args::Add(std::string_view key, std::string_view value) {
  std::string json;
  AppendJsonString(value, &json);
  return AddJson(key, json);
}

Args& Args::AddJson(std::string_view key, std::string_view json) {
  if (!members_.empty()) members_.push_back(',');
  AppendJsonString(key, &members_);
  members_.push_back(':');
  members_.append(json);
  return *this;
}

void Record(Event event) {
  if (!Enabled()) return;
  Recorder::Global().Add(std::move(event));
}

uint64_t NewSpanId() { return g_next_span.fetch_add(1, std::memory_order_relaxed); }

void ScopedSlice::Begin(const char* category, std::string_view name) {
  category_ = category;
  name_ = std::string(name);
  start_ns_ = NowNanos();
}

void ScopedSlice::End() {
  Event e;
  e.start_ns = start_ns_;
  e.duration_ns = NowNanos() - start_ns_;
  e.name = std::move(name_);
  e.category = category_;
  e.tid = ThisThreadId();
  e.args = args_.Take();
  Record(std::move(e));
}

}  // namespace tfhost::trace
