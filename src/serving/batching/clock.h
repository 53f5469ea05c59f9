// Time source for batch timeouts and latency measurements, so tests can drive
// the scheduler with a simulated clock instead of sleeping.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>

namespace tfhost::serving::batching {

class Clock {
 public:
  virtual ~Clock() = default;
  // Monotonic microseconds.
  virtual int64_t NowMicros() const = 0;
};

class SteadyClock : public Clock {
 public:
  int64_t NowMicros() const override {
    return std::chrono::duration_cast<std::chrono::microseconds>(
               std::chrono::steady_clock::now().time_since_epoch())
        .count();
  }
};

// The process-wide real clock (never freed).
inline Clock* RealClock() {
  static Clock* clock = new SteadyClock();
  return clock;
}

// A clock that only moves when told to. The scheduler re-reads the clock at
// least every few milliseconds while a batch waits for its timeout, so
// advancing it releases due batches without any extra signal.
class FakeClock : public Clock {
 public:
  explicit FakeClock(int64_t start_micros = 1'000'000) : now_(start_micros) {}
  int64_t NowMicros() const override { return now_.load(); }
  void Advance(int64_t micros) { now_.fetch_add(micros); }

 private:
  std::atomic<int64_t> now_;
};

}  // namespace tfhost::serving::batching
