#include "cli/stop_watchdog.h"

#include <cstdlib>

#include "cli/flags.h"

namespace tfhost::cli {

StopWatchdog::StopWatchdog(std::ostream& err, std::chrono::milliseconds limit) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  thread_ = std::thread([this, &err, deadline, limit] {
    std::unique_lock<std::mutex> lock(mu_);
    if (cv_.wait_until(lock, deadline, [this] { return done_; })) return;
    err << "tfhost serve: the shutdown is still " << phase_.load() << " " << limit.count()
        << " ms after SIGTERM; exiting without finishing it\n";
    err.flush();
    std::_Exit(kExitFailure);
  });
}

StopWatchdog::~StopWatchdog() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    done_ = true;
  }
  cv_.notify_all();
  thread_.join();
}

}  // namespace tfhost::cli
