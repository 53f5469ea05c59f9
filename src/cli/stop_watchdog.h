// A last line of defence for `tfhost serve`'s shutdown. The drain is bounded
// by --shutdown_timeout_ms, but a model run that never returns (or a bug in a
// library below us) could still hold the stop forever, leaving a process that
// ignores SIGTERM until someone sends SIGKILL, with nothing in its log. Past
// its limit the watchdog says which phase of the stop was stuck and exits
// the process with kExitFailure.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <ostream>
#include <thread>

namespace tfhost::cli {

class StopWatchdog {
 public:
  // Starts counting now; `err` gets the one line written before exiting.
  StopWatchdog(std::ostream& err, std::chrono::milliseconds limit);
  // Stops the watchdog (the stop finished in time).
  ~StopWatchdog();
  StopWatchdog(const StopWatchdog&) = delete;
  StopWatchdog& operator=(const StopWatchdog&) = delete;

  // Names what the stop is doing now ("draining requests", ...); a string literal.
  void Phase(const char* name) { phase_.store(name); }

 private:
  std::atomic<const char*> phase_{"starting"};
  std::mutex mu_;
  std::condition_variable cv_;
  bool done_ = false;
  std::thread thread_;
};

}  // namespace tfhost::cli
