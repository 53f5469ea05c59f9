#include "base/trace/request_span.h"

#include <mutex>
#include <set>

namespace tfhost::trace {

namespace {

thread_local Context t_context;

struct Lanes {
  std::mutex mu;
  std::set<uint32_t> free;  // released lanes, reused lowest first
  uint32_t next = kFirstLaneTid;
};

Lanes& AllLanes() {
  static Lanes* lanes = new Lanes();
  return *lanes;
}

}  // namespace

Context CurrentContext() { return t_context; }

ScopedContext::ScopedContext(Context context) : saved_(t_context) { t_context = context; }

ScopedContext::~ScopedContext() { t_context = saved_; }

uint32_t AcquireLane() {
  Lanes& lanes = AllLanes();
  uint32_t lane;
  {
    std::lock_guard<std::mutex> l(lanes.mu);
    if (!lanes.free.empty()) {
      lane = *lanes.free.begin();
      lanes.free.erase(lanes.free.begin());
      return lane;
    }
    lane = lanes.next++;
  }
  SetTrackName(lane, "request lane " + std::to_string(lane - kFirstLaneTid));
  return lane;
}

void ReleaseLane(uint32_t lane) {
  if (lane < kFirstLaneTid) return;
  Lanes& lanes = AllLanes();
  std::lock_guard<std::mutex> l(lanes.mu);
  lanes.free.insert(lane);
}

RequestSpan& RequestSpan::operator=(RequestSpan&& other) noexcept {
  if (this == &other) return *this;
  End();
  id_ = other.id_;
  lane_ = other.lane_;
  start_ns_ = other.start_ns_;
  name_ = std::move(other.name_);
  args_ = std::move(other.args_);
  other.id_ = 0;
  other.lane_ = 0;
  return *this;
}

void RequestSpan::Begin(std::string name) {
  if (active() || !Enabled()) return;
  // The lane first, then the clock: the lane's previous span ended before it
  // was released, so the two cannot overlap on the track.
  lane_ = AcquireLane();
  start_ns_ = NowNanos();
  id_ = NewSpanId();
  name_ = std::move(name);
  args_ = Args();
}

void RequestSpan::Finish() {
  Event e;
  e.start_ns = start_ns_;
  e.duration_ns = NowNanos() - start_ns_;
  e.name = std::move(name_);
  e.category = "request";
  e.tid = lane_;
  std::string members = "\"id\":" + std::to_string(id_);
  if (!args_.empty()) members += "," + args_.members();
  e.args = std::move(members);
  Record(std::move(e));
  ReleaseLane(lane_);
  id_ = 0;
  lane_ = 0;
  args_ = Args();
}

}  // namespace tfhost::trace
