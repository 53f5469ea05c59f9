// GET /v1/trace?seconds=N on serve's REST port: records a trace of the whole
// server (base/trace/recorder.h) for N seconds and answers it as Chrome
// trace-event JSON (base/trace/chrome_json.h), ready for Perfetto or
// chrome://tracing. The waiting happens on a thread of its own, so no I/O
// thread is held.
//
// Answers:
//   200  the trace (application/json)
//   400  seconds missing, not a whole number, or outside 1..max_seconds
//        (max_seconds stays under the REST request timeout, so that the
//        answer is never cut off by a 504); another query parameter
//   409  a recording is already on (another GET /v1/trace, or serve
//        --trace FILE, which records the whole run)
//   503  the server is stopping
// A server that begins to stop (Stop, when it starts draining) during a
// recording ends it early and answers what it recorded so far, so that the
// drain does not wait out the window.
//
// Thread-safety: Handle may be called from many threads at once.
#pragma once

#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <string_view>

#include "base/status.h"
#include "serving/rest/rest_api_handler.h"

namespace tfhost::serving {

class TraceEndpoint {
 public:
  static constexpr int kMaxSeconds = 60;

  // `max_seconds`: the longest recording asked for (at most kMaxSeconds).
  explicit TraceEndpoint(int max_seconds);
  // Stop(), then waits for the recording's thread.
  ~TraceEndpoint();

  // Ends a recording in progress now (it answers what it has); later
  // requests get 503.
  void Stop();

  // `target`: the request's path and query string.
  void Handle(std::string_view target, RestApiHandler::Respond respond);

  // The seconds the query string asks for; INVALID_ARGUMENT naming the
  // parameter and the accepted range otherwise.
  static StatusOr<int> ParseSeconds(std::string_view query, int max_seconds);

 private:
  struct State {
    std::mutex mu;
    std::condition_variable cv;
    bool stopping = false;
    int running = 0;  // recording threads not yet finished
  };
  int max_seconds_;
  std::shared_ptr<State> state_ = std::make_shared<State>();
};

}  // namespace tfhost::serving
