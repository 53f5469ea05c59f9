#include "serving/rest/trace_endpoint.h"

#include <algorithm>
#include <chrono>
#include <string>
#include <thread>

#include "base/trace/chrome_json.h"
#include "base/trace/recorder.h"

namespace tfhost::serving {

TraceEndpoint::TraceEndpoint(int max_seconds) : max_seconds_(std::min(max_seconds, kMaxSeconds)) {}

TraceEndpoint::~TraceEndpoint() {
  Stop();
  std::unique_lock<std::mutex> l(state_->mu);
  state_->cv.wait(l, [&] { return state_->running == 0; });
}

void TraceEndpoint::Stop() {
  std::lock_guard<std::mutex> l(state_->mu);
  state_->stopping = true;
  state_->cv.notify_all();
}

StatusOr<int> TraceEndpoint::ParseSeconds(std::string_view query, int max_seconds) {
  if (max_seconds < 1) {
    return InvalidArgument("GET /v1/trace is off: the REST request timeout (--rest_api_timeout_in_ms) leaves no "
                           "whole second to record in");
  }
  const std::string range = "a whole number of seconds from 1 to " + std::to_string(max_seconds);
  std::string_view seconds;
  bool found = false;
  while (!query.empty()) {
    const size_t amp = query.find('&');
    std::string_view param = query.substr(0, amp);
    query = amp == std::string_view::npos ? std::string_view() : query.substr(amp + 1);
    if (param.empty()) continue;
    const size_t eq = param.find('=');
    const std::string_view key = param.substr(0, eq);
    if (key != "seconds") {
      return InvalidArgument("GET /v1/trace: unknown query parameter '" + std::string(key) +
                             "'; it takes seconds=N, " + range);
    }
    found = true;
    seconds = eq == std::string_view::npos ? std::string_view() : param.substr(eq + 1);
  }
  if (!found) return InvalidArgument("GET /v1/trace needs the query parameter seconds=N, " + range);
  int value = 0;
  bool digits = !seconds.empty() && seconds.size() <= 4;
  for (char c : seconds) {
    if (c < '0' || c > '9') digits = false;
    if (digits) value = value * 10 + (c - '0');
  }
  if (!digits || value < 1 || value > max_seconds) {
    return InvalidArgument("GET /v1/trace: query parameter 'seconds' must be " + range + ", got '" +
                           std::string(seconds) + "'");
  }
  return value;
}

void TraceEndpoint::Handle(std::string_view target, RestApiHandler::Respond respond) {
  const size_t question = target.find('?');
  const std::string_view query = question == std::string_view::npos ? std::string_view() : target.substr(question + 1);
  auto seconds = ParseSeconds(query, max_seconds_);
  if (!seconds.ok()) return respond(ErrorResponse(seconds.status()));
  std::shared_ptr<State> state = state_;
  {
    std::lock_guard<std::mutex> l(state->mu);
    if (state->stopping) return respond(ErrorResponse(Unavailable("GET /v1/trace: the server is stopping")));
    if (Status st = trace::Recorder::Global().Start("GET /v1/trace?seconds=" + std::to_string(*seconds)); !st.ok()) {
      return respond(ErrorResponse(st));
    }
    ++state->running;
  }
  std::thread([state, seconds = *seconds, respond = std::move(respond)] {
    {
      std::unique_lock<std::mutex> l(state->mu);
      state->cv.wait_for(l, std::chrono::seconds(seconds), [&] { return state->stopping; });
    }
    const trace::Trace recorded = trace::Recorder::Global().Stop();
    respond(JsonResponse(200, trace::ToChromeJson(recorded, "tfhost serve")));
    std::lock_guard<std::mutex> l(state->mu);
    --state->running;
    state->cv.notify_all();
  }).detach();
}

}  // namespace tfhost::serving
