// The Open Inference Protocol's (KServe v2) REST routes, beside TF
// Serving's on the same port (RestApiHandler hands every /v2 path here):
//   GET  /v2                                       server metadata
//   GET  /v2/health/live | /v2/health/ready        200 / 400 (not ready)
//   GET  /v2/models/{name}[/versions/{v}]          model metadata
//   GET  /v2/models/{name}[/versions/{v}]/ready    200 / 400 (not ready)
//   POST /v2/models/{name}[/versions/{v}]/infer    inference (v2_json.h)
//   POST /v2/repository/index                      repository extension
//   POST /v2/repository/models/{name}/load|unload  (v2_repository.h)
// {v} is a version number or a version label. Errors are {"error": "..."}:
// 400 for a bad request, 404 for an unknown model, version or route, 503
// when overloaded or past the drain deadline. Binary responses carry the
// Inference-Header-Content-Length header and the octet-stream content type.
//
// Thread-safety: Handle may be called from many threads at once.
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "serving/rest/rest_api_handler.h"
#include "serving/v2/v2_repository.h"
#include "serving/v2/v2_service.h"

namespace tfhost::serving::v2 {

// The request header of the binary tensor data extension (and its response
// header).
inline constexpr char kInferenceHeaderContentLength[] = "Inference-Header-Content-Length";

class V2RestHandler {
 public:
  // `core` must outlive the handler.
  V2RestHandler(ServerCore* core, std::string server_version);

  // Whether `path` (without query) belongs to this API: "/v2" or "/v2/...".
  static bool Owns(std::string_view path);

  // Answers through `respond`, exactly once: inference through
  // V2Service::InferAsync (a batch or worker thread answers), repository
  // load/unload on the core's worker pool, everything else at once.
  void Handle(std::string_view method, std::string_view path, const RestHeaders& headers, std::string body,
              RestApiHandler::Respond respond) const;

  void SetDraining(bool draining) { service_.SetDraining(draining); }
  V2Service& service() { return service_; }

 private:
  RestResponse HandleMetadataRoutes(std::string_view method, std::string_view path) const;

  ServerCore* core_;
  mutable V2Service service_;
  mutable V2Repository repository_;
};

// The Inference-Header-Content-Length value among `headers` (names compared
// case-insensitively): nullopt when absent; INVALID_ARGUMENT when it is not a
// byte count.
StatusOr<std::optional<size_t>> InferenceHeaderLength(const RestHeaders& headers);

}  // namespace tfhost::serving::v2
