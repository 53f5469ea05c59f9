// The REST API of `tfhost serve` as a pure function (method, path, body) ->
// (HTTP status, body), over ServerCore; no sockets here (http/http_server
// carries it). TensorFlow Serving's routes, matched case-insensitively as TF
// Serving does (model names keep their case):
//   GET  /v1/models/{name}[/versions/{v}|/labels/{l}]            model status
//   GET  /v1/models/{name}[/versions/{v}|/labels/{l}]/metadata   signature defs
//   POST /v1/models/{name}[/versions/{v}|/labels/{l}]:predict|:classify|:regress
// Beyond TF Serving:
//   GET  /v1/models   every configured model with its versions and labels
//   GET  /healthz     200 while the process serves (liveness)
//   GET  /readyz      200 once every configured model has an AVAILABLE
//                     version and the server is not draining, else 503
//   GET  <metrics path> Prometheus text (when a metrics path is set)
//   GET  /v1/trace?seconds=N  a trace of the server's next N seconds
//                     (rest/trace_endpoint.h)
//   /v2, /v2/...  the Open Inference Protocol (KServe v2): v2/v2_rest_handler.h
// Errors are {"error": "<message>"} with TF Serving's code -> HTTP status
// mapping (HttpStatusForCode). Model names from paths are only ever looked
// up in the model manager's map; they never reach the file system.
//
// Thread-safety: Handle() and HandleAsync() may be called from many threads
// at once.
#pragma once

#include <atomic>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/status.h"

namespace tfhost::serving {

class ServerCore;
class TraceEndpoint;
namespace v2 {
class V2RestHandler;
}

// Header fields (name as sent, value).
using RestHeaders = std::vector<std::pair<std::string, std::string>>;

struct RestResponse {
  int status = 200;
  std::string body;
  std::string content_type = "application/json";
  RestHeaders headers;  // extra response header fields
};

struct RestApiOptions {
  // Where Prometheus text is served; empty = not served.
  std::string metrics_path = "/monitoring/prometheus/metrics";
  // The server version GET /v2 reports.
  std::string server_version;
  // The longest GET /v1/trace recording, in seconds (at most 60); keep it
  // under the HTTP request timeout.
  int trace_max_seconds = 60;
};

class RestApiHandler {
 public:
  // `core` must outlive the handler.
  RestApiHandler(ServerCore* core, RestApiOptions options);
  ~RestApiHandler();

  // `path` may carry a query string (ignored). Runs models on the calling
  // thread (blocks until they answer).
  RestResponse Handle(std::string_view method, std::string_view path, std::string_view body) const;

  // The same answers without blocking the calling thread on a model run:
  // :predict is parsed here and run with ServerCore::PredictTensorsAsync (a
  // batch thread answers when batching takes it, a worker-pool thread
  // otherwise); :classify and :regress run on the worker pool; everything
  // else (status, metadata, health, metrics) is answered here at once.
  // `respond` is called exactly once, possibly later on another thread; a
  // full worker queue answers 503.
  using Respond = std::function<void(RestResponse)>;
  void HandleAsync(std::string_view method, std::string_view path, std::string body, Respond respond) const;
  // The same with the request's header fields, which the v2 API's binary
  // data extension reads (Inference-Header-Content-Length).
  void HandleAsync(std::string_view method, std::string_view path, const RestHeaders& headers, std::string body,
                   Respond respond) const;

  // While draining (shutdown has begun) /readyz answers 503 so that load
  // balancers stop sending traffic, and a GET /v1/trace recording ends at
  // once (answering what it has); everything else keeps working.
  void SetDraining(bool draining);

 private:
  RestResponse HandleModelsApi(std::string_view method, std::string_view path, std::string_view body) const;

  ServerCore* core_;
  RestApiOptions options_;
  std::atomic<bool> draining_{false};
  std::unique_ptr<v2::V2RestHandler> v2_;
  std::unique_ptr<TraceEndpoint> trace_;
};

// TF Serving's mapping: OK 200, CANCELLED 499, UNKNOWN 500,
// INVALID_ARGUMENT 400, DEADLINE_EXCEEDED 504, NOT_FOUND 404,
// ALREADY_EXISTS 409, PERMISSION_DENIED 403, RESOURCE_EXHAUSTED 429,
// FAILED_PRECONDITION 400, ABORTED 409, OUT_OF_RANGE 400, UNIMPLEMENTED 501,
// INTERNAL 500, UNAVAILABLE 503, DATA_LOSS 500, UNAUTHENTICATED 401.
int HttpStatusForCode(StatusCode code);

// A JSON answer, and the {"error": "<message>"} answer for a status with its
// HTTP status (HttpStatusForCode): the one spelling of both for every route.
RestResponse JsonResponse(int status, std::string body);
RestResponse ErrorResponse(const Status& status);

// ASCII case-insensitive equality, as routes and header names are matched.
bool AsciiEqualsIgnoreCase(std::string_view a, std::string_view b);

}  // namespace tfhost::serving
